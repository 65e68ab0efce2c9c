"""Value types for what a player writes: marks, placements and scores.

A `Mark` is one thing written in one field: `Y7@4` is a 7 in the yellow row at column 4.
Rows are named by the short labels of the layout (Qwinto O/Y/P, Knister and twenty one
A-E), so the text form needs no game to read. A `Placement` is one player's whole answer
to a roll: some marks, or one of the special actions (a failed attempt, a cross-out, a
pass) that the rules ask for when nothing is written.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Union

from .errors import InvalidInput

Value = Union[int, str]

# Special placements, spelled as the player would say them.
ENTER = "enter"   # one or more marks
PASS = "pass"     # a player who need not act writes nothing (Qwinto non-rollers)
FAIL = "fail"     # Qwinto: the roller records a failed attempt
CROSS = "cross"   # twenty one: cross out the leftmost empty field of the current row
MISTHROW = "misthrow"  # The Choice: a misthrow mark (used by that game)
SPECIAL_KINDS = (PASS, FAIL, CROSS, MISTHROW)

_MARK_RE = re.compile(r"^([A-Za-z]+)(\d+|[a-z]+)@(\d+)$")


@dataclass(frozen=True, slots=True, order=True)
class Mark:
    row: str
    col: int
    value: Value

    def __str__(self) -> str:
        return f"{self.row}{self.value}@{self.col}"

    @classmethod
    def parse(cls, text: str) -> "Mark":
        m = _MARK_RE.match(text.strip())
        if not m:
            raise InvalidInput(
                f"'{text}' is not a mark: write ROW VALUE @ COLUMN, e.g. Y7@4")
        row, value, col = m.groups()
        return cls(row.upper(), int(col), int(value) if value.isdigit() else value)


@dataclass(frozen=True, slots=True)
class Placement:
    """One player's action on one roll: `marks` (kind "enter") or a special kind."""

    kind: str = ENTER
    marks: tuple[Mark, ...] = ()

    def __post_init__(self) -> None:
        if self.kind == ENTER and not self.marks:
            raise InvalidInput("a placement must write at least one mark")
        if self.kind != ENTER and self.marks:
            raise InvalidInput(f"a '{self.kind}' writes no marks")
        # one canonical order, so that equal placements compare and hash equal
        object.__setattr__(self, "marks", tuple(sorted(self.marks)))

    @classmethod
    def of(cls, *marks: Mark) -> "Placement":
        return cls(ENTER, tuple(marks))

    @classmethod
    def special(cls, kind: str) -> "Placement":
        return cls(kind, ())

    def __str__(self) -> str:
        return " ".join(str(m) for m in self.marks) if self.kind == ENTER else self.kind

    @classmethod
    def parse(cls, text: str) -> "Placement":
        """`Y7@4`, `A1@5 A3@3` (several marks), `pass`, `fail`, `cross`, `misthrow`."""
        words = text.replace(",", " ").replace("+", " ").split()
        if not words:
            raise InvalidInput("empty placement")
        if len(words) == 1 and words[0].lower() in SPECIAL_KINDS:
            return cls.special(words[0].lower())
        return cls(ENTER, tuple(Mark.parse(w) for w in words))


@dataclass(frozen=True, slots=True)
class ScoreLine:
    label: str
    points: int
    detail: str = ""

    def __str__(self) -> str:
        tail = f"  ({self.detail})" if self.detail else ""
        return f"{self.label}: {self.points}{tail}"


@dataclass(frozen=True, slots=True)
class Score:
    """A total with the line-by-line breakdown a player checks against paper."""

    lines: tuple[ScoreLine, ...] = field(default_factory=tuple)

    def __init__(self, lines: Iterable[ScoreLine] = ()) -> None:
        object.__setattr__(self, "lines", tuple(lines))

    @property
    def total(self) -> int:
        return sum(line.points for line in self.lines)

    def __int__(self) -> int:
        return self.total

    def __str__(self) -> str:
        return "\n".join([*map(str, self.lines), f"total: {self.total}"])

    def to_json(self) -> dict:
        return {"total": self.total,
                "lines": [{"label": l.label, "points": l.points, "detail": l.detail}
                          for l in self.lines]}

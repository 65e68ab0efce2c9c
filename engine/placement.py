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
from .reasons import Reason, declare

declare({
    "placement.not_mark": "'{text}' is not a mark: write ROW VALUE @ COLUMN, e.g. Y7@4",
    "placement.no_marks": "a placement must write at least one mark",
    "placement.special_marks": "a '{kind}' writes no marks",
    "placement.empty": "empty placement",
    "placement.no_order": "'{text}': a '{kind}' has no marks to order",
})

Value = Union[int, str]

# Special placements, spelled as the player would say them.
ENTER = "enter"   # one or more marks
PASS = "pass"     # a player who need not act writes nothing (Qwinto non-rollers)
FAIL = "fail"     # Qwinto: the roller records a failed attempt
CROSS = "cross"   # twenty one: cross out the leftmost empty field of the current row
MISTHROW = "misthrow"  # The Choice: a misthrow mark (used by that game)
SPECIAL_KINDS = (PASS, FAIL, CROSS, MISTHROW)

# ROW VALUE @ COL [/ DICE]. An upper-case row label ends where the value starts, so a
# word value reads unambiguously ("Acow@3" is a cow in row A, "Rred@2" red in row R).
_MARK_RE = re.compile(r"^([A-Z]+|[A-Za-z]+?)(\d+|[a-z]+)@(\d+)(?:/([1-9]+))?$")


@dataclass(frozen=True, slots=True, order=True)
class Mark:
    """`row`, `col`: the field; `value`: what is written there.

    `dice` optionally records which dice of the roll produced the mark, as 1-based
    positions in the roll (The Choice: `N7@4/12` is a 7 made of dice 1 and 2). Games
    that do not need it leave it empty, and the text form is then unchanged.
    """

    row: str
    col: int
    value: Value
    dice: tuple[int, ...] = ()

    def __str__(self) -> str:
        tail = "/" + "".join(map(str, self.dice)) if self.dice else ""
        return f"{self.row}{self.value}@{self.col}{tail}"

    @classmethod
    def parse(cls, text: str) -> "Mark":
        m = _MARK_RE.match(text.strip())
        if not m:
            raise InvalidInput(Reason("placement.not_mark", text=text))
        row, value, col, dice = m.groups()
        return cls(row.upper(), int(col), int(value) if value.isdigit() else value,
                   tuple(int(d) for d in dice) if dice else ())

    def to_json(self) -> dict:
        """The mark as data (a page reads it without parsing the text): its text, field
        (`row`, `col`), `value` and the `dice` it was made of."""
        return {"text": str(self), "row": self.row, "col": self.col, "value": self.value,
                "dice": list(self.dice)}


def _mark_key(mark: Mark):
    # the dataclass order, made safe for a number and a word in the same field
    return (mark.row, mark.col, isinstance(mark.value, str), mark.value, mark.dice)


@dataclass(frozen=True, slots=True)
class Placement:
    """One player's action on one roll: `marks` (kind "enter") or a special kind.

    Marks are kept in one canonical order so that equal placements compare equal. When
    the order in which marks are made matters (The Choice draws its number line in
    order), the placement is `ordered`: its marks keep the order given and its text
    form separates them with " > ".
    """

    kind: str = ENTER
    marks: tuple[Mark, ...] = ()
    ordered: bool = False

    def __post_init__(self) -> None:
        if self.kind == ENTER and not self.marks:
            raise InvalidInput(Reason("placement.no_marks"))
        if self.kind != ENTER and self.marks:
            raise InvalidInput(Reason("placement.special_marks", kind=self.kind))
        if self.ordered or len(self.marks) == 1:
            object.__setattr__(self, "marks", tuple(self.marks))
        else:
            # one canonical order, so that equal placements compare and hash equal
            object.__setattr__(self, "marks", tuple(sorted(self.marks, key=_mark_key)))

    @classmethod
    def of(cls, *marks: Mark) -> "Placement":
        return cls(ENTER, tuple(marks))

    @classmethod
    def special(cls, kind: str) -> "Placement":
        return cls(kind, ())

    def __str__(self) -> str:
        if self.kind != ENTER:
            return self.kind
        return (" > " if self.ordered else " ").join(str(m) for m in self.marks)

    @classmethod
    def parse(cls, text: str) -> "Placement":
        """`Y7@4`, `A1@5 A3@3` (several marks), `pass`, `fail`, `cross`, `misthrow`;
        `N8@4/1 > N5@8/2` keeps its marks in the order written."""
        ordered = ">" in text
        words = text.replace(",", " ").replace("+", " ").replace(">", " ").split()
        if not words:
            raise InvalidInput(Reason("placement.empty"))
        if len(words) == 1 and words[0].lower() in SPECIAL_KINDS:
            if ordered:
                raise InvalidInput(Reason("placement.no_order", text=text.strip(),
                                          kind=words[0].lower()))
            return cls.special(words[0].lower())
        return cls(ENTER, tuple(Mark.parse(w) for w in words), ordered)

    def to_json(self) -> dict:
        """The placement as data: its text (what is sent back to play it), `kind`, whether
        its marks are `ordered`, and its `marks` (`Mark.to_json`) in their order."""
        return {"text": str(self), "kind": self.kind, "ordered": self.ordered,
                "marks": [m.to_json() for m in self.marks]}


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
                "lines": [{"label": line.label, "points": line.points, "detail": line.detail}
                          for line in self.lines]}

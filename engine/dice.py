"""Value types for dice and rolls.

A die is what a camera or a person reports: the colour of its body (or of its face, for
The Choice) and the face showing on top. Faces are numbers 1-6 or, for Kuh Vadis, "cow".
Everything here is immutable and hashable so that rolls can be used as keys and compared.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Union

from .errors import InvalidInput

Face = Union[int, str]

FACE_WORDS = {"cow"}


def parse_face(text: str) -> Face:
    text = text.strip().lower()
    if text in FACE_WORDS:
        return text
    try:
        face = int(text)
    except ValueError:
        raise InvalidInput(f"'{text}' is not a die face (a number or 'cow')") from None
    if not 1 <= face <= 6:
        raise InvalidInput(f"a die face must be 1-6, not {face}")
    return face


@dataclass(frozen=True, slots=True)
class Die:
    """One die: `colour` is None for dice whose colour does not matter (Knister)."""

    colour: str | None
    face: Face

    def __str__(self) -> str:
        return f"{self.colour}:{self.face}" if self.colour else str(self.face)

    @classmethod
    def parse(cls, text: str) -> "Die":
        """`orange:3`, `3`, `cow`, `green:cow` (colours are lower-cased)."""
        text = text.strip()
        if not text:
            raise InvalidInput("empty die")
        if ":" in text:
            colour, _, face = text.partition(":")
            colour = colour.strip().lower()
            if not colour.replace("_", "").isalpha():
                raise InvalidInput(f"'{colour}' is not a colour name (in die '{text}')")
            return cls(colour, parse_face(face))
        return cls(None, parse_face(text))


@dataclass(frozen=True, slots=True)
class Roll:
    """The dice of one attempt, in the order they were reported."""

    dice: tuple[Die, ...]

    def __init__(self, dice: Iterable[Die]) -> None:
        object.__setattr__(self, "dice", tuple(dice))

    def __str__(self) -> str:
        return " ".join(str(d) for d in self.dice)

    def __iter__(self):
        return iter(self.dice)

    def __len__(self) -> int:
        return len(self.dice)

    @classmethod
    def parse(cls, text: str) -> "Roll":
        """`"orange:3 purple:5"` (commas also separate dice)."""
        parts = text.replace(",", " ").split()
        if not parts:
            raise InvalidInput("the roll has no dice")
        return cls(Die.parse(p) for p in parts)

    @property
    def faces(self) -> tuple[Face, ...]:
        return tuple(d.face for d in self.dice)

    @property
    def colours(self) -> tuple[str | None, ...]:
        return tuple(d.colour for d in self.dice)

    @property
    def total(self) -> int:
        """Sum of the numeric faces (cows count nothing)."""
        return sum(f for f in self.faces if isinstance(f, int))

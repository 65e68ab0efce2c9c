"""Value types for dice and rolls.

A die is what a camera or a person reports: the colour of its body (or of its face, for
The Choice) and the face showing on top. Faces are numbers 1-6 or the name of a symbol a game
declares (`DiceSpec.symbols`: Kuh Vadis' "cow"); a text is parsed with the symbols of the game
it is for (`Game.parse_roll`). Everything here is immutable and hashable so that rolls can be
used as keys and compared.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Collection, Iterable, Union

from .errors import InvalidInput
from .reasons import Reason, declare

declare({
    "dice.not_face": "'{text}' is not a die face (a number)",
    "dice.not_face_or": "'{text}' is not a die face (a number or {cor})",
    "dice.face_range": "a die face must be 1-6, not {face}",
    "dice.empty_die": "empty die",
    "dice.not_colour": "'{name}' is not a colour name (in die '{text}')",
    "dice.no_dice": "the roll has no dice",
})

Face = Union[int, str]


def parse_face(text: str, symbols: Collection[str] = ()) -> Face:
    """A face: a number 1-6 or one of `symbols` (the names of the game's picture faces)."""
    text = text.strip().lower()
    if text in symbols:
        return text
    try:
        face = int(text)
    except ValueError:
        if not symbols:
            raise InvalidInput(Reason("dice.not_face", text=text)) from None
        # the symbols are typed as they are ('cow'): only the " or " between them is words
        words = " or ".join(f"'{s}'" for s in sorted(symbols))
        raise InvalidInput(Reason("dice.not_face_or", text=text, cor=words)) from None
    if not 1 <= face <= 6:
        raise InvalidInput(Reason("dice.face_range", face=face))
    return face


@dataclass(frozen=True, slots=True)
class Die:
    """One die: `colour` is None for dice whose colour does not matter (Knister)."""

    colour: str | None
    face: Face

    def __str__(self) -> str:
        return f"{self.colour}:{self.face}" if self.colour else str(self.face)

    @classmethod
    def parse(cls, text: str, symbols: Collection[str] = ()) -> "Die":
        """`orange:3`, `3`, `cow`, `green:cow` (colours are lower-cased; a word face must be
        one of `symbols`)."""
        text = text.strip()
        if not text:
            raise InvalidInput(Reason("dice.empty_die"))
        if ":" in text:
            colour, _, face = text.partition(":")
            colour = colour.strip().lower()
            if not colour.replace("_", "").isalpha():
                raise InvalidInput(Reason("dice.not_colour", name=colour, text=text))
            return cls(colour, parse_face(face, symbols))
        return cls(None, parse_face(text, symbols))


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
    def parse(cls, text: str, symbols: Collection[str] = ()) -> "Roll":
        """`"orange:3 purple:5"` (commas also separate dice); `symbols`: the word faces taken
        (`DiceSpec.symbol_names`)."""
        parts = text.replace(",", " ").split()
        if not parts:
            raise InvalidInput(Reason("dice.no_dice"))
        return cls(Die.parse(p, symbols) for p in parts)

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


def face_key(face: Face) -> tuple:
    """Numbers first in order, then symbols by name."""
    return (0, face, "") if isinstance(face, int) else (1, 0, str(face))


@dataclass(frozen=True, slots=True)
class DieKind:
    """The dice of one colour a game rolls (`colour` None: colourless, like Knister's).

    `faces`: every face the game takes for such a die; `usual`: the faces it shows on the
    dice of this layout (The Choice prints a colour beside each number, so a colour comes up
    with three numbers only); the same as `faces` where every face is usual."""

    colour: str | None
    faces: tuple[Face, ...]
    usual: tuple[Face, ...] | None = None

    def to_json(self) -> dict:
        usual = self.faces if self.usual is None else self.usual
        return {"colour": self.colour, "faces": sorted(self.faces, key=face_key),
                "usual": sorted(usual, key=face_key)}


@dataclass(frozen=True, slots=True)
class Symbol:
    """A face that is a picture, not a number: `name` ("cow") is printed on the die's face
    `side` (1-6), the face a plain die shows with `side` pips, so a reader of pips reads the
    picture as `side` (Kuh Vadis' cow is the sixth face)."""

    name: str
    side: int

    def __post_init__(self) -> None:
        if not (self.name.isascii() and self.name.isalpha() and self.name.islower()):
            raise ValueError(f"a symbol's name is lower-case letters (typed in a roll and a "
                             f"mark), not {self.name!r}")
        if not 1 <= self.side <= 6:
            raise ValueError(f"a symbol is printed on a face 1-6, not {self.side}")


@dataclass(frozen=True, slots=True)
class DiceSpec:
    """The dice of a game, declared by the game: what a person can tap or a camera report.

    `kinds`: one per colour; `min_dice`-`max_dice` dice are rolled at once;
    `repeat_colours`: several dice of one colour at once (Knister's two plain dice);
    `symbols`: faces that are pictures, not numbers, and where each is printed (Kuh Vadis'
    cow); `colours_on_faces`: the colours are printed on the faces beside the numbers (The
    Choice), not the dice's bodies, so a die's colour changes with the face it shows."""

    kinds: tuple[DieKind, ...]
    min_dice: int
    max_dice: int
    repeat_colours: bool
    symbols: tuple[Symbol, ...] = ()
    colours_on_faces: bool = False

    @property
    def colours(self) -> tuple[str | None, ...]:
        return tuple(k.colour for k in self.kinds)

    @property
    def symbol_names(self) -> frozenset[str]:
        """The word faces a person may type for these dice (`Roll.parse`)."""
        return frozenset(s.name for s in self.symbols)

    def to_json(self) -> dict:
        """`symbols`: their names; `symbol_sides`: name -> the face it is printed on."""
        kinds = sorted(self.kinds, key=lambda k: "" if k.colour is None else k.colour)
        return {"colours": [k.to_json() for k in kinds], "min_dice": self.min_dice,
                "max_dice": self.max_dice, "repeat_colours": self.repeat_colours,
                "symbols": [s.name for s in self.symbols],
                "symbol_sides": {s.name: s.side for s in self.symbols},
                "colours_on_faces": self.colours_on_faces}

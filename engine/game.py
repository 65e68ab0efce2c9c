"""The protocol every game speaks, and the checked boundary around it.

A game object is built from one validated layout and is immutable. Sheets are immutable
values too: `apply` returns a new sheet, so undo is keeping the old one (a snapshot).

The fast core (`legal`, `apply`) trusts its caller: `apply` is only ever handed a
placement that `legal` offered. Everything from a person or a camera goes through
`play`, which checks the placement and raises `IllegalPlacement` with the rule's reason,
leaving the sheet unchanged.
"""
from __future__ import annotations

import random
from functools import cached_property
from typing import Any, ClassVar, Iterable, Iterator, Sequence

from .dice import DiceSpec, Roll
from .errors import IllegalPlacement, InvalidInput
from .placement import Placement, Score
from .reasons import Reason, declare

declare({
    "game.sheet_keys": "'{key}' is not part of a {game} sheet (its parts: {known})",
    "table.players": "{game} is played by {a}-{b} players, not {n}",
    "app.players_exactly": "{game} is played by {a} players, not {n}",
    "game.no_sides": "{game} has no sheet sides to choose",
    "game.no_erase": "{game} has no erasing: undo your entry to this roll instead",
    "game.no_side": "{game} has no sheet side to end",
    "game.face": "'{die}' does not show a face 1-6",
    "game.one_field": "the sum is written into exactly one field",
    "game.sum": "the dice add up to {total}, not {v}",
    "row.label": "row {r}",
    "game.first_random": "drawn at random",
    # a sheet typed as JSON or in the grid (`sheet_from_json`, `sheet_from_grid`); `what`
    # names the part, as text ("'grid'") or as a reason ("row.label")
    "game.list": "{what} must be a list",
    "game.entries": "{what} must have {n} entries, not {m}",
    "game.whole": "{what} must be a whole number",
    "app.no_grid": "{game} has no grid entry yet: type the sheet as JSON",
})

ROLLER = "roller"
OTHER = "other"
ROLES = (ROLLER, OTHER)


class LegalPlacements:
    """A view of the legal placements: iterable, sized, supports `in` and truth testing.

    Computed once on first use, so `if legal:` and `p in legal` cost one generation.
    """

    __slots__ = ("_make", "_items", "_set")

    def __init__(self, make) -> None:
        self._make = make
        self._items: tuple[Placement, ...] | None = None
        self._set: frozenset[Placement] | None = None

    def _all(self) -> tuple[Placement, ...]:
        if self._items is None:
            self._items = tuple(self._make())
        return self._items

    def __iter__(self) -> Iterator[Placement]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def __bool__(self) -> bool:
        return bool(self._all())

    def __contains__(self, placement: object) -> bool:
        if self._set is None:
            self._set = frozenset(self._all())
        return placement in self._set

    def count(self) -> int:
        return len(self)

    def as_set(self) -> frozenset[Placement]:
        if self._set is None:
            self._set = frozenset(self._all())
        return self._set


class Game:
    """Base class: one subclass per game, class attributes say what differs."""

    name: ClassVar[str]               # "qwinto", "knister", ...
    title: ClassVar[str]              # "Qwinto"
    min_players: ClassVar[int] = 1
    max_players: ClassVar[int] = 6
    max_attempts: ClassVar[int] = 2   # rolls a roller may make per turn
    # which dice a further attempt throws, as `reroll_problem` checks it (the pages say so):
    # "same" the dice of the first (Qwinto), "not_ones" all but those showing 1 (twenty one),
    # "any" any of them (The Choice, Kuh Vadis)
    rerolls: ClassVar[str] = "same"
    # how a placement's text reads, with an example, where it is not plain "ROW VALUE@COLUMN"
    # (the terminal game prints it once; the pages draw the sheet instead)
    notation: ClassVar[str] = ""
    # the roll is written as the sum of its dice (Qwinto, Knister): the pages show the sum
    writes_sum: ClassVar[bool] = False
    # an answer may write several fields at once (twenty one): the pages let a player choose
    # the fields, then write them, on every roll, also on one that fits a single field
    several_fields: ClassVar[bool] = False
    # One sheet shared by every seat (Kuh Vadis' pad): a placement by one seat is
    # written on everybody's sheet, and the pages draw it once.
    shared_sheet: ClassVar[bool] = False
    # How the players leave to chance who rolls first (a new table's "who begins"); the
    # drawn seat is handed to `begin_with`.
    first_drawn: ClassVar[Reason] = Reason("game.first_random")

    @cached_property
    def sheet_keys(self) -> frozenset[str]:
        """The parts of this game's sheets as JSON (`sheet_to_json`'s keys): `known_keys`
        refuses any other."""
        return frozenset(self.sheet_to_json(self.new_sheet()))

    def __init__(self, layout: Any) -> None:
        self.layout = layout

    @classmethod
    def check_player_count(cls, n: int) -> None:
        """``InvalidInput`` unless ``n`` players can play ("played by 2 players", "1-6 players")."""
        if not cls.min_players <= n <= cls.max_players:
            if cls.min_players == cls.max_players:
                raise InvalidInput(Reason("app.players_exactly", game=cls.title,
                                          a=cls.min_players, n=n))
            raise InvalidInput(Reason("table.players", game=cls.title, a=cls.min_players,
                                      b=cls.max_players, n=n))

    # -- sheets --------------------------------------------------------------------
    def new_sheet(self):
        raise NotImplementedError

    def sheet_to_json(self, sheet) -> dict:
        raise NotImplementedError

    def sheet_from_json(self, data: Any):
        """Read a sheet typed in by a person; shape errors raise `InvalidInput`.

        Rule problems are *not* raised here: `problems()` lists them all, so a
        paper sheet with mistakes can still be loaded and checked.
        """
        raise NotImplementedError

    def problems(self, sheet) -> list[str]:
        """Every rule the sheet breaks, each as a sentence (empty when it is fine)."""
        raise NotImplementedError

    # -- dice ----------------------------------------------------------------------
    def dice_spec(self) -> DiceSpec:
        """The dice this game (with its layout) rolls: colours, faces, how many, symbols."""
        raise NotImplementedError

    def parse_roll(self, text: str) -> Roll:
        """A roll typed for this game (`Roll.parse`): its word faces are the names of the
        symbols its dice declare (`DiceSpec.symbols`); `InvalidInput` when the text is not a
        roll. Whether the dice fit the game is `roll_problem`'s to say."""
        return Roll.parse(text, self.dice_spec().symbol_names)

    def roll_problem(self, roll: Roll) -> str | None:
        """Why this roll cannot be a roll of this game (wrong dice), or None."""
        raise NotImplementedError

    def reroll_problem(self, first: Roll, second: Roll) -> str | None:
        """Why `second` cannot be the second attempt after `first`, or None."""
        raise NotImplementedError

    def random_roll(self, rng: random.Random, previous: Roll | None = None) -> Roll:
        """A roll as a player would make it (the roller's choices drawn from `rng`)."""
        raise NotImplementedError

    # -- placements ----------------------------------------------------------------
    def legal(self, sheet, roll: Roll, role: str = ROLLER) -> LegalPlacements:
        return LegalPlacements(lambda: self._legal(sheet, roll, role))

    def _legal(self, sheet, roll: Roll, role: str) -> Iterable[Placement]:
        raise NotImplementedError

    def apply(self, sheet, placement: Placement):
        """Unchecked: write a placement that `legal` offered. Returns a new sheet."""
        raise NotImplementedError

    def apply_result(self, sheet, roll: Roll, role: str, placement: Placement):
        """Unchecked: write `placement` as the answer of `role` to `roll`.

        The default is `apply`; a game whose result depends on the roll as well as on the
        marks (a Kuh Vadis quad gives another turn) overrides this.
        """
        return self.apply(sheet, placement)

    def gives_another_turn(self, roll: Roll, placement: Placement) -> bool:
        """Whether this answer to `roll` lets the roller roll again at once (a Kuh Vadis
        quad). The default: never."""
        return False

    def canonical(self, placement: Placement) -> Placement:
        """The form `legal` offers for an equivalent placement (for `in` tests)."""
        return placement

    def why_illegal(self, sheet, roll: Roll, role: str, placement: Placement) -> str | None:
        """The rule's reason why `placement` is not allowed, or None if it is."""
        raise NotImplementedError

    def seat_mark(self, seat: int) -> Reason | None:
        """What `seat` marks with where the seats mark one sheet differently (Kuh Vadis:
        "crosses (X)"), else None: the pages name it beside the player."""
        return None

    def roll_gives_nothing(self, roll: Roll) -> Reason | None:
        """Why `roll` lets no field be written whatever the sheet, by the roll alone (Kuh
        Vadis: no two cows, no three or more of a number), or None: the pages say it beside
        "no field can take this roll"."""
        return None

    def play(self, sheet, roll: Roll, role: str, placement: Placement):
        """Checked `apply`: refuses with the rule's reason, sheet unchanged."""
        if role not in ROLES:
            raise InvalidInput(f"unknown role '{role}': use 'roller' or 'other'")
        problem = self.roll_problem(roll)
        if problem:
            raise InvalidInput(problem)
        reason = self.why_illegal(sheet, roll, role, placement)
        if reason:
            raise IllegalPlacement(reason)
        return self.apply_result(sheet, roll, role, placement)

    # -- turns (hooks for the table; the defaults fit Qwinto, Knister, twenty one) ---
    def must_answer(self, role: str) -> bool:
        """Whether a player in `role` answers every roll (Kuh Vadis: the roller only)."""
        return True

    def first_roller(self, sheets: Sequence[Any]) -> int:
        """The seat that rolls first at a new table (Kuh Vadis: whoever the pad says)."""
        return 0

    def roller_after(self, roller: int, sheets: Sequence[Any], players: int) -> int:
        """The seat that rolls after a completed turn of `roller` (sheets as they are now).

        The default passes the dice to the next seat; Kuh Vadis keeps them with a
        player who marked a quad.
        """
        return (roller + 1) % players

    def begin_with(self, sheets: Sequence[Any], seat: int) -> tuple:
        """The sheets of a new table whose first roller is `seat` (Kuh Vadis: the pad says
        whose move it is). The default leaves them as they are."""
        return tuple(sheets)

    def sides(self) -> tuple[str, ...]:
        """The sides of a sheet a player chooses to start on (The Choice), else ()."""
        return ()

    def start_side_problem(self, sheet, side: str) -> str | None:
        """Why this sheet may not be turned to start on `side` now, or None if it may."""
        return Reason("game.no_sides", game=self.title)

    def start_on(self, sheet, side: str):
        """Unchecked: a blank sheet that starts on `side`."""
        raise NotImplementedError

    def erase_problem(self, sheet, row: str, col: int) -> str | None:
        """Why the number in field (row, col) may not be erased, or None if it may (Qwinto:
        a number found wrong later is erased and its field crossed out)."""
        return Reason("game.no_erase", game=self.title)

    def erasable(self, sheet) -> list[tuple[str, int]]:
        """The fields (row, col) whose number may be erased (default: none)."""
        return []

    def erase(self, sheet, row: str, col: int):
        """Unchecked: erase the number in field (row, col). Returns a new sheet."""
        raise NotImplementedError

    def end_side_problem(self, sheet) -> str | None:
        """Why this sheet's side may not be ended voluntarily now, or None if it may."""
        return Reason("game.no_side", game=self.title)

    def end_side(self, sheet):
        """Unchecked: end the current side voluntarily (The Choice). Returns a new sheet."""
        raise NotImplementedError

    # -- the sheet drawn as a grid of cells (presentation for the pages, no I/O) -----
    # A grid: {"columns": n, "rows": [{"label", "colour", "cells": [cell | None, ...]}],
    #          "extras": [...], "value": ..., "caption": Reason?}
    # cell: {"row": label, "col": int, "value": v | None, "colour": colour | None,
    #        "printed": text printed in the field | None, "shape": "square" | "pentagon"},
    #        addressed the way a `Mark` is, so legal placements light up cells; a cell may
    #        carry "x" (1-based grid column) and "span" where the sheet is not a plain grid,
    #        "start" (a printed start), "order" (its place on a drawn line) and "hit" (twenty
    #        one's exact hit, which the paper marks with a small x).
    # value: how a field takes a number from a roll (`cell_value`): "sum" (the default),
    #        "die-of-colour", "printed" or "marks-only" (the page offers the placements).
    # extras: counters written outside the grid: {"key", "label", "value", "max"[, "points"]}
    #        or {"key", "label", "value", "options"} (one is chosen).
    # mark_rows (a "marks-only" grid whose answer is built on the sheet, a mark at a time):
    #        {"line": row whose marks are numbers joined on a line (their order counts),
    #         "ring": row of colour spaces, "count": row of marks counted, not drawn}.
    def grid(self, data: dict) -> dict | None:
        """This game's sheet JSON (`sheet_to_json`) as a grid of cells, or None for a game
        drawn as its JSON (it is still fully playable: the pages list its placements)."""
        return None

    def sheet_from_grid(self, data: dict, cells: dict, extras: dict) -> dict:
        """The reverse of `grid`: the sheet JSON `data` of a new sheet with the typed cells
        ({"ROW@COL": value}, fields known to exist) and extras written in. Shape errors raise
        `InvalidInput`; rule problems are left to `problems`."""
        raise InvalidInput(Reason("app.no_grid", game=self.title))

    def cell_value(self, cell: dict, roll: Roll):
        """The value a player would write into this grid cell from this roll (to explain
        why the field is refused), or None when there is none. The default: the dice's sum."""
        return roll.total

    # -- scoring and the end -------------------------------------------------------
    def score(self, sheet, final: bool = False) -> Score:
        """The score with its breakdown; `final` once the game is over."""
        raise NotImplementedError

    def seat_score(self, sheet, seat: int, final: bool = False) -> Score:
        """The score of the player at `seat` (a shared sheet scores per seat)."""
        return self.score(sheet, final)

    def solo_rating(self, total: int) -> str | None:
        """What the rule book says of a solo game's final total (Knister), or None."""
        return None

    def end_reason(self, sheet) -> str | None:
        """Why this sheet ends the game, in a player's words ("two rows are full"), or None
        while it does not (`is_finished`)."""
        return None

    def is_finished(self, sheet) -> bool:
        """True when this sheet ends the game for everyone."""
        raise NotImplementedError

    def score_bounds(self) -> tuple[int, int]:
        """The lowest and highest total any sheet can score (for invariants)."""
        raise NotImplementedError


def require(cond: bool, message: str) -> None:
    if not cond:
        raise InvalidInput(message)


def known_keys(game: "Game", data: dict) -> None:
    """Refuse a sheet whose JSON has a part this game's sheets do not have: where a part left
    out reads as empty (Qwinto's rows, The Choice's sides), a sheet of another game (Knister's
    "grid" given as a Qwinto sheet) would otherwise read as an empty one."""
    known = game.sheet_keys
    for key in data:
        require(key in known, Reason("game.sheet_keys", key=key, game=game.title,
                                     known=", ".join(sorted(known))))


def count_of(raw: Any, what: str) -> int:
    """A counter typed beside a sheet (failed attempts, misthrows) as a whole number."""
    try:
        return int(raw or 0)
    except (TypeError, ValueError):
        raise InvalidInput(Reason("game.whole", what=what)) from None


def as_list(data: Any, length: int, what: str) -> Sequence[Any]:
    if not isinstance(data, list):
        raise InvalidInput(Reason("game.list", what=what))
    if len(data) != length:
        raise InvalidInput(Reason("game.entries", what=what, n=length, m=len(data)))
    return data

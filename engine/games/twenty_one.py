"""twenty one: six coloured dice, five rows filled top to bottom, exact hits earn bonuses.

Rule text: shared/rules/twenty_one.txt. After the roller's (at most two) attempts every
player must record at least one die in their current row - a die of a colour goes into
the field of that colour if its face is not above the printed number - or cross out the
leftmost empty field of that row. A full row scores its numbers plus a bonus for exact
hits; the row a player is on when the game ends is scored as it stands.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Iterable

from ..dice import DiceSpec, Die, DieKind, Roll
from ..errors import InvalidInput, InvalidLayout
from ..game import Game, as_list, require, known_keys
from ..layouts import LayoutInfo, points, read_info
from ..placement import CROSS, ENTER, Mark, Placement, Score, ScoreLine
from ..reasons import Reason, declare

declare({
    "twenty_one.ended": "the last row is filled",
    "twenty_one.dice_plain": "twenty one is rolled with six dice, one of each colour: {cs}; "
                             "missing: {cs2} (write each die as colour:face, e.g. red:4)",
    "twenty_one.dice_missing": "twenty one is rolled with six dice, one of each colour: {cs}; "
                               "missing: {cs2}",
    "twenty_one.dice_plain_only": "twenty one is rolled with six dice, one of each colour: "
                                  "{cs} (write each die as colour:face, e.g. red:4)",
    "twenty_one.dice": "twenty one is rolled with six dice, one of each colour: {cs}",
    "twenty_one.ones_stay": "dice that rolled a 1 must stay for the second attempt: the {cs} "
                            "die showed 1",
    "twenty_one.finished": "all five rows are full: the sheet is finished",
    "twenty_one.must": "every player must record at least one number or cross out the "
                       "leftmost empty field of the current row",
    "twenty_one.row": "you are on row {r}: numbers go only into the current row, rows are "
                      "filled from top to bottom",
    "twenty_one.no_column": "there is no column {p}: columns 0-5",
    "twenty_one.one_number": "the {c} field can take only one number",
    "twenty_one.used": "the {c} field of row {r} is already used",
    "twenty_one.die": "the {c} field takes the {c} die, which shows {f}, not {v}",
    "twenty_one.higher": "the {c} {v} is higher than the {n} in the {c} field",
    "twenty_one.p_higher": "{v} in the {c} field of row {r} is higher than the printed {n}",
    "twenty_one.p_below": "{v} in the {c} field of row {r} is below the printed {n}",
    "twenty_one.p_order": "row {r} has entries while row {r2} above it is not full: rows are "
                          "filled from top to bottom",
    "twenty_one.p_cross": "row {r}: a field was crossed out while an empty field lay to its "
                          "left (only the leftmost may be crossed)",
    "twenty_one.d_partial": "partial row scored at game end, {s}",
    "twenty_one.d_no_hit": "{n}, no exact hit",
    "twenty_one.d_hit": "{n} + {b} bonus for 1 exact hit",
    "twenty_one.d_hits": "{n} + {b} bonus for {h} exact hits",
    # an uploaded sheet's checks, a sheet typed as JSON
    "twenty_one.layout": "twenty one sheet '{name}'",
    "twenty_one.layout_rows": "{where}: needs 5 rows, not {n}",
    "twenty_one.layout_colours": "{where}: row {r} must hold each of {cs} once",
    "twenty_one.layout_numbers": "{where}: row {r} needs six printed numbers 1-6",
    "twenty_one.layout_labels": "{where}: row labels must differ",
    "twenty_one.layout_bonus": "{where}: 'exact_hit_bonus' needs 7 entries (0-6 hits)",
    "twenty_one.sheet_object": "a twenty one sheet must be a JSON object with 'rows'",
    "twenty_one.sheet_value": "row {r} holds '{v}': write numbers, \"x\" or null",
})

DICE_COLOURS = ("white", "black", "red", "blue", "yellow", "green")
CROSSED = "x"


@dataclass(frozen=True)
class TwentyOneRow:
    label: str
    numbers: tuple[int, ...]
    colours: tuple[str, ...]


@dataclass(frozen=True)
class TwentyOneLayout:
    info: LayoutInfo
    rows: tuple[TwentyOneRow, ...]
    exact_hit_bonus: tuple[int, ...]

    @classmethod
    def parse(cls, data: Any) -> "TwentyOneLayout":
        info = read_info(data, "twenty_one")
        name = Reason("twenty_one.layout", name=info.name)
        try:
            rows = tuple(TwentyOneRow(str(r["label"]).upper(),
                                      tuple(int(n) for n in r["numbers"]),
                                      tuple(str(c) for c in r["colours"]))
                         for r in data["rows"])
            bonus_key = Reason("layout.key", where=name, key="exact_hit_bonus")
            bonus = tuple(points(b, bonus_key) for b in data["exact_hit_bonus"])
        except InvalidLayout:
            raise
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            raise InvalidLayout(Reason("layout.missing", where=name, field=str(exc))) from None
        if len(rows) != 5:
            raise InvalidLayout(Reason("twenty_one.layout_rows", where=name, n=len(rows)))
        for row in rows:
            if sorted(row.colours) != sorted(DICE_COLOURS):
                raise InvalidLayout(Reason("twenty_one.layout_colours", where=name, r=row.label,
                                           cs=", ".join(DICE_COLOURS)))
            if len(row.numbers) != 6 or not all(1 <= n <= 6 for n in row.numbers):
                raise InvalidLayout(Reason("twenty_one.layout_numbers", where=name, r=row.label))
        if len({r.label for r in rows}) != 5:
            raise InvalidLayout(Reason("twenty_one.layout_labels", where=name))
        if len(bonus) != 7:
            raise InvalidLayout(Reason("twenty_one.layout_bonus", where=name))
        return cls(info, rows, bonus)


@dataclass(frozen=True)
class TwentyOneSheet:
    """`rows[r][p]`: None (empty), a number written, or "x" (crossed out)."""

    rows: tuple[tuple[int | str | None, ...], ...]

    @property
    def current_row(self) -> int | None:
        """Index of the row being filled (None once all five are full)."""
        for r, row in enumerate(self.rows):
            if None in row:
                return r
        return None


class TwentyOne(Game):
    name = "twenty_one"
    title = "twenty one"
    min_players, max_players = 1, 6
    max_attempts = 2
    rerolls = "not_ones"
    several_fields = True
    parse_layout = staticmethod(TwentyOneLayout.parse)

    def __init__(self, layout: TwentyOneLayout) -> None:
        super().__init__(layout)
        self._labels = [r.label for r in layout.rows]
        # row index -> colour -> position
        self._pos = [{c: p for p, c in enumerate(r.colours)} for r in layout.rows]

    def new_sheet(self) -> TwentyOneSheet:
        return TwentyOneSheet(tuple((None,) * 6 for _ in self.layout.rows))

    def sheet_to_json(self, sheet: TwentyOneSheet) -> dict:
        return {"layout": self.layout.info.name, "rows": [list(r) for r in sheet.rows]}

    def sheet_from_json(self, data: Any) -> TwentyOneSheet:
        require(isinstance(data, dict), Reason("twenty_one.sheet_object"))
        known_keys(self, data)
        rows = []
        for r, row in enumerate(as_list(data.get("rows"), 5, "'rows'")):
            row = as_list(row, 6, Reason("row.label", r=self._labels[r]))
            for v in row:
                if not (v is None or v == CROSSED or
                        (isinstance(v, int) and not isinstance(v, bool))):
                    raise InvalidInput(Reason("twenty_one.sheet_value", r=self._labels[r], v=v))
            rows.append(tuple(row))
        return TwentyOneSheet(tuple(rows))

    def problems(self, sheet: TwentyOneSheet) -> list[str]:
        out = []
        current = sheet.current_row
        for r, row in enumerate(sheet.rows):
            lay = self.layout.rows[r]
            for p, v in enumerate(row):
                if isinstance(v, int) and not 1 <= v <= lay.numbers[p]:
                    out.append(Reason("twenty_one.p_higher", v=v, c=lay.colours[p], r=lay.label,
                                      n=lay.numbers[p]) if v > lay.numbers[p] else
                               Reason("twenty_one.p_below", v=v, c=lay.colours[p], r=lay.label,
                                      n=1))
            if current is not None and r > current and any(v is not None for v in row):
                out.append(Reason("twenty_one.p_order", r=lay.label, r2=self._labels[current]))
            if CROSSED in row:
                # only the leftmost empty field is ever crossed, so every field left of
                # a cross was already written and cannot be empty now
                last_cross = max(p for p, v in enumerate(row) if v == CROSSED)
                if any(v is None for v in row[:last_cross]):
                    out.append(Reason("twenty_one.p_cross", r=lay.label))
        return out

    def dice_spec(self) -> DiceSpec:
        return DiceSpec(tuple(DieKind(c, (1, 2, 3, 4, 5, 6)) for c in DICE_COLOURS), 6, 6,
                        repeat_colours=False)

    def roll_problem(self, roll: Roll) -> str | None:
        colours = roll.colours
        if len(roll) != 6 or any(colours.count(c) != 1 for c in DICE_COLOURS):
            cs = ", ".join(DICE_COLOURS)
            missing = ", ".join(c for c in DICE_COLOURS if c not in colours)
            if missing:
                return Reason("twenty_one.dice_plain" if None in colours
                              else "twenty_one.dice_missing", cs=cs, cs2=missing)
            return Reason("twenty_one.dice_plain_only" if None in colours
                          else "twenty_one.dice", cs=cs)
        for die in roll:
            if not isinstance(die.face, int) or not 1 <= die.face <= 6:
                return Reason("game.face", die=die)
        return None

    def reroll_problem(self, first: Roll, second: Roll) -> str | None:
        problem = self.roll_problem(second)
        if problem:
            return problem
        after = {d.colour: d.face for d in second}
        moved = [d.colour for d in first if d.face == 1 and after[d.colour] != 1]
        if moved:
            return Reason("twenty_one.ones_stay", cs=", ".join(moved))
        return None

    def random_roll(self, rng: random.Random, previous: Roll | None = None) -> Roll:
        if previous is None:
            return Roll(Die(c, rng.randint(1, 6)) for c in DICE_COLOURS)
        return Roll(d if d.face == 1 else Die(d.colour, rng.randint(1, 6)) for d in previous)

    def _candidates(self, sheet: TwentyOneSheet, roll: Roll) -> list[Mark]:
        r = sheet.current_row
        if r is None:
            return []
        row, lay, pos = sheet.rows[r], self.layout.rows[r], self._pos[r]
        out = []
        for die in roll:
            p = pos.get(die.colour)
            if p is not None and row[p] is None and die.face <= lay.numbers[p]:
                out.append(Mark(lay.label, p, die.face))
        return out

    def _legal(self, sheet: TwentyOneSheet, roll: Roll, role: str) -> Iterable[Placement]:
        if sheet.current_row is None:
            return
        cands = self._candidates(sheet, roll)
        for k in range(1, len(cands) + 1):
            for marks in combinations(cands, k):
                yield Placement(ENTER, marks)
        yield Placement.special(CROSS)

    def apply(self, sheet: TwentyOneSheet, placement: Placement) -> TwentyOneSheet:
        r = sheet.current_row
        row = list(sheet.rows[r])
        if placement.kind == CROSS:
            row[row.index(None)] = CROSSED
        else:
            for mark in placement.marks:
                row[mark.col] = mark.value
        rows = list(sheet.rows)
        rows[r] = tuple(row)
        return TwentyOneSheet(tuple(rows))

    def why_illegal(self, sheet: TwentyOneSheet, roll: Roll, role: str,
                    placement: Placement) -> str | None:
        r = sheet.current_row
        if r is None:
            return Reason("twenty_one.finished")
        if placement.kind == CROSS:
            return None
        if placement.kind != ENTER:
            return Reason("twenty_one.must")
        lay = self.layout.rows[r]
        dice = {d.colour: d.face for d in roll}
        used = set()
        for mark in placement.marks:
            if mark.row != lay.label:
                return Reason("twenty_one.row", r=lay.label)
            if not 0 <= mark.col < 6:
                return Reason("twenty_one.no_column", p=mark.col)
            colour = lay.colours[mark.col]
            if mark.col in used:
                return Reason("twenty_one.one_number", c=colour)
            used.add(mark.col)
            if sheet.rows[r][mark.col] is not None:
                return Reason("twenty_one.used", c=colour, r=lay.label)
            if dice.get(colour) != mark.value:
                return Reason("twenty_one.die", c=colour, f=dice.get(colour), v=mark.value)
            if mark.value > lay.numbers[mark.col]:
                return Reason("twenty_one.higher", c=colour, v=mark.value,
                              n=lay.numbers[mark.col])
        return None

    def grid(self, data: dict) -> dict:
        rows = []
        for lay_row, values in zip(self.layout.rows, data["rows"]):
            rows.append({"label": lay_row.label, "colour": None, "cells": [
                {"row": lay_row.label, "col": p, "value": v, "colour": lay_row.colours[p],
                 "printed": str(lay_row.numbers[p]), "shape": "square",
                 # "indicate [an exact hit] with a small x": the page draws it so
                 "hit": v == lay_row.numbers[p]}
                for p, v in enumerate(values)]})
        return {"columns": 6, "rows": rows, "extras": [], "value": "die-of-colour"}

    def sheet_from_grid(self, data: dict, cells: dict, extras: dict) -> dict:
        data["rows"] = [[cells.get(f"{row.label}@{p}") for p in range(6)]
                        for row in self.layout.rows]
        return data

    def cell_value(self, cell: dict, roll: Roll):
        """A field takes the die of its colour."""
        return next((d.face for d in roll if d.colour == cell["colour"]
                     and isinstance(d.face, int)), None)

    def exact_hits(self, sheet: TwentyOneSheet, r: int) -> int:
        nums = self.layout.rows[r].numbers
        return sum(1 for p, v in enumerate(sheet.rows[r]) if v == nums[p])

    def score(self, sheet: TwentyOneSheet, final: bool = False) -> Score:
        """Full rows score; at the game's end the current row scores as it stands.

        The partial row earns the exact-hit bonus for the hits it holds (the rule lets
        players "add up their score for the row", which is numbers plus bonus).
        """
        lines = []
        current = sheet.current_row
        for r, row in enumerate(sheet.rows):
            full = None not in row
            if not full and not (final and r == current):
                continue
            numbers = sum(v for v in row if isinstance(v, int))
            hits = self.exact_hits(sheet, r)
            bonus = self.layout.exact_hit_bonus[hits]
            detail = (Reason("twenty_one.d_no_hit", n=numbers) if hits == 0 and bonus == 0 else
                      Reason("twenty_one.d_hit", n=numbers, b=bonus) if hits == 1 else
                      Reason("twenty_one.d_hits", n=numbers, b=bonus, h=hits))
            if not full:
                detail = Reason("twenty_one.d_partial", s=detail)
            lines.append(ScoreLine(Reason("row.label", r=self._labels[r]), numbers + bonus,
                                   detail))
        return Score(lines)

    def end_reason(self, sheet: TwentyOneSheet) -> str | None:
        return Reason("twenty_one.ended") if self.is_finished(sheet) else None

    def is_finished(self, sheet: TwentyOneSheet) -> bool:
        return sheet.current_row is None

    def score_bounds(self) -> tuple[int, int]:
        numbers = sum(sum(r.numbers) for r in self.layout.rows)
        return 0, numbers + len(self.layout.rows) * max(self.layout.exact_hit_bonus)

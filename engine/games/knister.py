"""Knister: everyone writes the sum of two dice into a 5x5 grid; lines score poker hands.

Rule text: shared/rules/knister.txt. Every player, the roller included, must write the
sum into a free field; after 25 rounds the grid is full and the 5 rows, 5 columns and
2 diagonals each score their best combination, the diagonals doubled.
"""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable

from ..dice import DiceSpec, Die, DieKind, Roll
from ..errors import InvalidLayout
from ..game import Game, as_list, require, known_keys
from ..layouts import LayoutInfo, read_info, whole
from ..layouts import points as layout_points
from ..placement import ENTER, Mark, Placement, Score, ScoreLine
from ..reasons import Reason, declare

declare({
    "knister.ended": "the grid is full after 25 rounds",
    "knister.must_write": "in Knister every player must write the sum into a free field",
    "knister.no_field": "there is no field {f}: rows A-E, columns 0-4",
    "knister.holds": "row {r}, column {p} already holds {v}",
    "knister.not_number": "row {r} holds '{v}': write a number or leave the field empty",
    "knister.dice_count": "Knister is rolled with two dice, not {n}",
    "knister.no_reroll": "Knister has a single roll per turn: no second attempt",
    "knister.p_sum": "{v} in row {r}, column {p} is not a sum of two dice (2-12)",
    "knister.l_column": "column {p}",
    "knister.l_diag_down": "diagonal \\",
    "knister.l_diag_up": "diagonal /",
    "knister.d_none": "no combination",
    "knister.d_combo": "{combo}",
    "knister.d_combo_x": "{combo} x{m}",
    "knister.good": "good: 50 to 79 points",
    "knister.very_good": "very good: 80 to 99 points",
    "knister.amazing": "amazing: 100 points or more",
    # an uploaded layout's checks, a sheet typed as JSON
    "knister.layout": "knister layout '{name}'",
    "knister.points_of": "{where}: points of {key}",
    "knister.layout_5x5": "{where}: the grid is 5x5, not {n}x{n}",
    "knister.sheet_object": "a Knister sheet must be a JSON object with a 'grid'",
    "knister.grid_row": "row {r} of the grid",
})

COMBINATIONS = ("pair", "two_pairs", "three_of_a_kind", "full_house", "four_of_a_kind",
                "five_of_a_kind", "straight_with_7", "straight_without_7")
COMBINATION_NAMES = {
    "pair": "pair", "two_pairs": "two pairs", "three_of_a_kind": "three of a kind",
    "full_house": "full house", "four_of_a_kind": "four of a kind",
    "five_of_a_kind": "five of a kind", "straight_with_7": "straight with 7",
    "straight_without_7": "straight without 7",
}
ROW_LABELS = "ABCDEFGHIJ"


@dataclass(frozen=True)
class KnisterLayout:
    info: LayoutInfo
    size: int
    diagonal_multiplier: int
    points: dict

    @classmethod
    def parse(cls, data: Any) -> "KnisterLayout":
        info = read_info(data, "knister")
        name = Reason("knister.layout", name=info.name)
        try:
            size = whole(data.get("size", 5), Reason("layout.key", where=name, key="size"), 1, 99)
            mult = whole(data.get("diagonal_multiplier", 2),
                         Reason("layout.key", where=name, key="diagonal_multiplier"), 1, 10)
            points = {k: layout_points(data["points"][k],
                                       Reason("knister.points_of", where=name, key=k))
                      for k in COMBINATIONS}
        except InvalidLayout:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidLayout(Reason("layout.missing", where=name, field=str(exc))) from None
        if size != 5:
            raise InvalidLayout(Reason("knister.layout_5x5", where=name, n=size))
        return cls(info, size, mult, points)


def combination(values: Iterable[int]) -> str | None:
    """The best combination in a full line of five numbers, or None."""
    values = list(values)
    counts = sorted(Counter(values).values(), reverse=True)
    if counts[0] == 1 and max(values) - min(values) == len(values) - 1:
        return "straight_with_7" if 7 in values else "straight_without_7"
    return {
        (5,): "five_of_a_kind", (4, 1): "four_of_a_kind", (3, 2): "full_house",
        (3, 1, 1): "three_of_a_kind", (2, 2, 1): "two_pairs", (2, 1, 1, 1): "pair",
    }.get(tuple(counts))


@dataclass(frozen=True)
class KnisterSheet:
    grid: tuple[tuple[int | None, ...], ...]


class Knister(Game):
    name = "knister"
    title = "Knister"
    min_players, max_players = 1, 99  # "as many players as you want"
    max_attempts = 1
    writes_sum = True
    parse_layout = staticmethod(KnisterLayout.parse)

    def __init__(self, layout: KnisterLayout) -> None:
        super().__init__(layout)
        n = layout.size
        self._labels = ROW_LABELS[:n]
        # every placement there can be, made once: the legal ones are picked from these
        self._placements = {total: [[Placement(ENTER, (Mark(self._labels[r], c, total),))
                                     for c in range(n)] for r in range(n)]
                            for total in range(2, 13)}
        self._lines = (
            [(Reason("row.label", r=self._labels[r]), 1, [(r, c) for c in range(n)])
             for r in range(n)]
            + [(Reason("knister.l_column", p=c), 1, [(r, c) for r in range(n)])
               for c in range(n)]
            + [(Reason("knister.l_diag_down"), layout.diagonal_multiplier,
                [(i, i) for i in range(n)]),
               (Reason("knister.l_diag_up"), layout.diagonal_multiplier,
                [(i, n - 1 - i) for i in range(n)])])

    def new_sheet(self) -> KnisterSheet:
        n = self.layout.size
        return KnisterSheet(tuple((None,) * n for _ in range(n)))

    def sheet_to_json(self, sheet: KnisterSheet) -> dict:
        return {"layout": self.layout.info.name, "grid": [list(r) for r in sheet.grid]}

    def sheet_from_json(self, data: Any) -> KnisterSheet:
        require(isinstance(data, dict), Reason("knister.sheet_object"))
        known_keys(self, data)
        n = self.layout.size
        rows = as_list(data.get("grid"), n, "'grid'")
        grid = []
        for r, row in enumerate(rows):
            row = as_list(row, n, Reason("knister.grid_row", r=self._labels[r]))
            for v in row:
                require(v is None or (isinstance(v, int) and not isinstance(v, bool)),
                        Reason("knister.not_number", r=self._labels[r], v=v))
            grid.append(tuple(row))
        return KnisterSheet(tuple(grid))

    def problems(self, sheet: KnisterSheet) -> list[str]:
        return [Reason("knister.p_sum", v=v, r=self._labels[r], p=c)
                for r, row in enumerate(sheet.grid) for c, v in enumerate(row)
                if v is not None and not 2 <= v <= 12]

    def dice_spec(self) -> DiceSpec:
        return DiceSpec((DieKind(None, (1, 2, 3, 4, 5, 6)),), 2, 2, repeat_colours=True)

    def roll_problem(self, roll: Roll) -> str | None:
        if len(roll) != 2:
            return Reason("knister.dice_count", n=len(roll))
        for die in roll:
            if not isinstance(die.face, int) or not 1 <= die.face <= 6:
                return Reason("game.face", die=die)
        return None

    def reroll_problem(self, first: Roll, second: Roll) -> str | None:
        return Reason("knister.no_reroll")

    def random_roll(self, rng: random.Random, previous: Roll | None = None) -> Roll:
        return Roll((Die(None, rng.randint(1, 6)), Die(None, rng.randint(1, 6))))

    def _legal(self, sheet: KnisterSheet, roll: Roll, role: str) -> Iterable[Placement]:
        by_cell = self._placements[roll.total]
        return [by_cell[r][c] for r, row in enumerate(sheet.grid)
                for c, v in enumerate(row) if v is None]

    def apply(self, sheet: KnisterSheet, placement: Placement) -> KnisterSheet:
        (mark,) = placement.marks
        r = self._labels.index(mark.row)
        grid = list(sheet.grid)
        row = list(grid[r])
        row[mark.col] = mark.value
        grid[r] = tuple(row)
        return KnisterSheet(tuple(grid))

    def why_illegal(self, sheet: KnisterSheet, roll: Roll, role: str,
                    placement: Placement) -> str | None:
        if placement.kind != ENTER:
            return Reason("knister.must_write")
        if len(placement.marks) != 1:
            return Reason("game.one_field")
        (mark,) = placement.marks
        if mark.row not in self._labels or not 0 <= mark.col < self.layout.size:
            return Reason("knister.no_field", f=f"{mark.row}@{mark.col}")
        if mark.value != roll.total:
            return Reason("game.sum", total=roll.total, v=mark.value)
        held = sheet.grid[self._labels.index(mark.row)][mark.col]
        if held is not None:
            return Reason("knister.holds", r=mark.row, p=mark.col, v=held)
        return None

    def grid(self, data: dict) -> dict:
        labels = self._labels
        return {"columns": len(data["grid"]), "rows": [
            {"label": labels[r], "colour": None, "cells": [
                {"row": labels[r], "col": c, "value": v, "colour": None, "printed": None,
                 "shape": "square"} for c, v in enumerate(row)]}
            for r, row in enumerate(data["grid"])], "extras": [], "numbered": True}

    def sheet_from_grid(self, data: dict, cells: dict, extras: dict) -> dict:
        n, labels = len(data["grid"]), self._labels
        data["grid"] = [[cells.get(f"{labels[r]}@{c}") for c in range(n)] for r in range(n)]
        return data

    def score(self, sheet: KnisterSheet, final: bool = False) -> Score:
        """Only complete lines score: a combination needs all five numbers."""
        lines = []
        for label, mult, cells in self._lines:
            values = [sheet.grid[r][c] for r, c in cells]
            if any(v is None for v in values):
                continue
            combo = combination(values)
            if combo is None:
                lines.append(ScoreLine(label, 0, Reason("knister.d_none")))
                continue
            base = self.layout.points[combo]
            detail = (Reason("knister.d_combo_x", combo=COMBINATION_NAMES[combo], m=mult)
                      if mult != 1 else Reason("knister.d_combo", combo=COMBINATION_NAMES[combo]))
            lines.append(ScoreLine(label, base * mult, detail))
        return Score(lines)

    def solo_rating(self, total: int) -> str | None:
        """"50 to 79 points is good, 80 to 99 points is very good, and more than 100 points
        is amazing" (100 itself is read as amazing); under 50 the rule book says nothing."""
        if total >= 100:
            return Reason("knister.amazing")
        if total >= 80:
            return Reason("knister.very_good")
        if total >= 50:
            return Reason("knister.good")
        return None

    def end_reason(self, sheet: KnisterSheet) -> str | None:
        return Reason("knister.ended") if self.is_finished(sheet) else None

    def is_finished(self, sheet: KnisterSheet) -> bool:
        return all(v is not None for row in sheet.grid for v in row)

    def score_bounds(self) -> tuple[int, int]:
        best = max(self.layout.points.values())
        n = self.layout.size
        return 0, best * (2 * n + 2 * self.layout.diagonal_multiplier)

"""Knister: what each partly filled line is worth, and one roll of look-ahead.

A line (row, column or diagonal) is valued by what it holds so far, as a sorted tuple
of the numbers written in it: the combination points it would score on average if its
empty fields were filled with random sums (`random_fill_table`, 4,368 line states, made
in about 40 ms). A sheet is worth the sum over its 12 lines, diagonals doubled.
`deepen` weighs the 11 sums of the next roll by their chances and takes the best field
for each. (Tables learned by self-play instead, each state set to the mean points its
lines went on to score, played worse: 50-54 points against 57 for this table, greedy on
300-400 solo games each.)
"""
from __future__ import annotations

from itertools import combinations_with_replacement

from ..dice import Die
from ..games.knister import COMBINATION_NAMES, Knister, combination
from ..placement import Placement
from .core import Evaluator

SUMS = tuple(range(2, 13))
CHANCE = {s: (6 - abs(s - 7)) / 36 for s in SUMS}
Line = tuple[int, ...]


def line_states() -> list[Line]:
    """Every sorted tuple of 0-5 sums a line can hold."""
    return [t for k in range(6) for t in combinations_with_replacement(SUMS, k)]


def final_points(points: dict, line: Line) -> int:
    combo = combination(line)
    return points[combo] if combo else 0


def random_fill_table(points: dict) -> dict[Line, float]:
    """Each line's expected points if its empty fields got random sums (the start of
    training): full lines score their combination, others average over the next sum."""
    table: dict[Line, float] = {}
    for line in sorted(line_states(), key=len, reverse=True):
        if len(line) == 5:
            table[line] = final_points(points, line)
        else:
            table[line] = sum(CHANCE[s] * table[tuple(sorted(line + (s,)))] for s in SUMS)
    return table


class Lines:
    """The 12 lines of the grid as cell lists, each cell's lines, and their weights."""

    def __init__(self, game: Knister) -> None:
        self.names = [label for label, _, _ in game._lines]
        self.weights = [mult for _, mult, _ in game._lines]
        self.cells = [cells for _, _, cells in game._lines]
        self.through = {(r, c): [i for i, cells in enumerate(self.cells) if (r, c) in cells]
                        for r in range(5) for c in range(5)}

    def contents(self, grid, i: int) -> Line:
        return tuple(sorted(v for r, c in self.cells[i] if (v := grid[r][c]) is not None))


class KnisterEvaluator(Evaluator):
    method = ("each line valued by the points it averages when filled at random, and "
              "every next sum weighed by its chance")

    def __init__(self, game: Knister, table: dict[Line, float] | None = None) -> None:
        super().__init__(game)
        self.table = table if table is not None else random_fill_table(game.layout.points)
        self.lines = Lines(game)

    def value(self, before, after) -> float:
        grid, lines, table = after.grid, self.lines, self.table
        return sum(w * table[lines.contents(grid, i)] for i, w in enumerate(lines.weights))

    def gain(self, grid, r: int, c: int, v: int) -> float:
        """How much writing v at (r, c) changes the sheet's value."""
        lines, table = self.lines, self.table
        out = 0.0
        for i in lines.through[(r, c)]:
            held = lines.contents(grid, i)
            out += lines.weights[i] * (table[tuple(sorted(held + (v,)))] - table[held])
        return out

    def best_cell(self, grid, v: int) -> tuple[float, tuple[int, int]]:
        return max((self.gain(grid, r, c, v), (r, c)) for r in range(5) for c in range(5)
                   if grid[r][c] is None)

    def deepen(self, before, after) -> float | None:
        base = self.value(after, after)
        grid = after.grid
        if all(v is not None for row in grid for v in row):
            return base
        return base + sum(CHANCE[s] * self.best_cell(grid, s)[0] for s in SUMS)

    def reason(self, before, after, placement: Placement) -> str:
        (mark,) = placement.marks
        r, c = self.game._labels.index(mark.row), mark.col
        lines, table = self.lines, self.table
        parts = []
        for i in lines.through[(r, c)]:
            held = lines.contents(after.grid, i)
            was = lines.contents(before.grid, i)
            w = lines.weights[i]
            if len(held) == 5:
                combo = combination(held)
                name = COMBINATION_NAMES[combo] if combo else "no combination"
                parts.append((w * table[held] - w * table[was],
                              f"completes {lines.names[i]}: {name}, "
                              f"{w * final_points(self.game.layout.points, held)} points"))
            else:
                parts.append((w * (table[held] - table[was]),
                              f"{lines.names[i]} holds {' '.join(map(str, held))}, worth "
                              f"{w * table[held]:.1f} on average"))
        parts.sort(key=lambda t: -t[0])
        return "; ".join(text for _, text in parts[:2])

    def faces(self, index: int, die: Die):
        return ()

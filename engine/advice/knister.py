"""Knister: what each partly filled line is worth, one roll of look-ahead, and the best
fields played out to the end.

A line (row, column or diagonal) is valued by what it holds so far, as a sorted tuple
of the numbers written in it: the points it would score on average if its empty fields
were filled with random sums (4,368 line states, made in about 40 ms per table) - but
with each combination's points weighed by how much the advisor should aim for it, one
set of weights for rows and columns and one for the diagonals (tables/knister.json:
straights x1.6, a full house x0.9 in rows and columns, the small combinations about
x0.6). A sheet's score is the sum over its 12 lines, diagonals doubled; that score is
turned into expected final points by a straight line per number of filled fields,
fitted on the table's own games (`calibration`). `deepen` weighs the 11 sums of the next
roll by their chances and takes the best field for each.

Measured greedy on the same 800 seeded solo games (bench/advisor_tables.py): plain
random-fill values 57.0 points, the weighted ones 63.2. Values learned by self-play
played worse (each line state set to the mean points its lines went on to score: 50-54;
TD(0) on the whole sheet's value: about 60 after 130,000 games).

`play_out` then plays the 10 fields with the best look-ahead figure to the end, up to
1,024 seeded games each on the same sums (knister_playout.py, numpy), and ranks them by
their mean final score (docs/advisor.md, "Knister's playouts", for how many and why).
"""
from __future__ import annotations

import json
import random
from importlib import resources

import numpy as np

from ..dice import Die
from ..games.knister import COMBINATION_NAMES, Knister, combination
from ..placement import Placement
from .core import Evaluator
from .knister_playout import CHANCE, SUMS, Dice, Line, Playouts, line_states
from .types import PLAYED_OUT, Budget

# how many of the best fields are played out, and how many games each: doubling from
# FIRST_PLAYOUTS up to MAX_PLAYOUTS, fewer where the budget runs out first
PLAYOUT_OPTIONS = 10
FIRST_PLAYOUTS, MAX_PLAYOUTS = 32, 1024


def final_points(points: dict, line: Line) -> int:
    combo = combination(line)
    return points[combo] if combo else 0


def fill_table(points: dict, weights: dict | None = None) -> dict[Line, float]:
    """Each line state's points (each combination's points times its weight) averaged
    over random sums in its empty fields."""
    table: dict[Line, float] = {}
    for line in sorted(line_states(), key=len, reverse=True):
        if len(line) == 5:
            combo = combination(line)
            table[line] = points[combo] * (weights or {}).get(combo, 1.0) if combo else 0.0
        else:
            table[line] = sum(CHANCE[s] * table[tuple(sorted(line + (s,)))] for s in SUMS)
    return table


def shipped() -> dict:
    """tables/knister.json: the weights per kind of line and the calibration."""
    text = resources.files("engine.advice").joinpath("tables", "knister.json").read_text("utf-8")
    return json.loads(text)


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


def prospects(line: Line) -> str:
    """What a partly filled line is still heading for, in a player's words."""
    counts = sorted(((line.count(v), v) for v in set(line)), reverse=True)
    if counts and counts[0][0] >= 2:
        groups = [f"{'three' if k == 3 else 'four' if k == 4 else 'two'} {v}s"
                  for k, v in counts if k >= 2]
        return " and ".join(groups)
    if line and max(line) - min(line) <= 4:
        return "a straight still open"
    return "no combination yet"


class KnisterEvaluator(Evaluator):
    method = ("each line valued by the weighted points it averages when filled at random, "
              "calibrated to final points, every next sum weighed by its chance, and the "
              "best fields played out to the end on the same seeded sums")
    deepen_without_clock = None         # every field: about 0.5 ms each

    def __init__(self, game: Knister, data: dict | None = None) -> None:
        super().__init__(game)
        data = data if data is not None else shipped()
        points = game.layout.points
        self.tables = [fill_table(points, data["weights"]["lines"]),
                       fill_table(points, data["weights"]["diagonals"])]
        self.calibration = [tuple(ab) for ab in data.get("calibration") or [(0.0, 1.0)] * 26]
        self.lines = Lines(game)
        self.kind = [0 if w == 1 else 1 for w in self.lines.weights]
        self.playouts = Playouts(self.lines.cells, self.lines.weights, self.tables, self.kind,
                                 points)
        self.playout_options, self.playout_games = PLAYOUT_OPTIONS, MAX_PLAYOUTS

    def raw(self, grid) -> float:
        """The sheet's weighted line value (before calibration)."""
        lines, tables, kind = self.lines, self.tables, self.kind
        return sum(w * tables[kind[i]][lines.contents(grid, i)]
                   for i, w in enumerate(lines.weights))

    def calibrated(self, filled: int, raw: float) -> float:
        a, b = self.calibration[filled]
        return a + b * raw

    def value(self, before, after) -> float:
        if self.game.is_finished(after):
            return float(self.game.score(after).total)
        filled = sum(v is not None for row in after.grid for v in row)
        return self.calibrated(filled, self.raw(after.grid))

    def gain(self, grid, r: int, c: int, v: int) -> float:
        """How much writing v at (r, c) changes the sheet's weighted line value."""
        lines, tables, kind = self.lines, self.tables, self.kind
        out = 0.0
        for i in lines.through[(r, c)]:
            table = tables[kind[i]]
            held = lines.contents(grid, i)
            out += lines.weights[i] * (table[tuple(sorted(held + (v,)))] - table[held])
        return out

    def best_cell(self, grid, v: int) -> tuple[float, tuple[int, int]]:
        return max((self.gain(grid, r, c, v), (r, c)) for r in range(5) for c in range(5)
                   if grid[r][c] is None)

    def deepen(self, before, after) -> float | None:
        grid = after.grid
        filled = sum(v is not None for row in grid for v in row)
        if filled >= 24:
            return None             # the last field: nothing to choose any more
        base = self.raw(grid)
        return sum(CHANCE[s] * self.calibrated(filled + 1, base + self.best_cell(grid, s)[0])
                   for s in SUMS)

    def play_out(self, before, ranked: list, seed: int, budget: Budget) -> list | None:
        """The best fields (by `deepen`) ranked by the mean final score of games played
        to the end from each on the same seeded sums, in rounds that double the games
        while the budget lasts; the other fields follow as they were ranked."""
        top = [t for t in ranked[:self.playout_options] if t[3] is not None]
        if len(top) < 2:
            return None
        starts = [self.playouts.codes(after.grid) for _, _, _, after in top]
        empty = len(starts[0][1])
        dice = Dice(f"{seed}:{25 - empty}", empty)
        states = np.array([codes for codes, _ in starts])
        filled = np.ones((len(top), 25), dtype=bool)
        for k, (_, fields) in enumerate(starts):
            filled[k, fields] = False
        totals = np.zeros(len(top))
        played, size = 0, min(FIRST_PLAYOUTS, self.playout_games)
        while True:
            left = budget.left()
            sums = dice.first(size)[played:]
            games = len(sums)
            scores = self.playouts.play_many(np.repeat(states, games, axis=0),
                                             np.repeat(filled, games, axis=0),
                                             np.tile(sums, (len(top), 1)))
            totals += scores.reshape(len(top), games).sum(axis=1)
            played = size
            # the next round plays as many games as all rounds before: about twice this
            # one's time, so it is started only where that is left
            now = budget.left()
            if size >= self.playout_games or (budget.clocked and now < 2.5 * (left - now)):
                break
            size *= 2
        means = (totals / played).tolist()
        played_out = sorted(((m, PLAYED_OUT, p, after)
                             for m, (_, _, p, after) in zip(means, top)),
                            key=lambda t: (-t[0], str(t[2])))
        # the fields not played out: their figure moved onto the games' scale by how far
        # the games of the fields played out were from those fields' own figures
        shift = sum(m - t[0] for m, t in zip(means, top)) / len(top)
        rest = [(v + shift, depth, p, after) for v, depth, p, after in ranked[len(top):]]
        return played_out + rest

    def reason(self, before, after, placement: Placement) -> str:
        (mark,) = placement.marks
        r, c = self.game._labels.index(mark.row), mark.col
        lines = self.lines
        parts = []
        for i in lines.through[(r, c)]:
            held = lines.contents(after.grid, i)
            was = lines.contents(before.grid, i)
            table = self.tables[self.kind[i]]
            w = lines.weights[i]
            if len(held) == 5:
                combo = combination(held)
                name = COMBINATION_NAMES[combo] if combo else "no combination"
                text = (f"completes {lines.names[i]}: {name}, "
                        f"{w * final_points(self.game.layout.points, held)} points")
            else:
                text = f"{lines.names[i]} holds {' '.join(map(str, held))}: {prospects(held)}"
            parts.append((w * (table[held] - table[was]), text))
        parts.sort(key=lambda t: -t[0])
        return "; ".join(text for _, text in parts[:2])

    def faces(self, index: int, die: Die):
        return ()


def play_table(evaluator: KnisterEvaluator, seed: int, record: list | None = None) -> int:
    """One solo game by the line values alone (the best field for each sum); with
    `record`, (filled fields, raw value) after each placement is appended."""
    rng = random.Random(seed)
    grid = [[None] * 5 for _ in range(5)]
    for k in range(1, 26):
        v = rng.randint(1, 6) + rng.randint(1, 6)
        _, (r, c) = evaluator.best_cell(grid, v)
        grid[r][c] = v
        if record is not None:
            record.append((k, evaluator.raw(grid)))
    lines = evaluator.lines
    return sum(w * final_points(evaluator.game.layout.points, lines.contents(grid, i))
               for i, w in enumerate(lines.weights))


def fit_calibration(evaluator: KnisterEvaluator, seeds) -> list[tuple[float, float]]:
    """Per number of filled fields, the least-squares line from raw value to final
    points over the games of `seeds` (index 0 unused)."""
    by_k: dict[int, list[tuple[float, float]]] = {k: [] for k in range(1, 26)}
    for seed in seeds:
        record: list = []
        final = play_table(evaluator, seed, record)
        for k, raw in record:
            by_k[k].append((raw, final))
    out = [(0.0, 1.0)]
    for k in range(1, 26):
        xs = [x for x, _ in by_k[k]]
        ys = [y for _, y in by_k[k]]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        var = sum((x - mx) ** 2 for x in xs)
        b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / var if var else 0.0
        out.append((round(my - b * mx, 4), round(b, 4)))
    return out

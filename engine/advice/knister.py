"""Knister: a grid's expected final points, one roll of look-ahead, and the best fields
played out to the end.

A grid is valued by `StageValues` (knister_values.py): per number of filled fields, a
constant plus one fitted value per line state for rows and columns and one for the
doubled diagonals, on the scale of final points (fitted value iteration on self-play,
bench/knister_values.py). `deepen` weighs the 11 sums of the next roll by their chances
and takes the best field for each. `play_out` then plays the 10 fields with the best
look-ahead figure to the end, up to 1,024 seeded games each on the same sums, greedily
by the same values, and ranks them by their mean final score; `look_further` ranks the
3 best of them again with every next sum's best fields played out too (docs/advisor.md,
"Knister's playouts" and "Knister's further look", for how many and why, and "Knister's
values" for what the values are measured to be worth).
"""
from __future__ import annotations

import numpy as np

from ..dice import Die
from ..games.knister import COMBINATION_NAMES, Knister, combination
from ..placement import Placement
from ..reasons import Reason, declare
from .core import Evaluator, joined
from .knister_playout import Dice, Line
from .knister_values import StageValues
from .types import LOOKED_FURTHER, PLAYED_OUT, Budget

declare({
    "advice.knister.two": "two {v}s",
    "advice.knister.three": "three {v}s",
    "advice.knister.four": "four {v}s",
    "advice.knister.straight_open": "a straight still open",
    "advice.knister.nothing_yet": "no combination yet",
    "advice.knister.completes": "completes {s}: {combo}, {n} points",
    "advice.knister.completes_1": "completes {s}: {combo}, 1 point",
    "advice.knister.completes_none": "completes {s}: no combination, {n} points",
    "advice.knister.holds": "{s} holds {vs}: {s2}",
})
_GROUPS = {2: "advice.knister.two", 3: "advice.knister.three", 4: "advice.knister.four"}

# how many of the best fields are played out, and how many games each: doubling from
# FIRST_PLAYOUTS up to MAX_PLAYOUTS, fewer where the budget runs out first
PLAYOUT_OPTIONS = 10
FIRST_PLAYOUTS, MAX_PLAYOUTS = 32, 1024
# then the best FURTHER_OPTIONS of them looked at once more: every next sum, its
# FURTHER_FIELDS best fields by the values, FURTHER_GAMES games from each (`look_further`)
FURTHER_OPTIONS, FURTHER_FIELDS, FURTHER_GAMES = 3, 4, 128


def final_points(points: dict, line: Line) -> int:
    combo = combination(line)
    return points[combo] if combo else 0


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
        return joined([Reason(_GROUPS[k], v=v) for k, v in counts if k >= 2])
    if line and max(line) - min(line) <= 4:
        return Reason("advice.knister.straight_open")
    return Reason("advice.knister.nothing_yet")


class KnisterEvaluator(Evaluator):
    method = ("each line valued per number of filled fields by values fitted on self-play, "
              "every next sum weighed by its chance, the best fields played out to the "
              "end on the same seeded sums, and the best few again with each next sum's "
              "best fields played out")
    deepen_without_clock = None         # every field: well under 1 ms each

    def __init__(self, game: Knister, values: StageValues | None = None) -> None:
        super().__init__(game)
        self.values = values if values is not None else StageValues.shipped(game)
        self.lines = Lines(game)
        self.playout_options, self.playout_games = PLAYOUT_OPTIONS, MAX_PLAYOUTS
        self.further_options, self.further_fields, self.further_games = (
            FURTHER_OPTIONS, FURTHER_FIELDS, FURTHER_GAMES)

    def value(self, before, after) -> float:
        if self.game.is_finished(after):
            return float(self.game.score(after).total)
        states, filled = self.values.codes(after.grid)
        return float(self.values.value(int(filled.sum()), states[None])[0])

    def deepen(self, before, after) -> float | None:
        """The chance-weighted value of the best field for each next sum."""
        states, filled = self.values.codes(after.grid)
        k = int(filled.sum())
        if k >= 24:
            return None             # the last field: nothing to choose any more
        values = self.values
        sums = len(values.chance)
        gains = values.field_gains(k + 1, np.repeat(states[None], sums, axis=0),
                                   np.arange(sums))
        gains[:, filled] = -np.inf
        return float(values.value(k + 1, states[None])[0] + values.chance @ gains.max(axis=1))

    def play_out(self, before, ranked: list, seed: int, budget: Budget) -> list | None:
        """The best fields (by `deepen`) ranked by the mean final score of games played
        to the end from each on the same seeded sums, in rounds that double the games
        while the budget lasts; the other fields follow as they were ranked."""
        top = [t for t in ranked[:self.playout_options] if t[3] is not None]
        if len(top) < 2:
            return None
        starts = [self.values.codes(after.grid) for _, _, _, after in top]
        states = np.array([codes for codes, _ in starts])
        filled = np.array([fields for _, fields in starts])
        empty = 25 - int(filled[0].sum())
        dice = Dice(f"{seed}:{25 - empty}", empty)
        totals = np.zeros(len(top))
        played, size = 0, min(FIRST_PLAYOUTS, self.playout_games)
        while True:
            left = budget.left()
            sums = dice.first(size)[played:]
            games = len(sums)
            _, scores = self.values.play(np.tile(sums, (len(top), 1)),
                                         np.repeat(states, games, axis=0),
                                         np.repeat(filled, games, axis=0))
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
        # the next step's games cost about what this step's last round cost a game
        per_game = (left - now) / (games * len(top))
        played_out = self.look_further(played_out, seed, budget, per_game)
        # the fields not played out: their figure moved onto the games' scale by how far
        # the games of the fields played out were from those fields' own figures
        shift = sum(m - t[0] for m, t in zip(means, top)) / len(top)
        rest = [(v + shift, depth, p, after) for v, depth, p, after in ranked[len(top):]]
        return played_out + rest

    def look_further(self, played_out: list, seed: int, budget: Budget,
                     per_game: float) -> list:
        """The best `FURTHER_OPTIONS` played-out fields ranked again by a second step
        of games: for every next sum (weighed by its chance), its `FURTHER_FIELDS` best
        fields by the values are each played out `FURTHER_GAMES` times on the same
        seeded sums, and the best of them counts, so the next sum too is placed by games
        rather than by the values alone. Their figures keep the played-out fields' mean
        level (the best of several means of games lies above each). Started only where
        that many games fit in the budget by `per_game`, and where at least 3 fields are
        left after the one advised (docs/advisor.md, "Knister's further look")."""
        values = self.values
        best = played_out[:self.further_options]
        if len(best) < 2:
            return played_out
        afters = [values.codes(after.grid) for _, _, _, after in best]
        empty = 25 - int(afters[0][1].sum())
        sums_n, fields = len(values.chance), min(self.further_fields, empty)
        games = len(best) * sums_n * fields * self.further_games
        if empty < 3 or (budget.clocked and budget.left() < 1.2 * games * per_game):
            return played_out
        k = 25 - empty + 1          # filled fields once the next sum is written
        states = np.repeat(np.array([codes for codes, _ in afters]), sums_n, axis=0)
        filled = np.repeat(np.array([done for _, done in afters]), sums_n, axis=0)
        sum_index = np.tile(np.arange(sums_n), len(best))      # per (field, next sum)
        gains = values.field_gains(k, states, sum_index)
        gains[filled] = -np.inf
        chosen = np.argsort(-gains, axis=1, kind="stable")[:, :fields].ravel()
        starts = values.written(np.repeat(states, fields, axis=0), chosen,
                                np.repeat(sum_index, fields))
        filled_after = np.repeat(filled, fields, axis=0)
        filled_after[np.arange(len(chosen)), chosen] = True
        draws = [Dice(f"{seed}:{25 - empty}:{j}", empty - 1).first(self.further_games)
                 for j in range(sums_n)]
        n = self.further_games
        sums = np.tile(np.repeat(np.stack(draws), fields, axis=0).reshape(-1, empty - 1),
                       (len(best), 1))
        _, scores = values.play(sums, np.repeat(starts, n, axis=0),
                                np.repeat(filled_after, n, axis=0))
        means = scores.reshape(len(best), sums_n, fields, n).mean(axis=3)
        further = means.max(axis=2) @ values.chance
        level = sum(t[0] for t in best) / len(best) - float(further.mean())
        again = sorted(((v + level, LOOKED_FURTHER, p, after)
                        for v, (_, _, p, after) in zip(further.tolist(), best)),
                       key=lambda t: (-t[0], str(t[2])))
        return again + played_out[len(best):]

    def reason(self, before, after, placement: Placement) -> str:
        (mark,) = placement.marks
        r, c = self.game._labels.index(mark.row), mark.col
        lines, values = self.lines, self.values
        k = sum(v is not None for row in after.grid for v in row)
        parts = []
        for i in lines.through[(r, c)]:
            held = lines.contents(after.grid, i)
            was = lines.contents(before.grid, i)
            w = lines.weights[i]
            if len(held) == 5:
                combo = combination(held)
                points = w * final_points(self.game.layout.points, held)
                text = (Reason("advice.knister.completes_1" if points == 1 else
                               "advice.knister.completes", s=lines.names[i],
                               combo=COMBINATION_NAMES[combo], n=points) if combo else
                        Reason("advice.knister.completes_none", s=lines.names[i], n=points))
            else:
                text = Reason("advice.knister.holds", s=lines.names[i],
                              vs=" ".join(map(str, held)), s2=prospects(held))
            parts.append((values.line_value(k, i, held) - values.line_value(k, i, was), text))
        parts.sort(key=lambda t: -t[0])
        return joined([text for _, text in parts[:2]], "advice.then")

    def faces(self, index: int, die: Die):
        return ()

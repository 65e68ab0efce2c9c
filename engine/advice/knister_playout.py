"""Knister: games played to the end from a sheet, to compare the best fields for a sum on
the same dice.

Each playout writes a seeded sequence of sums, one per empty field, each into the field
whose lines gain most by the line values (`KnisterEvaluator.tables`), and scores the full
grid by the rules. The lines are coded as indices into `line_states()`, so that a field's
gain is a few table look-ups; `play_many` plays a whole batch of games at once with numpy
(one array operation per step for all of them), about 0.01 ms a game from an empty grid
against 0.07-0.16 ms for `play`, one game at a time in Python, on this 2-core machine
(2026-11-27). `play` is the reference `play_many` is tested against, game for game. Every
field compared is played out on the same sums (common random numbers), so the comparison
is not blurred by luck of the dice.
"""
from __future__ import annotations

import random
from itertools import accumulate, combinations_with_replacement
from typing import Sequence

import numpy as np

from ..games.knister import combination

SUMS = tuple(range(2, 13))
CHANCE = {s: (6 - abs(s - 7)) / 36 for s in SUMS}
SUM_WEIGHTS = tuple(CHANCE[s] for s in SUMS)
Line = tuple[int, ...]
NONE = 12            # the index of the padding "line" whose gain is always 0


def line_states() -> list[Line]:
    """Every sorted tuple of 0-5 sums a line can hold."""
    return [t for k in range(6) for t in combinations_with_replacement(SUMS, k)]


class Playouts:
    """The line codes of one evaluator's grid and its greedy playouts."""

    def __init__(self, cells: list[list[tuple[int, int]]], weights: list[int],
                 tables: list[dict[Line, float]], kind: list[int], points: dict) -> None:
        states = line_states()
        self.code = {s: i for i, s in enumerate(states)}
        code = self.code
        # the code after writing each sum (a full line stays as it is)
        self.next = [tuple(code[tuple(sorted(s + (v,)))] for v in SUMS) if len(s) < 5
                     else (code[s],) * len(SUMS) for s in states]
        # line values times the line's multiplier, per line
        self.values = [[weights[i] * tables[kind[i]][s] for s in states]
                       for i in range(len(cells))]
        self.score = [[weights[i] * (points[c] if len(s) == 5 and (c := combination(s))
                                     else 0) for s in states] for i in range(len(cells))]
        through = {(r, c): [i for i, line in enumerate(cells) if (r, c) in line]
                   for r in range(5) for c in range(5)}
        # every field's lines, padded to four with NONE (the centre is on four lines)
        self.lines_of = [tuple(through[divmod(f, 5)] + [NONE] * (4 - len(through[divmod(f, 5)])))
                         for f in range(25)]
        self.cells = cells
        # the same tables as arrays for play_many; the padding line NONE gains 0
        self._next = np.array(self.next, dtype=np.intp)
        self._values = np.array(self.values)
        self._score = np.array(self.score, dtype=np.int64)
        self._lines_of = np.array(self.lines_of, dtype=np.intp)
        self._on = np.zeros((len(cells), 25), dtype=bool)
        for f, lines in enumerate(self.lines_of):
            self._on[[i for i in lines if i != NONE], f] = True

    def codes(self, grid) -> tuple[list[int], list[int]]:
        """The code of each line of `grid` and its empty fields (0-24, row by row)."""
        states = [self.code[tuple(sorted(v for r, c in line if (v := grid[r][c]) is not None))]
                  for line in self.cells]
        empty = [r * 5 + c for r in range(5) for c in range(5) if grid[r][c] is None]
        return states, empty

    def play(self, states: list[int], empty: list[int], sums: Sequence[int]) -> int:
        """The final score after writing `sums` (one per empty field) greedily."""
        states, empty = states[:], empty[:]
        nxt, values, lines_of = self.next, self.values, self.lines_of
        lines = range(len(states))
        gain = [0.0] * (len(states) + 1)
        for s in sums:
            j = s - 2
            for i in lines:
                x = states[i]
                table = values[i]
                gain[i] = table[nxt[x][j]] - table[x]
            best, at = -1e18, 0
            for k, f in enumerate(empty):
                a, b, c, d = lines_of[f]
                g = gain[a] + gain[b] + gain[c] + gain[d]
                if g > best:
                    best, at = g, k
            for i in lines_of[empty.pop(at)]:
                if i != NONE:
                    states[i] = nxt[states[i]][j]
        return sum(self.score[i][x] for i, x in enumerate(states))

    def play_many(self, states: np.ndarray, filled: np.ndarray, sums: np.ndarray) -> np.ndarray:
        """The final scores of games played as `play` plays them, all at once: `states`
        (games x lines) line codes, `filled` (games x 25) whether each field is written,
        `sums` (games x empty fields) the sums to write in turn. The gains are added in
        `play`'s order and ties go to the first field, so the choices are the same."""
        states, filled = states.copy(), filled.copy()
        games = np.arange(len(states))
        lines = np.arange(states.shape[1])[None, :]
        a, b, c, d = self._lines_of.T
        gain = np.zeros((len(states), states.shape[1] + 1))
        for j in (sums - SUMS[0]).T:
            after = self._next[states, j[:, None]]
            gain[:, :-1] = self._values[lines, after] - self._values[lines, states]
            field = gain[:, a] + gain[:, b] + gain[:, c] + gain[:, d]
            field[filled] = -np.inf
            at = field.argmax(axis=1)
            filled[games, at] = True
            states = np.where(self._on[:, at].T, after, states)
        return self._score[lines, states].sum(axis=1)



class Dice:
    """Seeded sequences of sums of two dice, drawn as they are asked for: the n-th one is
    the same however many are drawn."""

    CUMULATIVE = np.array(list(accumulate(SUM_WEIGHTS)))

    def __init__(self, seed: str, length: int) -> None:
        self._rng = np.random.default_rng(random.Random(seed).getrandbits(64))
        self._length = length
        self.drawn = np.zeros((0, length), dtype=np.intp)

    def first(self, n: int) -> np.ndarray:
        """The first n sequences (n x length)."""
        if len(self.drawn) < n:
            u = self._rng.random((n - len(self.drawn), self._length))
            more = SUMS[0] + np.minimum(np.searchsorted(self.CUMULATIVE, u, side="right"),
                                        len(SUMS) - 1)
            self.drawn = np.concatenate([self.drawn, more])
        return self.drawn[:n]

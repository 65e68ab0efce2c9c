"""Knister: the sums of two dice, the states a line can be in, and seeded sequences of
sums for games played to the end.

Every field the advisor compares is played out on the same sequences of sums (common
random numbers, `Dice`), so the comparison is not blurred by the luck of the dice; the
games themselves are played by `StageValues.play` (knister_values.py).
"""
from __future__ import annotations

import random
from itertools import accumulate, combinations_with_replacement

import numpy as np

SUMS = tuple(range(2, 13))
CHANCE = {s: (6 - abs(s - 7)) / 36 for s in SUMS}
SUM_WEIGHTS = tuple(CHANCE[s] for s in SUMS)
Line = tuple[int, ...]


def line_states() -> list[Line]:
    """Every sorted tuple of 0-5 sums a line can hold."""
    return [t for k in range(6) for t in combinations_with_replacement(SUMS, k)]


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

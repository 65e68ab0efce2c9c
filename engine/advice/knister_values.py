"""Knister: a grid's expected final points, per number of filled fields, as a sum of line
values - and greedy games played by them, many at once.

    V_k(grid) = c_k + sum over the 12 lines of T_k[kind of line, state of line]

k is the number of filled fields (0-25), the kinds are rows and columns and the doubled
diagonals, and a line's state is the sorted tuple of the sums it holds (`line_states()`,
coded by index: the 1,365 open states first, then the 3,003 full ones). A full line's
entry is its exact points (doubled on a diagonal), so V_25 is the final score. The open
entries and c_k are fitted by bench/knister_values.py (fitted value iteration on
self-play: V_k fitted to the chance-weighted best placement of every next sum by
V_{k+1}) and shipped in tables/knister_values.npz.

Greedy play writes each sum where V_{k+1} of the result is highest; only the lines
through a field change, so a field's figure is the sum of its (at most four) lines'
gains. `play` plays a batch of games together, one array operation per step for up to
`PART` games at a time.
"""
from __future__ import annotations

import io
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from ..games.knister import Knister, combination
from .knister_playout import CHANCE, SUMS, line_states

OPEN_STATES = 1365           # line states with fewer than 5 sums come first
NONE = 12                    # the padding line, whose gain is always 0
FIELDS = 25
# `play` plays at most this many games at once: a part's arrays (0.1-0.2 MB each) stay in
# the processor's caches, where all of the advisor's 10,240 games at once would not
# (docs/advisor.md, "Knister's playouts")
PART = 1024


def sum_draws(rng: np.random.Generator, games: int, length: int) -> np.ndarray:
    """games x length sums of two dice."""
    return rng.integers(1, 7, (games, length)) + rng.integers(1, 7, (games, length))


@lru_cache(maxsize=1)
def _line_tables() -> tuple[list, dict, np.ndarray]:
    """The line states, their codes and the code after each sum (a full line stays)."""
    states = line_states()
    if sum(len(s) < 5 for s in states) != OPEN_STATES or any(
            len(s) == 5 for s in states[:OPEN_STATES]):
        raise AssertionError("line_states() no longer lists the open states first")
    code = {s: i for i, s in enumerate(states)}
    after = np.array([[code[tuple(sorted(s + (v,)))] if len(s) < 5 else code[s]
                       for v in SUMS] for s in states], dtype=np.intp)
    after.setflags(write=False)
    return states, code, after


@lru_cache(maxsize=1)
def _shipped_bytes() -> bytes:
    return resources.files("engine.advice").joinpath("tables",
                                                     "knister_values.npz").read_bytes()


class StageValues:
    """The fitted tables of one Knister layout and greedy play by them. The full lines'
    entries are the layout's own points; the shipped open entries were fitted for the rule
    book's points and are kept for a layout with others."""

    def __init__(self, game: Knister, tables: np.ndarray, constant: np.ndarray) -> None:
        tables = np.asarray(tables, dtype=np.float64)
        constant = np.asarray(constant, dtype=np.float64)
        if tables.shape != (FIELDS + 1, 2, OPEN_STATES) or constant.shape != (FIELDS + 1,):
            raise ValueError(f"Knister stage values need tables of shape "
                             f"{(FIELDS + 1, 2, OPEN_STATES)} and {FIELDS + 1} constants, "
                             f"got {tables.shape} and {constant.shape}")
        self.game = game
        self.states, self.code, self.next = _line_tables()
        layout_points = game.layout.points
        single = np.array([layout_points[c] if len(s) == 5 and (c := combination(s)) else 0
                           for s in self.states], dtype=np.float64)
        self.points = np.stack([single, 2 * single])          # per kind: rows/columns, diagonals
        self.cells = [cells for _, _, cells in game._lines]
        self.kind = np.array([0 if mult == 1 else 1 for _, mult, _ in game._lines],
                             dtype=np.intp)
        if sorted({mult for _, mult, _ in game._lines}) != [1, 2]:
            raise ValueError("Knister stage values expect lines counted once and twice")
        through = [[i for i, cells in enumerate(self.cells) if divmod(f, 5) in cells]
                   for f in range(FIELDS)]
        self.lines_of = np.array([t + [NONE] * (4 - len(t)) for t in through], dtype=np.intp)
        self.chance = np.array([CHANCE[s] for s in SUMS])
        self.constant = constant.copy()
        self.tables = tables.copy()
        self._full = np.empty((FIELDS + 1, 2, len(self.states)))
        self._pad = 2 * len(self.states)
        step = np.concatenate([self.next, self.next + len(self.states)])
        self._next_code = np.concatenate([step, np.full((1, len(SUMS)), self._pad)])
        self._sync()

    @classmethod
    def empty(cls, game: Knister) -> "StageValues":
        return cls(game, np.zeros((FIELDS + 1, 2, OPEN_STATES)), np.zeros(FIELDS + 1))

    @classmethod
    def shipped(cls, game: Knister) -> "StageValues":
        return cls.load(game, _shipped_bytes())

    @classmethod
    def load(cls, game: Knister, data: bytes) -> "StageValues":
        with np.load(io.BytesIO(data)) as npz:
            return cls(game, npz["tables"], npz["constant"])

    def save(self, path: Path) -> None:
        np.savez_compressed(path, tables=self.tables.astype(np.float32),
                            constant=self.constant.astype(np.float32))

    def copy(self) -> "StageValues":
        return StageValues(self.game, self.tables, self.constant)

    def set_full(self, full: np.ndarray) -> None:
        """Take the open entries of `full` (the full lines' entries stay their points)."""
        self.tables = np.array(full[:, :, :OPEN_STATES], dtype=np.float64)
        self._sync()

    def set_stage(self, k: int, open_entries: np.ndarray, constant: float) -> None:
        """Replace T_k's open entries (2 x 1,365) and c_k."""
        self.tables[k] = open_entries
        self.constant[k] = constant
        self._sync()

    def _sync(self) -> None:
        self._full[:, :, :OPEN_STATES] = self.tables
        self._full[:, :, OPEN_STATES:] = self.points[None, :, OPEN_STATES:]
        self._stage_gains: dict[int, np.ndarray] = {}

    # -- the playouts' tables: a line's kind and state as one code ---------------------
    #
    # A line of kind t in state s has the code t * len(states) + s; PAD, after the last, is
    # the padding line (`NONE`), which stays PAD and gains nothing. A step of `play` then
    # looks up every line's gain with one `take` and moves only the lines of the field it
    # writes (measured in docs/advisor.md, "Knister's playouts"). The tables are made when a
    # stage is first played, 0.77 MB each (20 MB once all 26 are), and dropped when the values
    # change.

    def _codes_of(self, states: np.ndarray) -> np.ndarray:
        """(n x 13) kind-and-state codes of grids given by their line codes (n x 12)."""
        codes = np.full((len(states), len(self.cells) + 1), self._pad, dtype=np.intp)
        codes[:, :-1] = states + self.kind * len(self.states)
        return codes

    def _gain_table(self, k: int) -> np.ndarray:
        """Flat: entry code * 11 + sum index is what V_k gains when that sum joins a line of
        that code (the same difference `_gains` takes, so the same figures to the bit)."""
        table = self._stage_gains.get(k)
        if table is None:
            full = self._full[k]                                   # (kind, state)
            gain = full[:, self.next] - full[:, :, None]           # (kind, state, sum)
            table = np.zeros((self._pad + 1, len(SUMS)))
            table[:-1] = gain.reshape(-1, len(SUMS))
            table = self._stage_gains[k] = table.ravel()
        return table

    # -- one grid --------------------------------------------------------------------

    def codes(self, grid) -> tuple[np.ndarray, np.ndarray]:
        """The code of each line of `grid` and which of the 25 fields are written."""
        states = np.array([self.code[tuple(sorted(v for r, c in line
                                                  if (v := grid[r][c]) is not None))]
                           for line in self.cells], dtype=np.intp)
        filled = np.array([grid[r][c] is not None for r in range(5) for c in range(5)])
        return states, filled

    def line_value(self, k: int, index: int, line: tuple[int, ...]) -> float:
        """T_k's entry for line `index` holding `line`."""
        return float(self._full[k, self.kind[index], self.code[tuple(sorted(line))]])

    # -- many grids at once ----------------------------------------------------------

    def value(self, k, states: np.ndarray) -> np.ndarray:
        """V_k of grids given by their line codes (n x 12); k a number or one per grid."""
        k = np.broadcast_to(np.asarray(k), (len(states),))
        return self.constant[k] + self._full[k[:, None], self.kind[None, :], states].sum(axis=1)

    def field_gains(self, k, states: np.ndarray, j: np.ndarray) -> np.ndarray:
        """(n x 25) how much V_k changes by writing sum index j (one per grid) in each
        field, filled or not: the gains of the lines through the field, added in a fixed
        order."""
        return self._gains(k, states, j)[1]

    def written(self, states: np.ndarray, fields: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Line codes (n x 12) of grids `states` once sum index j[i] is written in field
        fields[i] of grid i: only the (at most four) lines through the field change."""
        through = np.zeros((len(states), NONE + 1), dtype=bool)     # the last: the padding
        through[np.arange(len(states))[:, None], self.lines_of[fields]] = True
        return np.where(through[:, :NONE], self.next[states, j[:, None]], states)

    def _gains(self, k, states: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(each line's code after sum index j, `field_gains`); k a number or one per grid."""
        after = self.next[states, j[:, None]]
        if np.ndim(k) == 0:
            table, kinds = self._full[k], self.kind[None, :]
            line_gain = table[kinds, after] - table[kinds, states]
        else:
            at, kinds = np.asarray(k)[:, None], self.kind[None, :]
            line_gain = self._full[at, kinds, after] - self._full[at, kinds, states]
        gain = np.zeros((len(states), states.shape[1] + 1))     # the last: NONE, no gain
        gain[:, :-1] = line_gain
        a, b, c, d = self.lines_of.T
        return after, gain[:, a] + gain[:, b] + gain[:, c] + gain[:, d]

    def play(self, sums: np.ndarray, states: np.ndarray | None = None,
             filled: np.ndarray | None = None, record: bool = False):
        """Greedy games, all at once: `sums` (games x empty fields) written in turn, each
        where V_{k+1} of the result is highest (ties: the first field), from `states`
        (games x 12 line codes) and `filled` (games x 25), an empty grid by default. The
        grids may differ but must have the same number of filled fields. Returns the
        grids before each sum when `record` (a list of (states, filled)) and the final
        scores."""
        games = len(sums)
        if states is None:
            states = np.zeros((games, len(self.cells)), dtype=np.intp)
            filled = np.zeros((games, FIELDS), dtype=bool)
        k0 = int(filled[0].sum()) if games else 0
        if games and not (filled.sum(axis=1) == k0).all():
            raise ValueError("play: every grid must have the same number of filled fields")
        if sums.shape[1] != FIELDS - k0:
            raise ValueError(f"play: {FIELDS - k0} sums per game needed, got {sums.shape[1]}")
        parts = [self._play_part(sums[i:i + PART], states[i:i + PART], filled[i:i + PART],
                                 k0, record) for i in range(0, games, PART)]
        if not parts:
            return [], np.zeros(0)
        kept = [(np.concatenate([p[0][step][0] for p in parts]),
                 np.concatenate([p[0][step][1] for p in parts]))
                for step in range(len(parts[0][0]))]
        return kept, np.concatenate([p[1] for p in parts])

    def _play_part(self, sums, states, filled, k0: int, record: bool):
        """`play` for at most PART games."""
        rows = np.arange(len(sums))[:, None]
        kept = []
        codes = self._codes_of(states)
        closed = np.where(filled, -np.inf, 0.0)
        a, b, c, d = self.lines_of.T
        offset = self.kind * len(self.states)
        for step, j in enumerate((sums - SUMS[0]).T):
            if record:
                kept.append((codes[:, :-1] - offset, closed == -np.inf))
            gain = self._gain_table(k0 + step + 1).take(codes * len(SUMS) + j[:, None])
            at = (gain[:, a] + gain[:, b] + gain[:, c] + gain[:, d] + closed).argmax(axis=1)
            closed[rows[:, 0], at] = -np.inf
            moved = self.lines_of[at]
            codes[rows, moved] = self._next_code[codes[rows, moved], j[:, None]]
        return kept, self.points[self.kind[None, :], codes[:, :-1] - offset].sum(axis=1)

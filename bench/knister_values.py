"""Fit Knister's stage line values (engine/advice/tables/knister_values.npz) by fitted
value iteration on self-play.

The value of a grid with k filled fields is modelled as

    V_k(grid) = c_k + sum over the 12 lines of T_k[kind of line, state of line]

with two kinds of line (rows and columns; the doubled diagonals) and the 4,368 sorted
tuples of sums a line can hold as its states. A full line's entry is its exact points
(doubled on a diagonal) at every k, so V_25 is the final score; the 1,365 entries of each
kind for lines not yet full, and c_k, are learned.

One iteration plays `--games` seeded solo games greedily by the current tables (each sum
written where V_{k+1} of the result is highest) and records every grid after each
placement. Then, from k = 24 down to 0, each recorded grid with k filled fields gets the
target sum over the 11 sums s of P(s) * max over its empty fields of V_{k+1}(grid with s
there) - the value of the best placement of every next roll, with the tables of k+1 just
fitted - and V_k's entries are fitted to those targets by least squares, pulled towards
the previous iteration's entries by a ridge (`--ridge`), over the entries that occur at k.
Each iteration's tables are scored by greedy play on the same 20,000 other seeded games;
the best iteration's are written.

Training-time only: numpy, no other dependency; the engine reads the written file.

    python bench/knister_values.py [--iterations 12] [--games 100000] [--ridge 3]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.advice.knister_playout import SUMS  # noqa: E402
from engine.advice.knister_values import (OPEN_STATES, StageValues,  # noqa: E402
                                          sum_draws)
from engine.registry import load_game  # noqa: E402

OUT = ROOT / "engine" / "advice" / "tables" / "knister_values.npz"
SCORE_SEED, SCORE_GAMES = 12345, 20000


def start_tables(values: StageValues) -> np.ndarray:
    """Every stage starts from each line state's points averaged over random sums in its
    empty fields (26 x 2 x 4,368)."""
    table = values.points.copy()
    by_code = values.code
    for s in sorted(values.states[:OPEN_STATES], key=len, reverse=True):
        after = [by_code[tuple(sorted(s + (v,)))] for v in SUMS]
        table[:, by_code[s]] = table[:, after] @ values.chance
    return np.repeat(table[None], 26, axis=0)


def targets(values: StageValues, k: int, states: np.ndarray, filled: np.ndarray) -> np.ndarray:
    """For grids with k filled fields (line codes, filled fields), the chance-weighted
    value of the best placement of each next sum by V_{k+1}."""
    base = values.value(k + 1, states)
    out = base.copy()
    for j, p in enumerate(values.chance):
        gain = values.field_gains(k + 1, states, np.full(len(states), j))
        gain[filled] = -np.inf
        out += p * gain.max(axis=1)
    return out


def fit_stage(values: StageValues, k: int, states: np.ndarray, y: np.ndarray,
              ridge: float) -> None:
    """Least squares of V_k's open entries and c_k on (states, y), pulled to the current
    entries by `ridge`."""
    kinds = values.kind[None, :]
    open_ = states < OPEN_STATES
    fixed = np.where(open_, 0.0, values.points[kinds, states]).sum(axis=1)
    width = 2 * OPEN_STATES
    cols = np.where(open_, kinds * OPEN_STATES + states, width + 1)   # width + 1: dropped
    cols = np.concatenate([cols, np.full((len(states), 1), width)], axis=1)
    seen, inverse = np.unique(cols, return_inverse=True)
    inverse = inverse.reshape(cols.shape)
    keep = seen <= width
    n = int(keep.sum())
    local = np.where(keep[inverse], inverse, n)      # n: the dropped column
    x0 = np.append(values.tables[k].reshape(-1), values.constant[k])[seen[keep]]
    pred = fixed + x0[np.minimum(local, n - 1)].sum(axis=1, where=local < n)
    residual = y - pred
    pairs = (local[:, :, None] * (n + 1) + local[:, None, :]).reshape(-1)
    ata = np.bincount(pairs, minlength=(n + 1) ** 2).reshape(n + 1, n + 1)[:n, :n]
    atr = np.bincount(local.reshape(-1), weights=np.repeat(residual, local.shape[1]),
                      minlength=n + 1)[:n]
    x = x0 + np.linalg.solve(ata + ridge * np.eye(n), atr)
    flat = np.append(values.tables[k].reshape(-1), values.constant[k])
    flat[seen[keep]] = x
    values.set_stage(k, flat[:width].reshape(2, OPEN_STATES), flat[width])


def iterate(values: StageValues, games: int, seed: int, ridge: float) -> None:
    rng = np.random.default_rng(seed)
    record, _ = values.play(sum_draws(rng, games, 25), record=True)
    for k in range(24, -1, -1):
        states, filled = record[k]
        fit_stage(values, k, states, targets(values, k, states, filled), ridge)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=12)
    parser.add_argument("--games", type=int, default=100000)
    parser.add_argument("--ridge", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--start", type=Path,
                        help="go on from these tables instead of the random-fill values")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    game = load_game("knister")
    if args.start:
        values = StageValues.load(game, args.start.read_bytes())
    else:
        values = StageValues.empty(game)
        values.set_full(start_tables(values))
    score_sums = sum_draws(np.random.default_rng(SCORE_SEED), SCORE_GAMES, 25)
    best = values.play(score_sums)[1].mean()
    print(f"start ({args.start or 'random-fill line values at every stage'}): "
          f"{best:.2f} points "
          f"greedy on {SCORE_GAMES} seeded games")
    best_state = None
    for it in range(args.iterations):
        t = time.time()
        iterate(values, args.games, args.seed * 1000 + it, args.ridge)
        mean = values.play(score_sums)[1].mean()
        v0 = values.value(0, np.zeros((1, 12), dtype=np.intp))[0]
        print(f"iteration {it + 1}: {mean:.2f} points greedy, V_0 {v0:.1f} "
              f"({time.time() - t:.0f} s)", flush=True)
        if mean > best:
            best, best_state = mean, values.copy()
    if best_state is None:
        print("no iteration beat the start; nothing written")
        return
    best_state.save(args.out)
    written = StageValues.load(game, args.out.read_bytes())
    print(f"wrote {args.out}: {written.play(score_sums)[1].mean():.2f} points greedy "
          f"as stored (float32)")


if __name__ == "__main__":
    main()

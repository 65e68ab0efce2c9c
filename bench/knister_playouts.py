"""How fast Knister's playouts run: `StageValues.play` on the batch the advisor plays for its
first field of a game (10 fields x 1,024 games, each from a grid with one field written, 24
sums to place), in CPU time of this process (`time.process_time`).

    python bench/knister_playouts.py [--games 1024] [--fields 10] [--repeats 7]

Prints the median and best time of one batch and the time per game and per placement.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.advice.knister_playout import Dice  # noqa: E402
from engine.advice.knister_values import StageValues  # noqa: E402
from engine.registry import load_game  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1024, help="games a field (1,024)")
    parser.add_argument("--fields", type=int, default=10, help="fields played out (10)")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    values = StageValues.shipped(load_game("knister"))
    starts = []
    for f in range(args.fields):          # a 7 in each of the first fields, one at a time
        grid = [[None] * 5 for _ in range(5)]
        grid[f // 5][f % 5] = 7
        starts.append(values.codes(grid))
    sums = Dice("bench", 24).first(args.games)
    batch = np.tile(sums, (args.fields, 1))
    states = np.repeat(np.array([s for s, _ in starts]), args.games, axis=0)
    filled = np.repeat(np.array([f for _, f in starts]), args.games, axis=0)
    values.play(batch[:64], states[:64], filled[:64])             # the stage tables, once
    took = []
    for _ in range(args.repeats):
        t0 = time.process_time()
        _, scores = values.play(batch, states, filled)
        took.append(time.process_time() - t0)
    n = len(batch)
    med = statistics.median(took)
    print(f"{args.fields} fields x {args.games} games ({n} games, 24 sums each): "
          f"median {med * 1000:.1f} ms, best {min(took) * 1000:.1f} ms of CPU a batch; "
          f"{med / n * 1e6:.2f} us a game, {med / n / 24 * 1e9:.0f} ns a placement; "
          f"mean score {scores.mean():.2f}")


if __name__ == "__main__":
    main()

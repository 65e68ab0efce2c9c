"""Engine speed for the graph games: The Choice legal actions, Kuh Vadis blocking, games/s.

Prints CPU-time figures (one core; `time.process_time_ns`, so a busy machine skews them
less than wall time):
- The Choice: median / p90 / max microseconds of one `legal()` call (every placement
  generated) on random mid-game sheets with random rolls, for the roller and the others;
  target <= 2,000 us.
- Kuh Vadis: median / p90 / max microseconds to decide whether each player is cut off
  (both `cut_off` calls, caches cleared before every call); target <= 1,000 us.
- Random full games per second for both games through the checked table
  (`engine.simulate.random_game`), and Kuh Vadis on the unchecked core.

    python bench/engine_graph_games.py [--seconds 3] [--positions 300]
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(1, str(Path(__file__).resolve().parent))

from engine.game import OTHER, ROLLER  # noqa: E402
from engine.games import kuh_vadis as kv  # noqa: E402
from engine.placement import MISTHROW  # noqa: E402
from engine.registry import load_game  # noqa: E402
from engine.simulate import random_game  # noqa: E402
from timing import per_second, stats, time_legal  # noqa: E402


def choice_positions(game, rng, count):
    """Sheets after 0-12 random rolls that used dice (no misthrows), some on the back."""
    out = []
    while len(out) < count:
        sheet = game.new_sheet(rng.choice(["front", "back"]))
        for _ in range(rng.randint(0, 12)):
            roll = game.random_roll(rng)
            used = [p for p in game.legal(sheet, roll, OTHER)
                    if p.kind != MISTHROW and all(m.row != "M" for m in p.marks)]
            if used:
                sheet = game.apply(sheet, rng.choice(used))
        if rng.random() < 0.3:
            sheet = game.end_side(sheet)
        out.append((sheet, game.random_roll(rng), rng.choice([ROLLER, OTHER])))
    return out


def kuh_vadis_play(game, rng, turns):
    """A pad after up to `turns` random turns (unchecked core)."""
    sheet = game.new_sheet()
    for _ in range(turns):
        if game.is_finished(sheet):
            break
        roll = game.random_roll(rng)
        for _ in range(2):
            if kv.results(roll):
                break
            roll = game.random_roll(rng, roll)
        sheet = game.apply_result(sheet, roll, ROLLER,
                                  rng.choice(list(game.legal(sheet, roll, ROLLER))))
    return sheet


def time_blocked(game, rng, count, repeat=5):
    samples = []
    for _ in range(count):
        sheet = kuh_vadis_play(game, rng, rng.randint(5, 120))
        t0 = time.process_time_ns()
        for _ in range(repeat):
            kv._reach_mask.cache_clear()
            kv._owner_masks.cache_clear()
            game.cut_off(sheet, kv.CROSSES)
            game.cut_off(sheet, kv.CIRCLES)
        samples.append((time.process_time_ns() - t0) / repeat / 1000)
    return stats(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per games/s figure")
    parser.add_argument("--positions", type=int, default=300)
    args = parser.parse_args()
    rng = random.Random(1)
    choice = load_game("the_choice")
    cow = load_game("kuh_vadis")

    med, p90, top = time_legal(choice, choice_positions(choice, rng, args.positions))
    print(f"The Choice legal() on mid-game sheets: median {med:.0f} us, p90 {p90:.0f} us, "
          f"max {top:.0f} us (target <= 2000 us)")
    empty = [(choice.new_sheet(), choice.random_roll(rng), ROLLER) for _ in range(100)]
    med, p90, top = time_legal(choice, empty)
    print(f"The Choice legal() on empty sheets (most choices): median {med:.0f} us, "
          f"p90 {p90:.0f} us, max {top:.0f} us")
    med, p90, top = time_blocked(cow, rng, args.positions)
    print(f"Kuh Vadis blocked detection (both players, uncached): median {med:.1f} us, "
          f"p90 {p90:.1f} us, max {top:.1f} us (target <= 1000 us)")

    gps = per_second(lambda seed: random_game(choice, 3, seed), args.seconds)
    print(f"The Choice random full games/s (3 players, checked table): {gps:.0f}")
    gps = per_second(lambda seed: random_game(cow, 2, seed), args.seconds)
    print(f"Kuh Vadis random full games/s (checked table): {gps:.0f}")
    gps = per_second(lambda seed: kuh_vadis_play(cow, random.Random(seed), 10_000),
                     args.seconds)
    print(f"Kuh Vadis random full games/s (unchecked core): {gps:.0f}")


if __name__ == "__main__":
    main()

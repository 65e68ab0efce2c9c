"""Engine speed: legal placements on mid-game sheets, and random full games per second.

Prints, per game: the median and p90 CPU microseconds of one `legal()` call (all placements
generated) on mid-game sheets with random rolls, and random full games per second on one
core (CPU time of the process, so that a busy machine does not skew them).
Targets (issue 2): <= 50 us per call; >= 2,000 Knister solo games/s. The graph games' own
measures (The Choice's legal actions, Kuh Vadis blocking) are in bench/engine_graph_games.py.

    python bench/engine.py [--games-seconds 3]
"""
from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(1, str(Path(__file__).resolve().parent))

from engine.registry import GAMES, load_game  # noqa: E402
from engine.simulate import random_game, random_sheets, random_turn  # noqa: E402
from engine.table import Table  # noqa: E402
from timing import per_second, time_legal  # noqa: E402


def mid_game_positions(game, rng, count=200):
    """(sheet, roll, role) from random games stopped about half way."""
    out = []
    while len(out) < count:
        table = Table.new(game, ["a", "b"])
        for _ in range(rng.randint(6, 14)):
            if table.is_over:
                break
            table = random_turn(table, rng)
        if table.is_over:
            continue
        out.append((table.sheets[0], game.random_roll(rng), rng.choice(["roller", "other"])))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games-seconds", type=float, default=3.0)
    parser.add_argument("--game", action="append", help="only these games")
    args = parser.parse_args()
    rng = random.Random(1)
    print("games/s: 'core' plays on the unchecked core (legal + apply, as a bot would);")
    print("'table' plays through the checked table (every action validated, as the app does)")
    print(f"{'game':<12} {'legal median us':>16} {'p90 us':>8} {'players':>8} "
          f"{'core games/s':>13} {'table games/s':>14}")
    for name in args.game or list(GAMES):
        game = load_game(name)
        players = game.min_players
        med, p90, _ = time_legal(game, mid_game_positions(game, rng), repeat=20)
        core = (per_second(lambda seed: random_sheets(game, players, seed), args.games_seconds)
                if not game.shared_sheet and game.max_attempts <= 2 else float("nan"))
        table = per_second(lambda seed: random_game(game, players, seed), args.games_seconds)
        print(f"{name:<12} {med:>16.1f} {p90:>8.1f} {players:>8} {core:>13.0f} {table:>14.0f}")


if __name__ == "__main__":
    main()

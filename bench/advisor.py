"""The advisor's strength and speed: seeded games against random and greedy players.

For each game, over seeded games (engine/advice/players.py: RandomPlayer, GreedyPlayer,
AdvisorPlayer; dice and choices from separate seeded generators):
- solo (Knister, twenty one, Qwinto): each seed is played once by each kind of player
  on the same dice stream; mean, standard deviation, the mean's 95 % confidence
  interval (1.96 standard errors), and the advisor's win rate over
  greedy on the same seed (ties count half) with a 95 % Wilson interval;
- 3 players (Knister, twenty one, Qwinto): one advisor, one greedy and one random
  player at a table, seats rotated by seed; the same figures from those games;
- head to head (Kuh Vadis, The Choice): advisor against greedy, seats swapped every
  other seed; plus greedy and random against each other for their own means;
- time: median and p99 CPU milliseconds of one advisor call (a placement, a dice
  choice, or Qwinto's colours), on one core (`time.process_time`), with the given
  budget per call.

    python bench/advisor.py [--games N] [--duel-games N] [--budget-ms 200] [--game G ...]
                            [--no-three] [--knister-games N] [--jobs N]

The default run (--games 300 --duel-games 100) took 194 s of CPU, 249 s of wall time, on
this 2-core machine while it was busy (2026-11-27), before Knister's best fields were
played out; Knister alone (--game knister --no-three --games 1000 --jobs 2) takes 855 s of
CPU and 7 minutes of wall time (2026-12-03). The figures in docs/advisor.md come from
--games 1000 --duel-games 200.
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.advice.players import (AdvisorPlayer, GreedyPlayer, RandomPlayer,  # noqa: E402
                                   play_game)
from engine.registry import load_game  # noqa: E402

SOLO = ["knister", "twenty_one", "qwinto"]
DUEL = ["kuh_vadis", "the_choice"]


class Timed(AdvisorPlayer):
    """An advisor player that records the CPU time of each call."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.calls: list[float] = []

    def _timed(self, f, *args):
        t0 = time.process_time()
        out = f(*args)
        self.calls.append((time.process_time() - t0) * 1000)
        return out

    def first_roll(self, *args):
        if hasattr(self.evaluator, "colour_choices"):     # Qwinto: which colours
            return self._timed(super().first_roll, *args)
        return super().first_roll(*args)

    def reroll(self, *args):
        return self._timed(super().reroll, *args)

    def place(self, *args):
        return self._timed(super().place, *args)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return float("nan"), float("nan")
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def spread(xs: list[float]) -> str:
    """Mean ± standard deviation, and the mean's 95 % confidence interval."""
    mean, sd = statistics.mean(xs), statistics.pstdev(xs)
    half = 1.96 * sd / math.sqrt(len(xs))
    return f"{mean:7.1f} ± {sd:5.1f} (mean {mean - half:.1f}-{mean + half:.1f})"


def times(calls: list[float]) -> str:
    if not calls:
        return "-"
    calls = sorted(calls)
    return f"median {statistics.median(calls):.1f} ms, p99 {calls[int(len(calls) * 0.99)]:.1f} ms"


def win_line(label: str, a: list[float], b: list[float]) -> str:
    wins = sum(1.0 if x > y else 0.5 if x == y else 0.0 for x, y in zip(a, b))
    lo, hi = wilson(wins, len(a))
    return (f"  {label}: advisor beats greedy in {wins / len(a) * 100:.1f} % of games "
            f"(95 % CI {lo * 100:.1f}-{hi * 100:.1f} %, n={len(a)})")


def summary(title: str, scores: dict, label: str, calls: list[float]) -> list[str]:
    out = [title] + [f"  {k:<8} {spread(v)}" for k, v in scores.items()]
    out.append(win_line(label, scores["advisor"], scores["greedy"]))
    out.append(f"  advisor call time: {times(calls)}")
    return out


def advisor(game, budget: float, players: int, knister_games: int | None) -> Timed:
    adv = Timed(game, budget_s=budget, clock=time.process_time, players=players)
    if knister_games and game.name == "knister":
        adv.evaluator.playout_games = knister_games
    return adv


def solo_games(name: str, seeds: range, budget: float, knister_games: int | None
               ) -> tuple[dict, list[float]]:
    """The solo games of `seeds`: each kind of player's scores, and the advisor's call times."""
    game = load_game(name)
    adv = advisor(game, budget, 1, knister_games)
    scores = {k: [] for k in ("random", "greedy", "advisor")}
    for seed in seeds:
        scores["random"].append(play_game(game, [RandomPlayer()], seed)[0])
        scores["greedy"].append(play_game(game, [GreedyPlayer()], seed)[0])
        scores["advisor"].append(play_game(game, [adv], seed)[0])
    return scores, adv.calls


def solo(name: str, games: int, budget: float, knister_games: int | None = None,
         jobs: int = 1) -> list[str]:
    """Solo games, in `jobs` processes (each a slice of the seeds; the budget is each
    process's own CPU time, so the games are the ones one process plays)."""
    parts = [range(k, games, jobs) for k in range(jobs)]
    with ProcessPoolExecutor(jobs) as pool:
        done = list(pool.map(solo_games, [name] * jobs, parts, [budget] * jobs,
                             [knister_games] * jobs))
    scores: dict = {k: [0.0] * games for k in ("random", "greedy", "advisor")}
    calls: list[float] = []
    for seeds, (part, times_) in zip(parts, done):
        for k, xs in part.items():
            for seed, x in zip(seeds, xs):
                scores[k][seed] = x
        calls += times_
    return summary(f"{name} solo, {games} seeded games", scores, "same dice", calls)


def table3(name: str, games: int, budget: float, knister_games: int | None = None
           ) -> list[str]:
    game = load_game(name)
    adv = advisor(game, budget, 3, knister_games)
    scores = {k: [] for k in ("random", "greedy", "advisor")}
    for seed in range(games):
        kinds = [adv, GreedyPlayer(), RandomPlayer()]
        shift = seed % 3
        seats = kinds[shift:] + kinds[:shift]
        for p in seats:
            if isinstance(p, GreedyPlayer):
                p.seat = seats.index(p)
        result = play_game(game, seats, seed)
        for p, s in zip(seats, result):
            scores[p.name].append(s)
    return summary(f"{name}, 3 players (advisor, greedy, random at one table), {games} "
                   f"seeded games", scores, "same table", adv.calls)


def duel(name: str, games: int, budget: float) -> list[str]:
    game = load_game(name)
    adv = Timed(game, budget_s=budget, clock=time.process_time, players=2)
    a_scores, g_scores = [], []
    for seed in range(games):
        if seed % 2 == 0:
            a, g = play_game(game, [adv, GreedyPlayer(1)], seed)
        else:
            g, a = play_game(game, [GreedyPlayer(0), adv], seed)
        a_scores.append(a)
        g_scores.append(g)
    base = {"random": [], "greedy": []}
    for seed in range(games):
        seats = [GreedyPlayer(0), RandomPlayer()] if seed % 2 == 0 else \
            [RandomPlayer(), GreedyPlayer(1)]
        result = play_game(game, seats, seed)
        for p, s in zip(seats, result):
            base[p.name].append(s)
    out = [f"{name}, head to head, {games} seeded games each"]
    out.append(f"  random   {spread(base['random'])}  (against greedy)")
    out.append(f"  greedy   {spread(base['greedy'])}  (against random)")
    out.append(f"  greedy   {spread(g_scores)}  (against the advisor)")
    out.append(f"  advisor  {spread(a_scores)}  (against greedy)")
    out.append(win_line("head to head", a_scores, g_scores))
    out.append(f"  advisor call time: {times(adv.calls)}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300,
                        help="seeded games per solo and 3-player line (default 300)")
    parser.add_argument("--duel-games", type=int, default=100,
                        help="seeded head-to-head games (default 100)")
    parser.add_argument("--budget-ms", type=float, default=200.0,
                        help="the advisor's CPU budget per call (default 200)")
    parser.add_argument("--game", action="append", help="only these games")
    parser.add_argument("--no-three", action="store_true", help="skip the 3-player tables")
    parser.add_argument("--knister-games", type=int,
                        help="Knister: at most this many games played out per field "
                             "(default the advisor's own)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="processes for the solo lines (default 1)")
    args = parser.parse_args()
    budget = args.budget_ms / 1000
    chosen = args.game or SOLO + DUEL
    t0, wall = time.process_time(), time.perf_counter()
    for name in chosen:
        if name in SOLO:
            lines = solo(name, args.games, budget, args.knister_games, args.jobs)
            if not args.no_three:
                lines += table3(name, args.games, budget, args.knister_games)
        else:
            lines = duel(name, args.duel_games, budget)
        print("\n".join(lines), flush=True)
    children = os.times().children_user + os.times().children_system
    print(f"({time.process_time() - t0 + children:.0f} s of CPU, "
          f"{time.perf_counter() - wall:.0f} s of wall time)")


if __name__ == "__main__":
    main()

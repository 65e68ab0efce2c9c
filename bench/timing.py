"""Timing helpers shared by the engine benchmarks: CPU time of this process, so that the
figures describe one core even while the machine is busy."""
from __future__ import annotations

import statistics
import time


def stats(samples: list[float]) -> tuple[float, float, float]:
    """Median, p90 and maximum."""
    samples = sorted(samples)
    return statistics.median(samples), samples[int(len(samples) * 0.9)], samples[-1]


def time_legal(game, positions, repeat=5) -> tuple[float, float, float]:
    """CPU microseconds to generate every legal placement, per (sheet, roll, role)."""
    samples = []
    for sheet, roll, role in positions:
        t0 = time.process_time_ns()
        for _ in range(repeat):
            list(game.legal(sheet, roll, role))
        samples.append((time.process_time_ns() - t0) / repeat / 1000)
    return stats(samples)


def per_second(play, seconds: float) -> float:
    """How many times `play(i)` (i = 0, 1, ...) runs per CPU second."""
    n, t0 = 0, time.process_time()
    while time.process_time() - t0 < seconds:
        play(n)
        n += 1
    return n / (time.process_time() - t0)

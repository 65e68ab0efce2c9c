"""Which colours the companion's camera shows (companion.reader.sure_colours): on synthetic scenes
of a game's own dice, every third scene with one die of a colour the game does not have, how
many colours vision names wrongly, how many of those the page would still show, how many right
ones it hides (the player taps them), and how many foreign dice it names.

    python bench/web_colours.py [--scenes 60] [--seed 2026]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from companion.reader import SURE_COLOUR, Vision, sure_colours
from vision.training.synth import render_scene

CASES = [("qwinto", ["orange", "yellow", "purple"], "white"),
         ("qwinto", ["orange", "yellow", "purple"], "red"),
         ("twenty_one", ["white", "black", "red", "blue", "yellow", "green"], "purple")]


def nearest(dice, box):
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return min(dice, key=lambda t: abs((t.box[0] + t.box[2]) / 2 - cx)
               + abs((t.box[1] + t.box[3]) / 2 - cy))


def run(colours, foreign, scenes, seed):
    reader = Vision().reader(colours, [1, 2, 3, 4, 5, 6])
    rng = np.random.default_rng(seed)
    rows, cost = [], []
    for k in range(scenes):
        pal = list(colours) + ([foreign] if k % 3 == 2 else [])
        scene = render_scene(rng, size=(480, 640), colours=pal, n_dice=len(pal), distinct=True)
        result = reader(scene.image)
        t0 = time.perf_counter()
        shown = sure_colours(scene.image, result.dice, [d.colour_confidence for d in result.dice],
                             True)
        cost.append((time.perf_counter() - t0) * 1000)
        for d, s in zip(result.dice, shown):
            truth = nearest(scene.dice, d.box).colour
            rows.append((truth == foreign, d.colour == truth, s.colour is not None))
    return rows, float(np.median(cost))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=60)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    print(f"a colour is shown at a share >= {SURE_COLOUR} that vision's general palette agrees "
          "with")
    for game, colours, foreign in CASES:
        rows, ms = run(colours, foreign, args.scenes, args.seed)
        own = [r for r in rows if not r[0]]
        other = [r for r in rows if r[0]]
        print(f"{game} + a {foreign} die: own dice {len(own)}, named wrongly "
              f"{sum(not r[1] for r in own)}, of those shown "
              f"{sum(r[2] and not r[1] for r in own)}, right ones hidden "
              f"{sum(r[1] and not r[2] for r in own)}; {foreign} dice {len(other)}, named "
              f"{sum(r[2] for r in other)}; check {ms:.2f} ms a frame (median)")


if __name__ == "__main__":
    main()

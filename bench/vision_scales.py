"""The whole reader across photo and die sizes: small dice in a big photo, big dice in a small one.

    python bench/vision_scales.py [--scenes 20] [--seed 5] [--no-closer]

Issue 3 asks for photos of any size up to 4K and dice from about 25 to about 400 px across. The
detector works on a copy whose longer side is 384 px (``vision.detect.WORK``), so the die size it
sees depends on both; this bench renders synthetic scenes (``vision.training.synth.render_scene``
with a fixed ``side_range``) for each row and prints detection recall, extra boxes, face accuracy
and the median time per photo. ``--no-closer`` turns off the detector's second, closer look at small
dice (``vision.detect.closer_work``) to show what it changes. ``--input jpeg`` hands the reader each
scene as JPEG bytes (quality 90), as a phone's upload or the ``read`` command does, so a large
photo is decoded at a reduced size where its dice allow (``vision.pipeline.decode_reduced``);
``--input jpeg-whole`` decodes the same bytes whole first; both times include the decoding.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vision.training.metrics import greedy_match  # noqa: E402
from vision.pipeline import DiceReader, decode_image  # noqa: E402
from vision.training.synth import render_scene  # noqa: E402

# (height, width), die side range in input pixels, most dice per scene (big dice need room)
ROWS = [
    ((640, 640), (25, 35), 8),
    ((640, 640), (160, 240), 2),
    ((720, 1280), (25, 35), 8),
    ((1080, 1920), (25, 35), 8),
    ((1080, 1920), (40, 60), 8),
    ((2160, 3840), (40, 60), 8),
    ((2160, 3840), (80, 120), 8),
    ((3024, 4032), (100, 160), 8),
    ((2160, 3840), (300, 420), 6),
]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=20, help="scenes per row")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--no-closer", action="store_true", help="no second look at small dice")
    ap.add_argument("--input", choices=["array", "jpeg", "jpeg-whole"], default="array",
                    help="the decoded scene, its JPEG bytes, or those bytes decoded whole first")
    args = ap.parse_args(argv)
    import cv2
    cv2.setNumThreads(1)
    reader = DiceReader(threads=1, outlines=False)
    reader.finder.look_closer = not args.no_closer
    print(f"{args.scenes} synthetic scenes per row (seed {args.seed}, 1 to 8 dice each, fewer when "
          f"big), one thread, closer look {'off' if args.no_closer else 'on'}, input {args.input}")
    for (h, w), sides, most in ROWS:
        rng = np.random.default_rng([args.seed, h, w, sides[0]])
        found = dice = extra = right = 0
        times = []
        for _ in range(args.scenes):
            scene = render_scene(rng, size=(h, w), n_dice=int(rng.integers(1, most + 1)),
                                 side_range=sides)
            image = scene.image
            if args.input != "array":
                image = cv2.imencode(".jpg", scene.image,
                                     [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()
            t0 = time.perf_counter()
            roll = reader(image if args.input != "jpeg-whole" else decode_image(image))
            times.append((time.perf_counter() - t0) * 1000)
            pairs = greedy_match([(d.box, "die") for d in scene.dice], [d.box for d in roll.dice])
            found += len(pairs)
            dice += len(scene.dice)
            extra += len(roll.dice) - len(pairs)
            right += sum(scene.dice[i].value == roll.dice[j].value for i, j in pairs)
        print(f"{w:>5}x{h:<5} dice {sides[0]:>3}-{sides[1]:<3} px: recall "
              f"{100 * found / max(dice, 1):5.1f}% ({found}/{dice})  extra {extra:2d}  face "
              f"{100 * right / max(found, 1):5.1f}%  median {np.median(times):6.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

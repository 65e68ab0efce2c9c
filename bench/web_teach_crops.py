"""Which teaching photos the companion refuses (companion.teaching.crop_problem), on renders of
the nine special designs (vision.training.special_dice), 8 photos each, sent as JPEG 90: close-ups
of one die (as the teaching page asks), the same blurred by 3 and 4 px, and photos of a whole table.

    python bench/web_teach_crops.py
"""
from __future__ import annotations

from collections import Counter

import cv2
import numpy as np

from companion.reader import Vision
from companion.teaching import crop_problem, locate_die
from vision.training.special_dice import (HELD_OUT_DESIGNS, SEEN_DESIGNS, design_faces,
                                          render_special_scene)


def close_up(design, face, seed, colour=None):
    """One die, close and roughly in the middle (as tests/companion/conftest.py's close_up)."""
    rng = np.random.default_rng(seed)
    sc = render_special_scene(rng, design, n_dice=1, size=(480, 640), values=[face],
                              side_range=(70, 110), colours=[colour] if colour else None)
    x0, y0, x1, y1 = sc.dice[0].box
    half = max(x1 - x0, y1 - y0) * rng.uniform(0.9, 1.4)
    cx = (x0 + x1) / 2 + rng.uniform(-0.1, 0.1) * half
    cy = (y0 + y1) / 2 + rng.uniform(-0.1, 0.1) * half
    h, w = sc.image.shape[:2]
    return sc.image[int(max(0, cy - half)):int(min(h, cy + half)),
                    int(max(0, cx - half)):int(min(w, cx + half))]


def main() -> None:
    out: dict[str, list] = {"close-up": [], "blurred 3 px": [], "blurred 4 px": [],
                            "whole table": []}
    detector = Vision().detector()
    for k, d in enumerate(SEEN_DESIGNS + HELD_OUT_DESIGNS):
        for i in range(8):
            face = design_faces(d)[i % len(design_faces(d))]
            img = close_up(d, face, 100 * k + i, "green" if d.game == "the_choice" else None)
            table = render_special_scene(np.random.default_rng(1000 + 10 * k + i), d,
                                         n_dice=1 + i % 3,
                                         size=(1200, 1600), side_range=(50, 90)).image
            for name, im in (("close-up", img),
                             ("blurred 3 px", cv2.GaussianBlur(img, (0, 0), 3.0)),
                             ("blurred 4 px", cv2.GaussianBlur(img, (0, 0), 4.0)),
                             ("whole table", table)):
                im = cv2.imdecode(cv2.imencode(".jpg", im, [cv2.IMWRITE_JPEG_QUALITY, 90])[1],
                                  cv2.IMREAD_COLOR)
                out[name].append(crop_problem(im, locate_die(im), detector))
    for name, problems in out.items():
        why = Counter((p or "taken").split(":")[0] for p in problems)
        print(f"{name}: {sum(p is not None for p in problems)} of {len(problems)} refused; "
              f"{dict(why)}")


if __name__ == "__main__":
    main()

"""Render the demo pictures of Kuh Vadis and The Choice (no photos of these dice exist): one
table each, with the project's own renderer of special dice (vision.training.special_dice), written
as small JPEGs beside this script. Run from the repository root:

    python sample_images/render_special.py [--check]

`--check` reads each picture with the companion's camera reader (as a table of that game reads
the demo) and prints what it sees next to what was drawn.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from vision.training.special_dice import SEEN_DESIGNS, Design, render_special_scene  # noqa: E402

# the shipped reader reads pips and names a die's colour by its body, so The Choice's demo dice
# carry pips on a coloured face (a design of vision.training.special_dice's parts, not one it trains
# on)
DESIGNS = {d.name: d for d in SEEN_DESIGNS} | {
    "tc-plastic-pips-face": Design("tc-plastic-pips-face", "the_choice", "plastic", "pips",
                                   colour_on="face")}
# (file, design, seed, faces, colours): Kuh Vadis rolls five dice, The Choice three. The seeds
# were picked among those the face reader of be07022 read exactly (2 of seeds 0-5 for each design
# with --check); the shipped reader, fine-tuned with special dice, reads the faces of all six
# seeds of both designs (27 Nov 2026, models/README.md). A demo of the games read, not a
# measurement: bench/vision_special.py --only untaught measures.
PICTURES = [
    ("kuh_vadis_1.jpg", "kv-wood-pips-head-engraved", 0, [3, "cow", 5, 1, 2], None),
    ("the_choice_1.jpg", "tc-plastic-pips-face", 1, [4, 2, 6], ["red", "blue", "yellow"]),
]


def render(design: str, seed: int, faces, colours):
    return render_special_scene(np.random.default_rng(seed), DESIGNS[design], n_dice=len(faces),
                                size=(480, 640), side_range=(70, 90), values=faces, colours=colours)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    vision = None
    for name, design, seed, faces, colours in PICTURES:
        scene = render(design, seed, faces, colours)
        path = HERE / name
        path.write_bytes(cv2.imencode(".jpg", scene.image,
                                      [cv2.IMWRITE_JPEG_QUALITY, 80])[1].tobytes())
        drawn = sorted(((d.colour if colours else None, d.value) for d in scene.dice), key=str)
        print(f"{name}: {design}, seed {seed}, {path.stat().st_size} bytes, drawn {drawn}")
        if args.check:
            from companion import games as G
            from companion.reader import TableReader, Vision
            vision = vision or Vision()     # the models loaded once
            game = name.rsplit("_", 1)[0]
            spec = G.dice_spec(game)
            palette = [c["colour"] for c in spec["colours"]]
            faces_all = sorted({f for c in spec["colours"] for f in c["faces"]}, key=str)
            reading, _ = TableReader(palette, faces_all, frames=1, vision=vision,
                                     symbols=spec["symbol_sides"]).feed(scene.image)
            print("  read:", sorted(((d.colour, d.value) for d in reading.dice), key=str))


if __name__ == "__main__":
    main()

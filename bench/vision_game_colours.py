"""A game palette's colour naming on photoreal renders of that game's dice set.

    python bench/vision_game_colours.py DIR --palette qwinto|twenty_one [--frames] [--json OUT]

``DIR`` holds renders made with ``python -m vision.training.render3d --dice-set NAME`` (each
scene one roll of the game's set: one opaque die of each of its palette's colours, any table,
light and camera angle; docs/render3d.md). Every scene is read as the companion reads a
settled roll of that game (``DiceReader(palette=PALETTES[NAME])``: the settled tier, no
calibration; ``--frames``: the camera-frame tier, ``CAMERA_FRAME``), the labelled boxes are
matched to the dice read (``greedy_match``), and it prints the share of found dice named right,
the confusion table truth -> read, and the scenes whose every die was found and named right. A
die whose top face is mostly hidden (``LabelledDie.readable``) counts neither way, as in
``bench/vision_accuracy.py``.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from vision.colour import PALETTES  # noqa: E402
from vision.pipeline import CAMERA_FRAME, DiceReader, read_image_file  # noqa: E402
from vision.read import load_session  # noqa: E402
from vision.training.data import load_folder  # noqa: E402
from vision.training.metrics import reads_of_hidden_dice  # noqa: E402
from vision_colour import MISSED, confusion_text, score_photo, summary  # noqa: E402

GAME = "render"  # the split name score_photo carries


def evaluate(reader: DiceReader, folder: Path) -> tuple[Counter, int, int, int]:
    """(Counter of (truth, read), scenes, scenes entirely right, extra dice read)."""
    images = load_folder(folder)
    if not any(d.colour for im in images for d in im.dice):
        raise SystemExit(f"{folder}/labels.csv names no die's colour: not renders of a dice set")
    counts: Counter = Counter()
    scenes = right = extra = 0
    for im in images:
        roll = reader(read_image_file(im.path))
        readable = [d for d in im.dice if d.readable]
        hidden = [(d.box, d.box_kind) for d in im.dice if not d.readable]
        read = [(d.box, d.colour) for d in roll.dice]
        # a die read where a hidden one lies counts neither way
        taken = reads_of_hidden_dice([(d.box, d.box_kind) for d in readable], hidden,
                                     [b for b, _ in read])
        read = [r for j, r in enumerate(read) if j not in taken]
        rows = score_photo({k: (d.colour, GAME) for k, d in enumerate(readable)},
                           [(d.box, d.box_kind) for d in readable], read)
        counts.update((t, r) for _, t, r in rows)
        scenes += 1
        extra += max(0, len(read) - sum(r != MISSED for _, _, r in rows))
        right += all(t == r for _, t, r in rows)
    return counts, scenes, right, extra


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--palette", required=True,
                    choices=sorted(n for n, p in PALETTES.items() if p.one_each))
    ap.add_argument("--frames", action="store_true",
                    help="read as camera frames (the shipped reader alone, CAMERA_FRAME)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    if not (args.folder / "labels.csv").is_file():
        ap.error(f"{args.folder}: no labels.csv (make renders with render3d --dice-set)")
    palette = PALETTES[args.palette]
    reader = (DiceReader(load_session(), palette=palette, **CAMERA_FRAME) if args.frames
              else DiceReader(palette=palette))
    counts, scenes, right, extra = evaluate(reader, args.folder)
    s = summary(counts)
    tier = "camera frames" if args.frames else "settled tier"
    print(f"== {args.folder} ({args.palette} palette, {tier}, no calibration): {scenes} scenes, "
          f"{s['dice']} readable dice, {s['found']} found, colour right {s['right']} = "
          f"{100 * (s['accuracy'] or 0):.1f} %; scenes entirely right {right} = "
          f"{100 * right / max(scenes, 1):.1f} %; extra dice {extra}")
    print("   " + confusion_text(counts).replace("\n", "\n   "))
    if args.json:
        args.json.write_text(json.dumps({**s, "scenes": scenes, "scenes_right": right,
                                         "extra": extra, "palette": args.palette,
                                         "frames": args.frames,
                                         "confusion": [[t, r, n] for (t, r), n
                                                       in sorted(counts.items())]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

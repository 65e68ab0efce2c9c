"""Photoreal training scenes of dice, rendered with Blender's Cycles, with exact labels.

A scene is first *sampled* (``sample_scene``: a frozen ``SceneSpec`` of plain numbers, drawn from
a generator seeded by ``(seed, index)``), then *built and rendered* by
``vision.training.render3d_bpy`` inside Blender, then *finished* like a camera would (exposure,
partial white balance, sensor noise, motion blur, JPEG). Sampling, the die geometry, the camera
projection and the labels are plain numpy, so they are tested without Blender; only building and ray
casting need ``bpy``.

Labels are exact, not estimated from pixels: each die's up face comes from its rotation
(``up_value``), its box from projecting its rounded body through the same pinhole camera that
Blender renders with (``project``), its top face's four corners likewise; how much of it, and of
its top face, other objects hide comes from rays cast in the built scene.

Output: a folder in the layout of the real sets in ``shared/data/dice`` (``images/*.jpg``,
``labels.csv``, ``images.csv``), so ``vision.training.data.load_folder``, the trainers and
``bench/vision_accuracy.py`` read renders and real photos alike. ``labels.csv`` adds columns:
``colour`` (body colour name, or the face's colour for The Choice), ``body_b/g/r`` (the body's
sRGB colour as made), ``seen_b/g/r`` (the median colour of the rendered top face's centre disc,
as the reader measures it), ``hidden`` and ``top_hidden`` (shares hidden by other objects or
cut by the frame), ``tilt`` (degrees between the up face and vertical), ``material``,
``dice_kind`` (``pips``, ``kuh_vadis``, ``the_choice``) and ``design``.

Run it in the render environment (``bpy==5.0.1`` needs ``numpy<2``; see ``docs/render3d.md``)::

    python -m vision.training.render3d --out DIR --scenes N [--seed S] [--start K] [--size 640x480]
        [--samples 32] [--dice pips|kuh_vadis|the_choice|mixed] [--dice-set qwinto|twenty_one]
        [--threads T] [--device cpu|gpu]
"""
from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np

from ..colour import PALETTES
from .scene3d import LABEL_COLUMNS, SURFACES, label_rows, sample_scene

# the games whose dice set is one die of each colour of their palette (--dice-set)
GAME_SETS = {name: p.names for name, p in PALETTES.items() if p.one_each}


# ---- command line -----------------------------------------------------------------------------

def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size {text!r}: expected WIDTHxHEIGHT, e.g. "
                                         "640x480") from None
    if not (16 <= w <= 4096 and 16 <= h <= 4096):
        raise argparse.ArgumentTypeError(f"size {text!r}: each side must be 16-4096 px")
    return w, h


def _pair(text: str, ok, need: str, example: str) -> tuple[float, float]:
    """LO,HI from ``text``; ``ok(lo, hi)`` says whether they are allowed (``need`` says how)."""
    try:
        lo, hi = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"range {text!r}: expected LO,HI, e.g. {example}") \
            from None
    if not ok(lo, hi):
        raise argparse.ArgumentTypeError(f"range {text!r}: need {need}")
    return lo, hi


def _range(text: str) -> tuple[float, float]:
    """Degrees from vertical."""
    return _pair(text, lambda lo, hi: 0 <= lo <= hi < 90, "0 <= LO <= HI < 90", "50,72")


def _share(text: str) -> tuple[float, float]:
    """A share of the picture's longer side."""
    return _pair(text, lambda lo, hi: 0 < lo <= hi <= 0.5, "0 < LO <= HI <= 0.5", "0.03,0.05")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Render photoreal dice scenes with exact labels "
                                             "(needs bpy).")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--scenes", type=int, required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--start", type=int, default=0,
                    help="first scene index (scene k is the same in every run)")
    ap.add_argument("--size", type=_size, default=(640, 480), help="WIDTHxHEIGHT (default 640x480)")
    ap.add_argument("--sizes", default="",
                    help="comma-separated sizes drawn per scene, e.g. 640x480,480x640,640x640")
    ap.add_argument("--samples", type=int, default=32)
    ap.add_argument("--dice", choices=["pips", "kuh_vadis", "the_choice", "mixed"], default="pips")
    ap.add_argument("--dice-set", choices=sorted(GAME_SETS), default=None,
                    help="each scene a roll of this game's dice set, one opaque die of each of "
                         "its palette's colours (instead of --dice, --min-dice, --max-dice)")
    ap.add_argument("--one-set", type=int, default=None, metavar="S",
                    help="with --dice kuh_vadis or the_choice: every die one physical set drawn "
                         "from seed S (design, faces, colours), the same set in every scene of "
                         "any --seed")
    ap.add_argument("--set-dice", type=int, default=1, metavar="N",
                    help="with --one-set of --dice the_choice: the set holds N dice whose faces "
                         "carry other colours, as the game's three dice do (default 1: alike)")
    ap.add_argument("--min-dice", type=int, default=2)
    ap.add_argument("--max-dice", type=int, default=40)
    ap.add_argument("--tilt", type=_range, default=None,
                    help="LO,HI: the camera's angle from vertical in degrees (default: three "
                         "scenes in four 0-60, the others 0-15)")
    ap.add_argument("--die-px", type=_share, default=None,
                    help="LO,HI: a die's side as a share of the picture's longer side (default "
                         "0.03,0.11)")
    ap.add_argument("--surfaces", default="",
                    help=f"comma-separated tables to draw from (of {', '.join(SURFACES)}; "
                         "default: all, at their usual shares)")
    ap.add_argument("--colours", default="",
                    help="comma-separated named colours: pip dice of opaque plastic in these "
                         "colours in turn")
    ap.add_argument("--table-colour", default=None,
                    help="the table (felt, tray floor, cloth, ...) in this named colour")
    ap.add_argument("--threads", type=int, default=0, help="Cycles threads (0: all cores)")
    ap.add_argument("--device", choices=["cpu", "gpu"], default="cpu",
                    help="render on the CPU or a GPU")
    args = ap.parse_args(argv)
    try:
        from . import render3d_bpy
    except ImportError as e:
        print(f"render3d: Blender's Python module is needed ({e}); see docs/render3d.md",
              file=sys.stderr)
        return 2
    sizes = [_size(s) for s in args.sizes.split(",") if s] or [args.size]
    surfaces = tuple(v for v in args.surfaces.split(",") if v) or None
    colours = tuple(v for v in args.colours.split(",") if v) or None
    try:  # the tables, colours and their combinations are checked by the sampling itself
        sample_scene(args.seed, args.start, sizes[0], args.dice, (args.min_dice, args.max_dice),
                     dice_set=GAME_SETS[args.dice_set] if args.dice_set else None,
                     surfaces=surfaces, colours=colours, table_colour=args.table_colour,
                     one_set=args.one_set, set_dice=args.set_dice)
    except ValueError as e:
        ap.error(str(e))
    images_dir = args.out / "images"
    images_dir.mkdir(parents=True, exist_ok=True)
    labels_path, images_path = args.out / "labels.csv", args.out / "images.csv"
    new_labels, new_images = not labels_path.exists(), not images_path.exists()
    t_all = time.perf_counter()
    with open(labels_path, "a", newline="") as lf, open(images_path, "a", newline="") as imf:
        lw = csv.DictWriter(lf, LABEL_COLUMNS)
        iw = csv.DictWriter(imf,
                            ["filename", "image_w", "image_h", "n_dice", "values", "sum",
                             "orig_split", "seed", "index", "surface", "render_s"])
        if new_labels:
            lw.writeheader()
        if new_images:
            iw.writeheader()
        for k in range(args.start, args.start + args.scenes):
            size = sizes[int(np.random.default_rng([args.seed, k, 1]).integers(len(sizes)))]
            spec = sample_scene(args.seed, k, size, args.dice, (args.min_dice, args.max_dice),
                                args.samples, args.tilt,
                                GAME_SETS[args.dice_set] if args.dice_set else None,
                                args.one_set, args.die_px, surfaces, colours,
                                args.table_colour, args.set_dice)
            t0 = time.perf_counter()
            try:
                img, hidden = render3d_bpy.render(spec, threads=args.threads, device=args.device)
            except RuntimeError as e:
                print(f"render3d: {e}", file=sys.stderr)
                return 2
            name = f"r{args.seed}_{k:06d}.jpg"
            render3d_bpy.write_jpeg(images_dir / name, img, spec.post.jpeg_quality)
            rows = label_rows(spec, img, name, hidden)
            for r in rows:
                lw.writerow(r)
            vals = [str(r["value"]) for r in rows]
            iw.writerow({"filename": name, "image_w": size[0], "image_h": size[1],
                         "n_dice": len(rows), "values": ";".join(vals),
                         "sum": sum(int(v) for v in vals if v.isdigit()), "orig_split": "render",
                         "seed": args.seed, "index": k, "surface": spec.surface.kind,
                         "render_s": round(time.perf_counter() - t0, 2)})
            lf.flush()
            imf.flush()
            print(f"scene {k}: {len(rows)} dice, {spec.surface.kind}, "
                  f"{time.perf_counter() - t0:.1f} s", flush=True)
    print(f"{args.scenes} scenes in {time.perf_counter() - t_all:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

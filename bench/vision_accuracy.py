"""Accuracy of the dice reader on labelled folders and on synthetic scenes.

    python bench/vision_accuracy.py DIR... [--split all|val|train] [--model M.onnx]
    python bench/vision_accuracy.py --synth 300 [--synth-seed 20261125]

A folder has the layout of ``shared/data/dice/<set>/`` (``images/`` + ``labels.csv``). Per folder
it prints detection precision and recall, face accuracy on matched dice, the share of images read
entirely right (every die found with its value, nothing else found) and the confusion matrix.

* Matching (``vision.metrics``): IoU >= 0.3 with whole-die labels; for pip-box labels
  (``box_kind`` = ``pips``, matteop65) half of the pip box inside the found box and its centre in
  the found box's central half.
* Crop folders (one die per image, labelled box = the whole image: chase_casino, skovy_crops)
  test the face reader alone: it reads the labelled box; detection is not measured there.
* ``--split val`` keeps only the validation photos (``vision.data.is_validation``), which the
  shipped model was never trained on; ``all`` (default) is for folders of new photos.
* ``--synth N`` renders N scenes per palette (general; qwinto and twenty_one each as the game's own
  dice set, one die per colour, and with repeated colours) with a seed the
  training never used, and prints detection, face and colour accuracy on them.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.colour import PALETTES  # noqa: E402
from vision.data import load_folder  # noqa: E402
from vision.metrics import greedy_match  # noqa: E402
from vision.pipeline import DiceReader, read_image_file  # noqa: E402
from vision.read import load_session  # noqa: E402


def _confusion_text(conf: np.ndarray) -> str:
    head = "truth\\read    1    2    3    4    5    6  miss"
    lines = [head]
    for v in range(6):
        lines.append(f"  {v + 1}       " + "".join(f"{int(c):5d}" for c in conf[v]))
    lines.append("  extra   " + "".join(f"{int(c):5d}" for c in conf[6, :6]) + "     -")
    return "\n".join(lines)


def evaluate_folder(reader: DiceReader, folder: Path, split: str) -> dict:
    images = load_folder(folder)
    if split != "all":
        images = [im for im in images if im.validation == (split == "val")]
    conf = np.zeros((7, 7), int)  # rows: truth 1..6, extra; cols: read 1..6, missed
    tp = fp = fn = right_faces = n_images_right = 0
    unreadable = 0
    crop_mode = bool(images) and all(im.is_crop for im in images)
    wrong: list[str] = []
    for im in images:
        try:
            bgr = read_image_file(im.path)
        except Exception:
            unreadable += 1
            continue
        if crop_mode:
            d = im.dice[0]
            box = tuple(int(v) for v in d.box)
            v = reader.read_faces(bgr, [box])[0][0]
            conf[d.value - 1, v - 1] += 1
            tp += 1
            right_faces += v == d.value
            n_images_right += v == d.value
            if v != d.value:
                wrong.append(im.path.name)
            continue
        roll = reader(bgr)
        boxes = [d.box for d in roll.dice]
        pairs = greedy_match([(d.box, d.box_kind) for d in im.dice], boxes)
        matched_l = {i for i, _ in pairs}
        matched_b = {j for _, j in pairs}
        ok = len(pairs) == len(im.dice) == len(boxes)
        for i, j in pairs:
            t, r = im.dice[i].value, roll.dice[j].value
            conf[t - 1, r - 1] += 1
            right_faces += t == r
            ok &= t == r
        for i, d in enumerate(im.dice):
            if i not in matched_l:
                conf[d.value - 1, 6] += 1
        for j, d in enumerate(roll.dice):
            if j not in matched_b:
                conf[6, d.value - 1] += 1
        tp += len(pairs)
        fn += len(im.dice) - len(pairs)
        fp += len(boxes) - len(pairs)
        n_images_right += ok
        if not ok:
            wrong.append(im.path.name)
    n = len(images) - unreadable
    return {
        "folder": str(folder), "split": split, "images": len(images), "unreadable": unreadable,
        "dice": int(conf[:6].sum()), "mode": "face reader on crops" if crop_mode else "full pipeline",
        "precision": None if crop_mode else (tp / (tp + fp) if tp + fp else 1.0),
        "recall": None if crop_mode else (tp / (tp + fn) if tp + fn else 1.0),
        "face_accuracy": right_faces / tp if tp else None,
        "images_right": n_images_right / n if n else None,
        "confusion": conf.tolist(), "wrong_images": wrong,
    }


def evaluate_synth(reader: DiceReader, n: int, seed: int, calibrated: bool = False, own_dice: bool = False,
                   read_names: bool = False) -> list[dict]:
    """Synthetic scenes per palette. For a game palette two kinds of scene: the game's own dice
    set (1 to all of its dice, each colour once, named with the palette's one-die-per-colour
    rule) and any number of dice of the palette's colours with repeats (named die by die).

    ``calibrated``: as a user who calibrated the table's light, each scene is read with the
    calibration learned (``DiceReader.calibrate``) from another photo under the same colour cast:
    one die of every colour of the palette, on another table. The scenes read are the same.

    ``own_dice``: every scene shows one physical dice set (a body colour and kind per colour name,
    ``vision.synth.draw_dice_set``), as a table's own dice are the same dice in every photo; with
    ``calibrated`` the calibration photo shows those same dice under the scene's light and is
    learned with ``calibrate_dice`` from their colours as the user confirmed them on the page
    (the true names of the dice found). Without ``calibrated``: the same scenes, uncalibrated.
    ``read_names``: the calibration photo's dice are named as the reader read them, unconfirmed (as
    ``dice-companion read --calibrate`` does, where nobody confirms them)."""
    from dataclasses import replace

    from vision.colour import calibrate_dice
    from vision.synth import draw_dice_set, render_scene

    out = []
    runs = [("general", "any", PALETTES["general"])]
    for game in ("qwinto", "twenty_one"):
        runs += [(game, "game set", PALETTES[game]), (game, "repeats", replace(PALETTES[game], one_each=False))]
    for pname, scenes, palette in runs:
        r = reader.with_calibration(None)
        r.palette = palette
        rng = np.random.default_rng(seed)
        tp = fp = fn = faces = colours = right = 0
        for k in range(n):
            own = draw_dice_set(np.random.default_rng([seed, 11, len(out), k]), palette.names) if own_dice else None
            if scenes == "game set":
                k = int(rng.integers(1, len(palette.names) + 1))
                sc = render_scene(rng, size=(640, 640), colours=list(palette.names), n_dice=k, distinct=True,
                                  dice_set=own)
            else:
                sc = render_scene(rng, size=(640, 640), colours=list(palette.names), dice_set=own)
            reading = r
            if calibrated:
                cal_rng = np.random.default_rng([seed, 7, len(out), k])
                photo = render_scene(cal_rng, size=(640, 640), colours=list(palette.names),
                                     n_dice=len(palette.names), distinct=True, light=sc.light, dice_set=own)
                try:
                    if own_dice:
                        seen = r(photo.image).dice
                        if read_names:
                            reading = r.with_calibration(calibrate_dice([d.colour_bgr for d in seen],
                                                                        [d.colour for d in seen], palette))
                        else:
                            found = greedy_match([(d.box, "die") for d in photo.dice], [d.box for d in seen])
                            reading = r.with_calibration(calibrate_dice([seen[j].colour_bgr for _, j in found],
                                                                        [photo.dice[i].colour for i, _ in found],
                                                                        palette))
                    else:
                        reading = r.with_calibration(r.calibrate(photo.image))
                except ValueError:  # no die found in the calibration photo: read without
                    pass
            roll = reading(sc.image)
            boxes = [d.box for d in roll.dice]
            pairs = greedy_match([(d.box, "die") for d in sc.dice], boxes)
            ok = len(pairs) == len(sc.dice) == len(boxes)
            for i, j in pairs:
                faces += sc.dice[i].value == roll.dice[j].value
                colours += sc.dice[i].colour == roll.dice[j].colour
                ok &= sc.dice[i].value == roll.dice[j].value
            tp += len(pairs)
            fn += len(sc.dice) - len(pairs)
            fp += len(boxes) - len(pairs)
            right += ok
        out.append({"palette": pname, "scenes_kind": scenes, "scenes": n, "dice": tp + fn,
                    "precision": tp / max(1, tp + fp),
                    "recall": tp / max(1, tp + fn), "face_accuracy": faces / max(1, tp),
                    "colour_accuracy": colours / max(1, tp), "images_right": right / max(1, n)})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="*", type=Path)
    ap.add_argument("--split", choices=["all", "val", "train"], default="all")
    ap.add_argument("--model", type=Path, default=None)
    ap.add_argument("--synth", type=int, default=0, help="also score N synthetic scenes per palette")
    ap.add_argument("--synth-seed", type=int, default=20261125)
    ap.add_argument("--calibrated", action="store_true",
                    help="read each synthetic scene with a calibration from another photo under its light")
    ap.add_argument("--own-dice", action="store_true",
                    help="each synthetic scene shows one physical dice set (with --calibrated: calibrated on those dice)")
    ap.add_argument("--read-names", action="store_true",
                    help="with --own-dice --calibrated: the calibration dice named as read, not as confirmed")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures to this JSON file")
    ap.add_argument("--find", choices=["opencv", "detector"], default=None,
                    help="how dice are found (default: the reader's default)")
    ap.add_argument("--detector", type=Path, default=None, help="another detector model (with --find detector)")
    args = ap.parse_args(argv)
    if not args.folders and not args.synth:
        ap.error("give at least one folder or --synth N")
    kw = {"find_with": args.find} if args.find else {}
    if args.detector:
        kw["detector_session"] = load_session(args.detector)
    reader = DiceReader(load_session(args.model) if args.model else None, **kw)
    results = {"folders": [], "synthetic": []}
    for folder in args.folders:
        t0 = time.perf_counter()
        r = evaluate_folder(reader, folder, args.split)
        results["folders"].append(r)
        pct = lambda v: "  n/a" if v is None else f"{100 * v:5.1f}%"  # noqa: E731
        print(f"== {folder} ({r['mode']}, split {args.split}): {r['images']} images, {r['dice']} dice, "
              f"{time.perf_counter() - t0:.0f} s")
        print(f"   detection precision {pct(r['precision'])}  recall {pct(r['recall'])}  "
              f"face accuracy {pct(r['face_accuracy'])}  images entirely right {pct(r['images_right'])}"
              + (f"  unreadable {r['unreadable']}" if r["unreadable"] else ""))
        print("   " + _confusion_text(np.array(r["confusion"])).replace("\n", "\n   "))
    if args.synth:
        for r in evaluate_synth(reader, args.synth, args.synth_seed, args.calibrated, args.own_dice, args.read_names):
            results["synthetic"].append(r)
            print(f"== synthetic{', own dice' if args.own_dice else ''}{', calibrated' if args.calibrated else ''}, palette {r['palette']} ({r['scenes_kind']}): "
                  f"{r['scenes']} scenes 640x640, {r['dice']} dice: "
                  f"precision {100 * r['precision']:.1f}%  recall {100 * r['recall']:.1f}%  "
                  f"face {100 * r['face_accuracy']:.1f}%  colour {100 * r['colour_accuracy']:.1f}%  "
                  f"images right {100 * r['images_right']:.1f}%")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Accuracy of the dice reader on labelled folders and on synthetic scenes.

    python bench/vision_accuracy.py DIR... [--split all|val|train] [--model M.onnx] [--float]
    python bench/vision_accuracy.py --synth 300 [--synth-seed 20261125]
    python bench/vision_accuracy.py --loso [--without SET=FACE.onnx[,DETECT.onnx] ...]

A folder has the layout of ``shared/data/dice/<set>/`` (``images/`` + ``labels.csv``). Per folder
it prints detection precision and recall, face accuracy on matched dice, the share of images read
entirely right (every die found with its value, nothing else found), the confusion matrix and,
for whole-die labels, recall and face accuracy by the labelled die's size (``by_size``).

* Matching (``vision.training.metrics``): IoU >= 0.3 with whole-die labels; for pip-box labels
  (``box_kind`` = ``pips``, matteop65) half of the pip box inside the found box and its centre in
  the found box's central half.
* Crop folders (one die per image, labelled box = the whole image: chase_casino, skovy_crops)
  test the face reader alone: it reads the labelled box; detection is not measured there.
* ``--split val`` keeps only the validation photos (``vision.training.data.is_validation``), which
  the shipped model was never trained on; ``all`` (default) is for folders of new photos.
* Loose crop sets (``LOOSE_CROPS``: one die per image, but the die is a small part of it, e.g.
  tomitomi3_crops, a die of ~60 px in a 128-px view of its cup) are read by the whole pipeline:
  the die found nearest the image's centre is the reading, none found is a miss.
* A set whose export stretched its photos (``vision.training.data.STRETCHED``: epanemu_own, 4:3
  phone photos stretched to 640x640, those taken upright stretched across:
  ``taken_upright``) is read as the camera took them, its labels scaled alike;
  ``--as-exported`` reads the stored pixels, and ``--loso`` prints both.
* ``--loso`` prints the leave-one-setup-out table: every set under ``--data``, read by the shipped
  models and by models trained without that set (``--without SET=FACE.onnx[,DETECT.onnx]``,
  made with ``vision.training.train --exclude SET`` and ``vision.training.train_detect --exclude
  SET``). A set the shipped models never saw is read whole (its figure is already an unseen-setup
  figure); a set they trained on is read on its validation split, by both.
* The shipped face readers run as their 8-bit copies (``vision.read.load_session``); ``--float``
  reads with their float weights instead (also with ``--model``), to compare the two.
* Dice to check (``vision.dice.Die.check_face``): how many misread dice the reading marks for the
  player to check, how many read right it marks, and the share of images right once the marked
  dice are checked (every die found, nothing else, every misread die marked).
* ``--where COLUMN=VALUE`` reads only the photos whose row in the folder's ``images.csv`` has
  that value: ``--where augmented=no`` reads epanemu_own's photos as their camera made them,
  ``augmented=yes`` the copies Roboflow gave salt-and-pepper noise, blur and crops.
* ``--turned 90|180|270`` turns each photo (not the crop sets) before it is read, as a camera
  held sideways or from across the table takes it; ``--no-scene-turns`` reads each photo only as
  it stands (``DiceReader(scene_turns=False)``: docs/vision.md, "Turned pictures").
* ``--synth N`` renders N scenes per palette (general; qwinto and twenty_one each as the game's own
  dice set, one die per colour, and with repeated colours) with a seed the
  training never used, and prints detection, face and colour accuracy on them.
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.colour import PALETTES  # noqa: E402
from vision.dice import CHECK_FACE_BELOW  # noqa: E402
from vision.training.data import STRETCHED, as_taken, default_data_root, load_folder  # noqa: E402
from vision.training.metrics import greedy_match, reads_of_hidden_dice  # noqa: E402
from vision.training.train import SYNTHETIC  # noqa: E402
from vision.pipeline import DiceReader, read_image_file, unturn_box  # noqa: E402
from vision.read import BIG_MODEL, DEFAULT_MODEL, Vote, load_session  # noqa: E402


def _confusion_text(conf: np.ndarray) -> str:
    head = "truth\\read    1    2    3    4    5    6  miss"
    lines = [head]
    for v in range(6):
        lines.append(f"  {v + 1}       " + "".join(f"{int(c):5d}" for c in conf[v]))
    lines.append("  extra   " + "".join(f"{int(c):5d}" for c in conf[6, :6]) + "     -")
    return "\n".join(lines)


# crop sets whose die is a small part of the crop: read by the whole pipeline, not as one box
LOOSE_CROPS = {"tomitomi3_crops"}


def _loose_crop_value(reader: DiceReader, bgr: np.ndarray) -> tuple[int | None, float]:
    """(value, value confidence) of the die found nearest the crop's centre; (None, 0.0) when
    none is found."""
    dice = reader(bgr).dice
    if not dice:
        return None, 0.0
    h, w = bgr.shape[:2]
    d = min(dice, key=lambda d: ((d.box[0] + d.box[2]) / 2 - w / 2) ** 2
            + ((d.box[1] + d.box[3]) / 2 - h / 2) ** 2)
    return d.value, d.value_confidence


def turn_photo(im, bgr: np.ndarray, quarters: int):
    """(labels, picture) of a photo turned by ``quarters`` anticlockwise quarter turns, as a
    camera held sideways (1, 3) or from across the table (2) takes it."""
    turned = np.ascontiguousarray(np.rot90(bgr, quarters))
    h, w = turned.shape[:2]
    dice = tuple(replace(d, box=unturn_box(tuple(d.box), (4 - quarters) % 4, w, h))
                 for d in im.dice)
    return replace(im, dice=dice), turned


def photos_where(folder: Path, column: str, value: str) -> set[str]:
    """The file names of the photos whose row in ``folder``'s ``images.csv`` has ``value`` in
    ``column``. Raises ValueError naming what is missing."""
    path = Path(folder) / "images.csv"
    if not path.is_file():
        raise ValueError(f"{path}: no such file (--where needs the set's images.csv)")
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    if not rows or column not in rows[0]:
        raise ValueError(f"{path}: no column {column!r}")
    return {r["filename"] for r in rows if r[column] == value}


# the labelled dice by their box's shorter side in pixels, as read (``by_size``; boxes around the
# whole die only): where the missed and misread dice are (on epanemu_own most of the missed dice
# are under 35 px)
SIZE_BINS = (0, 25, 35, 45, 60, 80)


def by_size(dice: list[tuple[float, bool, bool]], bins=SIZE_BINS) -> list[dict]:
    """Pure: recall and face accuracy per size bin. ``dice``: (shorter side, found, read
    right) of each labelled die; a bin is ``[bins[i], bins[i + 1])``, the last one open. Bins
    without dice are left out; face accuracy is over the bin's found dice (None if none)."""
    out = []
    for i, lo in enumerate(bins):
        hi = bins[i + 1] if i + 1 < len(bins) else None
        inside = [d for d in dice if d[0] >= lo and (hi is None or d[0] < hi)]
        if not inside:
            continue
        found = [d for d in inside if d[1]]
        out.append({"from_px": lo, "to_px": hi, "dice": len(inside),
                    "recall": len(found) / len(inside),
                    "face_accuracy": sum(d[2] for d in found) / len(found) if found else None})
    return out


def _size_text(rows: list[dict]) -> str:
    def one(r):
        size = f"{r['from_px']}-{r['to_px']} px" if r["to_px"] else f"{r['from_px']}+ px"
        face = "n/a" if r["face_accuracy"] is None else f"{100 * r['face_accuracy']:.1f} %"
        return f"{size}: {r['dice']} dice, found {100 * r['recall']:.1f} %, read right {face}"
    return "by die size (the labelled box's shorter side): " + "; ".join(map(one, rows))


def evaluate_folder(reader: DiceReader, folder: Path, split: str,
                    as_exported: bool = False, quarters: int = 0,
                    only: set[str] | None = None) -> dict:
    """Figures of one labelled folder. A set whose export stretched its photos
    (``vision.training.data.STRETCHED``) is read as its camera took them, unless ``as_exported``;
    each photo (not a set of crops) turned by ``quarters`` anticlockwise quarter turns; with
    ``only`` (file names, e.g. from ``photos_where``) only those photos."""
    images = load_folder(folder)
    if split != "all":
        images = [im for im in images if im.validation == (split == "val")]
    if only is not None:
        images = [im for im in images if im.path.name in only]
    conf = np.zeros((7, 7), int)  # rows: truth 1..6, extra; cols: read 1..6, missed
    tp = fp = fn = right_faces = n_images_right = 0
    # dice marked for the player to check (``Die.check_face``), by whether they were read right;
    # photos whose every die is found, nothing else is, and every misread die is marked
    marks = Counter()
    n_images_checked = 0
    unreadable = 0
    crop_mode = bool(images) and all(im.is_crop for im in images)
    loose = Path(folder).resolve().name in LOOSE_CROPS
    wrong: list[str] = []
    sizes: list[tuple[float, bool, bool]] = []   # each labelled die: (shorter side, found, right)
    for im in images:
        try:
            bgr = read_image_file(im.path)
        except Exception:
            unreadable += 1
            continue
        if not as_exported:
            im, bgr = as_taken(im, bgr)
        if quarters % 4 and not crop_mode:
            im, bgr = turn_photo(im, bgr, quarters)
        if crop_mode:
            d = im.dice[0]
            box = tuple(int(v) for v in d.box)
            v, vc = (_loose_crop_value(reader, bgr) if loose
                     else reader.read_faces(bgr, [box])[0])
            if v is None:  # no die found: a miss
                conf[d.value - 1, 6] += 1
                tp += 1
                wrong.append(im.path.name)
                continue
            conf[d.value - 1, v - 1] += 1
            tp += 1
            right_faces += v == d.value
            n_images_right += v == d.value
            marks[v == d.value, vc < CHECK_FACE_BELOW] += 1
            n_images_checked += v == d.value or vc < CHECK_FACE_BELOW
            if v != d.value:
                wrong.append(im.path.name)
            continue
        roll = reader(bgr)
        # a rendered die whose top face is mostly hidden cannot be read: neither a miss when it is
        # not found nor an extra when it is
        unreadable_dice = [(d.box, d.box_kind) for d in im.dice if not d.readable]
        if unreadable_dice:
            im = replace(im, dice=tuple(d for d in im.dice if d.readable))
            gone = reads_of_hidden_dice([(d.box, d.box_kind) for d in im.dice], unreadable_dice,
                                        [d.box for d in roll.dice])
            roll = replace(roll, dice=tuple(d for j, d in enumerate(roll.dice) if j not in gone))
        boxes = [d.box for d in roll.dice]
        pairs = greedy_match([(d.box, d.box_kind) for d in im.dice], boxes)
        matched_l = {i for i, _ in pairs}
        matched_b = {j for _, j in pairs}
        ok = len(pairs) == len(im.dice) == len(boxes)
        checked = ok
        for i, j in pairs:
            t, r = im.dice[i].value, roll.dice[j].value
            conf[t - 1, r - 1] += 1
            right_faces += t == r
            ok &= t == r
            marks[t == r, roll.dice[j].check_face] += 1
            checked &= t == r or roll.dice[j].check_face
        n_images_checked += checked
        read_as = {i: roll.dice[j].value for i, j in pairs}
        for i, d in enumerate(im.dice):
            if d.box_kind == "die":   # a box of the pips alone says little of the die's size
                sizes.append((min(d.box[2] - d.box[0], d.box[3] - d.box[1]), i in matched_l,
                              read_as.get(i) == d.value))
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
        "as_taken": not as_exported and Path(folder).resolve().name in STRETCHED,
        "dice": int(conf[:6].sum()),
        "mode": ("whole pipeline on loose crops" if loose else "face reader on crops") if crop_mode
        else "full pipeline",
        "precision": None if crop_mode else (tp / (tp + fp) if tp + fp else 1.0),
        "recall": None if crop_mode else (tp / (tp + fn) if tp + fn else 1.0),
        "face_accuracy": right_faces / tp if tp else None,
        "images_right": n_images_right / n if n else None,
        # misread: read with a wrong face (a loose crop whose die is not found is no misread)
        "misread_marked": marks[False, True], "misread": marks[False, True] + marks[False, False],
        "right_marked": marks[True, True], "right": right_faces,
        "images_right_once_checked": n_images_checked / n if n else None,
        "confusion": conf.tolist(), "wrong_images": wrong,
        "by_size": None if crop_mode else by_size(sizes),
    }


def evaluate_synth(reader: DiceReader, n: int, seed: int, calibrated: bool = False,
                   own_dice: bool = False, read_names: bool = False,
                   hue_pips: float = 0.0) -> list[dict]:
    """Synthetic scenes per palette. For a game palette two kinds of scene: the game's own dice
    set (1 to all of its dice, each colour once, named with the palette's one-die-per-colour
    rule) and any number of dice of the palette's colours with repeats (named die by die).

    ``calibrated``: as a user who calibrated the table's light, each scene is read with the
    calibration learned (``DiceReader.calibrate``) from another photo under the same colour cast:
    one die of every colour of the palette, on another table. The scenes read are the same.

    ``own_dice``: every scene shows one physical dice set (a body colour and kind per colour name,
    ``vision.training.synth.draw_dice_set``), as a table's own dice are the same dice in every
    photo; with ``calibrated`` the calibration photo shows those same dice under the scene's light
    and is learned with ``calibrate_dice`` from their colours as the user confirmed them on the page
    (the true names of the dice found). Without ``calibrated``: the same scenes, uncalibrated.
    ``read_names``: the calibration photo's dice are named as the reader read them, unconfirmed (as
    ``dice-companion read --calibrate`` does, where nobody confirms them). ``hue_pips``: the share
    of dice whose pips differ from the body by hue more than by lightness
    (``vision.training.synth.hue_contrast_pip``; other scenes than without it)."""
    from dataclasses import replace

    from vision.colour import calibrate_dice
    from vision.training.synth import draw_dice_set, render_scene

    out = []
    runs = [("general", "any", PALETTES["general"])]
    for game in ("qwinto", "twenty_one"):
        runs += [(game, "game set", PALETTES[game]),
                 (game, "repeats", replace(PALETTES[game], one_each=False))]
    for pname, scenes, palette in runs:
        r = reader.with_calibration(None)
        r.palette = palette
        rng = np.random.default_rng(seed)
        tp = fp = fn = faces = colours = right = 0
        for k in range(n):
            own = (draw_dice_set(np.random.default_rng([seed, 11, len(out), k]), palette.names)
                   if own_dice else None)
            if scenes == "game set":
                k = int(rng.integers(1, len(palette.names) + 1))
                sc = render_scene(rng, size=(640, 640), colours=list(palette.names), n_dice=k,
                                  distinct=True, dice_set=own, hue_pips=hue_pips)
            else:
                sc = render_scene(rng, size=(640, 640), colours=list(palette.names), dice_set=own,
                                  hue_pips=hue_pips)
            reading = r
            if calibrated:
                cal_rng = np.random.default_rng([seed, 7, len(out), k])
                photo = render_scene(cal_rng, size=(640, 640), colours=list(palette.names),
                                     n_dice=len(palette.names), distinct=True, light=sc.light,
                                     dice_set=own)
                try:
                    if own_dice:
                        seen = r(photo.image).dice
                        if read_names:
                            reading = r.with_calibration(calibrate_dice(
                                [d.colour_bgr for d in seen], [d.colour for d in seen], palette))
                        else:
                            found = greedy_match([(d.box, "die") for d in photo.dice],
                                                 [d.box for d in seen])
                            reading = r.with_calibration(calibrate_dice(
                                [seen[j].colour_bgr for _, j in found],
                                [photo.dice[i].colour for i, _ in found], palette))
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


DETECTOR_SETS_BEFORE_METADATA = ("byler_d6_train", "matteop65")  # the shipped detector's card


def trained_on(session) -> set[str]:
    """The real sets a model was trained on, from its metadata (the face reader's ``samples``,
    the detector's ``sets``; a detector without ``sets`` trained on its card's two sets). A
    vote of face readers (``vision.read.Vote``) trained on what any of them trained on."""
    if isinstance(session, Vote):
        return set().union(*(trained_on(s) for s in session.sessions))
    meta = session.get_modelmeta().custom_metadata_map
    if "samples" in meta:
        return set(json.loads(meta["samples"])) - set(SYNTHETIC)
    if "sets" in meta:
        return set(json.loads(meta["sets"]))
    return set(DETECTOR_SETS_BEFORE_METADATA)


def _row(r: dict) -> str:
    pct = lambda v: "–" if v is None else f"{100 * v:.1f} %"  # noqa: E731
    return (f"{pct(r['precision'])} | {pct(r['recall'])} | {pct(r['face_accuracy'])} | "
            f"{pct(r['images_right'])}")


def leave_one_setup_out(root: Path, without: dict[str, tuple[Path, Path | None]],
                        base_kw: dict) -> list[dict]:
    """Per set under ``root``: the shipped models' figures and those of the models trained
    without it (``without``: set -> (face model, detector or None for the shipped one))."""
    shipped = DiceReader(**base_kw)
    seen = trained_on(shipped.session) | trained_on(shipped.finder.session)
    rows = []
    for folder in sorted(p for p in root.iterdir() if (p / "labels.csv").is_file()):
        split = "val" if folder.name in seen else "all"
        row = {"set": folder.name, "split": split, "seen_by_shipped": folder.name in seen,
               "shipped": evaluate_folder(shipped, folder, split)}
        if folder.name in STRETCHED:
            row["shipped_as_exported"] = evaluate_folder(shipped, folder, split, as_exported=True)
        if folder.name in without:
            face, det = without[folder.name]
            kw = dict(base_kw, session=load_session(face))
            if det is not None:
                kw["detector_session"] = load_session(det, what="die detector")
            reader = DiceReader(**kw)
            held = trained_on(reader.session) | trained_on(reader.finder.session)
            if folder.name in held:
                raise SystemExit(f"--without {folder.name}: that model was trained on "
                                 f"{folder.name}")
            row["without"] = evaluate_folder(reader, folder, split)
        rows.append(row)
    return rows


def print_loso(rows: list[dict]) -> None:
    print("| set | photos read | shipped models trained on it? | precision | recall | face | "
          "photos right | without it: precision | recall | face | photos right |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        w = _row(r["without"]) if "without" in r else "– | – | – | –"
        seen = 'yes' if r['seen_by_shipped'] else 'no: unseen'
        taken = ", as taken" if r["shipped"].get("as_taken") else ""
        print(f"| {r['set']}{taken} | {r['shipped']['images']} ({r['split']}) | {seen} | "
              f"{_row(r['shipped'])} | {w} |")
        if "shipped_as_exported" in r:
            print(f"| {r['set']}, as exported (stretched) | {r['shipped']['images']} "
                  f"({r['split']}) | {seen} | {_row(r['shipped_as_exported'])} | – | – | – | – |")
    print()
    print("| set, shipped models | misread dice marked to check | dice read right marked | "
          "photos entirely right | right once the marked dice are checked |")
    print("|---|---|---|---|---|")
    pct = lambda v: "–" if v is None else f"{100 * v:.1f} %"  # noqa: E731
    for r in rows:
        s = r["shipped"]
        print(f"| {r['set']} | {s['misread_marked']} of {s['misread']} | {s['right_marked']} of "
              f"{s['right']} | {pct(s['images_right'])} | "
              f"{pct(s['images_right_once_checked'])} |")


def face_session(models: str, eight_bit: bool = True):
    """The face reader of ``--model``: one file, or a vote of the comma-separated files (each run
    as its 8-bit copy where one made from it lies beside it, unless ``eight_bit`` is False:
    ``--float``)."""
    paths = [Path(p) for p in models.split(",")]
    load = lambda p: load_session(p, eight_bit=eight_bit)  # noqa: E731
    return load(paths[0]) if len(paths) == 1 else Vote([load(p) for p in paths])


def _without(text: str) -> tuple[str, tuple[Path, Path | None]]:
    try:
        name, models = text.split("=", 1)
        parts = [Path(p) for p in models.split(",") if p]
        return name, (parts[0], parts[1] if len(parts) > 1 else None)
    except (ValueError, IndexError):
        raise argparse.ArgumentTypeError(f"--without {text!r}: expected "
                                         "SET=FACE.onnx[,DETECT.onnx]") from None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="*", type=Path)
    ap.add_argument("--split", choices=["all", "val", "train"], default="all")
    ap.add_argument("--float", action="store_true",
                    help="read with the face readers' float weights, not their shipped 8-bit "
                         "copies (vision.read.load_session), to compare them")
    ap.add_argument("--model", default=None,
                    help="another face reader (FILE.onnx), or several read as one vote "
                         "(A.onnx,B.onnx: vision.read.Vote, as the settled tier votes its two; "
                         "readers of another input size read the largest's crops "
                         "shrunk)")
    ap.add_argument("--synth", type=int, default=0,
                    help="also score N synthetic scenes per palette")
    ap.add_argument("--synth-seed", type=int, default=20261125)
    ap.add_argument("--hue-pips", type=float, default=0.0,
                    help="the share of the synthetic scenes' dice whose pips differ from the body "
                         "by hue more than by lightness (1: every die)")
    ap.add_argument("--calibrated", action="store_true",
                    help="read each synthetic scene with a calibration from another photo under "
                         "its light")
    ap.add_argument("--own-dice", action="store_true",
                    help="each synthetic scene shows one physical dice set (with --calibrated: "
                         "calibrated on those dice)")
    ap.add_argument("--read-names", action="store_true",
                    help="with --own-dice --calibrated: the calibration dice named as read, not as "
                         "confirmed")
    ap.add_argument("--json", type=Path, default=None,
                    help="also write the figures to this JSON file")
    ap.add_argument("--as-exported", action="store_true",
                    help="read sets whose export stretched the photos (e.g. epanemu_own) as "
                         "stored, not as the camera took them")
    ap.add_argument("--find", choices=["opencv", "detector"], default=None,
                    help="how dice are found (default: the reader's default)")
    ap.add_argument("--detector", type=Path, default=None,
                    help="another detector model (with --find detector)")
    ap.add_argument("--turned", type=int, choices=[0, 90, 180, 270], default=0,
                    help="turn each photo (not crops) anticlockwise by this many degrees first, "
                         "as a camera held sideways or from across the table takes it")
    ap.add_argument("--where", default=None, metavar="COLUMN=VALUE",
                    help="only the photos whose row in the folder's images.csv has this value "
                         "(e.g. augmented=no)")
    ap.add_argument("--no-scene-turns", action="store_true",
                    help="read each photo only as it stands (DiceReader(scene_turns=False))")
    ap.add_argument("--loso", action="store_true",
                    help="print the leave-one-setup-out table of the sets in --data")
    ap.add_argument("--data", type=Path, default=default_data_root(),
                    help="the labelled sets (with --loso)")
    ap.add_argument("--without", type=_without, action="append", default=[],
                    help="with --loso: SET=FACE.onnx[,DETECT.onnx], models trained without SET")
    args = ap.parse_args(argv)
    if not args.folders and not args.synth and not args.loso:
        ap.error("give at least one folder, --synth N or --loso")
    only: dict[Path, set[str]] = {}  # --where: each folder's photos of that kind
    if args.where is not None:
        column, eq, value = args.where.partition("=")
        if not eq or not column:
            ap.error(f"--where {args.where}: give COLUMN=VALUE")
        for folder in args.folders:
            try:
                only[folder] = photos_where(folder, column, value)
            except ValueError as e:
                ap.error(str(e))
            if not only[folder]:
                ap.error(f"--where {args.where}: no photo of {folder} has it")
    kw = {"find_with": args.find} if args.find else {}
    if args.float and not args.model:
        args.model = f"{DEFAULT_MODEL},{BIG_MODEL}"   # the settled tier's vote, in float
    if args.no_scene_turns:
        kw["scene_turns"] = False
    if args.detector:
        kw["detector_session"] = load_session(args.detector)
    if args.loso:
        if not args.data.is_dir():
            ap.error(f"--data {args.data}: no such folder")
        # --model: that face reader alone in the shipped models' column
        shipped_kw = (dict(kw, session=face_session(args.model, not args.float)) if args.model
                      else kw)
        rows = leave_one_setup_out(args.data, dict(args.without), shipped_kw)
        print_loso(rows)
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1))
        return 0
    reader = DiceReader(face_session(args.model, not args.float) if args.model else None, **kw)
    results = {"folders": [], "synthetic": []}
    for folder in args.folders:
        t0 = time.perf_counter()
        r = evaluate_folder(reader, folder, args.split, args.as_exported, args.turned // 90,
                            only.get(folder))
        seconds = time.perf_counter() - t0
        results["folders"].append(r)
        pct = lambda v: "  n/a" if v is None else f"{100 * v:5.1f}%"  # noqa: E731
        print(f"== {folder} ({r['mode']}, split {args.split}"
              f"{', read as the camera took it' if r['as_taken'] else ''}"
              f"{f', turned {args.turned} degrees' if args.turned else ''}"
              f"{f', where {args.where}' if only else ''}): {r['images']} images, "
              f"{r['dice']} dice, {seconds:.1f} s ({1000 * seconds / max(1, r['images']):.0f} ms "
              "a photo with decoding and matching)")
        print(f"   detection precision {pct(r['precision'])}  recall {pct(r['recall'])}  "
              f"face accuracy {pct(r['face_accuracy'])}  images entirely right "
              f"{pct(r['images_right'])}"
              + (f"  unreadable {r['unreadable']}" if r["unreadable"] else ""))
        print(f"   marked to check: {r['misread_marked']} of {r['misread']} misread dice, "
              f"{r['right_marked']} of {r['right']} read right; images right once the marked "
              f"dice are checked {pct(r['images_right_once_checked'])}")
        print("   " + _confusion_text(np.array(r["confusion"])).replace("\n", "\n   "))
        if r["by_size"]:
            print("   " + _size_text(r["by_size"]))
    if args.synth:
        for r in evaluate_synth(reader, args.synth, args.synth_seed, args.calibrated, args.own_dice,
                                args.read_names, args.hue_pips):
            results["synthetic"].append(r)
            print(f"== synthetic{', own dice' if args.own_dice else ''}"
                  f"{f', pips told by hue {args.hue_pips:g}' if args.hue_pips else ''}"
                  f"{', calibrated' if args.calibrated else ''}, "
                  f"palette {r['palette']} ({r['scenes_kind']}): "
                  f"{r['scenes']} scenes 640x640, {r['dice']} dice: "
                  f"precision {100 * r['precision']:.1f}%  recall {100 * r['recall']:.1f}%  "
                  f"face {100 * r['face_accuracy']:.1f}%  "
                  f"colour {100 * r['colour_accuracy']:.1f}%  "
                  f"images right {100 * r['images_right']:.1f}%")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

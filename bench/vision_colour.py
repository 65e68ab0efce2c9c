"""General-palette body colour on real dice labelled by colour by eye (bench/data/real_colours.csv).

    python bench/vision_colour.py [--split tune|report|check|confirm|all] [--labels CSV]
                                  [--data DIR] [--json OUT]
    python bench/vision_colour.py --renders DIR [DIR ...]
    python bench/vision_colour.py --chroma [--data DIR] [IMAGE ...]

Every labelled photo is read by the shipped reader (``DiceReader``: general palette, no
calibration, so the light is estimated from the photo). The labelled boxes (the set's
``labels.csv``, all of the photo's dice) are matched to the reader's dice with
``vision.training.metrics.greedy_match``; a labelled die whose colour is ``unclear`` is left out.
Per set and split it prints the dice of a clear colour, how many the reader found, the share of
found dice named right, and the confusion table truth -> read ("missed": not found). ``tune`` rows
are the ones colour naming may be tuned on; ``report`` rows are for reporting; ``check`` rows,
labelled later, confirm a change chosen with the report rows' errors in view; ``confirm`` rows,
labelled after the check rows' errors had been looked at, are the blind ones now
(bench/data/README.md).

``--renders`` reads folders of photoreal renders instead (``vision.training.render3d``: every die
labelled with its body's general-palette name in ``labels.csv``); dice mostly hidden
(``readable`` false) and dice without a name are left out.

``--chroma`` prints, per real set (and for any photos named), how colourful its photos' most
colourful pixels are (``vision.colour.colour_extent``): the lowest, the 1st and 5th percentile,
and how many fall under ``NO_COLOUR_CHROMA``, under which a photo is taken for black and white
and no colour named in it is trusted.
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.colour import GENERAL  # noqa: E402
from vision.training.data import as_taken, default_data_root, load_folder  # noqa: E402
from vision.training.metrics import greedy_match  # noqa: E402
from vision.pipeline import DiceReader, read_image_file  # noqa: E402

LABELS = Path(__file__).resolve().parent / "data" / "real_colours.csv"
SPLITS = ("tune", "report", "check", "confirm")
UNCLEAR = "unclear"
MISSED = "missed"


def load_colour_labels(path: str | Path) -> dict[tuple[str, str], dict[int, tuple[str, str]]]:
    """(set, filename) -> {die index: (colour, split)}. Raises ValueError naming the first bad
    row."""
    names = set(GENERAL.names) | {UNCLEAR}
    out: dict[tuple[str, str], dict[int, tuple[str, str]]] = {}
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        missing = {"set", "filename", "die", "colour", "split"} - set(reader.fieldnames or ())
        if missing:
            raise ValueError(f"{path}: missing column(s) {', '.join(sorted(missing))}")
        for n, r in enumerate(reader, start=2):
            where = f"{path}:{n}"
            if r["colour"] not in names:
                raise ValueError(f"{where}: colour {r['colour']!r} is not a general palette name "
                                 f"nor {UNCLEAR!r}")
            if r["split"] not in SPLITS:
                raise ValueError(f"{where}: split {r['split']!r} is not one of {', '.join(SPLITS)}")
            try:
                die = int(r["die"])
            except ValueError:
                raise ValueError(f"{where}: die {r['die']!r} is not a whole number") from None
            photo = out.setdefault((r["set"], r["filename"]), {})
            if die in photo:
                raise ValueError(f"{where}: die {die} of {r['filename']} is labelled twice")
            photo[die] = (r["colour"], r["split"])
    return out


def score_photo(labels: dict[int, tuple[str, str]], truth_boxes,
                read) -> list[tuple[str, str, str]]:
    """(split, truth, read colour or "missed") of each labelled die of a clear colour in one photo.
    ``truth_boxes``: the photo's labelled (box, box_kind) pairs in the order of labels.csv;
    ``read``: the reader's (box, colour) pairs."""
    pairs = dict(greedy_match(truth_boxes, [b for b, _ in read]))
    out = []
    for die, (colour, split) in sorted(labels.items()):
        if colour == UNCLEAR:
            continue
        out.append((split, colour, read[pairs[die]][1] if die in pairs else MISSED))
    return out


def evaluate(reader: DiceReader, labels, data_root: Path,
             splits=SPLITS) -> dict[tuple[str, str], Counter]:
    """(set, split) -> Counter of (truth, read) over the labelled photos."""
    folders: dict[str, dict[str, object]] = {}
    out: dict[tuple[str, str], Counter] = {}
    for (set_name, filename), dice in sorted(labels.items()):
        if not any(split in splits for _, split in dice.values()):
            continue
        if set_name not in folders:
            folders[set_name] = {im.path.name: im for im in load_folder(data_root / set_name)}
        im = folders[set_name].get(filename)
        if im is None:
            raise SystemExit(f"{set_name}/{filename}: labelled by colour but not in the set's "
                             "labels.csv")
        if max(dice) >= len(im.dice):
            raise SystemExit(f"{set_name}/{filename}: die {max(dice)} labelled by colour, the "
                             f"photo has {len(im.dice)}")
        im, bgr = as_taken(im, read_image_file(im.path))  # epanemu_own: as its camera took it
        roll = reader(bgr)
        rows = score_photo(dice, [(d.box, d.box_kind) for d in im.dice],
                           [(d.box, d.colour) for d in roll.dice])
        for split, truth, read in rows:
            if split in splits:
                out.setdefault((set_name, split), Counter())[truth, read] += 1
    return out


def evaluate_renders(reader: DiceReader, folders) -> dict[tuple[str, str], Counter]:
    """(folder name, "render") -> Counter of (truth, read) over the renders' dice of a
    general-palette name that are not mostly hidden."""
    out: dict[tuple[str, str], Counter] = {}
    for folder in folders:
        counts = out.setdefault((Path(folder).name, "render"), Counter())
        for im in load_folder(folder):
            labels = {i: (d.colour, "render") for i, d in enumerate(im.dice)
                      if d.readable and d.colour in GENERAL.names}
            if not labels:
                continue
            roll = reader(read_image_file(im.path))
            for _, truth, read in score_photo(labels, [(d.box, d.box_kind) for d in im.dice],
                                              [(d.box, d.colour) for d in roll.dice]):
                counts[truth, read] += 1
    return out


def summary(counts: Counter) -> dict:
    dice = sum(counts.values())
    found = dice - sum(n for (_, r), n in counts.items() if r == MISSED)
    right = sum(n for (t, r), n in counts.items() if t == r)
    return {"dice": dice, "found": found, "right": right,
            "accuracy": right / found if found else None}


def confusion_text(counts: Counter) -> str:
    truths = [n for n in GENERAL.names if any(t == n for t, _ in counts)]
    reads = [n for n in GENERAL.names if any(r == n for _, r in counts)] + \
        ([MISSED] if any(r == MISSED for _, r in counts) else [])
    width = max(7, *(len(r) + 1 for r in reads))
    lines = ["truth\\read".ljust(12) + "".join(r.rjust(width) for r in reads)]
    for t in truths:
        lines.append(t.ljust(12)
                     + "".join(str(counts.get((t, r), 0) or ".").rjust(width) for r in reads))
    return "\n".join(lines)


def print_chroma(data: Path, images) -> int:
    """``--chroma``: per set (at most 400 photos each) and per photo named, ``colour_extent``."""
    import cv2
    import numpy as np

    from vision.colour import NO_COLOUR_CHROMA, colour_extent
    groups = {d.name: sorted([*d.glob("**/*.jpg"), *d.glob("**/*.png")])[:400]
              for d in sorted(data.iterdir()) if d.is_dir()} if data.is_dir() else {}
    groups.update({str(p): [p] for p in images})
    for name, files in groups.items():
        values = np.array([colour_extent(im) for im in map(cv2.imread, map(str, files))
                           if im is not None])
        if len(values):
            print(f"{name}: {len(values)} photos, lowest {values.min():.1f}, 1st percentile "
                  f"{np.percentile(values, 1):.1f}, 5th {np.percentile(values, 5):.1f}; under "
                  f"{NO_COLOUR_CHROMA}: {int((values < NO_COLOUR_CHROMA).sum())}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=[*SPLITS, "all"], default="tune")
    ap.add_argument("--labels", type=Path, default=LABELS)
    ap.add_argument("--data", type=Path, default=default_data_root(), help="the labelled sets")
    ap.add_argument("--json", type=Path, default=None,
                    help="also write the figures to this JSON file")
    ap.add_argument("--renders", type=Path, nargs="+", default=None, metavar="DIR",
                    help="read these folders of photoreal renders instead of the real photos")
    ap.add_argument("--chroma", nargs="*", type=Path, default=None, metavar="IMAGE",
                    help="print how colourful the real sets' photos (and these) are")
    args = ap.parse_args(argv)
    if args.chroma is not None:
        return print_chroma(args.data, args.chroma)
    if args.renders:
        missing = [str(f) for f in args.renders if not (f / "labels.csv").is_file()]
        if missing:
            ap.error(f"--renders: no labels.csv in {', '.join(missing)}")
        splits = ("render",)
        results = evaluate_renders(DiceReader(), args.renders)
    else:
        if not args.data.is_dir():
            ap.error(f"--data {args.data}: no such folder")
        try:
            labels = load_colour_labels(args.labels)
        except (OSError, ValueError) as e:
            ap.error(str(e))
        splits = SPLITS if args.split == "all" else (args.split,)
        results = evaluate(DiceReader(), labels, args.data, splits)
    report = []
    total = Counter()
    order = (*SPLITS, "render")
    for (set_name, split), counts in sorted(results.items(),
                                            key=lambda kv: (order.index(kv[0][1]), kv[0][0])):
        s = summary(counts)
        total += counts
        report.append({"set": set_name, "split": split, **s,
                       "confusion": [[t, r, n] for (t, r), n in sorted(counts.items())]})
        print(f"== {set_name} ({split}): {s['dice']} dice of a clear colour, {s['found']} found, "
              f"colour right {s['right']} = {100 * (s['accuracy'] or 0):.1f} %")
        print("   " + confusion_text(counts).replace("\n", "\n   "))
    if len(results) > 1:
        s = summary(total)
        print(f"== all ({'renders' if args.renders else args.split}): {s['dice']} dice, "
              f"{s['found']} found, colour right "
              f"{s['right']} = {100 * (s['accuracy'] or 0):.1f} %")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

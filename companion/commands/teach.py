"""`dice-companion teach OUT.npz (FOLDER... | --csv LABELS.csv)`: teach the reader your dice.

Labelled examples, 3-5 per face, become a dice-set file that `read --dice-set` and
`watch --dice-set` use. Two ways to label:

* a FOLDER with one subfolder per face: `1/ 2/ ... 5/ cow/`, or with a colour after a dash or an
  underscore (`6-green/`, `3_orange/`); every image in a subfolder is one crop of one die (the
  die filling the image, a small margin around it);
* `--csv LABELS.csv` with the columns `filename,value` and optionally `colour` and
  `x_min,y_min,x_max,y_max` (the die's box in a larger photo); file names are relative to the
  CSV's folder or its `images/` subfolder (the layout of the shared dice sets).

Teaching takes seconds: no training; the examples' embeddings by the shipped face-embedding model
(models/face_embed.onnx) are stored as prototypes, with the model's id: a file taught with another
model is refused (teach again). Each example's top face, where the top-face locator
(models/top_face.onnx) finds it, is cut out square and stored beside it, so that dice seen at an
angle are read from their top face too. See docs/vision-special.md. With colours given, the
colour of each named colour is measured on the examples (on their top faces): that is the colour
calibration under the table's light.
"""
from __future__ import annotations

import csv
import functools
import re
import sys
from pathlib import Path

from companion.cli import EXIT_BAD_INPUT, EXIT_OK, BadInput, count
from companion.commands._common import output_file

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


def register(subparsers) -> None:
    p = subparsers.add_parser("teach",
                              help="teach the reader your own dice (writes a dice-set file)",
                              description=__doc__.splitlines()[0])
    p.add_argument("out", metavar="OUT.npz", type=Path, help="the dice-set file to write")
    p.add_argument("folders", nargs="*", metavar="FOLDER", type=Path,
                   help="folders with one subfolder of crops per face "
                        "(1/, 2/, cow/, 6-green/, ...)")
    p.add_argument("--csv", metavar="LABELS.csv", type=Path, action="append", default=[],
                   help="labels: filename,value[,colour][,x_min,y_min,x_max,y_max]")
    p.add_argument("--seed", type=int, default=0, help="seed of the box jitters (default 0)")
    p.add_argument("--dice", type=int, default=None, metavar="N",
                   help="how many dice the game rolls, where each die's faces carry their own "
                        "colours (The Choice: 3): a number taught in N colours has no other face")
    p.set_defaults(func=run)


def parse_label(name: str, where: object = None) -> tuple[object, str | None]:
    """`3` -> (3, None); `cow` -> ("cow", None); `6-green` / `6_green` -> (6, "green").
    A face no game's dice show ("7", "banana") is refused (`known_faces`): taught, it would
    make a dice-set file that reads nothing. `where` (a folder, a CSV line) starts the
    message."""
    m = re.fullmatch(r"([^-_]+)(?:[-_]([A-Za-z]+))?", name.strip())
    if not m:
        raise BadInput(f"cannot read a face label from {name!r} (expected e.g. 3, cow, 6-green)")
    value, colour = m.group(1), m.group(2)
    face = int(value) if value.isdigit() else value.lower()
    faces = known_faces()
    if face not in faces:
        start = f"{where}: " if where is not None else ""
        raise BadInput(f"{start}{value!r} is not a face the dice show (faces: "
                       f"{', '.join(str(f) for f in faces)})")
    return face, (colour.lower() if colour else None)


@functools.cache
def known_faces() -> tuple:
    """Every face the games' dice show, as the web app's teaching page offers them
    (`companion.teaching.labels_for` of each game's `dice_spec`): the pips 1-6 and Kuh
    Vadis' cow (The Choice's colours come with its faces, after the face)."""
    from companion.games import dice_spec
    from companion.teaching import labels_for
    from engine.registry import GAMES

    faces = {f for name in GAMES for f in labels_for(dice_spec(name)).faces}
    return tuple(sorted(faces, key=lambda f: (isinstance(f, str), str(f))))


def _folder_examples(folder: Path):
    if not folder.is_dir():
        raise BadInput(f"{folder}: no such folder")
    subs = sorted(p for p in folder.iterdir() if p.is_dir())
    if not subs:
        raise BadInput(f"{folder}: no label subfolders (expected 1/, 2/, ..., cow/, 6-green/)")
    for sub in subs:
        value, colour = parse_label(sub.name, sub)
        for f in sorted(sub.iterdir()):
            if f.suffix.lower() in IMAGE_SUFFIXES:
                yield f, None, value, colour


def _csv_examples(path: Path):
    try:
        rows = list(csv.DictReader(path.open(newline="", encoding="utf-8")))
    except OSError as exc:
        raise BadInput(f"{path}: cannot read ({exc.strerror or exc})") from None
    if not rows or "filename" not in rows[0] or "value" not in rows[0]:
        raise BadInput(f"{path}: needs the columns filename,value "
                       "(and optionally colour, x_min, ...)")
    for k, r in enumerate(rows, start=2):
        value, _ = parse_label(r["value"] or "", f"{path}:{k}")
        colour = (r.get("colour") or "").strip().lower() or None
        box = None
        if all(r.get(c) not in (None, "") for c in ("x_min", "y_min", "x_max", "y_max")):
            try:
                box = tuple(float(r[c]) for c in ("x_min", "y_min", "x_max", "y_max"))
            except ValueError:
                raise BadInput(f"{path}:{k}: the box is not four numbers") from None
            if box[2] <= box[0] or box[3] <= box[1]:
                raise BadInput(f"{path}:{k}: empty box {box}")
        f = path.parent / r["filename"]
        if not f.exists() and (path.parent / "images" / r["filename"]).exists():
            f = path.parent / "images" / r["filename"]
        yield f, box, value, colour


def dice_set_reader(path: Path, palette, calibration):
    """The reader of a dice-set file, or BadInput saying why it cannot be used."""
    from vision.dice_set import reader_for
    if not Path(path).is_file():
        raise BadInput(f"{path}: no such dice-set file")
    try:
        return reader_for(path, palette, calibration)
    except FileNotFoundError as exc:  # the embedding model
        raise BadInput(str(exc)) from None
    except (OSError, ValueError) as exc:
        # vision's reasons start with the path: said once
        reason = str(exc).removeprefix(f"{path}: ")
        raise BadInput(f"{path}: cannot use this dice set: {reason}") from None


def run(args) -> int:
    from vision.pipeline import BadImage, read_image_file
    from vision.teach import teach

    if not args.folders and not args.csv:
        raise BadInput("give a folder of labelled crops or --csv LABELS.csv")
    output_file(args.out, "dice-set file")     # before the work; no folder is made
    sources = [ex for folder in args.folders for ex in _folder_examples(folder)]
    sources += [ex for path in args.csv for ex in _csv_examples(path)]
    status = EXIT_OK
    examples = []
    for f, box, value, colour in sources:
        try:
            image = read_image_file(f)
        except (BadImage, OSError) as exc:
            msg = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            print(f"dice-companion teach: {f}: {msg}", file=sys.stderr)
            status = EXIT_BAD_INPUT
            continue
        examples.append((image, box, value, colour))
    if not examples:
        raise BadInput("no readable labelled examples")
    try:
        if args.dice is not None and args.dice < 1:
            raise BadInput(f"--dice: a number of dice, 1 or more, not {args.dice}")
        ds = teach(examples, seed=args.seed, dice=args.dice)
    except FileNotFoundError as exc:  # the embedding model
        raise BadInput(str(exc)) from None
    try:
        ds.save(args.out)
    except OSError as exc:
        raise BadInput(f"{args.out}: cannot write ({exc.strerror or exc})") from None
    counts: dict = {}
    for _, _, value, _ in examples:
        counts[value] = counts.get(value, 0) + 1
    few = [str(v) for v, n in counts.items() if n < 3]
    faces = ", ".join(f"{v}: {n}" for v, n in sorted(counts.items(), key=lambda kv: str(kv[0])))
    colours = ", ".join(n for n, _ in ds.colours) or "none (body colours named against the palette)"
    source = {"face": "the face", "vivid": "the face's most colourful pixels",
              "ink": "the symbol"}.get(ds.colour_source, "the body")
    print(f"{args.out}: {count(len(examples), 'example')} ({faces}); "
          f"colours from {source}: {colours}; "
          f"die threshold {ds.die_threshold:.3f}; taught "
          f"in {ds.info.get('teach_ms', 0) / 1000:.1f} s")
    if few:
        print(f"dice-companion teach: fewer than 3 examples for {', '.join(few)}: teach more for a "
              "reliable reading", file=sys.stderr)
    return status

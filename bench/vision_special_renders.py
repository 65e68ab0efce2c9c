"""Teaching on photoreal renders: one physical set of special dice, taught and read as a table is.

    python bench/vision_special_renders.py --teach TEACH_DIR --test TEST_DIR [--per-face 6]
                                           [--untaught] [--every-sample | --keep-refused]
                                           [--model EMBEDDING.onnx] [--float-views]

Both folders are renders of ``vision.training.render3d --dice kuh_vadis|the_choice --one-set S``
with the same ``S`` (the same dice: design, faces' order, colours) and other seeds, e.g.

    .venv-render/bin/python -m vision.training.render3d --out work_data/kv4_teach --scenes 24 \\
        --seed 101 --dice kuh_vadis --one-set 4 --min-dice 2 --max-dice 5 --tilt 20,50 \\
        --size 480x360 --threads 2
    (the same with --out work_data/kv4_test --scenes 24 --seed 102 --max-dice 8)

The Choice's three different dice: ``--dice the_choice --one-set S --set-dice 3`` (28 teaching
scenes; docs/vision-special.md, "Value and colour named together"). That many teaching scenes
give each face the 6 dice the teaching page would take.

The set is taught (``vision.teach.teach``) with ``--per-face`` dice per face taken from the
teaching renders (in file order, dice of which at most a tenth is hidden, skipping those the
companion's teaching page refuses: under 40 px or blurred, ``companion.teaching.crop_problem``,
or read as another face by the photos taken before, ``companion.teaching.worsens_the_set``;
``--every-sample`` takes them too; ``--keep-refused``: a player who keeps the photos read as
another face, the page's "keep it" button), as a player teaches it from photos of their dice; The
Choice's dice are taught with their face colours. Then the test renders are read by the taught
reader (``DiceSetReader``, as the companion reads a taught table's settled roll):

* on their labelled boxes: value, colour (The Choice) and both right;
* whole scenes (detector boxes, the taught reader): recall and precision of the dice (IoU >= 0.3
  with the labelled box), value and value+colour right of the matched dice, scenes entirely
  right.

A die whose top face is more than half hidden (``UNREADABLE_TOP``) is neither a miss when it is
not found nor an extra when it is, as ``bench/vision_accuracy.py`` counts renders.
Each whole scene's reading is timed (wall clock, every model on one thread; the median, p90
and how many took over the settled tier's 150 ms). ``--float-views`` reads the unsure dice's
further views with the float embedding instead of its shipped 8-bit copy.
``--untaught`` also reads the test scenes with the shipped pip reader, untaught (Kuh Vadis: its
sixth face named the cow, as the companion names it). For Kuh Vadis it prints the companion's
check before a table uses its taught dice (``companion.teaching.shipped_check``): whether the
shipped reader reads the teaching dice clearly better than the taught set reads them left out.
"""
from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from vision.dice_set import DiceSetReader  # noqa: E402
from vision.embedding import FaceEmbedder  # noqa: E402
from vision.teach import teach  # noqa: E402
from vision.training.data import UNREADABLE_TOP  # noqa: E402
from vision_special import matched  # noqa: E402

MAX_HIDDEN_TO_TEACH = 0.1
PHOTO_BUDGET_MS = 150.0   # issue 17's settled tier, one thread (bench/vision_speed.py)


@dataclass(frozen=True)
class RenderedDie:
    """One labelled die of a special-dice render (``labels.csv``)."""
    value: object  # 1..6 or "cow"
    colour: str
    box: tuple[float, float, float, float]
    hidden: float  # share of the die hidden
    top_hidden: float  # share of its top face hidden
    game: str
    design: str


def load_renders(folder: Path) -> list[tuple[Path, list[RenderedDie]]]:
    """(image path, its labelled dice) per render, in file order."""
    rows: dict[str, list[RenderedDie]] = {}
    with open(folder / "labels.csv", newline="") as fh:
        for r in csv.DictReader(fh):
            rows.setdefault(r["filename"], []).append(RenderedDie(
                int(r["value"]) if r["value"].isdigit() else r["value"], r["colour"],
                tuple(float(r[k]) for k in ("x_min", "y_min", "x_max", "y_max")),
                float(r["hidden"]), float(r["top_hidden"]), r["dice_kind"], r["design"]))
    with open(folder / "images.csv", newline="") as fh:
        names = [r["filename"] for r in csv.DictReader(fh)]
    return [(folder / "images" / n, rows.get(n, [])) for n in sorted(names)]


def teaching_examples(renders, per_face: int, refuse=None, judge=None):
    """Up to ``per_face`` dice per face, each ``(bgr, box, value, colour or None)``, and how many
    of each face. ``refuse(bgr, box)``: why a photo would be refused (None: taken), as the
    companion's teaching page refuses a photo (``companion.teaching.crop_problem``: a die under
    40 px, a blurred crop); ``judge(taken, example)``: why the example would be refused next to
    the ones taken so far (the page's second refusal, ``page_judge``). A refused die is skipped
    and the next die of its face taken, as a player takes another photo."""
    out, count = [], {}
    for path, dice in renders:
        bgr = None
        for d in dice:
            if d.hidden > MAX_HIDDEN_TO_TEACH or count.get(d.value, 0) >= per_face:
                continue
            bgr = cv2.imread(str(path)) if bgr is None else bgr
            box = tuple(int(round(v)) for v in d.box)
            if refuse is not None and refuse(bgr, box) is not None:
                continue
            example = (bgr, box, d.value, d.colour if d.game == "the_choice" else None)
            if judge is not None and out and judge(out, example) is not None:
                continue
            out.append(example)
            count[d.value] = count.get(d.value, 0) + 1
    return out, count


def page_judge(game: str, embedder=None):
    """The teaching page's second refusal (``companion.teaching.worsens_the_set``) as a
    ``teaching_examples`` judge: the set taught with the photos taken so far and the new one
    reads the new one as another face, and the shipped reader does not read it as its face."""
    from companion import games as G
    from companion import teaching as T
    from vision.read import load_session
    spec = G.dice_spec(game)
    names, session = T.shipped_names(spec, T.labels_for(spec)), load_session()
    dice = 3 if game == "the_choice" else None

    def judge(taken, example):
        taught = teach(taken + [example], embedder=embedder, dice=dice)
        return T.worsens_the_set(taught, len(taken), example, names, session)
    return judge


def evaluate(reader, renders, colours: bool, name_value=lambda v: v) -> dict:
    """Boxes given (a reader with ``read_boxes``: the taught one) and whole scenes, matched as
    ``bench/vision_special.py`` matches (``matched``: IoU >= 0.3)."""
    n = v_ok = c_ok = both_ok = 0
    tp = fp = fn = sv_ok = sboth_ok = scenes_ok = 0
    ms = []   # each whole scene's reading
    for path, dice in renders:
        bgr = cv2.imread(str(path))
        readable = [d for d in dice if d.top_hidden <= UNREADABLE_TOP]
        hidden = [d for d in dice if d.top_hidden > UNREADABLE_TOP]
        if readable and hasattr(reader, "read_boxes"):
            boxes = [tuple(int(round(v)) for v in d.box) for d in readable]
            if colours:   # value and colour named together, as a roll names them
                values, _, names, _ = reader.name_boxes(bgr, boxes)
            else:
                values, names = reader.read_boxes(bgr, boxes)[0], [None] * len(boxes)
            for d, v, c in zip(readable, values, names):
                n += 1
                v_ok += v == d.value
                c_ok += (c == d.colour) if colours else 1
                both_ok += v == d.value and ((c == d.colour) if colours else True)
        t0 = time.perf_counter()
        roll = reader(bgr).dice
        ms.append((time.perf_counter() - t0) * 1000)
        # a read die on a hidden die is neither right nor an extra, once the readable dice
        # have had their pick (a die lying on a hidden one overlaps it)
        pairs = matched(readable, roll)
        taken = {id(r) for _, r in pairs}
        gone = {id(r) for _, r in matched(hidden, [r for r in roll if id(r) not in taken])}
        roll = [r for r in roll if id(r) not in gone]
        right = 0
        for d, r in pairs:
            value = name_value(r.value) == d.value
            sv_ok += value
            ok = value and ((r.colour == d.colour) if colours else True)
            sboth_ok += ok
            right += ok
        tp += len(pairs)
        fn += len(readable) - len(pairs)
        fp += len(roll) - len(pairs)
        scenes_ok += len(pairs) == len(readable) == len(roll) == right
    return {"dice": n, "value": v_ok / max(1, n), "colour": c_ok / max(1, n),
            "both": both_ok / max(1, n), "recall": tp / max(1, tp + fn),
            "precision": tp / max(1, tp + fp), "scene_value": sv_ok / max(1, tp),
            "scene_both": sboth_ok / max(1, tp), "scenes": len(renders),
            "scenes_right": scenes_ok / max(1, len(renders)), "readable": tp + fn,
            "ms": sorted(ms)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--teach", type=Path, required=True)
    ap.add_argument("--test", type=Path, required=True)
    ap.add_argument("--per-face", type=int, default=6)
    ap.add_argument("--untaught", action="store_true")
    picking = ap.add_mutually_exclusive_group()
    picking.add_argument("--every-sample", action="store_true",
                         help="teach with every die in file order, also those the teaching page "
                              "refuses (under 40 px, blurred, read as another face)")
    picking.add_argument("--keep-refused", action="store_true",
                         help="a player who keeps a photo the page reads as another face (its "
                              "'keep it' button) instead of taking another")
    ap.add_argument("--model", type=Path, default=None,
                    help="another face embedding (default: the shipped models/face_embed.onnx)")
    ap.add_argument("--float-views", action="store_true",
                    help="read the unsure dice's further views with the float model too, not its "
                         "shipped 8-bit copy (vision.embedding.view_embedder), to compare them")
    args = ap.parse_args(argv)
    embedder = FaceEmbedder(args.model) if args.model else None
    if embedder is not None:
        print(f"face embedding: {args.model} ({embedder.model_id})")
    teach_renders, test_renders = load_renders(args.teach), load_renders(args.test)
    designs = {d.design for _, ds in teach_renders + test_renders for d in ds}
    if len(designs) != 1:
        print(f"vision_special_renders: the folders show {len(designs)} designs ({designs}); "
              "render both with the same --one-set", file=sys.stderr)
        return 2
    game = next(d.game for _, ds in test_renders for d in ds)
    colours = game == "the_choice"
    from companion.teaching import crop_problem
    t0 = time.perf_counter()
    examples, count = (teaching_examples(teach_renders, args.per_face) if args.every_sample else
                       teaching_examples(teach_renders, args.per_face, crop_problem,
                                         None if args.keep_refused else page_judge(game, embedder)))
    pick_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    # as the companion teaches it: The Choice's faces carry colours, and it rolls three dice
    dice_set = teach(examples, embedder=embedder, dice=3 if colours else None)
    teach_s = time.perf_counter() - t0
    per_face = ", ".join(f"{k}: {v}" for k, v in sorted(count.items(), key=str))
    print(f"{designs.pop()}: taught with {len(examples)} dice ({per_face}) in {teach_s:.1f} s"
          + ("" if args.every_sample else f", picked as the teaching page takes photos in "
             f"{pick_s:.0f} s"))
    if game == "kuh_vadis":    # the companion's check before a table uses its taught dice
        from companion import games as G
        from companion import teaching as T
        from vision.read import load_session
        spec = G.dice_spec(game)
        refused = T.shipped_check(examples, dice_set, T.shipped_names(spec, T.labels_for(spec)),
                                  load_session(), embedder)
        print("teaching check (companion.teaching.shipped_check): "
              + (refused or "passed, the table would use the taught dice"))
    from vision.detect import load_detector
    from vision.embedding import default_embedder
    views = (embedder or default_embedder()) if args.float_views else None
    # every model on one thread, as issue 17's budget for a settled reading is counted
    reader = DiceSetReader(dice_set, embedder=embedder, views=views,
                           detector_session=load_detector(threads=1))
    print(f"further views embedded by {reader.views.model_id}")
    r = evaluate(reader, test_renders, colours)
    print(f"taught, boxes given ({r['dice']} dice): value {r['value']:.2%}"
          + (f", colour {r['colour']:.2%}, both {r['both']:.2%}" if colours else ""))
    print(f"taught, whole scenes ({r['scenes']} scenes, {r['readable']} readable dice): "
          f"recall {r['recall']:.2%}, precision {r['precision']:.2%}, value {r['scene_value']:.2%}"
          + (f", value and colour {r['scene_both']:.2%}" if colours else "")
          + f", scenes entirely right {r['scenes_right']:.2%}")
    ms = r["ms"]
    print(f"taught, a whole scene's reading (one thread, wall clock): median "
          f"{statistics.median(ms):.1f} ms, p90 {ms[int(0.9 * len(ms))]:.1f} ms, "
          f"over {PHOTO_BUDGET_MS:.0f} ms: {sum(t > PHOTO_BUDGET_MS for t in ms)} of {len(ms)}")
    if args.untaught:
        from vision.pipeline import DiceReader
        sixth = "cow" if game == "kuh_vadis" else 6
        u = evaluate(DiceReader(), test_renders, False,
                     name_value=lambda v: sixth if v == 6 else v)
        print(f"untaught pip reader, whole scenes: recall {u['recall']:.2%}, precision "
              f"{u['precision']:.2%}, value {u['scene_value']:.2%}, scenes entirely right "
              f"{u['scenes_right']:.2%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Special faces and teaching: cow faces, number+colour faces, held-out designs, real photos.

    python bench/vision_special.py [--test 600] [--teach 3] [--seed 0] [--real ../shared/data/dice]
                                   [--model models/face_embed.onnx]

For every rendered design (``vision.training.special_dice``): a dice set is taught from ``--teach``
renders per face (The Choice: every colour appears as often as every number), then ``--test`` other
dice (in scenes of 1-7 dice, other seeds) are read

* on their labelled boxes (the reader alone): value accuracy, colour accuracy, both right;
* in whole scenes (finder + dice-set reader): detection recall and precision (IoU >= 0.3) and the
  value / value+colour accuracy of the matched dice.

Designs seen while writing the reader (``SEEN_DESIGNS``) and designs held out of it entirely
(``HELD_OUT_DESIGNS``: a new body style and new symbol sets, never rendered by the embedding's
training generator either, see ``vision.training.train_embed``) are reported apart. ``--model``
picks the face-embedding model (default: the shipped ``models/face_embed.onnx``).

``--only untaught``: the pip reader (``--face``, default the shipped ``models/dice_face.onnx``)
reads the same test scenes untaught, a die's sixth face named as its game names it (the cow).

Real dice (``--real``, the shared sets): teach 5 dice per value from one set's training split,
read every validation die of each other set on its labelled box; the shipped ONNX model (no
teaching) reads the same boxes when the model file exists (it was trained on the training splits
of these sets, never on their validation splits).
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vision.dice_set import DiceSetReader  # noqa: E402
from vision.find import box_iou  # noqa: E402
from vision.training.special_dice import (CHOICE_COLOURS, HELD_OUT_DESIGNS,  # noqa: E402
                                          SEEN_DESIGNS, design_faces, render_special_scene)
from vision.embedding import FaceEmbedder  # noqa: E402
from vision.teach import teach  # noqa: E402

EMBEDDER: FaceEmbedder | None = None  # set by main (--model)
VIEWS: FaceEmbedder | None = None  # further views' embedder (--float-views: EMBEDDER)
# read unsure dice as their ink's colour contrast too (main: --no-contrast switches it off)
CONTRAST = True
FIND = "detector"  # whose boxes the taught reader reads in whole scenes (main: --find)


def teaching_examples(design, per_face: int, seed: int):
    """``per_face`` labelled dice per face, each die in its own small scene."""
    rng = np.random.default_rng(seed)
    out = []
    faces = design_faces(design)
    k = 0
    for face in faces:
        for j in range(per_face):
            colour = None
            if design.game == "the_choice":
                colour = CHOICE_COLOURS[(faces.index(face) + j * 2) % len(CHOICE_COLOURS)]
            sc = render_special_scene(rng, design, n_dice=1, size=(240, 320), values=[face],
                                      side_range=(34, 80), colours=[colour] if colour else None)
            d = sc.dice[0]
            out.append((sc.image, d.box, d.value,
                        d.colour if design.game == "the_choice" else None))
            k += 1
    return out


def test_scenes(design, n_dice: int, seed: int):
    rng = np.random.default_rng(seed)
    scenes, total = [], 0
    while total < n_dice:
        # drawn before the size: the scenes the figures were made on
        count = int(rng.integers(1, 8))
        size = [(480, 640), (640, 640), (480, 480)][int(rng.integers(0, 3))]
        sc = render_special_scene(rng, design, n_dice=count, size=size)
        scenes.append(sc)
        total += len(sc.dice)
    return scenes


def matched(truth, read) -> list:
    """(drawn die, read die) pairs: each drawn die takes the read die of largest overlap not taken
    yet, when they overlap by IoU >= 0.3."""
    used, pairs = set(), []
    for d in truth:
        best, bi = 0.0, -1
        for i, r in enumerate(read):
            if i in used:
                continue
            iou = box_iou(d.box, r.box)
            if iou > best:
                best, bi = iou, i
        if best >= 0.3:
            used.add(bi)
            pairs.append((d, read[bi]))
    return pairs


def evaluate(design, reader, scenes, colours: bool):
    crops_ok = crops_col = crops_both = n = 0
    tp = fp = fn = val_ok = both_ok = 0
    for sc in scenes:
        boxes = [d.box for d in sc.dice]
        values, _, _, _, face_labs, ink_labs = reader.read_boxes(sc.image, boxes)
        names = (reader.dice_set.name_colours(face_labs, ink_labs)[0] if colours and len(boxes)
                 else [None] * len(boxes))
        for d, v, c in zip(sc.dice, values, names):
            n += 1
            crops_ok += v == d.value
            crops_col += (c == d.colour) if colours else 1
            crops_both += (v == d.value) and ((c == d.colour) if colours else True)
        roll = reader(sc.image)
        pairs = matched(sc.dice, roll.dice)
        for d, r in pairs:
            val_ok += r.value == d.value
            both_ok += (r.value == d.value) and ((r.colour == d.colour) if colours else True)
        tp += len(pairs)
        fn += len(sc.dice) - len(pairs)
        fp += len(roll.dice) - len(pairs)
    return {"dice": n, "value": crops_ok / n, "colour": crops_col / n, "both": crops_both / n,
            "recall": tp / max(1, tp + fn), "precision": tp / max(1, tp + fp),
            "scene_value": val_ok / max(1, tp), "scene_both": both_ok / max(1, tp)}


def run_designs(designs, per_face, n_test, seed, label):
    print(f"\n{label}: taught with {per_face} renders per face, read {n_test}+ other dice per "
          "design")
    print(f"{'design':42s} {'dice':>5s} {'value':>7s} {'colour':>7s} {'both':>7s} | {'recall':>7s} "
          f"{'prec.':>7s} {'value':>7s} {'both':>7s}  teach")
    totals = []
    for k, design in enumerate(designs):
        t0 = time.perf_counter()
        ds = teach(teaching_examples(design, per_face, seed + 1000 + k), embedder=EMBEDDER)
        teach_s = time.perf_counter() - t0
        reader = DiceSetReader(ds, embedder=EMBEDDER, views=VIEWS, contrast=CONTRAST,
                               find_with=FIND)
        r = evaluate(design, reader, test_scenes(design, n_test, seed + 2000 + k),
                     design.game == "the_choice")
        totals.append(r)
        # Kuh Vadis: no face colours
        colour = f"{r['colour']:7.2%}" if design.game == "the_choice" else "      -"
        print(f"{design.name:42s} {r['dice']:5d} {r['value']:7.2%} {colour} {r['both']:7.2%} | "
              f"{r['recall']:7.2%} {r['precision']:7.2%} {r['scene_value']:7.2%} "
              f"{r['scene_both']:7.2%}  {teach_s:.1f} s")
    n = sum(r["dice"] for r in totals)
    both = sum(r["both"] * r["dice"] for r in totals) / n
    print(f"{'all (boxes given): value+colour right':42s} {n:5d} {both:7.2%}")
    return totals


def _real_dice(root: Path, name: str, validation: bool):
    """(bgr, box, value) of every labelled die of one real set's split (crop sets: the whole
    crop)."""
    import cv2

    from vision.training.data import load_folder
    out = []
    for im in load_folder(root / name):
        if im.validation != validation:
            continue
        bgr = cv2.imread(str(im.path))
        if bgr is None:
            continue
        for d in im.dice:
            if d.box_kind != "die":
                continue
            box = (0, 0, bgr.shape[1], bgr.shape[0]) if im.is_crop else d.box
            out.append((bgr, box, d.value))
    return out


REAL_SETS = ("chase_casino", "skovy_crops", "byler_d6_train")


def run_real(root: Path, per_value: int, seed: int, sets=REAL_SETS):
    names = [n for n in sets if (root / n / "labels.csv").is_file()]
    if len(names) < 2:
        print(f"\nreal photos: sets not found under {root}")
        return
    print(f"\nreal dice: teach {per_value} crops per value from one set (its training split), read "
          "the other set's validation dice (never trained on by the shipped model) on their "
          "labelled boxes")
    model = ROOT / "models" / "dice_face.onnx"
    onnx_reader = None
    if model.is_file():
        from vision.read import FaceReader, load_session
        onnx_reader = FaceReader(load_session(model, threads=1))
    rng = np.random.default_rng(seed)
    teach_pool = {n: _real_dice(root, n, validation=False) for n in names}
    test_pool = {n: _real_dice(root, n, validation=True) for n in names}
    for teach_name in names:
        examples = []
        for v in range(1, 7):
            dice = [d for d in teach_pool[teach_name] if d[2] == v]
            for i in rng.permutation(len(dice))[:per_value]:
                bgr, box, value = dice[int(i)]
                examples.append((bgr, box, value, None))
        reader = DiceSetReader(teach(examples, embedder=EMBEDDER), embedder=EMBEDDER,
                               views=VIEWS, contrast=CONTRAST, find_with=FIND)
        # as a taught table of pip dice reads: the shipped reader's sure values stand
        kept = replace(reader, pip_reader=onnx_reader) if onnx_reader is not None else None
        for test_name in names:
            if test_name == teach_name:
                continue
            test = test_pool[test_name]
            ok = ok_kept = ok_onnx = 0
            for bgr, box, value in test:
                ok += reader.read_boxes(bgr, [box])[0][0] == value
                if onnx_reader is not None:
                    ok_kept += kept.read_boxes(bgr, [box])[0][0] == value
                    p = onnx_reader(bgr, [box]).probs[0]
                    ok_onnx += int(np.argmax(p[1:])) + 1 == value
            line = (f"teach {teach_name:14s} -> read {test_name:14s} ({len(test):4d} dice): "
                    f"taught {ok / len(test):7.2%}")
            line += (f"   taught, sure pips kept {ok_kept / len(test):7.2%}"
                     f"   shipped model, no teaching {ok_onnx / len(test):7.2%}"
                     if onnx_reader is not None else "   (shipped model absent)")
            print(line)


def run_untaught(face_model, n_test, seed):
    """The pip reader, untaught, on every design's test scenes: a die's sixth face is read as the
    game names it (a cow on a Kuh Vadis die; a 6 on The Choice's), as the companion reads it."""
    from vision.pipeline import DiceReader
    from vision.read import load_session

    reader = DiceReader(session=load_session(face_model, threads=1), threads=1)
    print(f"\nuntaught pip reader ({face_model.name}): {n_test}+ dice per design, cow = sixth "
          "face")
    print(f"{'design':50s} {'dice':>5s} {'recall':>7s} {'prec.':>7s} {'value':>7s} "
          f"{'found, right':>13s}")
    designs = [(d, "seen") for d in SEEN_DESIGNS] + [(d, "held out") for d in HELD_OUT_DESIGNS]
    for k, (design, kind) in enumerate(designs):
        sixth = design_faces(design)[5]
        n = tp = fp = right = 0
        offset = k if kind == "seen" else k - len(SEEN_DESIGNS)   # run_designs' test seeds
        for sc in test_scenes(design, n_test, seed + 2000 + offset):
            read = reader(sc.image).dice
            pairs = matched(sc.dice, read)
            n += len(sc.dice)
            tp += len(pairs)
            fp += len(read) - len(pairs)
            right += sum((sixth if r.value == 6 else r.value) == d.value for d, r in pairs)
        print(f"{design.name + ' (' + kind + ')':50s} {n:5d} {tp / n:7.2%} "
              f"{tp / max(1, tp + fp):7.2%} {right / max(1, tp):7.2%} {right / n:13.2%}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--test", type=int, default=600, help="test dice per design")
    ap.add_argument("--teach", type=int, default=3, help="teaching renders per face")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--real", type=Path, default=ROOT.parent / "shared" / "data" / "dice")
    ap.add_argument("--only", choices=["seen", "held-out", "real", "untaught"], default=None)
    ap.add_argument("--real-sets", default=",".join(REAL_SETS),
                    help="the real sets taught from and read (each pair both ways)")
    ap.add_argument("--face", type=Path, default=ROOT / "models" / "dice_face.onnx",
                    help="the pip reader's model for the untaught run")
    ap.add_argument("--no-contrast", action="store_true",
                    help="read unsure dice without their ink-contrast view (the plain crop in its "
                         "quarter turns only), to measure what the view adds")
    ap.add_argument("--model", type=Path, default=ROOT / "models" / "face_embed.onnx",
                    help="face-embedding model")
    ap.add_argument("--find", choices=["detector", "opencv"], default="detector",
                    help="whose boxes the taught reader reads in whole scenes (default: the "
                         "reader's)")
    ap.add_argument("--float-views", action="store_true",
                    help="read the unsure dice's further views with the float model too, not its "
                         "shipped 8-bit copy (vision.embedding.view_embedder), to compare them")
    args = ap.parse_args(argv)
    global EMBEDDER, VIEWS, CONTRAST, FIND
    FIND = args.find
    EMBEDDER = FaceEmbedder(args.model)
    CONTRAST = not args.no_contrast
    VIEWS = EMBEDDER if args.float_views else None
    print(f"face embedding: {args.model} ({EMBEDDER.model_id})")
    if args.only in (None, "seen"):
        run_designs(SEEN_DESIGNS, args.teach, args.test, args.seed,
                    "designs seen while writing the reader")
    if args.only in (None, "held-out"):
        run_designs(HELD_OUT_DESIGNS, args.teach, args.test, args.seed,
                    "held-out designs (new body, new symbols)")
    if args.only in (None, "real"):
        run_real(args.real, 5, args.seed, [n for n in args.real_sets.split(",") if n])
    if args.only in (None, "untaught"):
        run_untaught(args.face, args.test, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The finder alone (``vision.find.propose``): recall of its proposals, candidates per image, speed.

    python bench/vision_finder.py [--split train|val|all] [--synth 200] [--repeat 3]
                                  [--finder FILE.py] [--detector M.onnx [--min-score S]]

Per source it prints the finder's recall (the share of labelled dice with at least one proposal
that matches), the number of candidates per image and the median / p90 ms per image on one
thread (``cv2.setNumThreads(1)``).

* Recall is given at two strictnesses. Whole-die labels: IoU >= 0.3 (the benchmark's rule) and
  IoU >= 0.5 (the rule training uses for a positive crop). Pip-box labels (matteop65): the rule of
  ``vision.training.metrics`` (half the pip box inside, centre in the central 60 %, the box holds
  the pip centres of no two labelled dice), printed in both columns.
* Sources: the real folders given with ``--real`` (default: byler_d6_train and matteop65 under
  ``../shared/data/dice``, the ``--split`` part), ``--synth`` synthetic scenes at 640x640 (seed
  ``--synth-seed``, random number of dice), and the 40 scenes of ``bench/vision_speed.py`` (seed 7,
  10 dice, 640x640) for timing.
* Timing: every image is timed ``--repeat`` times; the per-image median is kept, then the median
  and p90 over images are printed (the machine is shared, so repeats damp the noise).
* ``--finder FILE.py`` times another implementation (a file defining ``propose(bgr)``) with the
  same data, e.g. a copy of an older ``vision/find.py``.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vision.training.data import default_data_root, load_folder  # noqa: E402
from vision.find import box_iou  # noqa: E402
from vision.training.metrics import _holds_two, match_score  # noqa: E402


def _load_finder(path: str | None):
    if not path:
        from vision.find import propose
        return propose
    spec = importlib.util.spec_from_file_location("alt_find", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["alt_find"] = mod
    spec.loader.exec_module(mod)
    return mod.propose


def hits(labels, boxes) -> tuple[int, int]:
    """(dice matched at the loose rule, at the strict rule); labels are (box, kind) pairs."""
    pip_centres = [((lb[0] + lb[2]) / 2, (lb[1] + lb[3]) / 2) for lb, kind in labels
                   if kind == "pips"]
    loose = strict = 0
    for lb, kind in labels:
        if kind == "pips":
            ok = any(match_score(lb, kind, b) > 0 and not _holds_two(b, pip_centres) for b in boxes)
            loose += ok
            strict += ok
        else:
            best = max((box_iou(lb, b) for b in boxes), default=0.0)
            loose += best >= 0.3
            strict += best >= 0.5
    return loose, strict


def run_source(name, items, propose, repeat: int) -> dict:
    """items: (bgr, labels) pairs."""
    n_dice = loose = strict = n_cand = 0
    times = []
    for bgr, labels in items:
        ts = []
        boxes = ()
        for _ in range(repeat):
            t0 = time.perf_counter()
            boxes = propose(bgr).boxes
            ts.append((time.perf_counter() - t0) * 1000)
        times.append(float(np.median(ts)))
        a, b = hits(labels, boxes)
        loose += a
        strict += b
        n_dice += len(labels)
        n_cand += len(boxes)
    n = max(1, len(items))
    return {"source": name, "images": len(items), "dice": n_dice,
            "recall_loose": loose / max(1, n_dice), "recall_strict": strict / max(1, n_dice),
            "missed_loose": n_dice - loose, "missed_strict": n_dice - strict,
            "candidates_per_image": n_cand / n,
            "median_ms": float(np.median(times)) if times else 0.0,
            "p90_ms": float(np.percentile(times, 90)) if times else 0.0}


def real_items(folder: Path, split: str):
    images = load_folder(folder)
    if split != "all":
        images = [im for im in images if im.validation == (split == "val")]
    out = []
    for im in images:
        if im.is_crop:
            continue
        bgr = cv2.imread(str(im.path), cv2.IMREAD_COLOR)
        if bgr is not None:
            out.append((bgr, [(d.box, d.box_kind) for d in im.dice]))
    return out


def synth_items(n: int, seed: int, n_dice=None):
    from vision.training.synth import render_scene

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        sc = render_scene(rng, size=(640, 640), n_dice=n_dice)
        out.append((sc.image, [(d.box, "die") for d in sc.dice]))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--real", nargs="*", type=Path, default=None)
    ap.add_argument("--split", choices=["train", "val", "all"], default="train")
    ap.add_argument("--synth", type=int, default=200)
    ap.add_argument("--synth-seed", type=int, default=20261126)
    ap.add_argument("--speed-images", type=int, default=40,
                    help="scenes of bench/vision_speed.py (0: none)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--finder", default=None,
                    help="a .py file with propose(bgr) to measure instead")
    ap.add_argument("--detector", default=None, metavar="M.onnx",
                    help="measure the learned detector (vision.detect) with this model instead")
    ap.add_argument("--min-score", type=float, default=None,
                    help="with --detector: its centre likelihood threshold")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    cv2.setNumThreads(args.threads)
    propose = _load_finder(args.finder)
    if args.detector:
        from vision.detect import DEFAULT_MIN_SCORE, DieDetector
        from vision.read import load_session
        propose = DieDetector(load_session(args.detector, threads=args.threads),
                              min_score=args.min_score if args.min_score is not None
                              else DEFAULT_MIN_SCORE)
        args.finder = f"detector {args.detector}"
    real = args.real if args.real is not None else [default_data_root() / s
                                                    for s in ("byler_d6_train", "matteop65")]
    sources = []
    for folder in real:
        if (folder / "labels.csv").is_file():
            sources.append((f"{folder.name} ({args.split})",
                            lambda f=folder: real_items(f, args.split)))
        else:
            print(f"skip {folder}: no labels.csv")
    if args.synth:
        sources.append((f"synthetic 640x640 x{args.synth} (seed {args.synth_seed})",
                        lambda: synth_items(args.synth, args.synth_seed)))
    if args.speed_images:
        sources.append((f"vision_speed scenes x{args.speed_images} (seed 7, 10 dice)",
                        lambda: synth_items(args.speed_images, 7, 10)))
    for im in synth_items(3, 1):  # warm-up
        propose(im[0])
    print(f"finder: {args.finder or 'vision/find.py'}, {args.threads} thread(s), {args.repeat} "
          "timings per image")
    print(f"{'source':<48} {'imgs':>5} {'dice':>5}  {'rec@.3/pip':>10} {'rec@.5/pip':>10}  "
          f"{'cand/img':>8}  {'median ms':>9} {'p90 ms':>7}")
    results = []
    for name, load in sources:
        r = run_source(name, load(), propose, args.repeat)
        results.append(r)
        print(f"{name:<48} {r['images']:5d} {r['dice']:5d}  {100 * r['recall_loose']:9.2f}% "
              f"{100 * r['recall_strict']:9.2f}%  {r['candidates_per_image']:8.1f}  "
              f"{r['median_ms']:9.2f} {r['p90_ms']:7.2f}   (missed "
              f"{r['missed_loose']}/{r['missed_strict']})",
              flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

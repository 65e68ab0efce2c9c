"""The embedding's training set: the classes (not a die, real pip values, the seen designs' faces,
the random designs' faces) and their crops, rendered in worker processes (``build_dataset``)."""
from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

from ...read import CONTEXT, crop_square
from .crops import jitter_box, render_crop, render_not_die
from .designs import random_design
from .net import SIZE

NOT_DIE = 0  # class 0: not a die
N_REAL = 6  # classes 1..6: real pip dice of value 1..6
# classes 7..48: the faces of special_dice.SEEN_DESIGNS (one class per face, whatever the seed)
N_SEEN = 7
FIRST_DESIGN_CLASS = 1 + N_REAL + 6 * N_SEEN  # then 6 classes per random design


def class_of(design: dict, index: int, face: int) -> int:
    """The class of face ``face`` of design number ``index``: a seen design's face is one class
    whichever design number drew it (its renders are the same face)."""
    if design["kind"] == "seen":
        return 1 + N_REAL + 6 * (design["seen"] % N_SEEN) + face
    return FIRST_DESIGN_CLASS + index * 6 + face


def design_crops(args) -> tuple[np.ndarray, np.ndarray]:
    """Worker: (first design index, number of designs, renders per face, seed) -> crops, classes."""
    first, count, per_face, seed = args
    cv2.setNumThreads(1)
    crops, ys = [], []
    for i in range(first, first + count):
        design = random_design(seed * 1_000_003 + i)
        for face in range(6):
            rng = np.random.default_rng([seed, i, face])
            for _ in range(per_face):
                crops.append(render_crop(rng, design, face))
                ys.append(class_of(design, i, face))
    return np.stack(crops), np.array(ys, np.int32)


def seen_crops(args) -> tuple[np.ndarray, np.ndarray]:
    """Worker: (seen design, first render, renders per face, seed) -> extra crops of one design of
    ``special_dice.SEEN_DESIGNS``, one class per face (``class_of``); renders seeded apart from the
    random designs' (``--seen-per-face``: the seen designs weigh more than a tenth of the
    designs)."""
    which, first, count, seed = args
    cv2.setNumThreads(1)
    design = {"seed": -1 - which, "kind": "seen", "seen": which}
    crops, ys = [], []
    for face in range(6):
        rng = np.random.default_rng([seed, 7_000_000 + which, face, first])
        for _ in range(count):
            crops.append(render_crop(rng, design, face))
            ys.append(class_of(design, -1, face))
    return np.stack(crops), np.array(ys, np.int32)


def not_die_crops(args) -> tuple[np.ndarray, np.ndarray]:
    first, count, seed = args
    cv2.setNumThreads(1)
    rng = np.random.default_rng([seed, 99, first])
    crops = [render_not_die(rng) for _ in range(count)]
    return np.stack(crops), np.full(count, NOT_DIE, np.int32)


def real_die_boxes(root: Path):
    """(path, box, value) of every real die of the training splits (crop sets: the whole crop)."""
    from ..data import load_folder
    out = []
    root = Path(root)
    if not root.is_dir():
        return out
    for folder in sorted(p for p in root.iterdir() if (p / "labels.csv").is_file()):
        for im in load_folder(folder):
            if im.validation:
                continue
            for d in im.dice:
                if not 1 <= d.value <= 6:
                    continue
                if im.is_crop:
                    box = (0.0, 0.0, float(im.width), float(im.height))
                elif d.box_kind == "pips":  # the pips' box: about the top face, a little smaller
                    x0, y0, x1, y1 = d.box
                    cx, cy, s = (x0 + x1) / 2, (y0 + y1) / 2, max(x1 - x0, y1 - y0) * 1.3
                    box = (cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2)
                else:
                    box = d.box
                out.append((str(im.path), box, int(d.value)))
    return out


def real_crops(args) -> tuple[np.ndarray, np.ndarray]:
    """Worker: (photo, its (box, class) items, crops per die, seed, k) -> jittered crops of its
    dice: real pip dice (class = value) and photoreal renders (``render_die_boxes``)."""
    path, items, per_die, seed, k = args
    cv2.setNumThreads(1)
    bgr = cv2.imread(path, cv2.IMREAD_COLOR)
    if bgr is None:
        return np.zeros((0, SIZE, SIZE, 3), np.uint8), np.zeros(0, np.int32)
    rng = np.random.default_rng([seed, 7, k])
    crops, ys = [], []
    for box, value in items:
        for j in range(per_die):
            b = box if j == 0 else jitter_box(rng, box, 0.08, (0.9, 1.12))
            c = crop_square(bgr, b, SIZE, CONTEXT)
            if j >= 2 and rng.random() < 0.5:  # a farther camera, another JPEG
                small = cv2.resize(c, (int(rng.integers(16, 40)),) * 2,
                                   interpolation=cv2.INTER_AREA)
                c = cv2.resize(small, (SIZE, SIZE), interpolation=cv2.INTER_LINEAR)
            crops.append(c)
            ys.append(value)  # a real die: classes 1..6, its value; a render: its face's
    return np.stack(crops), np.array(ys, np.int32)


RENDER_TOP_HIDDEN = 0.1  # a rendered die whose top face is more hidden than this is not a sample


def render_die_boxes(folders) -> list[tuple[str, tuple, int]]:
    """(path, box, class) of every special die of photoreal renders (``vision.training.render3d
    --dice kuh_vadis|the_choice``: ``labels.csv`` names each die's ``design``) whose top face is
    at most ``RENDER_TOP_HIDDEN`` hidden; its class is its seen design's face (``class_of``), the
    class of that face's 2-D renders. Why: the 2-D renders alone did not carry to photos' 3-D
    shading, side faces and lights (docs/vision-special.md, "Photoreal renders of one table's
    dice"); a photoreal crop in the same class as the flat ones teaches the embedding to look
    past them. Raises ValueError on a design that is not a seen one (a held-out design must
    never be trained on)."""
    import csv

    from ..special_dice import SEEN_DESIGNS, design_faces
    index = {d.name: i for i, d in enumerate(SEEN_DESIGNS)}
    out = []
    for folder in folders:
        folder = Path(folder)
        with open(folder / "labels.csv", newline="") as fh:
            for r in csv.DictReader(fh):
                if r.get("dice_kind") not in ("kuh_vadis", "the_choice"):
                    continue
                if r["design"] not in index:
                    raise ValueError(f"{folder}: design {r['design']!r} is not a seen design")
                if float(r["top_hidden"]) > RENDER_TOP_HIDDEN:
                    continue
                design = SEEN_DESIGNS[index[r["design"]]]
                value = r["value"] if r["value"] == "cow" else int(r["value"])
                face = list(design_faces(design)).index(value)
                box = tuple(float(r[k]) for k in ("x_min", "y_min", "x_max", "y_max"))
                cls = class_of({"kind": "seen", "seen": index[r["design"]]}, -1, face)
                out.append((str(folder / "images" / r["filename"]), box, cls))
    return out


def render_dataset(folders, per_die: int, seed: int) -> tuple[np.ndarray, np.ndarray, dict]:
    """(crops, classes, info) of the dice of photoreal special-dice renders (``render_die_boxes``),
    ``per_die`` jittered crops each, cut as real dice are (``real_crops``). Kept apart from
    ``build_dataset``'s cache: the renders are made apart and may change without it."""
    by_path: dict[str, list] = {}
    for path, box, cls in render_die_boxes(folders):
        by_path.setdefault(path, []).append((box, cls))
    parts = [real_crops((path, items, per_die, seed, 100_000 + k))
             for k, (path, items) in enumerate(sorted(by_path.items()))]
    X = (np.concatenate([x for x, _ in parts]) if parts
         else np.zeros((0, SIZE, SIZE, 3), np.uint8))
    Y = np.concatenate([y for _, y in parts]) if parts else np.zeros(0, np.int32)
    return X, Y, {"renders": [str(f) for f in folders], "render_photos": len(by_path),
                  "render_dice": sum(len(v) for v in by_path.values()),
                  "render_crops": int(len(Y))}


def build_dataset(n_designs: int, per_face: int, data_root: Path | None, real_per_die: int,
                  n_not_die: int, seed: int, workers: int, progress: bool = True,
                  seen_per_face: int = 0):
    """(crops uint8 (N, SIZE, SIZE, 3), classes int32 (N,), n_classes, info).

    The random designs' crops come first, in design order (``train``'s episodes rely on it)."""
    from tqdm import tqdm

    tasks = []
    chunk = 25
    for first in range(0, n_designs, chunk):
        tasks.append(("design", (first, min(chunk, n_designs - first), per_face, seed)))
    for which in range(N_SEEN):
        for first in range(0, seen_per_face, 100):
            tasks.append(("seen", (which, first, min(100, seen_per_face - first), seed)))
    for first in range(0, n_not_die, 500):
        tasks.append(("not_die", (first, min(500, n_not_die - first), seed)))
    real = real_die_boxes(data_root) if data_root is not None and real_per_die > 0 else []
    by_path: dict[str, list] = {}
    for path, box, value in real:
        by_path.setdefault(path, []).append((box, value))
    for k, (path, items) in enumerate(sorted(by_path.items())):
        tasks.append(("real", (path, items, real_per_die, seed, k)))
    results = []
    bar = tqdm(total=len(tasks), desc="rendering", disable=not progress, file=sys.stderr)
    if workers > 1:
        import multiprocessing as mp
        with mp.get_context("fork").Pool(workers) as pool:
            for r in pool.imap(_run_task, [(k, a) for k, a in tasks], chunksize=1):
                results.append(r)
                bar.update(1)
    else:
        for t in tasks:
            results.append(_run_task(t))
            bar.update(1)
    bar.close()
    X = np.concatenate([r[0] for r in results if len(r[0])])
    Y = np.concatenate([r[1] for r in results if len(r[1])])
    info = {"designs": n_designs, "renders_per_face": per_face, "seen_per_face": seen_per_face,
            "real_dice": len(real), "real_crops": int(((Y >= 1) & (Y <= N_REAL)).sum()),
            "not_die_crops": int((Y == NOT_DIE).sum()),
            "design_crops": int((Y >= 1 + N_REAL).sum()),
            "seen_design_crops": int(((Y >= 1 + N_REAL) & (Y < FIRST_DESIGN_CLASS)).sum())}
    return X, Y, FIRST_DESIGN_CLASS + 6 * n_designs, info


def _run_task(task):
    kind, args = task
    return {"design": design_crops, "seen": seen_crops, "not_die": not_die_crops,
            "real": real_crops}[kind](args)

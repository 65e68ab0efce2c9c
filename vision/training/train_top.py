"""Train the top-face locator (``vision.top_face``, ``models/top_face.onnx``).

    python -m vision.training.train_top --renders DIR[,DIR] --synth N [--epochs E] --out FILE

Each labelled die of a photoreal render (``vision.training.render3d``; its scene drawn again
from its seed and index, ``vision.training.upright.scene_for_labels``, so the top face's
corners are projected exactly, ``top_quads``) and of a 2-D scene (``vision.training.synth``,
whose dice carry their top face's corners) is cut as the locator cuts a box
(``crop_square`` at the model's size and context), from its labelled box and from boxes
shifted and scaled as a detector's are; the target is the face's centre and shape in the crop
(``vision.top_face.crop_target``). Trained with an L1 loss under the square's eight turns and
mirrors (the targets turned with the crop) and the colour channels shuffled. Needs torch (the
``train`` extra); deterministic for a seed on the CPU.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from ..read import crop_square, standardise
from ..top_face import crop_target, face_frame
from .scene3d import FACE_NORMALS, project

SIZE = 48
CONTEXT = 1.3
MAX_HIDDEN = 0.3   # dice more hidden than this are left out (their box is not the die's)


def top_quads(spec) -> list[tuple[tuple, np.ndarray]]:
    """Per labelled die of a scene (``labels.csv``'s rows in order): (its clipped box, the
    four corners of its top face in pixels, in order around the face)."""
    from .upright import _labelled_boxes

    out = []
    for i, box in _labelled_boxes(spec):
        die = spec.dice[i]
        rot = np.array(die.rotation, float)
        normal = rot @ np.array(FACE_NORMALS[die.up_face], float)
        sides = [rot @ np.array(FACE_NORMALS[f], float) for f in (1, 2, 3)]
        a, b = [s for s in sides if abs(float(np.dot(s, normal))) < 0.5]
        c = np.array(die.position, float) + normal * die.size / 2
        h = die.size / 2
        corners = np.stack([c - a * h - b * h, c + a * h - b * h, c + a * h + b * h,
                            c - a * h + b * h])
        out.append((box, project(spec.camera, corners)))
    return out


def _jittered(rng, box, n: int) -> list[tuple[float, float, float, float]]:
    """The box and ``n`` others shifted by up to 8 % of its side and scaled 0.9-1.15, as a
    detector's boxes differ from the labels."""
    from .embed.crops import jitter_box

    return [tuple(float(v) for v in box)] + [jitter_box(rng, box, 0.08) for _ in range(n)]


def render_samples(folder: Path, rng, jitters: int = 3):
    """(crops, targets) of every die of a render folder whose scene can be drawn again."""
    from .upright import scene_for_labels

    labels: dict[str, list] = {}
    with open(folder / "labels.csv", newline="") as fh:
        for r in csv.DictReader(fh):
            labels.setdefault(r["filename"], []).append(r)
    crops, targets, skipped = [], [], 0
    with open(folder / "images.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            rows = labels.get(row["filename"], [])
            boxes = [tuple(float(r[k]) for k in ("x_min", "y_min", "x_max", "y_max"))
                     for r in rows]
            spec = scene_for_labels(int(row["seed"]), int(row["index"]),
                                    (int(row["image_w"]), int(row["image_h"])), boxes)
            if spec is None:
                skipped += 1
                continue
            bgr = cv2.imread(str(folder / "images" / row["filename"]), cv2.IMREAD_COLOR)
            for r, (box, quad) in zip(rows, top_quads(spec)):
                if float(r["hidden"]) > MAX_HIDDEN or float(r["top_hidden"]) > 0.1:
                    continue
                face = face_frame(quad)
                for b in _jittered(rng, box, jitters):
                    crops.append(crop_square(bgr, b, SIZE, CONTEXT))
                    targets.append(crop_target(face, b, CONTEXT))
    return crops, targets, skipped


def synth_samples(n_scenes: int, seed: int, jitters: int = 2):
    """(crops, targets) of the dice of ``n_scenes`` 2-D scenes (``render_scene``)."""
    from .synth import render_scene

    crops, targets = [], []
    for i in range(n_scenes):
        rng = np.random.default_rng([seed, 11, i])
        sc = render_scene(rng)
        for d in sc.dice:
            face = face_frame(d.top)
            for b in _jittered(rng, d.box, jitters):
                crops.append(crop_square(sc.image, b, SIZE, CONTEXT))
                targets.append(crop_target(face, b, CONTEXT))
    return crops, targets


def _dihedral(x, y, k: int):
    """Crop batch ``x`` (n, 3, s, s) and targets ``y`` (n, 5: cx, cy, sxx, sxy, syy) under the
    ``k``-th of the square's eight turns and mirrors."""
    import torch

    if k & 1:   # mirror left-right
        x = torch.flip(x, dims=[3])
        y = y * torch.tensor([-1, 1, 1, -1, 1], dtype=y.dtype)
    if k & 2:   # mirror top-bottom
        x = torch.flip(x, dims=[2])
        y = y * torch.tensor([1, -1, 1, -1, 1], dtype=y.dtype)
    if k & 4:   # transpose
        x = x.transpose(2, 3)
        y = y[:, [1, 0, 4, 3, 2]]
    return x, y


def make_net():
    import torch.nn as nn

    def block(i, o, stride=1):
        return [nn.Conv2d(i, o, 3, stride, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU()]

    # 48 -> 24 -> 12 -> 6 px; the face's place and shape need the whole die, not fine detail
    return nn.Sequential(*block(3, 24, 2), *block(24, 32), nn.MaxPool2d(2), *block(32, 48),
                         *block(48, 64), nn.MaxPool2d(2), *block(64, 96),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(96, 5))


def train(x: np.ndarray, y: np.ndarray, epochs: int, seed: int, threads: int, batch: int = 128,
          lr: float = 2e-3, max_seconds: float | None = None):
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    net = make_net()
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * (len(x) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=max(1, steps))
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    t0, done = time.time(), 0
    for epoch in range(epochs):
        order = rng.permutation(len(x))
        total = 0.0
        for s in range(len(x) // batch):
            idx = torch.from_numpy(order[s * batch:(s + 1) * batch])
            xb, yb = _dihedral(xt[idx], yt[idx], int(rng.integers(0, 8)))
            xb = xb[:, torch.from_numpy(rng.permutation(3))]
            loss = torch.nn.functional.l1_loss(net(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss)
            done += 1
            if max_seconds and time.time() - t0 > max_seconds:
                break
        print(f"epoch {epoch + 1}: L1 {total / max(1, len(x) // batch):.4f} "
              f"({time.time() - t0:.0f} s)", file=sys.stderr)
        if max_seconds and time.time() - t0 > max_seconds:
            break
    net.eval()
    return net, done


def export(net, path: Path, info: dict) -> str:
    import onnx
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, torch.zeros(1, 3, SIZE, SIZE), str(path), input_names=["crops"],
                      output_names=["face"], dynamic_axes={"crops": {0: "n"}, "face": {0: "n"}},
                      opset_version=17, dynamo=False)
    model = onnx.load(str(path))
    digest = hashlib.sha256(b"".join(t.raw_data for t in model.graph.initializer)).hexdigest()
    mid = f"top-face-{digest[:16]}"
    for k, v in {"model_id": mid, "size": json.dumps(SIZE), "context": json.dumps(CONTEXT),
                 "outputs": "centre x, y and S xx, xy, yy in crop sides (vision.top_face)",
                 **{k: json.dumps(v) for k, v in info.items()}}.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = k, v
    onnx.save(model, str(path))
    return mid


def evaluate(net, x: np.ndarray, y: np.ndarray) -> float:
    """Mean absolute error of the outputs, in crop sides."""
    import torch

    with torch.no_grad():
        return float(torch.nn.functional.l1_loss(net(torch.from_numpy(x)), torch.from_numpy(y)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.training.train_top",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--renders", default="", help="comma-separated render3d folders")
    ap.add_argument("--synth", type=int, default=1500, help="2-D scenes")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--max-seconds", type=float, default=None)
    ap.add_argument("--cache", type=Path, default=None, help="npz of the crops (made once)")
    ap.add_argument("--out", type=Path, default=Path("models/top_face.onnx"))
    args = ap.parse_args(argv)
    t0 = time.time()
    if args.cache and args.cache.is_file():
        z = np.load(args.cache)
        crops, ys, tags = z["crops"], z["ys"], z["tags"]
    else:
        rng = np.random.default_rng(args.seed)
        crops, ys, tags = [], [], []
        for folder in [Path(p) for p in args.renders.split(",") if p]:
            c, t, skipped = render_samples(folder, rng)
            print(f"{folder}: {len(c)} crops ({skipped} scenes not drawn again)", file=sys.stderr)
            crops += c
            ys += t
            tags += ["render"] * len(c)
        c, t = synth_samples(args.synth, args.seed)
        print(f"2-D scenes: {len(c)} crops", file=sys.stderr)
        crops, ys, tags = np.stack(crops + c), np.stack(ys + t), np.array(tags + ["synth"] * len(c))
        if args.cache:
            np.savez(args.cache, crops=crops, ys=ys, tags=tags)
    # a tenth of the crops held out to report the error (the last of each kind, by file order)
    dev = np.zeros(len(ys), bool)
    for t in np.unique(tags):
        idx = np.flatnonzero(tags == t)
        dev[idx[int(len(idx) * 0.9):]] = True
    x = standardise(crops)
    net, steps = train(x[~dev], ys[~dev], args.epochs, args.seed, args.threads,
                       max_seconds=args.max_seconds)
    errors = {str(t): round(evaluate(net, x[dev & (tags == t)], ys[dev & (tags == t)]), 4)
              for t in np.unique(tags)}
    print(f"held-out mean absolute error (crop sides): {errors}", file=sys.stderr)
    info = {"seed": args.seed, "steps": steps, "epochs": args.epochs,
            "crops": {str(t): int((tags == t).sum()) for t in np.unique(tags)},
            "held_out_error": errors,
            "command": "python -m vision.training.train_top "
                       + " ".join(argv if argv is not None else sys.argv[1:])}
    mid = export(net, args.out, info)
    print(f"wrote {args.out} ({mid}) in {time.time() - t0:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

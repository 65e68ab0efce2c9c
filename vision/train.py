"""Train the face reader and export it to ONNX (needs the optional ``train`` extra: torch, onnx, tqdm).

    python -m vision.train --data ../shared/data/dice --synth 800 --epochs 12 --seed 0 \\
        --out models/dice_face.onnx

Data (``build_dataset``): the crops the reader will see at run time.

* every real full-scene photo of the *training* split (``vision.data.is_validation`` is False):
  the finder's proposals are matched to the labels (``vision.metrics``); a proposal that matches
  well becomes a sample of its value, one that is far from every die a "not a die" sample; the
  labelled whole-die boxes are added with random jitter;
* the crop sets' training crops (the whole crop minus the authors' margin), with jitter;
* ``--synth`` synthetic scenes from ``vision.synth`` treated like the real photos.

Training: a small CNN (``FaceNet``) on 32x32 standardised crops, heavy augmentation on the fly
(90-degree turns, mirror, channel shuffle, negative, grey, brightness/contrast, blur, noise),
AdamW with a cosine schedule, class weights against the many "not a die" samples. Deterministic
for a seed (torch deterministic algorithms, one thread order, seeded generators).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from .data import default_data_root, load_folder
from .find import box_iou, propose
from .metrics import match_score
from .read import CONTEXT, crop_square
from .synth import render_scene

CLASSES = ("not_die", "1", "2", "3", "4", "5", "6")
SIZE = 32


def _jitter_box(rng, box, amount=0.12):
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    s = rng.uniform(0.92, 1.12)
    cx = (x0 + x1) / 2 + rng.uniform(-amount, amount) * w
    cy = (y0 + y1) / 2 + rng.uniform(-amount, amount) * h
    return (cx - w * s / 2, cy - h * s / 2, cx + w * s / 2, cy + h * s / 2)


def _scene_samples(rng, bgr, labels, props, crops, ys, tags, tag, neg_keep=1.0, jitters=2):
    """Append samples of one full scene. ``labels``: list of (box, kind, value)."""
    for p in props:
        best, best_v, near = 0.0, 0, 0.0
        for lb, kind, v in labels:
            s = match_score(lb, kind, p)
            if kind == "die":
                near = max(near, box_iou(lb, p))
            else:  # a box holding the centre of a pip box is near a die; a side face, a part of the
                # table or a box beside the top face is not
                cx, cy = (lb[0] + lb[2]) / 2, (lb[1] + lb[3]) / 2
                near = max(near, 1.0 if p[0] <= cx <= p[2] and p[1] <= cy <= p[3] else 0.0)
            if s > best:
                best, best_v = s, v
        if best >= (0.5 if all(k == "die" for _, k, _ in labels) else 0.6):
            crops.append(crop_square(bgr, p, SIZE, CONTEXT)); ys.append(best_v); tags.append(tag)
        elif near < 0.2 and rng.random() < neg_keep:
            crops.append(crop_square(bgr, p, SIZE, CONTEXT)); ys.append(0); tags.append(tag)
    for lb, kind, v in labels:
        if kind != "die":
            continue
        for _ in range(jitters):
            crops.append(crop_square(bgr, _jitter_box(rng, lb), SIZE, CONTEXT)); ys.append(v); tags.append(tag)
    # two neighbouring dice in one box: "not a die"
    die_boxes = [lb for lb, k, _ in labels if k == "die"]
    for i in range(min(3, len(die_boxes) - 1)):
        a, b = die_boxes[i], die_boxes[i + 1]
        u = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
        if max(u[2] - u[0], u[3] - u[1]) < 2.6 * max(a[2] - a[0], a[3] - a[1]):
            crops.append(crop_square(bgr, u, SIZE, CONTEXT)); ys.append(0); tags.append(tag)


def build_dataset(data_root: Path, n_synth: int, seed: int, progress=True):
    from tqdm import tqdm

    rng = np.random.default_rng(seed)
    crops, ys, tags = [], [], []
    sets = [p for p in sorted(Path(data_root).iterdir()) if (p / "labels.csv").is_file()] if Path(data_root).is_dir() else []
    for folder in sets:
        images = [im for im in load_folder(folder) if not im.validation]
        for im in tqdm(images, desc=f"real {folder.name}", disable=not progress, file=sys.stderr):
            bgr = cv2.imread(str(im.path), cv2.IMREAD_COLOR)
            if bgr is None:
                continue
            if im.is_crop:
                d = im.dice[0]
                m = 8 if "chase" in folder.name else 10
                inner = (m, m, im.width - m, im.height - m)  # the die without the authors' margin
                whole = (0, 0, im.width, im.height)  # the labelled box, as the benchmark reads it
                for box in (inner, inner, inner, whole, whole, whole):
                    crops.append(crop_square(bgr, _jitter_box(rng, box, 0.06), SIZE, CONTEXT)); ys.append(d.value)
                    tags.append(folder.name)
                continue
            labels = [(d.box, d.box_kind, d.value) for d in im.dice]
            props = propose(bgr).boxes
            _scene_samples(rng, bgr, labels, props, crops, ys, tags, folder.name, neg_keep=0.5)
    for _ in tqdm(range(n_synth), desc="synthetic scenes", disable=not progress, file=sys.stderr):
        size = [(480, 640), (640, 640), (640, 480)][rng.integers(0, 3)]
        sc = render_scene(rng, size=size)
        labels = [(d.box, "die", d.value) for d in sc.dice]
        props = propose(sc.image).boxes
        _scene_samples(rng, sc.image, labels, props, crops, ys, tags, "synth", neg_keep=0.2, jitters=1)
    return np.stack(crops), np.array(ys, np.int64), np.array(tags)


def _make_net():
    import torch.nn as nn

    def block(cin, cout):
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    return nn.Sequential(
        *block(3, 16), nn.MaxPool2d(2),          # 32 -> 16
        *block(16, 32), nn.MaxPool2d(2),         # 16 -> 8
        *block(32, 64), nn.MaxPool2d(2),         # 8 -> 4
        *block(64, 128),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.1), nn.Linear(128, len(CLASSES)))


def _augment(torch, x, gen):
    """x: float (n, 3, h, w) in 0..255 -> augmented, standardised like vision.read.standardise."""
    n = x.shape[0]
    k = int(torch.randint(0, 4, (1,), generator=gen))
    x = torch.rot90(x, k, dims=(2, 3))
    if bool(torch.rand(1, generator=gen) < 0.5):
        x = torch.flip(x, dims=(3,))
    # per-sample channel shuffle
    perm = torch.argsort(torch.rand(n, 3, generator=gen), dim=1)
    x = torch.gather(x, 1, perm[:, :, None, None].expand_as(x))
    r = torch.rand(n, 6, generator=gen)
    grey = x.mean(1, keepdim=True).expand_as(x)
    x = torch.where((r[:, 0] < 0.15)[:, None, None, None], grey, x)
    x = torch.where((r[:, 1] < 0.2)[:, None, None, None], 255 - x, x)
    x = x * (0.75 + 0.5 * r[:, 2])[:, None, None, None] + (r[:, 3] - 0.5)[:, None, None, None] * 60
    # a light blur (half a 3x3 box): a full 3x3 box wipes out the 3 px pips of small dice
    blur = 0.5 * x + 0.5 * torch.nn.functional.avg_pool2d(x, 3, 1, 1, count_include_pad=False)
    x = torch.where((r[:, 4] < 0.15)[:, None, None, None], blur, x)
    x = x + torch.randn(x.shape, generator=gen) * (r[:, 5] * 4)[:, None, None, None]
    x = x.clamp(0, 255)
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    std = x.std(dim=(1, 2, 3), keepdim=True, unbiased=False).clamp_min(8.0)
    return (x - mean) / std


def train(crops, ys, epochs: int, seed: int, progress=True, threads: int = 2):
    import torch
    from tqdm import tqdm

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True)
    gen = torch.Generator().manual_seed(seed)
    net = _make_net()
    X = torch.from_numpy(crops.transpose(0, 3, 1, 2).copy()).float()
    Y = torch.from_numpy(ys)
    counts = np.bincount(ys, minlength=len(CLASSES)).astype(np.float64)
    weights = torch.tensor((counts.sum() / np.maximum(counts, 1) / len(CLASSES)) ** 0.5, dtype=torch.float32)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    bs = 256
    steps = epochs * ((len(X) + bs - 1) // bs)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps, pct_start=0.15)
    lossf = torch.nn.CrossEntropyLoss(weight=weights, label_smoothing=0.02)
    bar = tqdm(total=steps, desc="training", disable=not progress, file=sys.stderr)
    for ep in range(epochs):
        net.train()
        order = torch.randperm(len(X), generator=gen)
        tot, correct, seen = 0.0, 0, 0
        for i in range(0, len(X), bs):
            idx = order[i:i + bs]
            xb = _augment(torch, X[idx], gen)
            out = net(xb)
            loss = lossf(out, Y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss) * len(idx)
            correct += int((out.argmax(1) == Y[idx]).sum())
            seen += len(idx)
            bar.update(1)
            bar.set_postfix(epoch=ep + 1, loss=f"{tot / seen:.3f}", acc=f"{correct / seen:.3f}")
    bar.close()
    net.eval()
    return net


def export_onnx(net, path: Path, info: dict):
    import onnx
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, SIZE, SIZE)
    torch.onnx.export(net, dummy, str(path), input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)
    model = onnx.load(str(path))
    for k, v in {"classes": json.dumps(list(CLASSES)), "input": f"standardised BGR crops 3x{SIZE}x{SIZE}",
                 **{k: json.dumps(v) for k, v in info.items()}}.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = k, v
    onnx.save(model, str(path))


def _cap(ys, tags, cap_not_die: int, cap_synth_class: int, seed: int) -> np.ndarray:
    """Indices kept: at most ``cap_not_die`` "not a die" crops per source and ``cap_synth_class``
    synthetic crops per value, drawn with the seed (more epochs on the real crops for the time)."""
    rng = np.random.default_rng(seed + 1)
    keep = np.ones(len(ys), bool)
    for t in np.unique(tags):
        for c in range(len(CLASSES)):
            cap = cap_not_die if c == 0 else (cap_synth_class if t == "synth" else 0)
            idx = np.nonzero((tags == t) & (ys == c))[0]
            if cap and len(idx) > cap:
                keep[rng.choice(idx, len(idx) - cap, replace=False)] = False
    return np.nonzero(keep)[0]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.train", description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=default_data_root(), help="folder of labelled sets")
    ap.add_argument("--synth", type=int, default=800, help="number of synthetic scenes")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cap-not-die", type=int, default=4000, help="most 'not a die' crops per source")
    ap.add_argument("--cap-synth-class", type=int, default=2500, help="most synthetic crops per value")
    ap.add_argument("--cache", type=Path, default=None, help="npz to reuse/store the built crops")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "models" / "dice_face.onnx")
    args = ap.parse_args(argv)
    t0 = time.time()
    if args.cache and args.cache.is_file():
        z = np.load(args.cache)
        crops, ys, tags = z["crops"], z["ys"], z["tags"]
    else:
        crops, ys, tags = build_dataset(args.data, args.synth, args.seed)
        if args.cache:
            args.cache.parent.mkdir(parents=True, exist_ok=True)
            np.savez_compressed(args.cache, crops=crops, ys=ys, tags=tags)
    keep = _cap(ys, tags, args.cap_not_die, args.cap_synth_class, args.seed)
    crops, ys, tags = crops[keep], ys[keep], tags[keep]
    summary = {str(t): np.bincount(ys[tags == t], minlength=len(CLASSES)).tolist() for t in np.unique(tags)}
    print(f"dataset: {len(ys)} crops, per source (not_die,1..6): {summary}", file=sys.stderr)
    net = train(crops, ys, args.epochs, args.seed, threads=args.threads)
    export_onnx(net, args.out, {"seed": args.seed, "epochs": args.epochs, "synthetic_scenes": args.synth,
                                "samples": summary})
    print(f"wrote {args.out} in {time.time() - t0:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

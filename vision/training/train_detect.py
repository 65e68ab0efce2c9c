"""Train the die detector (``models/dice_detect.onnx``) and export it to ONNX.

    python -m vision.training.train_detect --synth 2400 --steps 3000 --out models/dice_detect.onnx

Why a learned detector: the OpenCV finder proposes about ten boxes per die (~90 per photo),
and reading them all is most of a photo's time (see docs/vision.md). The detector is a small
fully convolutional network in the manner of CenterNet (Zhou et al., "Objects as Points",
2019): at a quarter of its input's resolution it gives, per cell, the likelihood that a die's
centre lies there, the die's width and height (log, in cells) and the centre's offset within the
cell. Its peaks are the dice: about one box per die.

Training data (the same split as the face reader: validation photos are never used):
* synthetic scenes (``vision.training.synth.render_scene``), whole-die boxes;
* byler_d6_train's training photos, whole-die boxes;
* matteop65's training photos: their boxes cover the top face's pips only, so they give the
  die's centre (the pip box's centre) but not its size; the size loss is masked for them.

The images are scaled so that the longer side is ``WORK`` pixels (the detector's working size),
then augmented: another scale (0.6-1.5), a random tile of ``TILE`` pixels, quarter turns, mirrors,
colour gains and gamma. Needs the ``train`` extra (torch); deterministic for a seed.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

from .data import default_data_root, load_folder
from ..detect import STRIDE, WORK, shrink, standardise_image

TILE = 256
DETECT_SETS = ("byler_d6_train", "matteop65")


# ---------------------------------------------------------------- targets (pure)

def die_boxes_from_pips(boxes: np.ndarray, values: np.ndarray) -> np.ndarray:
    """A whole-die box guessed around each pips-only box: same centre, side 1.6 x the pip box's
    longer side; a one's single pip gives no size, so it takes the median guess of the photo's
    other dice (or 4 x the pip). Used for the heat map's spread only, never as a size target."""
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    side = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    guess = side * 1.6
    ones = np.asarray(values) == 1
    if ones.any():
        others = guess[~ones]
        guess[ones] = float(np.median(others)) if len(others) else 4.0 * side[ones]
    cx, cy = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
    return np.stack([cx - guess / 2, cy - guess / 2, cx + guess / 2, cy + guess / 2], 1)


def heat_targets(boxes: np.ndarray, sized: np.ndarray, out_h: int, out_w: int,
                 stride: int = STRIDE):
    """Training targets at the output grid for ``boxes`` (N x 4, input pixels):

    * ``heat`` (H x W): a Gaussian bump per die peaking at 1 on the cell holding its centre,
      spread 0.15 x its shorter side (at least 0.7 cells); bumps combine by maximum;
    * ``reg`` (4 x H x W): log width, log height (in cells), centre offset x, y in the cell;
    * ``reg_mask`` (H x W): 1 on the centre cells whose size is known (``sized``), where ``reg``
      is trained; ``off_mask`` (H x W): 1 on every centre cell (the offset is always known).
    Dice whose centre falls outside the grid are left out."""
    heat = np.zeros((out_h, out_w), np.float32)
    reg = np.zeros((4, out_h, out_w), np.float32)
    reg_mask = np.zeros((out_h, out_w), np.float32)
    off_mask = np.zeros((out_h, out_w), np.float32)
    for (x0, y0, x1, y1), has_size in zip(np.asarray(boxes, np.float32).reshape(-1, 4), sized):
        cx, cy = (x0 + x1) / 2 / stride, (y0 + y1) / 2 / stride
        ix, iy = int(cx), int(cy)
        if not (0 <= ix < out_w and 0 <= iy < out_h):
            continue
        w, h = max(1.0, (x1 - x0) / stride), max(1.0, (y1 - y0) / stride)
        sigma = max(0.7, 0.15 * min(w, h))
        r = int(np.ceil(3 * sigma))  # the bump is below 0.012 beyond 3 sigma
        ya, yb, xa, xb = (max(0, iy - r), min(out_h, iy + r + 1), max(0, ix - r),
                          min(out_w, ix + r + 1))
        ys, xs = np.mgrid[ya:yb, xa:xb].astype(np.float32)
        g = np.exp(-((xs - ix) ** 2 + (ys - iy) ** 2) / (2 * sigma * sigma))
        np.maximum(heat[ya:yb, xa:xb], g, out=heat[ya:yb, xa:xb])
        heat[iy, ix] = 1.0
        reg[2, iy, ix], reg[3, iy, ix] = cx - ix, cy - iy
        off_mask[iy, ix] = 1.0
        if has_size:
            reg[0, iy, ix], reg[1, iy, ix] = np.log(w), np.log(h)
            reg_mask[iy, ix] = 1.0
    return heat, reg, reg_mask, off_mask


def augment_tile(rng: np.random.Generator, image: np.ndarray, boxes: np.ndarray, tile: int = TILE):
    """A random ``tile`` x ``tile`` training view of ``image`` (at working scale) and its boxes:
    scaled by 0.6-1.5, cropped (padded with the image's median colour when smaller), turned by a
    random quarter, maybe mirrored, colour gains 0.75-1.25 and gamma 0.7-1.4. Boxes whose centre
    leaves the tile are dropped by ``heat_targets``."""
    s = float(np.exp(rng.uniform(np.log(0.6), np.log(1.5))))
    h, w = image.shape[:2]
    nw, nh = max(8, round(w * s)), max(8, round(h * s))
    img = shrink(image, nw, nh) if s < 1 \
        else cv2.resize(image, (nw, nh), interpolation=cv2.INTER_LINEAR)
    b = np.asarray(boxes, np.float32).reshape(-1, 4) \
        * np.array([nw / w, nh / h, nw / w, nh / h], np.float32)
    fill = np.median(img[::4, ::4].reshape(-1, 3), 0)
    canvas = np.empty((max(tile, nh), max(tile, nw), 3), np.uint8)
    canvas[:] = fill.astype(np.uint8)
    ox, oy = (int(rng.integers(0, canvas.shape[1] - nw + 1)),
              int(rng.integers(0, canvas.shape[0] - nh + 1)))
    canvas[oy:oy + nh, ox:ox + nw] = img
    b += np.array([ox, oy, ox, oy], np.float32)
    x, y = (int(rng.integers(0, canvas.shape[1] - tile + 1)),
            int(rng.integers(0, canvas.shape[0] - tile + 1)))
    out = canvas[y:y + tile, x:x + tile]
    b -= np.array([x, y, x, y], np.float32)
    k = int(rng.integers(0, 4))
    for _ in range(k):  # turn 90 degrees counter-clockwise: (x, y) -> (y, tile - x)
        out = np.rot90(out)
        b = np.stack([b[:, 1], tile - b[:, 2], b[:, 3], tile - b[:, 0]], 1)
    if rng.random() < 0.5:
        out = out[:, ::-1]
        b = np.stack([tile - b[:, 2], b[:, 1], tile - b[:, 0], b[:, 3]], 1)
    levels = np.arange(256, dtype=np.float32)[:, None] \
        * rng.uniform(0.75, 1.25, 3).astype(np.float32)
    # 256 x 3
    lut = (255.0 * (np.clip(levels, 0, 255) / 255.0) ** rng.uniform(0.7, 1.4)).astype(np.uint8)
    out = np.ascontiguousarray(out)
    out = cv2.LUT(out, lut[None])  # per channel: gain, then gamma
    return out, b


# ---------------------------------------------------------------- data

def to_work(image: np.ndarray, boxes: np.ndarray, work: int = WORK):
    """``image`` scaled so that its longer side is ``work`` pixels (as ``vision.detect.prepare``
    does), and its boxes with it."""
    h, w = image.shape[:2]
    s = work / max(h, w)
    nw, nh = max(1, round(w * s)), max(1, round(h * s))
    img = shrink(image, nw, nh) if s < 1 \
        else cv2.resize(image, (nw, nh), interpolation=cv2.INTER_LINEAR)
    return img, np.asarray(boxes, np.float32).reshape(-1, 4) * s


def _render(seed: int):
    from .synth import render_scene
    rng = np.random.default_rng(seed)
    size = [(480, 640), (640, 640), (640, 480), (360, 640), (720, 960)][seed % 5]
    scene = render_scene(rng, size=size)
    boxes = np.array([d.box for d in scene.dice], np.float32).reshape(-1, 4)
    img, b = to_work(scene.image, boxes)
    return img, b, np.ones(len(b), bool)


def _render_special(seed: int):
    """One scene of Kuh Vadis or The Choice dice of a design seen while writing the readers
    (``vision.training.special_dice.SEEN_DESIGNS``; the held-out designs stay unseen): cows and
    numbered faces are dice to find too."""
    from .special_dice import SEEN_DESIGNS, render_special_scene
    rng = np.random.default_rng(seed)
    size = [(480, 640), (640, 640), (640, 480), (480, 480)][seed % 4]
    scene = render_special_scene(rng, SEEN_DESIGNS[seed % len(SEEN_DESIGNS)], size=size)
    boxes = np.array([d.box for d in scene.dice], np.float32).reshape(-1, 4)
    img, b = to_work(scene.image, boxes)
    return img, b, np.ones(len(b), bool)


def special_samples(n: int, seed: int, workers: int = 1) -> list:
    """``n`` scenes of special dice (``_render_special``), seeded by ``seed`` and their index."""
    seeds = [seed * 100_003 + 50_000 + i for i in range(n)]
    if workers <= 1 or n < 16:
        return [_render_special(s) for s in seeds]
    with Pool(workers) as pool:
        return list(pool.imap(_render_special, seeds, chunksize=8))


def render_samples(folders) -> list:
    """(image at working scale, boxes, sized) of ``vision.training.render3d`` scenes: every die at
    least partly in the picture is a target, whole-die boxes."""
    out = []
    for folder in folders:
        for im in load_folder(folder):
            bgr = cv2.imread(str(im.path), cv2.IMREAD_COLOR)
            if bgr is None:
                continue
            boxes = np.array([d.box for d in im.dice], np.float32).reshape(-1, 4)
            img, b = to_work(bgr, boxes)
            out.append((img, b, np.ones(len(b), bool)))
    return out


def real_samples(data_root: Path, sets=DETECT_SETS):
    """(image at working scale, boxes, sized) of the real training photos (validation photos left
    out)."""
    out = []
    for name in sets:
        folder = data_root / name
        if not folder.exists():
            continue
        for im in load_folder(folder):
            if im.validation or not im.dice:
                continue
            bgr = cv2.imread(str(im.path), cv2.IMREAD_COLOR)
            if bgr is None:
                continue
            boxes = np.array([d.box for d in im.dice], np.float32)
            kinds = [d.box_kind for d in im.dice]
            if all(k == "pips" for k in kinds):
                boxes = die_boxes_from_pips(boxes, np.array([d.value for d in im.dice]))
                sized = np.zeros(len(boxes), bool)
            else:
                sized = np.array([k == "die" for k in kinds])
            img, b = to_work(bgr, boxes)
            out.append((img, b, sized))
    return out


def build(data_root: Path, n_synth: int, seed: int, workers: int = 2, progress: bool = True,
          sets=DETECT_SETS):
    seeds = [seed * 100_003 + i for i in range(n_synth)]
    samples = []
    t0 = time.time()
    with Pool(workers) as pool:
        for i, s in enumerate(pool.imap(_render, seeds, chunksize=8)):
            samples.append(s)
            if progress and (i + 1) % 100 == 0:
                print(f"\rrendered {i + 1}/{n_synth} ({time.time() - t0:.0f} s)", end="",
                      file=sys.stderr)
    if progress:
        print(file=sys.stderr)
    real = real_samples(data_root, sets)
    return samples, real


def save_cache(path: Path, samples) -> None:
    arrays = {}
    for i, (img, b, sized) in enumerate(samples):
        arrays[f"i{i}"] = img
        arrays[f"b{i}"] = b
        arrays[f"s{i}"] = sized
    np.savez(path, n=len(samples), **arrays)


def load_cache(path: Path):
    z = np.load(path)
    return [(z[f"i{i}"], z[f"b{i}"], z[f"s{i}"]) for i in range(int(z["n"]))]


# ---------------------------------------------------------------- network and training (torch)

def make_net(channels=(8, 16, 32, 48, 64), head: int = 16, stem_extra: bool = True):
    """Down to 1/32 of the input in five stride-2 steps, then back up to 1/4 by nearest
    upsampling plus 1 x 1 projections of the finer levels (a small feature pyramid): the 1/4
    grid places small dice, the coarse levels see dice up to ~200 working pixels across.
    ``head``: channels of the pyramid and the head; ``stem_extra``: a third 3 x 3 convolution at
    1/4 in the stem (the convolutions at 1/4 cost the most: 384 x 384 on one core, 4.6 ms with it
    and 16 head channels, 3.1 ms without it and 8)."""
    import torch.nn as nn

    def cbr(ci, co, s=1):
        return nn.Sequential(nn.Conv2d(ci, co, 3, s, 1, bias=False), nn.BatchNorm2d(co),
                             nn.ReLU(inplace=True))

    c = channels

    class Detector(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(cbr(3, c[0], 2), cbr(c[0], c[1], 2),
                                      *([cbr(c[1], c[1])] if stem_extra else []))
            self.d8 = nn.Sequential(cbr(c[1], c[2], 2), cbr(c[2], c[2]))
            self.d16 = nn.Sequential(cbr(c[2], c[3], 2), cbr(c[3], c[3]))
            self.d32 = nn.Sequential(cbr(c[3], c[4], 2), cbr(c[4], c[4]))
            self.l4, self.l8 = nn.Conv2d(c[1], head, 1), nn.Conv2d(c[2], head, 1)
            self.l16, self.l32 = nn.Conv2d(c[3], head, 1), nn.Conv2d(c[4], head, 1)
            self.up = nn.Upsample(scale_factor=2, mode="nearest")
            self.head = nn.Sequential(cbr(head, head), nn.Conv2d(head, 5, 1))
            with __import__("torch").no_grad():
                self.head[1].bias.zero_()
                # a centre likelihood of 0.1 to start (CenterNet's prior)
                self.head[1].bias[0] = -2.19

        def forward(self, x):
            f4 = self.stem(x)
            f8 = self.d8(f4)
            f16 = self.d16(f8)
            f32 = self.d32(f16)
            p = self.up(self.l32(f32)) + self.l16(f16)
            p = self.up(p) + self.l8(f8)
            p = self.up(p) + self.l4(f4)
            return self.head(p)

    return Detector()


def detection_loss(torch, out, heat, reg, reg_mask, off_mask):
    """CenterNet's focal loss on the centre map (alpha 2, beta 4) plus L1 on log size (where
    known) and on the centre offset, each averaged over the dice."""
    p = torch.sigmoid(out[:, 0]).clamp(1e-4, 1 - 1e-4)
    pos = (heat >= 1.0).float()
    n = pos.sum().clamp(min=1.0)
    focal = -(pos * torch.log(p) * (1 - p) ** 2 + (1 - pos) * torch.log(1 - p) * p ** 2
              * (1 - heat) ** 4).sum() / n
    size = (torch.abs(out[:, 1:3] - reg[:, 0:2]) * reg_mask[:, None]).sum() \
        / reg_mask.sum().clamp(min=1.0)
    off = (torch.abs(out[:, 3:5] - reg[:, 2:4]) * off_mask[:, None]).sum() \
        / off_mask.sum().clamp(min=1.0)
    return focal, size, off


def batch(rng, pools, shares, size: int, tile: int = TILE):
    xs, targets = [], []
    which = rng.choice(len(pools), size=size, p=shares)
    for k in which:
        img, boxes, sized = pools[k][int(rng.integers(0, len(pools[k])))]
        t, b = augment_tile(rng, img, boxes, tile)
        xs.append(standardise_image(t)[0])
        targets.append(heat_targets(b, sized, tile // STRIDE, tile // STRIDE))
    return (np.stack(xs), np.stack([t[0] for t in targets]), np.stack([t[1] for t in targets]),
            np.stack([t[2] for t in targets]), np.stack([t[3] for t in targets]))


def load_exported(net, path: Path) -> None:
    """Start ``net`` from an exported detector (``--init``). The export folds each batch norm
    into the convolution before it, so each such convolution takes the folded weights and its
    batch norm becomes the identity plus the folded bias; train the result with the batch norms
    frozen (``train(..., init=...)`` does). The ONNX graph lists its convolutions in the order
    the forward pass calls them, which is not the order the modules are declared in, so the
    network's are put in call order by running it once."""
    import onnx
    import torch
    from onnx import numpy_helper

    model = onnx.load(str(path))
    weights = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    layers = [[weights[i] for i in n.input[1:] if i in weights]
              for n in model.graph.node if n.op_type == "Conv"]
    called: list = []
    hooks = [m.register_forward_hook(lambda m, i, o: called.append(m))
             for m in net.modules() if isinstance(m, torch.nn.Conv2d)]
    with torch.no_grad():
        net.eval()
        net(torch.zeros(1, 3, 64, 64))
    for h in hooks:
        h.remove()
    norm_after = {}
    for m in net.modules():  # cbr: Sequential(conv, batch norm, ReLU)
        if isinstance(m, torch.nn.Sequential) and len(m) >= 2 \
                and isinstance(m[0], torch.nn.Conv2d) and isinstance(m[1], torch.nn.BatchNorm2d):
            norm_after[id(m[0])] = m[1]
    if len(layers) != len(called):
        raise ValueError(f"{path} has {len(layers)} convolutions, the network {len(called)}")
    with torch.no_grad():
        for ws, conv in zip(layers, called):
            w, b = ws[0], (ws[1] if len(ws) > 1 else np.zeros(ws[0].shape[0], np.float32))
            if tuple(conv.weight.shape) != w.shape:
                raise ValueError(f"{path}: a convolution of shape {w.shape}, the network has "
                                 f"{tuple(conv.weight.shape)}")
            conv.weight.copy_(torch.from_numpy(np.array(w)))
            bn = norm_after.get(id(conv))
            if bn is None:
                conv.bias.copy_(torch.from_numpy(np.array(b)))
            else:
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0)
                bn.weight.fill_(float(np.sqrt(1.0 + bn.eps)))
                bn.bias.copy_(torch.from_numpy(np.array(b)))


def train(pools, shares, steps: int, seed: int, batch_size: int = 16, lr: float = 3e-3,
          threads: int = 2, channels=(8, 16, 32, 48, 64), head: int = 16, stem_extra: bool = True,
          progress: bool = True, init: Path | None = None):
    import torch
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    net = make_net(channels, head, stem_extra)
    if init is not None:
        load_exported(net, init)
    frozen = [m for m in net.modules() if isinstance(m, torch.nn.BatchNorm2d)] \
        if init is not None else []
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.1)
    t0, run = time.time(), None
    net.train()
    for m in frozen:  # folded into the convolutions: batch statistics would undo that
        m.eval()
        m.weight.requires_grad_(False)
    for step in range(steps):
        x, heat, reg, rm, om = (torch.from_numpy(a) for a in batch(rng, pools, shares, batch_size))
        focal, size, off = detection_loss(torch, net(x), heat, reg, rm, om)
        loss = focal + size + off
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        vals = np.array([focal.item(), size.item(), off.item()])
        run = vals if run is None else 0.98 * run + 0.02 * vals
        if progress and (step % 20 == 0 or step == steps - 1):
            el = time.time() - t0
            eta = el / (step + 1) * (steps - step - 1)
            print(f"\rstep {step + 1}/{steps} focal {run[0]:.3f} size {run[1]:.3f} offset "
                  f"{run[2]:.3f} {el:.0f} s, {eta:.0f} s left", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    net.eval()
    return net


def export_onnx(net, path: Path, info: dict) -> None:
    import onnx
    import torch
    x = torch.zeros(1, 3, WORK, WORK)
    torch.onnx.export(net, x, str(path), input_names=["image"], output_names=["centres"],
                      opset_version=17,
                      dynamic_axes={"image": {2: "h", 3: "w"}, "centres": {2: "gh", 3: "gw"}},
                      dynamo=False)
    m = onnx.load(str(path))
    for k, v in info.items():
        p = m.metadata_props.add()
        p.key, p.value = k, v if isinstance(v, str) else json.dumps(v)
    onnx.save(m, str(path))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Train the die detector and export it to ONNX.")
    ap.add_argument("--data", type=Path, default=None,
                    help="the real data root (default ../shared/data/dice)")
    ap.add_argument("--synth", type=int, default=2400, help="synthetic scenes to render")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--real-share", type=float, default=0.4,
                    help="share of each batch from real photos")
    ap.add_argument("--seed", type=int, default=20261126)
    ap.add_argument("--head", type=int, default=16, help="channels of the pyramid and the head")
    ap.add_argument("--stem-extra", type=int, choices=[0, 1], default=1,
                    help="1: a third convolution at 1/4 resolution in the stem")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cache", type=Path, default=None,
                    help="folder to keep/reuse the rendered scenes in")
    ap.add_argument("--sets", default=",".join(DETECT_SETS),
                    help="comma-separated real sets whose training photos are trained on")
    ap.add_argument("--exclude", default="",
                    help="comma-separated real sets to leave out (leave-one-setup-out)")
    ap.add_argument("--renders", default="",
                    help="comma-separated folders of vision.training.render3d scenes")
    ap.add_argument("--render-share", type=float, default=0.3,
                    help="share of each batch from --renders")
    ap.add_argument("--special", type=int, default=0,
                    help="scenes of Kuh Vadis and The Choice dice added to the synthetic ones")
    ap.add_argument("--init", type=Path, default=None,
                    help="fine-tune this exported detector (same --head and --stem-extra)")
    ap.add_argument("--out", type=Path, default=Path("models/dice_detect.onnx"))
    args = ap.parse_args(argv)
    root = args.data or default_data_root()
    chosen = tuple(v for v in args.sets.split(",") if v)
    exclude = {v for v in args.exclude.split(",") if v}
    unknown = exclude - set(chosen)
    if unknown:
        ap.error(f"--exclude: not a set the detector trains on: {', '.join(sorted(unknown))} "
                 f"(it trains on {', '.join(chosen)})")
    sets = tuple(s for s in chosen if s not in exclude)
    # the cache's real photos are DETECT_SETS' own: other sets are read from their photos
    default_sets = sets == DETECT_SETS
    cached = bool(args.cache) and (args.cache / "synth.npz").exists()
    missing = [] if cached and default_sets else [n for n in sets if not (root / n).is_dir()]
    if missing:
        ap.error(f"--sets: no such set under {root}: {', '.join(missing)}")
    if cached:
        synth = load_cache(args.cache / "synth.npz")
        real = load_cache(args.cache / "real.npz") if default_sets else real_samples(root, sets)
    else:
        synth, real = build(root, args.synth, args.seed, workers=args.threads, sets=sets)
        if args.cache and default_sets:
            args.cache.mkdir(parents=True, exist_ok=True)
            save_cache(args.cache / "synth.npz", synth)
            save_cache(args.cache / "real.npz", real)
    n_plain = len(synth)
    synth = synth + special_samples(args.special, args.seed, workers=args.threads)
    renders = render_samples([Path(p) for p in args.renders.split(",") if p])
    pools, shares = [synth], [1.0]
    if real:
        pools.append(real)
        shares = [1 - args.real_share, args.real_share]
    if renders:
        pools.append(renders)
        shares = [shares[0] - args.render_share, *shares[1:], args.render_share]
        if shares[0] <= 0:
            ap.error("--render-share and --real-share leave no room for the synthetic scenes")
    print(f"{len(synth)} synthetic scenes, {len(real)} real training photos ({', '.join(sets)}), "
          f"{len(renders)} renders", file=sys.stderr)
    net = train(pools, shares, args.steps, args.seed, args.batch, args.lr, args.threads,
                head=args.head, stem_extra=bool(args.stem_extra), init=args.init)
    info = {"work": WORK, "stride": STRIDE, "synth_scenes": n_plain, "real_photos": len(real),
            "steps": args.steps, "batch": args.batch, "lr": args.lr, "seed": args.seed,
            "head": args.head,
            "stem_extra": args.stem_extra, "sets": list(sets), "renders": len(renders),
            "special_scenes": args.special,
            **({"fine_tuned_from": args.init.name} if args.init is not None else {}),
            "command": ("python -m vision.training.train_detect "
                        + " ".join(argv if argv is not None else sys.argv[1:]))}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    export_onnx(net, args.out, info)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

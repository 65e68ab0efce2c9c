"""Train the face reader and export it to ONNX (the optional ``train`` extra: torch, onnx, tqdm).

    python -m vision.training.train --data ../shared/data/dice --synth 800 --epochs 12 --seed 0 \
        --out models/dice_face.onnx

Data (``build_dataset``): the crops the reader sees at run time. The finder's proposals on every
real training photo (never a validation photo), on ``--synth`` 2-D scenes, ``--special`` scenes
of Kuh Vadis and The Choice dice (a cow is class 6, the die's sixth face) and ``--renders``
photoreal scenes are matched to the labels: a good match is a sample of its value, a proposal
far from every die "not a die"; labelled dice are added with jitter. ``--exclude`` leaves real
sets out (leave-one-setup-out), ``--cache``/``--add-crops`` keep built crops apart, ``--init``
fine-tunes an exported model. Training: a small CNN (``--arch``) with heavy augmentation, AdamW
and a one-cycle schedule; ``--dev`` holds one training photo in six out to compare architectures.
Deterministic for a seed on the CPU. Recipes and figures: ``models/README.md``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import zlib
from pathlib import Path

import cv2
import numpy as np

from .data import default_data_root, face_class, load_folder
from ..find import box_iou, propose
from .metrics import match_score
from ..read import CONTEXT, crop_square, model_path
from .synth import render_scene

CLASSES = ("not_die", "1", "2", "3", "4", "5", "6")
OUT = model_path("dice_face.onnx")  # where the shipped reader loads it from
SIZE = 32  # default input size (px); ``--size`` changes it, the reader takes it from the model
ARCHS = ("base", "wide", "s48", "big")
SYNTHETIC = ("synth", "render", "special", "upright")  # tags of made crops (capped, never repeated)
# tags of crops kept upright by the augmentation (mirrored, never turned): oblique views of
# rendered dice turned so that their top face is up (``vision.training.upright``)
UPRIGHT_TAGS = ("upright",)


def _jitter_box(rng, box, amount=0.12):
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    s = rng.uniform(0.92, 1.12)
    cx = (x0 + x1) / 2 + rng.uniform(-amount, amount) * w
    cy = (y0 + y1) / 2 + rng.uniform(-amount, amount) * h
    return (cx - w * s / 2, cy - h * s / 2, cx + w * s / 2, cy + h * s / 2)


def _scene_samples(rng, labels, props, neg_keep=1.0, jitters=2) -> list[tuple[tuple, int]]:
    """The (box, class) samples of one full scene. ``labels``: list of (box, kind, value);
    ``props``: the finder's proposals. Pure but for ``rng``; cropping is the caller's."""
    out = []
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
            out.append((tuple(p), best_v))
        elif near < 0.2 and rng.random() < neg_keep:
            out.append((tuple(p), 0))
    for lb, kind, v in labels:
        if kind != "die":
            continue
        for _ in range(jitters):
            out.append((_jitter_box(rng, lb), v))
    # two neighbouring dice in one box: "not a die"
    die_boxes = [lb for lb, k, _ in labels if k == "die"]
    for i in range(min(3, len(die_boxes) - 1)):
        a, b = die_boxes[i], die_boxes[i + 1]
        u = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
        if max(u[2] - u[0], u[3] - u[1]) < 2.6 * max(a[2] - a[0], a[3] - a[1]):
            out.append((u, 0))
    return out


def _render_samples(rng, im, props) -> list[tuple[tuple, int]]:
    """A render's samples: as a real photo's, but a die whose top face is mostly hidden (stacked
    under another, behind a tray's rim) is no sample, and proposals around it are not "not a die"
    either: it is a die, of no known face."""
    seen = [(d.box, "die", d.value) for d in im.dice if d.readable]
    unreadable = [d.box for d in im.dice if not d.readable]
    props = [p for p in props if all(box_iou(b, p) < 0.2 for b in unreadable)]
    return _scene_samples(rng, seen, props, neg_keep=0.3, jitters=1)


def is_dev(set_name: str, filename: str, source_photo: str = "") -> bool:
    """One training photo in six, held out of training by ``--dev`` to compare architectures."""
    key = source_photo if set_name in ("chase_casino", "skovy_crops") and source_photo else filename
    return zlib.crc32(f"dev:{key}".encode("utf-8")) % 6 == 1


FINDERS = ("opencv", "detector", "both")
_DETECTOR = None  # one detector session per worker process (``find="detector"``/``"both"``)


def proposals(bgr: np.ndarray, find: str = "opencv") -> list[tuple]:
    """The boxes the reader is shown at run time: the OpenCV finder's proposals (``"opencv"``),
    the learned detector's (``"detector"``, ``vision.detect``) or both. Training on the finder
    the reader runs behind matters: the detector's boxes are tighter and fewer, and its weak
    boxes (side faces of oblique dice) are the "not a die" crops the reader must reject."""
    global _DETECTOR
    if find not in FINDERS:
        raise ValueError(f"find must be one of {', '.join(FINDERS)}, not {find!r}")
    boxes = list(propose(bgr).boxes) if find in ("opencv", "both") else []
    if find in ("detector", "both"):
        if _DETECTOR is None:
            from ..detect import DieDetector
            _DETECTOR = DieDetector(threads=1)
        boxes += list(_DETECTOR(bgr).boxes)
    return [tuple(b) for b in boxes]


def _task_samples(task):
    """Crops of one photo or one synthetic scene at each size: ``({size: crops}, ys, tag, dev)``.
    Runs in a worker process."""
    kind, seed, index, sizes = task[:4]
    find = task[5] if len(task) > 5 else "opencv"
    compact_pips = task[6] if len(task) > 6 else 0.0
    hue_pips = task[8] if len(task) > 8 else 0.0
    see_through = task[9] if len(task) > 9 else 0.0
    logo_ones = task[10] if len(task) > 10 else 0.0
    cv2.setNumThreads(1)
    # each kind's scenes drawn from their own stream (the special scenes' is 7)
    rng = np.random.default_rng([seed, {"synth": 0, "special": 7}.get(kind, 1), index])
    samples, dev, bgr = [], False, None
    angles = None  # per sample: the turn of its crop in degrees (upright render crops)
    if kind == "synth":
        shape = [(480, 640), (640, 640), (640, 480)][rng.integers(0, 3)]
        sc = render_scene(rng, size=shape, compact_pips=compact_pips, hue_pips=hue_pips,
                          see_through=see_through, logo_ones=logo_ones)
        bgr, tag = sc.image, "synth"
        labels = [(d.box, "die", d.value) for d in sc.dice]
        samples = _scene_samples(rng, labels, proposals(bgr, find), neg_keep=0.2, jitters=1)
    elif kind == "special":
        from .special_dice import SEEN_DESIGNS, render_special_scene
        design = SEEN_DESIGNS[index % len(SEEN_DESIGNS)]
        shape = [(480, 640), (640, 640), (640, 480)][rng.integers(0, 3)]
        sc = render_special_scene(rng, design, size=shape)
        bgr, tag = sc.image, "special"
        labels = [(d.box, "die", face_class(d.value)) for d in sc.dice]
        samples = _scene_samples(rng, labels, proposals(bgr, find), neg_keep=0.2, jitters=1)
    elif kind == "render":
        im = task[4]
        tag = "render"
        bgr = cv2.imread(str(im.path), cv2.IMREAD_COLOR)
        if bgr is not None:
            samples = _render_samples(rng, im, proposals(bgr, find))
        if samples and len(task) > 7 and task[7]:
            angles, tag = _upright_turns(rng, im, samples)
    else:
        im = task[4]
        tag, dev = im.set_name, is_dev(im.set_name, im.path.name, im.source_photo)
        bgr = cv2.imread(str(im.path), cv2.IMREAD_COLOR)
        if bgr is not None and im.is_crop:
            m = 8 if "chase" in im.set_name else 10
            inner = (m, m, im.width - m, im.height - m)  # the die without the authors' margin
            whole = (0, 0, im.width, im.height)  # the labelled box, as the benchmark reads it
            samples = [(_jitter_box(rng, box, 0.06), im.dice[0].value)
                       for box in (inner, inner, inner, whole, whole, whole)]
        elif bgr is not None:
            labels = [(d.box, d.box_kind, d.value) for d in im.dice]
            samples = _scene_samples(rng, labels, proposals(bgr, find), neg_keep=0.5)
    angles = angles or [0.0] * len(samples)
    crops = {s: (np.stack([crop_square(bgr, b, s, CONTEXT, a)
                           for (b, _), a in zip(samples, angles)]) if samples
                 else np.zeros((0, s, s, 3), np.uint8)) for s in sizes}
    return crops, np.array([y for _, y in samples], np.int64), tag, dev


def _upright_turns(rng, im, samples) -> tuple[list[float], list[str]]:
    """Per sample of a render: the turn of its crop (degrees) and its tag. A die seen obliquely
    (``OBLIQUE``) is turned so that its top face is up, give or take 8 degrees (a camera held
    about level), and tagged ``upright``; the others (near top-down dice, "not a die") are not
    turned and tagged ``render``, as are all of a render whose scene cannot be drawn again."""
    from .upright import OBLIQUE, scene_for_labels, up_views

    views = []
    try:
        seed, index = (int(v) for v in im.path.stem[1:].split("_"))
        spec = scene_for_labels(seed, index, (im.width, im.height), [d.box for d in im.dice])
        views = up_views(spec) if spec is not None else []
    except ValueError:
        pass
    angles, tags = [], []
    for box, y in samples:
        ious = [box_iou(box, d.box) for d in im.dice] if y > 0 and views else [0.0]
        j = int(np.argmax(ious))
        upright = ious[j] >= 0.3 and views[j][1] > OBLIQUE
        angles.append(views[j][0] + float(rng.uniform(-8, 8)) if upright else 0.0)
        tags.append("upright" if upright else "render")
    return angles, tags


def build_dataset(data_root: Path, n_synth: int, seed: int, progress=True, sizes=(SIZE,),
                  workers: int = 1, find: str = "opencv", renders=(), exclude=(), special: int = 0,
                  compact_pips: float = 0.0, upright: bool = False, hue_pips: float = 0.0,
                  see_through: float = 0.0, logo_ones: float = 0.0):
    """All training crops: ``({size: crops uint8 (n, size, size, 3)}, ys, tags, dev)``; ``dev``
    marks the crops of the photos ``is_dev`` holds out (the caller decides whether to train on
    them). Each scene is cropped at every size in ``sizes`` (the same boxes); ``find`` picks the
    proposals (``proposals``). ``renders``: folders of ``vision.training.render3d`` scenes (tag
    ``render``); ``exclude``: names of real sets left out; ``special``: scenes of special dice
    (tag ``special``); ``compact_pips``: the share of synthetic dice with pips nearer the centre
    (``vision.training.synth.render_scene``), ``hue_pips`` those whose pips differ from the body
    by hue more than by lightness, ``see_through`` those drawn translucent with their hidden
    faces' pips showing through, ``logo_ones`` the dice showing 1 whose one is a printed
    emblem; ``upright``: the renders' oblique dice are cut
    turned top face up and tagged ``upright`` (``_upright_turns``)."""
    from tqdm import tqdm

    sizes = tuple(sizes)
    tasks = []
    for folder in real_sets(data_root, exclude):
        for im in load_folder(folder):
            if not im.validation:
                tasks.append(("real", seed, zlib.crc32(f"{im.set_name}/{im.path.name}".encode()),
                              sizes, im, find))
    for folder in renders:
        for im in load_folder(folder):
            tasks.append(("render", seed, zlib.crc32(f"render/{im.path.name}".encode()), sizes, im,
                          find, 0.0, upright))
    tasks += [("synth", seed, i, sizes, None, find, compact_pips, False, hue_pips, see_through,
               logo_ones) for i in range(n_synth)]
    tasks += [("special", seed, i, sizes, None, find) for i in range(special)]
    if workers > 1:
        import multiprocessing as mp

        pool = mp.get_context("fork" if sys.platform != "win32" else "spawn").Pool(workers)
        results = pool.imap(_task_samples, tasks, chunksize=4)
    else:
        pool, results = None, map(_task_samples, tasks)
    crops = {s: [] for s in sizes}
    ys, tags, dev = [], [], []
    for c, y, tag, d in tqdm(results, total=len(tasks), desc="building crops", disable=not progress,
                             file=sys.stderr, mininterval=2.0):
        for s in sizes:
            crops[s].append(c[s])
        ys.append(y)
        tags += list(tag) if isinstance(tag, list) else [tag] * len(y)
        dev += [d] * len(y)
    if pool is not None:
        pool.close()
        pool.join()
    crops = {s: np.concatenate(crops[s]) if crops[s] else np.zeros((0, s, s, 3), np.uint8)
             for s in sizes}
    return (crops, np.concatenate(ys) if ys else np.zeros(0, np.int64), np.array(tags),
            np.array(dev, bool))


def add_crops(built, paths):
    """``built`` = (crops, ys, tags, dev) with the crops stored by other runs (``--cache`` files)
    appended: the crops of renders that keep coming can be built apart from the real photos' and
    the synthetic scenes' and joined at training. Files of another crop size are refused."""
    crops, ys, tags, dev = built
    parts = [(crops, ys, tags, dev)]
    for path in paths:
        z = np.load(path)
        if z["crops"].shape[1:] != crops.shape[1:]:
            raise ValueError(f"{path}: crops of {z['crops'].shape[1]} px, this run's are "
                             f"{crops.shape[1]} px")
        parts.append((z["crops"], z["ys"], z["tags"], z["dev"]))
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(4))


def without_sets(built, exclude):
    """``built`` = (crops, ys, tags, dev) less the crops of the real sets named in ``exclude``
    (a crop's tag is its source): one cache of every set serves each leave-one-setup-out run."""
    crops, ys, tags, dev = built
    keep = ~np.isin(tags, list(exclude))
    return (crops[keep], ys[keep], tags[keep], dev[keep]) if not keep.all() else built


def real_sets(data_root: Path, exclude=()) -> list[Path]:
    """The labelled set folders under ``data_root``, less those named in ``exclude`` (an unknown
    name is an error: a typo must not train on the set it meant to leave out)."""
    root = Path(data_root)
    sets = ([p for p in sorted(root.iterdir()) if (p / "labels.csv").is_file()] if root.is_dir()
            else [])
    unknown = set(exclude) - {p.name for p in sets}
    if unknown:
        raise ValueError(f"no such set to exclude under {root}: {', '.join(sorted(unknown))}")
    return [p for p in sets if p.name not in set(exclude)]


def _make_net(arch: str = "base"):
    """``base``: 4 x (3x3 conv, BN, ReLU) of 16-32-64-128 channels, max-pool after the first three
    (for 32 px). ``wide``: the same with 24-48-96-192. ``s48``: a stride-2 3x3 stem (for 48 px
    crops: finer pips at the cost of the first layer only), then ``base``'s trunk. ``big``:
    32-64-128-256 with a second 128-channel convolution at 8x8, the settled tier's second reader
    (538 k parameters, 2.4 x ``wide``'s; 24.5 M multiply-adds a crop, 2.9 x)."""
    import torch.nn as nn

    def block(cin, cout, stride=1):
        return [nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False), nn.BatchNorm2d(cout),
                nn.ReLU(inplace=True)]

    if arch not in ARCHS:
        raise ValueError(f"unknown architecture {arch!r} (one of {', '.join(ARCHS)})")
    w = {"wide": (24, 48, 96, 192), "big": (32, 64, 128, 256)}.get(arch, (16, 32, 64, 128))
    stem = block(3, w[0], stride=2) if arch == "s48" else block(3, w[0]) + [nn.MaxPool2d(2)]
    extra = block(w[2], w[2]) if arch == "big" else []
    return nn.Sequential(
        *stem,
        *block(w[0], w[1]), nn.MaxPool2d(2),
        *block(w[1], w[2]), *extra, nn.MaxPool2d(2),
        *block(w[2], w[3]),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.1), nn.Linear(w[3], len(CLASSES)))


def load_exported(net, path: Path) -> None:
    """Start ``net`` from an exported face reader (``--init``): the export folds each batch norm
    into its convolution, so the convolutions take the folded weights and biases and the batch
    norms become the identity plus that bias (mean 0, variance 1, scale sqrt(1 + eps)). Train the
    result with the batch norms frozen (``train(..., init=...)`` does): batch statistics would
    undo the folding."""
    import onnx
    import torch
    from onnx import numpy_helper

    model = onnx.load(str(path))
    weights = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    layers = [(n.op_type, [weights[i] for i in n.input[1:] if i in weights])
              for n in model.graph.node if n.op_type in ("Conv", "Gemm")]
    convs = [m for m in net if isinstance(m, torch.nn.Conv2d)]
    norms = [m for m in net if isinstance(m, torch.nn.BatchNorm2d)]
    linears = [m for m in net if isinstance(m, torch.nn.Linear)]
    if (len(layers) != len(convs) + len(linears)
        or [op for op, _ in layers[:len(convs)]] != ["Conv"] * len(convs)):
        raise ValueError(f"{path} does not have this architecture's layers")
    with torch.no_grad():
        for (_, (w, b)), conv, bn in zip(layers, convs, norms):
            if tuple(conv.weight.shape) != w.shape:
                raise ValueError(f"{path}: a convolution of shape {w.shape}, the architecture has "
                                 f"{tuple(conv.weight.shape)}")
            conv.weight.copy_(torch.from_numpy(np.array(w)))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0)
            bn.weight.fill_(float(np.sqrt(1.0 + bn.eps)))
            bn.bias.copy_(torch.from_numpy(np.array(b)))
        (_, (w, b)), lin = layers[-1], linears[0]
        lin.weight.copy_(torch.from_numpy(np.array(w)))
        lin.bias.copy_(torch.from_numpy(np.array(b)))


def _degrade(torch, x, gen, share: float):
    """Photographic losses on a ``share`` of the crops (float 0..255, (n, 3, h, w)), each crop one
    of: resolution lost (shrunk by 1.3-2 and enlarged back, as a die photographed at 16-25 px),
    strong sensor noise (sigma 6-20), salt-and-pepper noise (1-6 % of the pixels). Real phone
    photos of small dice lose faint pips to these; the crops of renders and 2-D scenes are clean."""
    n, dev = x.shape[0], x.device
    _, _, h, w = x.shape
    r = torch.rand(n, 3, generator=gen, device=dev)
    kind = (r[:, 0] * 3).long()
    hit = r[:, 1] < share
    scale = 1.3 + 0.7 * float(torch.rand(1, generator=gen, device=dev))
    resize = torch.nn.functional.interpolate
    small = resize(x, size=(max(int(h / scale), 4), max(int(w / scale), 4)), mode="area")
    soft = resize(small, size=(h, w), mode="bilinear", align_corners=False)
    sigma = (6 + 14 * r[:, 2])[:, None, None, None]
    noisy = x + torch.randn(x.shape, generator=gen, device=dev) * sigma
    speck = torch.rand((n, 1, h, w), generator=gen, device=dev)
    rate = (0.01 + 0.05 * r[:, 2])[:, None, None, None]
    salted = torch.where(speck < rate / 2, torch.zeros_like(x),
                         torch.where(speck > 1 - rate / 2, torch.full_like(x, 255.0), x))
    out = torch.where((kind == 0)[:, None, None, None], soft,
                      torch.where((kind == 1)[:, None, None, None], noisy, salted))
    return torch.where(hit[:, None, None, None], out, x)


def _augment(torch, x, gen, turnable=None, degrade: float = 0.0):
    """x: float (n, 3, h, w) in 0..255 -> augmented, standardised like vision.read.standardise.
    Runs on x's device; ``gen`` is a generator on that device. ``turnable`` (bool, n): the crops
    that may be turned by quarters (all when None); the others are only mirrored, which keeps
    their top up. ``degrade``: the share of crops given a photographic loss (``_degrade``)."""
    n, dev = x.shape[0], x.device
    k = int(torch.randint(0, 4, (1,), generator=gen, device=dev))
    if turnable is None:
        x = torch.rot90(x, k, dims=(2, 3))
    elif k:
        x = torch.where(turnable[:, None, None, None], torch.rot90(x, k, dims=(2, 3)), x)
    if bool(torch.rand(1, generator=gen, device=dev) < 0.5):
        x = torch.flip(x, dims=(3,))
    # per-sample channel shuffle
    perm = torch.argsort(torch.rand(n, 3, generator=gen, device=dev), dim=1)
    x = torch.gather(x, 1, perm[:, :, None, None].expand_as(x))
    r = torch.rand(n, 6, generator=gen, device=dev)
    grey = x.mean(1, keepdim=True).expand_as(x)
    x = torch.where((r[:, 0] < 0.15)[:, None, None, None], grey, x)
    x = torch.where((r[:, 1] < 0.2)[:, None, None, None], 255 - x, x)
    x = x * (0.75 + 0.5 * r[:, 2])[:, None, None, None] + (r[:, 3] - 0.5)[:, None, None, None] * 60
    # a light blur (half a 3x3 box): a full 3x3 box wipes out the 3 px pips of small dice
    blur = 0.5 * x + 0.5 * torch.nn.functional.avg_pool2d(x, 3, 1, 1, count_include_pad=False)
    x = torch.where((r[:, 4] < 0.15)[:, None, None, None], blur, x)
    x = x + torch.randn(x.shape, generator=gen, device=dev) * (r[:, 5] * 4)[:, None, None, None]
    if degrade > 0:
        x = _degrade(torch, x, gen, degrade)
    x = x.clamp(0, 255)
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    std = x.std(dim=(1, 2, 3), keepdim=True, unbiased=False).clamp_min(8.0)
    return (x - mean) / std


def one_cycle(fraction: float, peak: float) -> float:
    """Learning rate at ``fraction`` of training: a linear warm-up from peak/25 over the first 15 %,
    then a cosine down to peak/10^4 (torch's OneCycleLR shape, computed here so that the length
    of training can still change after the first epoch)."""
    f = min(max(fraction, 0.0), 1.0)
    if f < 0.15:
        return peak / 25 + (peak - peak / 25) * f / 0.15
    return peak / 1e4 + (peak - peak / 1e4) * 0.5 * (1 + np.cos(np.pi * (f - 0.15) / 0.85))


def train(crops, ys, epochs: int, seed: int, progress=True, threads: int = 2, arch: str = "base",
          device: str = "cpu", batch: int = 256, lr: float = 3e-3, max_seconds: float | None = None,
          init: Path | None = None, repeats: np.ndarray | None = None,
          turnable: np.ndarray | None = None, degrade: float = 0.0):
    """Train and return the net (on the CPU, in eval mode). ``max_seconds``: after the first
    epoch, fewer epochs are run when ``epochs`` would not fit in that time. ``init``: start from
    this exported model (``load_exported``; its batch norms stay frozen). ``repeats``: how often
    each crop is shown per epoch (the few real crops more often than the many rendered ones).
    ``turnable``: which crops the augmentation may turn by quarters (all when None).
    ``degrade``: the share of crops the augmentation gives a photographic loss (``_degrade``)."""
    import torch
    from tqdm import tqdm

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    if device.startswith("cuda"):
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.use_deterministic_algorithms(True, warn_only=True)
    else:
        torch.use_deterministic_algorithms(True)
    gen = torch.Generator(device=device).manual_seed(seed)
    net = _make_net(arch)
    if init is not None:
        load_exported(net, init)
    net = net.to(device)
    frozen = [m for m in net if isinstance(m, torch.nn.BatchNorm2d)] if init is not None else []
    shown = torch.from_numpy(np.repeat(np.arange(len(ys)), repeats) if repeats is not None
                            else np.arange(len(ys))).to(device)
    # uint8 stays small
    X = torch.from_numpy(np.ascontiguousarray(crops.transpose(0, 3, 1, 2))).to(device)
    Y = torch.from_numpy(ys).to(device)
    T = torch.from_numpy(np.asarray(turnable, bool)).to(device) if turnable is not None else None
    counts = np.bincount(ys, minlength=len(CLASSES)).astype(np.float64)
    weights = torch.tensor((counts.sum() / np.maximum(counts, 1) / len(CLASSES)) ** 0.5,
                           dtype=torch.float32, device=device)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    bs = batch
    per_epoch = (len(shown) + bs - 1) // bs
    steps = epochs * per_epoch
    step = 0
    lossf = torch.nn.CrossEntropyLoss(weight=weights, label_smoothing=0.02)
    bar = tqdm(total=steps, desc=f"training {arch}", disable=not progress, file=sys.stderr,
               mininterval=2.0)
    t_start = time.time()
    ep = 0
    while ep < epochs:
        net.train()
        for m in frozen:
            m.eval()
        order = shown[torch.randperm(len(shown), generator=gen, device=device)]
        tot = torch.zeros((), device=device)
        correct = torch.zeros((), device=device, dtype=torch.long)
        seen = 0
        for i in range(0, len(order), bs):
            idx = order[i:i + bs]
            xb = _augment(torch, X[idx].float(), gen, None if T is None else T[idx], degrade)
            out = net(xb)
            loss = lossf(out, Y[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            for group in opt.param_groups:
                group["lr"] = one_cycle(step / steps, lr)
            opt.step()
            step += 1
            tot += loss.detach() * len(idx)
            correct += (out.argmax(1) == Y[idx]).sum()
            seen += len(idx)
            bar.update(1)
        bar.set_postfix(epoch=ep + 1, loss=f"{float(tot) / seen:.3f}",
                        acc=f"{int(correct) / seen:.3f}")
        ep += 1
        if ep == 1 and max_seconds:
            fit = int(max_seconds / max(time.time() - t_start, 1e-6))
            if fit < epochs:
                epochs = max(fit, 2)
                steps = epochs * per_epoch
                bar.total = steps
                print(f"\n{arch}: {epochs} epochs fit in {max_seconds:.0f} s", file=sys.stderr)
    bar.close()
    net.epochs_done = ep
    net.eval()
    return net.cpu()


def evaluate(net, crops, ys) -> float:
    """Plain accuracy of ``net`` on crops (standardised as the reader does, no augmentation)."""
    import torch

    from ..read import standardise

    if len(ys) == 0:
        return float("nan")
    with torch.no_grad():
        pred = np.concatenate([net(torch.from_numpy(standardise(crops[i:i + 1024])))
                               .argmax(1).numpy() for i in range(0, len(crops), 1024)])
    return float((pred == ys).mean())


def export_onnx(net, path: Path, info: dict, size: int = SIZE):
    import onnx
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, size, size)
    torch.onnx.export(net, dummy, str(path), input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=17,
                      dynamo=False)
    model = onnx.load(str(path))
    for k, v in {"classes": json.dumps(list(CLASSES)),
                 "input": f"standardised BGR crops 3x{size}x{size}",
                 **{k: json.dumps(v) for k, v in info.items()}}.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = k, v
    onnx.save(model, str(path))


def _cap(ys, tags, cap_not_die: int, cap_synth_class: int, seed: int) -> np.ndarray:
    """Indices kept: at most ``cap_not_die`` "not a die" crops per source and ``cap_synth_class``
    synthetic (and rendered) crops per value, drawn with the seed (more epochs on the real crops
    for the time)."""
    rng = np.random.default_rng(seed + 1)
    keep = np.ones(len(ys), bool)
    for t in np.unique(tags):
        for c in range(len(CLASSES)):
            cap = cap_not_die if c == 0 else (cap_synth_class if t in SYNTHETIC else 0)
            idx = np.nonzero((tags == t) & (ys == c))[0]
            if cap and len(idx) > cap:
                keep[rng.choice(idx, len(idx) - cap, replace=False)] = False
    return np.nonzero(keep)[0]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.training.train",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=default_data_root(),
                    help="folder of labelled sets")
    ap.add_argument("--synth", type=int, default=800, help="number of synthetic scenes")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--workers", type=int, default=1, help="processes that build the crops")
    ap.add_argument("--size", type=int, default=SIZE, help="input size of the model (px)")
    ap.add_argument("--arch", choices=ARCHS, default="base")
    ap.add_argument("--device", default="cpu", help="cpu or cuda")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--max-seconds", type=float, default=None,
                    help="run fewer epochs if they do not fit")
    ap.add_argument("--degrade", type=float, default=0.0,
                    help="share of crops the augmentation shrinks and enlarges back, or gives "
                    "strong or salt-and-pepper noise (photographic losses of small dice)")
    ap.add_argument("--dev", action="store_true",
                    help="hold one training photo in six out and report on it")
    ap.add_argument("--cap-not-die", type=int, default=4000,
                    help="most 'not a die' crops per source")
    ap.add_argument("--cap-synth-class", type=int, default=2500,
                    help="most synthetic crops per value")
    ap.add_argument("--cache", default=None,
                    help="npz to reuse/store the built crops; '{size}' in the name "
                    "is replaced by the crop size")
    ap.add_argument("--build-sizes", default=None,
                    help="build and cache crops at these sizes too, e.g. 32,48")
    ap.add_argument("--build-only", action="store_true",
                    help="build (and cache) the crops, train nothing")
    ap.add_argument("--find", choices=FINDERS, default="opencv",
                    help="whose boxes the crops are cut from: the OpenCV finder's, the detector's "
                         "or both")
    ap.add_argument("--init", type=Path, default=None,
                    help="fine-tune this exported model (same --arch)")
    ap.add_argument("--real-repeat", type=int, default=1,
                    help="show each real crop this often per epoch")
    ap.add_argument("--special", type=int, default=0,
                    help="2-D scenes of Kuh Vadis and The Choice dice (seen designs; cow = 6)")
    ap.add_argument("--compact-pips", type=float, default=0.0,
                    help="share of the 2-D scenes' dice whose pips sit nearer the centre")
    ap.add_argument("--hue-pips", type=float, default=0.0,
                    help="share of the 2-D scenes' dice whose pips differ from the body by hue "
                         "more than by lightness")
    ap.add_argument("--see-through", type=float, default=0.0,
                    help="share of the 2-D scenes' dice drawn translucent with their hidden "
                         "faces' pips showing through")
    ap.add_argument("--logo-ones", type=float, default=0.0,
                    help="share of the 2-D scenes' dice showing 1 whose one is a printed emblem "
                         "(a spiral, letters, a star) instead of a pip")
    ap.add_argument("--renders", default="",
                    help="comma-separated folders of vision.training.render3d scenes")
    ap.add_argument("--upright", action="store_true",
                    help="cut the renders' oblique dice top face up (tag 'upright'); when "
                         "training, keep crops of that tag upright and mark the model upright")
    ap.add_argument("--exclude", default="",
                    help="comma-separated real sets to leave out (leave-one-setup-out)")
    ap.add_argument("--add-crops", default="",
                    help="comma-separated npz files of crops built by other runs "
                    "(--build-only --cache), added to this run's crops")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    t0 = time.time()
    cache = (lambda size: Path(args.cache.replace("{size}", str(size)))) if args.cache else None
    sizes = sorted({args.size, *(int(v) for v in (args.build_sizes or "").split(",") if v)})
    if cache and all(cache(size).is_file() for size in sizes):
        z = np.load(cache(args.size))
        crops, ys, tags, dev = without_sets((z["crops"], z["ys"], z["tags"], z["dev"]),
                                            [v for v in args.exclude.split(",") if v])
    else:
        renders = [Path(p) for p in args.renders.split(",") if p]
        by_size, ys, tags, dev = build_dataset(args.data, args.synth, args.seed, sizes=sizes,
                                               workers=args.workers, find=args.find,
                                               renders=renders, special=args.special,
                                               compact_pips=args.compact_pips,
                                               hue_pips=args.hue_pips,
                                               see_through=args.see_through,
                                               logo_ones=args.logo_ones,
                                               upright=args.upright,
                                               exclude=[v for v in args.exclude.split(",") if v])
        crops = by_size[args.size]
        for size in sizes if cache else ():
            cache(size).parent.mkdir(parents=True, exist_ok=True)
            np.savez(cache(size), crops=by_size[size], ys=ys, tags=tags, dev=dev)
        del by_size
    if args.build_only:
        print(f"built {len(ys)} crops at {sizes} px in {time.time() - t0:.0f} s", file=sys.stderr)
        return 0
    if crops.shape[1] != args.size:
        raise SystemExit(f"cached crops are {crops.shape[1]} px, --size is {args.size}")
    if args.add_crops:
        try:
            more = [Path(p) for p in args.add_crops.split(",") if p]
            crops, ys, tags, dev = without_sets(add_crops((crops, ys, tags, dev), more),
                                                [v for v in args.exclude.split(",") if v])
        except ValueError as e:
            raise SystemExit(str(e))
    print(f"crops built in {time.time() - t0:.0f} s", file=sys.stderr)
    held = dev if args.dev else np.zeros(len(ys), bool)
    dev_crops, dev_ys, dev_tags = crops[held], ys[held], tags[held]
    crops, ys, tags = crops[~held], ys[~held], tags[~held]
    keep = _cap(ys, tags, args.cap_not_die, args.cap_synth_class, args.seed)
    crops, ys, tags = crops[keep], ys[keep], tags[keep]
    summary = {str(t): np.bincount(ys[tags == t], minlength=len(CLASSES)).tolist()
               for t in np.unique(tags)}
    print(f"dataset: {len(ys)} crops, per source (not_die,1..6): {summary}", file=sys.stderr)
    repeats = np.where(np.isin(tags, SYNTHETIC), 1, max(1, args.real_repeat))
    net = train(crops, ys, args.epochs, args.seed, threads=args.threads, arch=args.arch,
                device=args.device, batch=args.batch, lr=args.lr, max_seconds=args.max_seconds,
                init=args.init, repeats=repeats,
                turnable=~np.isin(tags, UPRIGHT_TAGS) if args.upright else None,
                degrade=args.degrade)
    info = {"seed": args.seed, "epochs": net.epochs_done, "synthetic_scenes": args.synth,
            "special_scenes": args.special,
            "arch": args.arch,
            "samples": summary, "find": args.find, "real_repeat": args.real_repeat,
            "command": ("python -m vision.training.train "
                        + " ".join(argv if argv is not None else sys.argv[1:]))}
    if args.init is not None:
        info["fine_tuned_from"] = args.init.name
    if args.upright:
        info["upright"] = True
    if args.dev:
        per = {str(t): round(evaluate(net, dev_crops[dev_tags == t], dev_ys[dev_tags == t]), 4)
               for t in np.unique(dev_tags)}
        info["dev_accuracy"] = per
        print(f"dev crop accuracy ({args.arch}, {args.size} px): {json.dumps(per)}",
              file=sys.stderr)
    export_onnx(net, args.out, info, size=args.size)
    print(f"wrote {args.out} in {time.time() - t0:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Teach the reader your dice: a face embedding made by hand, and a dice set built in seconds.

The shipped classifier (``vision.read``) outputs class logits only; its ONNX graph exposes no
embedding, and it knows pip faces 1..6 only. Teaching therefore uses an embedding made by hand
that needs no training and no model, and which looks at the *symbol* on the face, not its colours:

1. **crop**: the square crop the reader uses (``vision.read.crop_square``, context 1.15), 64 px;
2. **face colour**: the median Lab colour of a ring around the crop's centre (0.14-0.30 of the
   crop: inside the top face whatever the rotation, and mostly free of pips and symbols);
3. **ink**: pixels far from the face colour (Otsu threshold on the Lab distance, at least
   ``MIN_INK_DELTA``) inside the die's own region (the convex hull of the face-coloured
   component around the centre), so the table around the die is not ink. White pips on black,
   black pips on white, red numerals on cream, an engraved dark cow on wood all give the same
   kind of map;
4. **alignment**: the die region's minimum-area rectangle gives the die's rotation; the ink map is
   turned upright (up to a quarter turn, which the prototypes cover) and scaled to the die's size;
5. **features** of the aligned 32x32 ink map: a histogram of gradient orientations in 4x4 cells
   (HOG-like, 144 values), the ink map itself at 8x8 (64), and rotation-free statistics of the ink
   blobs (count, sizes, spread; 16). Each group is L2-normalised and weighted.

``teach`` builds a ``vision.dice_set.DiceSet`` from labelled crops: every crop, with a few box
jitters, becomes four prototypes (its four quarter turns); shifted boxes (half a die off) become
"not a die" prototypes. A crop's label is a face value (``1``..``6``, ``cow``, anything) and
optionally a colour. The colour of a face is read separately from its value, from whichever part
of the face carries it in this dice set (the face or the symbol, decided from the teaching crops),
against the colours measured on the teaching crops (the calibration under the table's light).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import cv2
import numpy as np

from .read import CONTEXT, crop_square

__all__ = ["CROP", "ALIGNED", "FaceFeatures", "face_features", "embed_aligned", "embed_crops", "rotations",
           "teach", "MIN_INK_DELTA", "MIN_INK", "N_POSES"]

CROP = 64
ALIGNED = 32
MIN_INK_DELTA = 14.0
MIN_INK = 0.01  # share of the die's face that is ink: below it, no symbol was found
_RING = (0.14, 0.30)
_W_HOG, _W_MAP, _W_BLOB = 0.5, 1.0, 0.5
SMALL_TURNS = (-12.0, 0.0, 12.0)  # degrees around each quarter turn: the alignment is not exact
N_POSES = 4 * len(SMALL_TURNS)


@dataclass(frozen=True)
class FaceFeatures:
    aligned: np.ndarray  # (ALIGNED, ALIGNED) float32 ink map 0..1, die upright and scaled to its size
    face_lab: tuple[float, float, float]
    ink_lab: tuple[float, float, float]
    ink_fraction: float
    die_side: float = 0.0  # side of the die region's rectangle / crop side (about 0.6-0.9 for a good box)
    border_touch: float = 0.0  # share of the crop's edge that is face-coloured (a good box: small)


def _lab(bgr: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(bgr.astype(np.float32) / 255.0, cv2.COLOR_BGR2LAB)


_yy, _xx = np.mgrid[0:CROP, 0:CROP].astype(np.float32)
_R = np.hypot(_xx - (CROP - 1) / 2, _yy - (CROP - 1) / 2) / CROP
_RING_MASK = (_R >= _RING[0]) & (_R <= _RING[1])
_INNER = _R <= 0.47
_EDGE = np.zeros((CROP, CROP), bool)
_EDGE[:2], _EDGE[-2:], _EDGE[:, :2], _EDGE[:, -2:] = True, True, True, True


def _otsu(values: np.ndarray) -> float:
    v = np.clip(values, 0, 255).astype(np.uint8)
    t, _ = cv2.threshold(v.reshape(-1, 1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return float(t)


def face_features(crop_bgr: np.ndarray) -> FaceFeatures:
    """The aligned ink map and the face/ink colours of one ``CROP`` x ``CROP`` BGR crop."""
    if crop_bgr.shape[:2] != (CROP, CROP):
        crop_bgr = cv2.resize(crop_bgr, (CROP, CROP), interpolation=cv2.INTER_AREA)
    lab = _lab(crop_bgr)
    face = np.median(lab[_RING_MASK], axis=0)
    d = lab - face
    d[..., 0] *= 0.8
    dist = np.sqrt((d ** 2).sum(-1))
    t = max(MIN_INK_DELTA, _otsu(dist[_INNER]))
    facelike = (dist <= t).astype(np.uint8)
    n, labels = cv2.connectedComponents(facelike, connectivity=4)
    ring_labels = labels[_RING_MASK & (facelike > 0)]
    ring_labels = ring_labels[ring_labels > 0]
    if len(ring_labels):
        main = np.bincount(ring_labels).argmax()
        region = (labels == main).astype(np.uint8)
    else:
        region = facelike
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    pts = np.vstack(contours) if contours else None
    die = np.zeros((CROP, CROP), np.uint8)
    if pts is not None and len(pts) >= 5:
        hull = cv2.convexHull(pts)
        cv2.fillConvexPoly(die, hull, 1)
        rect = cv2.minAreaRect(pts)
    else:
        die[_INNER] = 1
        rect = ((CROP / 2, CROP / 2), (CROP * 0.8, CROP * 0.8), 0.0)
    die = cv2.erode(die, np.ones((3, 3), np.uint8)) & _INNER.astype(np.uint8)
    soft = np.clip((dist - t * 0.7) / (t * 0.6), 0, 1) * die
    ink = soft > 0.5
    ink_lab = np.median(lab[ink], axis=0) if ink.sum() >= 4 else face
    # upright and scaled to the die: rotate about the rectangle's centre by its angle
    (cx, cy), (rw, rh), ang = rect
    side = max(8.0, min(max(rw, rh), CROP * 0.95))
    s = ALIGNED / side
    M = cv2.getRotationMatrix2D((cx, cy), ang, s)
    M[0, 2] += ALIGNED / 2 - cx
    M[1, 2] += ALIGNED / 2 - cy
    aligned = cv2.warpAffine(soft.astype(np.float32), M, (ALIGNED, ALIGNED), flags=cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_CONSTANT)
    return FaceFeatures(aligned, tuple(float(v) for v in face), tuple(float(v) for v in ink_lab),
                        float(ink.sum()) / max(1, int(die.sum())), float(max(rw, rh)) / CROP,
                        float(region[_EDGE].mean()))


def _hog(img: np.ndarray, cells: int = 4, bins: int = 9) -> np.ndarray:
    gx = cv2.Sobel(img, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(img, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.hypot(gx, gy)
    ang = (np.arctan2(gy, gx) % np.pi) / np.pi * bins
    b0 = np.floor(ang).astype(int) % bins
    frac = ang - np.floor(ang)
    c = img.shape[0] // cells
    cell_idx = (np.arange(img.shape[0]) // c).clip(0, cells - 1)
    ci = cell_idx[:, None] * cells + cell_idx[None, :]
    flat = (ci * bins).ravel()
    n = cells * cells * bins
    hist = np.bincount(flat + b0.ravel(), (mag * (1 - frac)).ravel(), n) \
        + np.bincount(flat + ((b0 + 1) % bins).ravel(), (mag * frac).ravel(), n)
    return hist.astype(np.float32)


def _blob_stats(aligned: np.ndarray) -> np.ndarray:
    ink = (aligned > 0.5).astype(np.uint8)
    n, _, stats, cents = cv2.connectedComponentsWithStats(ink, connectivity=8)
    areas = stats[1:, cv2.CC_STAT_AREA].astype(np.float32)
    keep = areas >= 3
    areas, cents = areas[keep], cents[1:][keep]
    count = len(areas)
    onehot = np.zeros(8, np.float32)
    onehot[min(count, 7)] = 1.0
    total = float(areas.sum()) / aligned.size
    if count:
        rel = areas / areas.max()
        spread = float(np.linalg.norm(cents - cents.mean(0), axis=1).mean()) / aligned.shape[0] if count > 1 else 0.0
        extra = [total * 4, float(rel.mean()), float(rel.std()), float(areas.max()) / aligned.size * 6, spread * 3,
                 float(count) / 6, 0.0, 0.0]
    else:
        extra = [0.0] * 8
    return np.concatenate([onehot, np.array(extra, np.float32)])


def _norm(v: np.ndarray) -> np.ndarray:
    return v / max(1e-6, float(np.linalg.norm(v)))


def embed_aligned(aligned: np.ndarray) -> np.ndarray:
    """Embedding (unit length) of one aligned ink map."""
    blur = cv2.GaussianBlur(aligned, (3, 3), 0)
    hog = _norm(np.sqrt(_hog(blur)))
    m = cv2.resize(cv2.GaussianBlur(aligned, (0, 0), 1.2), (16, 16), interpolation=cv2.INTER_AREA).ravel()
    small = _norm(m - m.mean())  # normalised cross-correlation of the ink maps
    blob = _norm(_blob_stats(aligned))
    return _norm(np.concatenate([hog * _W_HOG, small * _W_MAP, blob * _W_BLOB]).astype(np.float32))


def rotations(aligned: np.ndarray) -> list[np.ndarray]:
    """``N_POSES`` poses of an aligned ink map: its four quarter turns, each also turned by ``SMALL_TURNS``."""
    out = []
    c = (ALIGNED - 1) / 2
    for k in range(4):
        q = np.ascontiguousarray(np.rot90(aligned, k))
        for a in SMALL_TURNS:
            out.append(q if a == 0 else cv2.warpAffine(q, cv2.getRotationMatrix2D((c, c), a, 1.0), (ALIGNED, ALIGNED)))
    return out


def crops_of(bgr: np.ndarray, boxes, size: int = CROP) -> list[np.ndarray]:
    return [crop_square(bgr, b, size, CONTEXT) for b in boxes]


def embed_crops(crops) -> tuple[np.ndarray, list[FaceFeatures]]:
    """(n, D) embeddings and the features of ``CROP``-sized BGR crops."""
    feats = [face_features(c) for c in crops]
    if not feats:
        return np.zeros((0, embed_aligned(np.zeros((ALIGNED, ALIGNED), np.float32)).size), np.float32), []
    return np.stack([embed_aligned(f.aligned) for f in feats]), feats


def _jitter(rng, box, amount):
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    s = rng.uniform(1 - amount, 1 + amount)
    cx = (x0 + x1) / 2 + rng.uniform(-amount, amount) * w
    cy = (y0 + y1) / 2 + rng.uniform(-amount, amount) * h
    return (cx - w * s / 2, cy - h * s / 2, cx + w * s / 2, cy + h * s / 2)


def _degrade(rng, crop: np.ndarray) -> np.ndarray:
    """The same die as a camera may see it: smaller (resampled), blurred, noisy."""
    out = crop.astype(np.float32)
    f = rng.uniform(0.45, 1.0)
    if f < 0.95:
        small = cv2.resize(out, (max(8, int(CROP * f)),) * 2, interpolation=cv2.INTER_AREA)
        out = cv2.resize(small, (CROP, CROP), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.5:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 1.1))
    out += rng.normal(0, rng.uniform(0, 4), out.shape).astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


def teach(examples, jitters: int = 4, seed: int = 0, colour_names=None):
    """A ``DiceSet`` from labelled examples: ``(bgr, box, value, colour_or_None)`` each.

    ``box`` is the die in ``bgr`` (``None``: the whole image is the die, as in a crop). Values are
    kept as given (ints stay ints, ``"cow"`` stays a string).
    """
    from .dice_set import DiceSet

    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    aligned, values, neg, groups = [], [], [], []
    dropped = 0
    face_labs, ink_labs, colour_labels = [], [], []
    for g, (bgr, box, value, colour) in enumerate(examples):
        if box is None:
            box = (0, 0, bgr.shape[1], bgr.shape[0])
        boxes = [box] + [_jitter(rng, box, 0.08) for _ in range(jitters)]
        for k, b in enumerate(boxes):
            crop = crop_square(bgr, b, CROP, CONTEXT)
            f = face_features(crop if k == 0 else _degrade(rng, crop))
            if f.ink_fraction < MIN_INK:  # no symbol found on this crop: it would match any bare table
                dropped += 1
                continue
            aligned.append(f.aligned)
            values.append(value)
            groups.append(g)
            if k == 0:
                face_labs.append(f.face_lab)
                ink_labs.append(f.ink_lab)
                colour_labels.append(colour)
        # half a die off: a box the finder may propose on a die's edge and the table
        x0, y0, x1, y1 = box
        w, h = x1 - x0, y1 - y0
        dx, dy = [(0.55 * w, 0), (-0.55 * w, 0), (0, 0.55 * h), (0, -0.55 * h)][int(rng.integers(0, 4))]
        if min(x0 + dx, y0 + dy) >= -0.3 * w and x1 + dx <= bgr.shape[1] + 0.3 * w and y1 + dy <= bgr.shape[0] + 0.3 * h:
            neg.append(face_features(crop_square(bgr, (x0 + dx, y0 + dy, x1 + dx, y1 + dy), CROP, CONTEXT)).aligned)
    if not aligned:
        raise ValueError("no labelled examples to teach from (or no symbol found on any of them)")
    missing = [v for v in dict.fromkeys(v for _, _, v, _ in examples) if v not in values]
    if missing:
        raise ValueError(f"no symbol found on any example of {', '.join(map(str, missing))}: teach clearer crops")
    ds = DiceSet.build(np.stack(aligned), values, np.stack(neg) if neg else np.zeros((0, ALIGNED, ALIGNED), np.float32),
                       np.array(face_labs), np.array(ink_labs), colour_labels, colour_names=colour_names, groups=groups)
    return ds.with_info(teach_ms=round((time.perf_counter() - t0) * 1000, 1), examples=len(face_labs),
                        dropped_crops=dropped)

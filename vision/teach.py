"""Teach the reader your dice: a learned face embedding, and a dice set built in seconds.

**Embedding** (``FaceEmbedder``): ``models/face_embed.onnx``, a small CNN trained as a metric model
by ``vision.training.train_embed`` on the faces of thousands of procedurally rendered die designs
(and real pip dice): two crops of the same face of one design embed close together whatever the
rotation, light, colours and box, crops of other faces apart. It reads the reader's square crop
(``vision.read.crop_square``, context 1.15) at the model's input size (48 px), standardised like
the shipped reader's crops, and gives a unit vector (96 dims). It is colour-blind on purpose: the
symbol, not its colour, tells the face.

``teach(examples)`` builds a ``vision.dice_set.DiceSet`` from labelled crops (3-5 per face): each
example, with a few box jitters (boxes as the finder proposes them) and its four quarter turns,
becomes prototypes (their embeddings); boxes half a die off become "not a die" prototypes, and the
model's own "not a die" direction is one more. Nothing is trained: teaching takes seconds.

**Colour** is read apart from the embedding by ``face_features`` (hand-made, no model): the face's
colour (median Lab of a ring inside the top face) and the ink's (pixels far from the face colour,
inside the die's region). ``teach`` measures each named colour on the examples under the table's
light, on whichever part carries it (face or symbol); see ``vision.dice_set``.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from .read import CONTEXT, crop_square, load_session, standardise

__all__ = ["CROP", "ALIGNED", "FaceFeatures", "face_features", "FaceEmbedder", "default_embedder",
           "EMBED_MODEL", "teach", "MIN_INK_DELTA", "MIN_INK", "quarter_turns", "crops_of",
           "ink_contrast_view"]

EMBED_MODEL = Path(__file__).resolve().parent.parent / "models" / "face_embed.onnx"
CROP = 64
ALIGNED = 32
MIN_INK_DELTA = 14.0
INK_QUANTILE = 90.0  # the ink colour is measured on its pixels farthest from the face colour
INK_ZONE = 0.32  # ...within this radius (crop sides) of the crop's centre, where a face's symbol is
MIN_INK = 0.01  # share of the die's face that is ink: below it, no symbol was found
_RING = (0.14, 0.30)


@dataclass(frozen=True)
class FaceFeatures:
    # (ALIGNED, ALIGNED) float32 ink map 0..1, die upright and scaled to its size
    aligned: np.ndarray
    face_lab: tuple[float, float, float]
    ink_lab: tuple[float, float, float]
    ink_fraction: float
    # side of the die region's rectangle / crop side (about 0.6-0.9 for a good box)
    die_side: float = 0.0
    border_touch: float = 0.0  # share of the crop's edge that is face-coloured (a good box: small)


def _lab(bgr: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(bgr.astype(np.float32) / 255.0, cv2.COLOR_BGR2LAB)


@lru_cache(maxsize=4)
def _radius(n: int) -> np.ndarray:
    """Each pixel's distance from the centre of an n x n crop, in crop sides."""
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    return np.hypot(xx - (n - 1) / 2, yy - (n - 1) / 2) / n


def _ring(n: int) -> np.ndarray:
    """Where the face colour is measured: a ring inside the top face whatever the rotation."""
    r = _radius(n)
    return (r >= _RING[0]) & (r <= _RING[1])


def _face_distance(lab: np.ndarray, ring: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the face colour: the ring's median Lab, each pixel's Lab distance from it, lightness
    weighted 0.8 since shading changes lightness more than colour)."""
    face = np.median(lab[ring], axis=0)
    d = lab - face
    d[..., 0] *= 0.8
    return face, np.sqrt((d ** 2).sum(-1))


_R = _radius(CROP)
_RING_MASK = _ring(CROP)
_INNER = _R <= 0.47
_INK_ZONE = _R <= INK_ZONE
_EDGE = np.zeros((CROP, CROP), bool)
_EDGE[:2], _EDGE[-2:], _EDGE[:, :2], _EDGE[:, -2:] = True, True, True, True


CONTRAST_QUANTILE = 97.0  # the ink map's white point: this quantile of the distances inside the die
MIN_CONTRAST = 8.0  # Lab units: a crop with less contrast than this is not stretched further


def ink_contrast_view(crop_bgr: np.ndarray) -> np.ndarray:
    """The crop as a grey image of each pixel's colour distance from the face colour (face white,
    ink and table dark), stretched so the strongest ink is black.

    Why: the embedding is colour-blind and reads the crop's brightness pattern. A symbol whose ink
    differs from the face in hue but hardly in brightness (a green numeral on olive wood, grey on
    grey) is faint to it, while its colour distance is large. Averaging this view's reading with the
    crop's own, for the dice the first reading is unsure of, raised the wood-numeral design from
    96.1 to 98.9 % on dev seeds 77-81 and changed nothing on the other designs
    (docs/vision-special.md). Grey images are part of the embedding's training, so the view is no
    stranger to it."""
    n = crop_bgr.shape[0]
    _, dist = _face_distance(_lab(crop_bgr), _ring(n))
    white = max(float(np.percentile(dist[_radius(n) <= 0.42], CONTRAST_QUANTILE)), MIN_CONTRAST)
    grey = (255 - np.clip(dist / white, 0, 1) * 255).astype(np.uint8)
    return np.repeat(grey[..., None], 3, 2)


def _otsu(values: np.ndarray) -> float:
    v = np.clip(values, 0, 255).astype(np.uint8)
    t, _ = cv2.threshold(v.reshape(-1, 1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return float(t)


def face_features(crop_bgr: np.ndarray) -> FaceFeatures:
    """The aligned ink map and the face/ink colours of one ``CROP`` x ``CROP`` BGR crop."""
    if crop_bgr.shape[:2] != (CROP, CROP):
        crop_bgr = cv2.resize(crop_bgr, (CROP, CROP), interpolation=cv2.INTER_AREA)
    lab = _lab(crop_bgr)
    face, dist = _face_distance(lab, _RING_MASK)
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
    # the ink's colour: its pixels farthest from the face (edges mix with the face),
    # in the middle of the crop. The farthest pixels may otherwise be the die's dark
    # rim, a side face or the table in the corners of a turned die's box (a green or
    # red numeral on wood named grey: dev seeds 77-81 of the wood design, 13 colours
    # wrong in 1518 dice before, 8 after; docs/vision-special.md)
    central = ink & _INK_ZONE
    measured = central if central.sum() >= 4 else ink
    if measured.sum() >= 4:
        strong = measured & (dist >= np.percentile(dist[measured], INK_QUANTILE))
        ink_lab = np.median(lab[strong if strong.sum() >= 3 else measured], axis=0)
    else:
        ink_lab = face
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


class FaceEmbedder:
    """``FaceEmbedder(path)(crops) -> (n, D)`` unit embeddings of ``size`` x ``size`` BGR crops.

    ``model_id`` (from the model file's metadata) names the weights: a dice set remembers it and is
    refused by an embedder with other weights. ``not_die`` is the model's "not a die" direction."""

    def __init__(self, path: str | Path = EMBED_MODEL, session=None, threads: int | None = 1,
                 batch: int = 64):
        self.path = Path(path)
        if session is None:
            session = load_session(self.path, threads, "face embedding",
                                   "vision.training.train_embed")
        self.session = session
        inp = session.get_inputs()[0]
        self.input_name = inp.name
        meta = {}
        try:
            meta = dict(session.get_modelmeta().custom_metadata_map)
        except Exception:  # fakes without metadata
            pass
        self.size = int(meta.get("size", inp.shape[-1] if isinstance(inp.shape[-1], int) else 48))
        self.context = float(meta.get("context", CONTEXT))
        self.model_id = meta.get("model_id", "unknown")
        nd = json.loads(meta["not_die_centre"]) if "not_die_centre" in meta else None
        self.not_die = np.asarray(nd, np.float32)[None] if nd else None
        self.batch = batch

    def __call__(self, crops: np.ndarray) -> np.ndarray:
        crops = np.asarray(crops)
        if len(crops) == 0:
            return np.zeros((0, self.dims), np.float32)
        if crops.shape[1:3] != (self.size, self.size):
            crops = np.stack([cv2.resize(c, (self.size, self.size), interpolation=cv2.INTER_AREA)
                              for c in crops])
        x = standardise(crops)
        out = [self.session.run(None, {self.input_name: x[i:i + self.batch]})[0]
               for i in range(0, len(x), self.batch)]
        e = np.concatenate(out).astype(np.float32)
        return e / np.maximum(np.linalg.norm(e, axis=1, keepdims=True), 1e-6)

    @property
    def dims(self) -> int:
        shape = self.session.get_outputs()[0].shape
        return int(shape[-1]) if isinstance(shape[-1], int) else 96

    def crops(self, bgr: np.ndarray, boxes) -> np.ndarray:
        """(n, size, size, 3) the reader's square crops of the boxes."""
        if len(boxes) == 0:
            return np.zeros((0, self.size, self.size, 3), np.uint8)
        return np.stack([crop_square(bgr, b, self.size, self.context) for b in boxes])


@lru_cache(maxsize=4)
def default_embedder(path: str | None = None) -> FaceEmbedder:
    """The shipped embedding model (loaded once per process)."""
    return FaceEmbedder(Path(path) if path else EMBED_MODEL)


def quarter_turns(crops: np.ndarray) -> np.ndarray:
    """(4n, h, w, 3): every crop turned by 0, 90, 180 and 270 degrees (crop-major order)."""
    if not len(crops):
        return np.zeros((0,) + tuple(np.asarray(crops).shape[1:]), np.uint8)
    return np.stack([np.ascontiguousarray(np.rot90(c, k)) for c in crops for k in range(4)])


def crops_of(bgr: np.ndarray, boxes, size: int = CROP) -> list[np.ndarray]:
    return [crop_square(bgr, b, size, CONTEXT) for b in boxes]


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
    n = crop.shape[0]
    f = rng.uniform(0.45, 1.0)
    if f < 0.95:
        small = cv2.resize(out, (max(8, int(n * f)),) * 2, interpolation=cv2.INTER_AREA)
        out = cv2.resize(small, (n, n), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.5:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 1.1))
    out += rng.normal(0, rng.uniform(0, 4), out.shape).astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


def teach(examples, jitters: int = 4, seed: int = 0, colour_names=None,
          embedder: FaceEmbedder | None = None):
    """A ``DiceSet`` from labelled examples: ``(bgr, box, value, colour_or_None)`` each.

    ``box`` is the die in ``bgr`` (``None``: the whole image is the die, as in a crop). Values are
    kept as given (ints stay ints, ``"cow"`` stays a string).
    """
    from .dice_set import DiceSet

    t0 = time.perf_counter()
    emb = embedder or default_embedder()
    rng = np.random.default_rng(seed)
    crops, values, groups, neg_crops = [], [], [], []
    face_labs, ink_labs, colour_labels, example_crops, example_values = [], [], [], [], []
    for g, (bgr, box, value, colour) in enumerate(examples):
        if box is None:
            box = (0, 0, bgr.shape[1], bgr.shape[0])
        boxes = [box] + [_jitter(rng, box, 0.08) for _ in range(jitters)]
        for k, b in enumerate(boxes):
            c = crop_square(bgr, b, emb.size, emb.context)
            if k:
                c = _degrade(rng, c)
            crops.append(c)
            values.append(value)
            groups.append(g)
        f = face_features(crop_square(bgr, box, CROP, CONTEXT))
        face_labs.append(f.face_lab)
        ink_labs.append(f.ink_lab)
        colour_labels.append(colour)
        example_crops.append(crops[-len(boxes)])
        example_values.append(value)
        # half a die off: a box the finder may propose on a die's edge and the table
        x0, y0, x1, y1 = box
        w, h = x1 - x0, y1 - y0
        shifts = [(0.55 * w, 0), (-0.55 * w, 0), (0, 0.55 * h), (0, -0.55 * h)]
        dx, dy = shifts[int(rng.integers(0, 4))]
        if (min(x0 + dx, y0 + dy) >= -0.3 * w and x1 + dx <= bgr.shape[1] + 0.3 * w
            and y1 + dy <= bgr.shape[0] + 0.3 * h):
            neg_crops.append(crop_square(bgr, (x0 + dx, y0 + dy, x1 + dx, y1 + dy), emb.size,
                                         emb.context))
    if not crops:
        raise ValueError("no labelled examples to teach from")
    protos = emb(quarter_turns(np.stack(crops)))
    neg = (emb(quarter_turns(np.stack(neg_crops))) if neg_crops
           else np.zeros((0, protos.shape[1]), np.float32))
    if emb.not_die is not None:
        neg = np.concatenate([neg, emb.not_die])
    ds = DiceSet.build(protos, np.repeat(np.array(values, object), 4).tolist(),
                       np.repeat(groups, 4).tolist(), neg, np.array(face_labs), np.array(ink_labs),
                       colour_labels, colour_names=colour_names, model_id=emb.model_id,
                       example_crops=np.stack(example_crops), example_values=example_values)
    return ds.with_info(teach_ms=round((time.perf_counter() - t0) * 1000, 1),
                        examples=len(example_crops))

"""Find dice with a small learned detector (``models/dice_detect.onnx``): about one box per die.

The OpenCV finder (``vision.find``) proposes ~90 boxes per photo for the face reader to sort
out; this detector proposes about as many boxes as there are dice, so the reader has ~10 crops
to read instead of ~90 (docs/vision.md, "Learned detector"). It is a CenterNet-style network
(``vision.training.train_detect``): on a copy whose longer side is ``WORK`` pixels it outputs, at a
quarter of that resolution, a centre likelihood per cell (a logit) and the die's log width,
log height and centre offset in cells. Pre- and post-processing are pure functions here; the
ONNX session is injected (tests pass a fake one).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import cv2
import numpy as np

from .find import FindResult, to_bgr
from .read import load_session, model_path

WORK = 384  # the detector's working copy: longer side in pixels
STRIDE = 4  # output cells are STRIDE x STRIDE working pixels
ALIGN = 32  # the network halves the resolution five times: inputs padded to a multiple of this
DEFAULT_MIN_SCORE = 0.15
MAX_DICE = 100


def standardise_image(bgr: np.ndarray) -> np.ndarray:
    """1 x 3 x H x W float32: one mean and one spread over all pixels and channels (as the face
    reader: colour kept, light level and contrast not)."""
    mean, std = cv2.meanStdDev(bgr.reshape(-1, 1))
    x = np.empty((1, 3) + bgr.shape[:2], np.float32)
    for c in range(3):  # straight into the channel planes: no float copy of the whole image
        np.subtract(bgr[..., c], np.float32(mean[0, 0]), out=x[0, c], casting="unsafe")
    x *= np.float32(1.0 / max(float(std[0, 0]), 8.0))
    return x


def shrink(bgr: np.ndarray, width: int, height: int) -> np.ndarray:
    """``bgr`` resized to ``width`` x ``height``: halved by ``pyrDown`` (which blurs first) while
    that does not go below the target, then bilinear for the rest (a ratio of 0.5-1, where it
    barely aliases). Ten times faster than ``INTER_AREA`` at a ratio like 640 -> 384 (3.2 ms)."""
    h, w = bgr.shape[:2]
    while w >= 2 * width and h >= 2 * height:
        bgr = cv2.pyrDown(bgr)
        h, w = bgr.shape[:2]
    if (w, h) == (width, height):
        return bgr
    return cv2.resize(bgr, (width, height), interpolation=cv2.INTER_LINEAR)


def prepare(bgr: np.ndarray, work: int = WORK) -> tuple[np.ndarray, float]:
    """(network input, scale): ``bgr`` shrunk so its longer side is ``work`` (a smaller image is
    not enlarged: the network learnt from photos shrunk to this size, and an enlarged one is
    blurred in a way it never saw), padded right and bottom with its median colour to a multiple
    of ``ALIGN``. Measured 27 Nov 2026 (docs/vision.md, "Small images")."""
    h, w = bgr.shape[:2]
    scale = min(work / max(h, w), 1.0)
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    img = shrink(bgr, nw, nh) if scale < 1 \
        else cv2.resize(bgr, (nw, nh), interpolation=cv2.INTER_LINEAR)
    ph, pw = -(-nh // ALIGN) * ALIGN, -(-nw // ALIGN) * ALIGN
    if (ph, pw) != (nh, nw):
        fill = np.median(img[::4, ::4].reshape(-1, 3), 0).astype(np.uint8)
        canvas = np.empty((ph, pw, 3), np.uint8)
        canvas[:] = fill
        canvas[:nh, :nw] = img
        img = canvas
    return standardise_image(img), scale


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(x, -30, 30)))


def decode(out: np.ndarray, scale: float, width: int, height: int,
           min_score: float = DEFAULT_MIN_SCORE, max_dice: int = MAX_DICE,
           stride: int = STRIDE) -> tuple[np.ndarray, np.ndarray]:
    """(boxes N x 4 in input pixels, scores N) from the network's output ``out`` (1 x 5 x H x W:
    centre logit, log w, log h, offset x, offset y). A die is a cell whose likelihood is at least
    ``min_score`` and the largest of its 3 x 3 neighbours; best first, at most ``max_dice``."""
    heat = sigmoid(out[0, 0])
    peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= min_score)
    iy, ix = np.nonzero(peaks)
    scores = heat[iy, ix]
    order = np.argsort(-scores, kind="stable")[:max_dice]
    iy, ix, scores = iy[order], ix[order], scores[order]
    w = np.exp(np.clip(out[0, 1, iy, ix], -3, 6)) * stride
    h = np.exp(np.clip(out[0, 2, iy, ix], -3, 6)) * stride
    cx = (ix + out[0, 3, iy, ix]) * stride
    cy = (iy + out[0, 4, iy, ix]) * stride
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], 1) / scale
    boxes = np.clip(boxes, 0, [width, height, width, height]) if len(boxes) else boxes.reshape(0, 4)
    return boxes.astype(np.float32), scores.astype(np.float32)


SMALL = 14.0  # found dice whose median side is under this many working pixels: look again, closer
CLOSER = 20.0  # ...on a working copy where that median side is this many pixels
MAX_WORK = 2048  # the closer look's longest side at most (a 4K photo: about half its pixels)
SIZE_FROM = 0.3  # ...sized by the boxes the first look is at least this sure of: weak boxes on a
# textured table are small, and two of them made a 640-px photo of one 40-px die look again at
# full size, where the table's texture gave a false die; the small dice worth a second look
# score 0.37-0.63 (10th percentile, bench/vision_scales.py's 1080p and 4K rows)


def closer_work(sides, work: int, longer: int, small: float = SMALL, closer: float = CLOSER,
                max_work: int = MAX_WORK) -> int | None:
    """Pure: the working size (longer side) for a second, closer look, or None when the first
    is enough. ``sides``: the found dice's longer sides in working pixels; ``longer``: the input's
    longer side. The network was trained on dice of about 7 to 150 working pixels; a 1080p webcam
    frame of 25-px dice shrinks them to 5-7 px at ``WORK``, where one in nine was missed
    (docs/vision.md, "Small dice in a big photo"). The closer look never enlarges the input."""
    if len(sides) == 0:
        return None
    median = float(np.median(sides))
    if median >= small:
        return None
    target = min(int(work * closer / max(median, 1.0)), max_work, longer)
    return target if target > 1.25 * work else None


SIDE_FACE_SCORE = 0.35  # chosen on the training photos (docs/vision.md, "Side faces")
SIDE_FACE_INSIDE = 0.2


def drop_side_faces(boxes, scores, kept, weak: float = SIDE_FACE_SCORE,
                    inside: float = SIDE_FACE_INSIDE) -> list[int]:
    """Pure post-processing: the indices of ``kept`` (dice the reader accepted) without the weak
    boxes that lean on a stronger die. A box the detector is under ``weak`` sure of, with more
    than ``inside`` of its area in the box of a kept die it is surer of, is that die's side face
    (an oblique view shows the top face and one or two sides, each with pips) or a second box on
    it; two real dice touching each other are both found surely. Order of ``kept`` is kept."""
    from .find import box_area, box_intersection

    out = []
    for i in kept:
        lean = scores[i] < weak and any(
            scores[k] > scores[i]
            and box_intersection(boxes[i], boxes[k]) > inside * box_area(boxes[i])
            for k in kept if k != i)
        if not lean:
            out.append(i)
    return out


SPECK_SIDE = 0.4  # a kept die under this share of the sure dice's median side is a speck


def drop_specks(boxes, scores, kept, rel: float = SPECK_SIDE, sure: float = SIZE_FROM) -> list[int]:
    """Pure post-processing: the indices of ``kept`` without the dice much smaller than the dice
    the detector is sure of (at least ``sure``): under ``rel`` of their median longer side. Dice
    on one table are alike: edges of 12-22 mm (a ratio of 0.55) seen from 0-60 degrees off
    vertical shrink a far die to no less than about 0.45 of a near one, while sensor noise, crumbs
    and pips on a patterned cloth make boxes of a few pixels that the reader may take for a one
    or a two. With no sure die, nothing is dropped. Order of ``kept`` is kept."""
    sides = [max(b[2] - b[0], b[3] - b[1]) for b, s in zip(boxes, scores) if s >= sure]
    if not sides:
        return list(kept)
    least = rel * float(np.median(sides))
    return [i for i in kept if max(boxes[i][2] - boxes[i][0], boxes[i][3] - boxes[i][1]) >= least]


def load_detector(path=None, threads: int | None = None):
    """An onnxruntime session for the detector (default: the shipped ``dice_detect.onnx``)."""
    return load_session(path or model_path("dice_detect.onnx"), threads, "die detector",
                        "vision.training.train_detect")


@dataclass
class DieDetector:
    """Callable stage object like ``DieFinder``: ``DieDetector()(bgr) -> FindResult`` whose
    boxes are best first; ``detect(bgr)`` also returns their centre likelihoods."""
    session: object | None = None
    work_size: int = WORK
    min_score: float = DEFAULT_MIN_SCORE
    threads: int | None = None
    # small dice in a big photo: a second look at a finer scale (closer_work)
    look_closer: bool = True
    _input: str = field(init=False, default="")

    def __post_init__(self):
        if self.session is None:
            self.session = load_detector(threads=self.threads)
        self._input = self.session.get_inputs()[0].name

    def detect(self, bgr: np.ndarray, work: int | None = None) -> tuple[FindResult, np.ndarray]:
        """(boxes, their scores). ``work``: one look with a working copy of that longer side,
        without the closer look at small dice (the caller chose the size)."""
        t0 = time.perf_counter()
        bgr = to_bgr(bgr)
        H, W = bgr.shape[:2]
        if H < 8 or W < 8:
            return FindResult((), 1.0, (time.perf_counter() - t0) * 1000), np.zeros(0, np.float32)
        boxes, scores, scale = self._look(bgr, work or self.work_size)
        if self.look_closer and work is None:
            sized = boxes[scores >= SIZE_FROM]
            work = closer_work(np.maximum(sized[:, 2] - sized[:, 0], sized[:, 3] - sized[:, 1])
                               * scale, self.work_size, max(H, W))
            if work is not None:
                boxes, scores, scale = self._look(bgr, work)
        as_int = tuple((int(b[0]), int(b[1]), int(round(b[2])), int(round(b[3]))) for b in boxes)
        keep = [i for i, b in enumerate(as_int) if b[2] - b[0] >= 2 and b[3] - b[1] >= 2]
        return (FindResult(tuple(as_int[i] for i in keep), scale,
                           (time.perf_counter() - t0) * 1000),
                scores[keep])

    def _look(self, bgr: np.ndarray, work: int) -> tuple[np.ndarray, np.ndarray, float]:
        x, scale = prepare(bgr, work)
        out = self.session.run(None, {self._input: x})[0]
        boxes, scores = decode(out, scale, bgr.shape[1], bgr.shape[0], self.min_score)
        return boxes, scores, scale

    def __call__(self, bgr: np.ndarray) -> FindResult:
        return self.detect(bgr)[0]

"""Where a die's top face lies in its box, and the top face cut out square.

A die seen obliquely shows its top face foreshortened, with one or two side faces below it. The
taught reader's embedding (``vision.embedding``) was trained on faces seen nearly from above,
and at 20-50 degrees from vertical it matched the side faces as much as the top: on photoreal
renders of one table's dice it read 53-80 % of the values with the boxes given
(docs/vision-special.md). Given where the top face is, the crop can show that face alone and
square again, as the embedding knows faces.

The face is described without naming its corners, which a square's turns make ambiguous: its
centre ``c`` and the symmetric matrix ``S`` that takes the unit square to the face up to a
turn. With the face's half-edge vectors ``u`` and ``v`` (a parallelogram: a die is small beside
its distance to the camera), ``S = sqrt(u u' + v v')``, the same for every numbering of the
corners. ``x -> c + S y`` for ``y`` in the square [-1, 1]^2 covers the face turned by the
die's own turn on the table, which the embedding reads whatever it is.

``TopFaceLocator`` predicts ``(c, S)`` from the reader's crop of a box with a small network
(``models/top_face.onnx``, trained on photoreal renders whose geometry is known and on 2-D
scenes: ``vision.training.train_top``, model card ``models/README_top_face.md``).
``face_crops`` cuts each face out square.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from .read import crop_square, load_session, model_path, standardise

__all__ = ["TOP_MODEL", "FILL", "TopFace", "face_frame", "crop_target", "TopFaceLocator",
           "face_crops", "top_face_crops", "default_locator", "default_locator_or_none",
           "plausible"]

TOP_MODEL = model_path("top_face.onnx")


@dataclass(frozen=True)
class TopFace:
    """A top face in picture pixels: centre ``(x, y)`` and ``S`` (2x2, symmetric positive
    definite), the face being ``c + S y`` for ``y`` in [-1, 1]^2 up to a turn."""
    centre: tuple[float, float]
    shape: tuple[tuple[float, float], tuple[float, float]]

    @property
    def side(self) -> float:
        """The face's side in pixels, as a square of its area (2 sqrt(det S))."""
        return 2.0 * float(np.sqrt(max(np.linalg.det(np.array(self.shape)), 0.0)))


def face_frame(quad) -> TopFace:
    """The ``TopFace`` of a face whose four corners are ``quad`` (in order around the face,
    either way round, starting anywhere)."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    c = q.mean(0)
    u = (q[1] - q[0] + q[2] - q[3]) / 4.0   # half of the mean edge from corner 0 to corner 1
    v = (q[3] - q[0] + q[2] - q[1]) / 4.0   # half of the mean edge from corner 0 to corner 3
    m = np.outer(u, u) + np.outer(v, v)
    w, e = np.linalg.eigh(m)
    s = e @ np.diag(np.sqrt(np.maximum(w, 0.0))) @ e.T
    return TopFace((float(c[0]), float(c[1])), ((float(s[0, 0]), float(s[0, 1])),
                                                (float(s[1, 0]), float(s[1, 1]))))


def crop_target(face: TopFace, box, context: float) -> np.ndarray:
    """The locator's five outputs for ``face`` in the crop of ``box``: the centre's offset from
    the crop's centre and S's entries (xx, xy, yy), in units of the crop's side."""
    x0, y0, x1, y1 = (float(v) for v in box)
    side = max(x1 - x0, y1 - y0, 1.0) * context
    cx, cy = (x0 + x1) / 2.0, (y0 + y1) / 2.0
    s = np.array(face.shape)
    return np.array([(face.centre[0] - cx) / side, (face.centre[1] - cy) / side,
                     s[0, 0] / side, s[0, 1] / side, s[1, 1] / side], np.float32)


def _from_outputs(out: np.ndarray, box, context: float) -> TopFace:
    """``crop_target``'s inverse."""
    x0, y0, x1, y1 = (float(v) for v in box)
    side = max(x1 - x0, y1 - y0, 1.0) * context
    cx, cy = (x0 + x1) / 2.0, (y0 + y1) / 2.0
    o = [float(v) for v in out]
    return TopFace((cx + o[0] * side, cy + o[1] * side),
                   ((o[2] * side, o[3] * side), (o[3] * side, o[4] * side)))


def plausible(face: TopFace, box) -> bool:
    """Whether a predicted face can be the box's die's top: S positive definite, not much
    flatter than a face seen 75 degrees off (1:4), its side between a fifth of the box's and
    the box's, its centre inside the box."""
    s = np.array(face.shape)
    w = np.linalg.eigvalsh(s)
    x0, y0, x1, y1 = (float(v) for v in box)
    longer = max(x1 - x0, y1 - y0, 1.0)
    return bool(w[0] > 0 and w[0] >= 0.25 * w[1] and 0.2 * longer <= face.side <= 1.1 * longer
                and x0 <= face.centre[0] <= x1 and y0 <= face.centre[1] <= y1)


def face_crops(bgr: np.ndarray, faces, size: int, fill: float) -> np.ndarray:
    """(n, size, size, 3): each face cut out square, the face's side ``1 / fill`` of the crop
    (``fill`` 1.15 leaves a rim around it as the reader's crops leave around a die)."""
    out = []
    dst = np.float32([[0, 0], [size, 0], [size, size], [0, size]])
    for f in faces:
        c, s = np.array(f.centre), np.array(f.shape) * fill
        quad = np.float32([c + s @ np.array(y) for y in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
        scale = size / max(f.side * fill, 1.0)
        src, origin = bgr, np.zeros(2, np.float32)
        if scale < 0.5:
            # a large face: blur the region it is cut from first (as crop_square does), so
            # that the warp does not alias
            k = int(1 / scale) | 1
            x0, y0 = np.maximum(np.floor(quad.min(0)) - k, 0).astype(int)
            x1, y1 = np.ceil(quad.max(0)).astype(int) + k + 1
            region = bgr[y0:y1, x0:x1]
            if region.size:
                src, origin = cv2.blur(region, (k, k)), np.float32([x0, y0])
        m = cv2.getPerspectiveTransform(quad - origin, dst)
        out.append(cv2.warpPerspective(src, m, (size, size), flags=cv2.INTER_LINEAR,
                                       borderMode=cv2.BORDER_REPLICATE))
    return np.stack(out) if out else np.zeros((0, size, size, 3), np.uint8)


class TopFaceLocator:
    """``TopFaceLocator()(bgr, boxes) -> [TopFace or None]``: each box's top face, None where
    the prediction is not a plausible face for its box (``plausible``)."""

    def __init__(self, path: str | Path = TOP_MODEL, session=None):
        self.session = session if session is not None else load_session(
            path, 1, "top-face locator", "vision.training.train_top")
        meta = self.session.get_modelmeta().custom_metadata_map
        self.size = int(json.loads(meta.get("size", "48")))
        self.context = float(json.loads(meta.get("context", "1.3")))
        self.model_id = meta.get("model_id", "")
        self.input_name = self.session.get_inputs()[0].name

    def __call__(self, bgr: np.ndarray, boxes) -> list:
        if not len(boxes):
            return []
        crops = np.stack([crop_square(bgr, b, self.size, self.context) for b in boxes])
        out = self.session.run(None, {self.input_name: standardise(crops)})[0]
        faces = [_from_outputs(o, b, self.context) for o, b in zip(out, boxes)]
        return [f if plausible(f, b) else None for f, b in zip(faces, boxes)]


@lru_cache(maxsize=2)
def default_locator(path: str | None = None) -> TopFaceLocator:
    """The shipped locator (loaded once per process)."""
    return TopFaceLocator(Path(path) if path else TOP_MODEL)


def default_locator_or_none() -> TopFaceLocator | None:
    """The shipped locator, or None where its model file is missing (dice are then taught and
    read without it, as before it existed)."""
    return default_locator() if TOP_MODEL.is_file() else None


FILL = 1.15   # the face's side over the crop's: a rim around it, as around a die in crop_square


def top_face_crops(bgr: np.ndarray, boxes, size: int, context: float, locator,
                   faces=None) -> tuple[np.ndarray, list[bool]]:
    """(n, size, size, 3) crops of the boxes' top faces cut out square (``face_crops``), and for
    each whether it is one: where the locator finds no plausible face, the box's own crop
    (``crop_square`` at ``context``), as the embedding reads without the locator. ``faces``:
    the boxes' faces when already located."""
    if not len(boxes):
        return np.zeros((0, size, size, 3), np.uint8), []
    faces = locator(bgr, boxes) if faces is None else faces
    out = [face_crops(bgr, [f], size, FILL)[0] if f is not None
           else crop_square(bgr, b, size, context) for f, b in zip(faces, boxes)]
    return np.stack(out), [f is not None for f in faces]

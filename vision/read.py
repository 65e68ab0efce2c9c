"""Stage 2: read the face of each candidate with a small ONNX classifier.

Pre-processing (pure, tested without a model): each box becomes a square crop around its centre,
``CONTEXT`` times its longer side, resampled to the model's input size with the border
replicated; the crop is standardised (one mean and one standard deviation over all pixels and
channels, so colour is kept but light level and contrast are not).

Post-processing (pure): softmax over the model's classes; the class names come from the model
file's metadata (``classes``, e.g. ``not_die,1,2,3,4,5,6``), not from this module.

The inference session is injected: anything with ``run(None, {name: array})`` and
``get_inputs()`` works, so tests can pass a fake.
"""
from __future__ import annotations

import functools
import hashlib
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

__all__ = ["CONTEXT", "DEFAULT_MODEL", "ReadResult", "FaceReader", "crop_square", "crops_for_boxes",
           "standardise", "softmax", "mean_over_turns", "mean_over_upright_views",
           "is_upright", "UPRIGHT_TURN",
           "load_session", "model_path", "Vote",
           "BIG_MODEL", "load_settled_session", "shrink_crops"]

CONTEXT = 1.15


def model_path(name: str) -> Path:
    """Where a shipped model file lies: ``models/`` beside the packages in a source checkout or an
    editable install, ``vision/models/`` in an installed wheel (pyproject maps the folder there).
    The checkout's path is returned when neither exists, so the error names the expected place."""
    here = Path(__file__).resolve().parent
    for folder in (here.parent / "models", here / "models"):
        if (folder / name).is_file():
            return folder / name
    return here.parent / "models" / name


DEFAULT_MODEL = model_path("dice_face.onnx")
# the settled tier's second face reader (models/README_big.md), voted with DEFAULT_MODEL's
BIG_MODEL = model_path("dice_face_big.onnx")
DEFAULT_CLASSES = ("not_die", "1", "2", "3", "4", "5", "6")


@dataclass(frozen=True)
class ReadResult:
    """Class probabilities per box (rows follow the boxes) and the time the stage took."""
    probs: np.ndarray  # (n, n_classes) float32
    classes: tuple[str, ...]
    elapsed_ms: float

    def best(self, i: int) -> tuple[str, float]:
        j = int(np.argmax(self.probs[i]))
        return self.classes[j], float(self.probs[i, j])


def crop_square(bgr: np.ndarray, box, size: int, context: float = CONTEXT,
                angle: float = 0.0) -> np.ndarray:
    """A ``size``x``size`` crop of the square of side ``context * longer side`` centred on box,
    turned by ``angle`` degrees about the box's centre (positive: the content turns
    anticlockwise as seen; the training's upright crops, ``vision.training.upright``)."""
    x0, y0, x1, y1 = (float(v) for v in box)
    side = max(x1 - x0, y1 - y0, 1.0) * context
    cx, cy = (x0 + x1) / 2.0, (y0 + y1) / 2.0
    s = size / side
    # picture -> crop: scale by s and turn by angle about the box's centre, which lands on the
    # crop's centre (cv2.getRotationMatrix2D's matrix, its translation written so that an
    # unturned crop's is exactly size/2 - s * centre)
    a, b = s * math.cos(math.radians(angle)), s * math.sin(math.radians(angle))
    M = np.array([[a, b, size / 2.0 - (a * cx + b * cy)],
                  [-b, a, size / 2.0 - (a * cy - b * cx)]], np.float32)
    # big boxes: blur first so that INTER_LINEAR does not alias (warpAffine has no AREA)
    if s < 0.5:
        k = int(1 / s) | 1
        # the region read: the square, or for a turned one its half-diagonal and the blur's reach
        half = side / 2 if angle == 0 else side * math.sqrt(0.5) + k
        x0i, y0i = max(0, int(cx - half)), max(0, int(cy - half))
        x1i, y1i = min(bgr.shape[1], int(cx + half) + 1), min(bgr.shape[0], int(cy + half) + 1)
        region = cv2.blur(bgr[y0i:y1i, x0i:x1i], (k, k)) if x1i > x0i and y1i > y0i else bgr[:1, :1]
        M[0, 2] += a * x0i + b * y0i  # the region's pixels are the picture's, shifted
        M[1, 2] += a * y0i - b * x0i
        return cv2.warpAffine(region, M, (size, size), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
    return cv2.warpAffine(bgr, M, (size, size), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def crops_for_boxes(bgr: np.ndarray, boxes, size: int, context: float = CONTEXT) -> np.ndarray:
    """(n, size, size, 3) uint8 crops for the boxes."""
    if len(boxes) == 0:
        return np.zeros((0, size, size, 3), np.uint8)
    return np.stack([crop_square(bgr, b, size, context) for b in boxes])


def standardise(crops: np.ndarray) -> np.ndarray:
    """uint8 (n, h, w, 3) BGR crops -> float32 (n, 3, h, w), zero mean and unit spread per crop."""
    x = crops.astype(np.float32)
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    std = x.std(axis=(1, 2, 3), keepdims=True)
    x = (x - mean) / np.maximum(std, 8.0)
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def log_softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def softmax(logits: np.ndarray) -> np.ndarray:
    return np.exp(log_softmax(logits)).astype(np.float32)


def mean_over_turns(first: np.ndarray, crops: np.ndarray, read) -> np.ndarray:
    """(n, k): each row of ``first`` (the reading of ``crops``) averaged with the readings of the
    crop turned by 90, 180 and 270 degrees; ``read`` maps (m, h, w, 3) crops to (m, k) rows. A
    die's face is the same face turned, a model's mistakes mostly are not: the pip reader and the
    taught reader both read their unsure dice so."""
    turned = np.concatenate([np.rot90(crops, t, axes=(1, 2)) for t in (1, 2, 3)])
    q = np.asarray(read(np.ascontiguousarray(turned))).reshape(3, len(crops), -1)
    return (np.asarray(first) + q.sum(0)) / 4.0


UPRIGHT_TURN = 15.0  # degrees: the small turns of an upright reader's second views


def mean_over_upright_views(first: np.ndarray, crops: np.ndarray, read,
                            degrees: float = UPRIGHT_TURN) -> np.ndarray:
    """(n, k): each row of ``first`` (the reading of ``crops``) averaged with the readings of the
    crop mirrored left to right and turned by +-``degrees``: the second views of an upright
    reader (``FaceReader.upright``), for which a quarter turn would put a side face where it
    looks for the top one. As many reads as ``mean_over_turns``. Measured against the mirror
    alone and against six views on the upright fine-tune: the same within a die or two a set
    (docs/vision.md, "Upright readers")."""
    n, h, w = crops.shape[:3]
    views = [crops[:, :, ::-1]]
    for a in (degrees, -degrees):
        M = cv2.getRotationMatrix2D(((w - 1) / 2.0, (h - 1) / 2.0), a, 1.0)
        views.append(np.stack([cv2.warpAffine(c, M, (w, h), flags=cv2.INTER_LINEAR,
                                              borderMode=cv2.BORDER_REPLICATE) for c in crops]))
    q = np.asarray(read(np.ascontiguousarray(np.concatenate(views)))).reshape(3, n, -1)
    return (np.asarray(first) + q.sum(0)) / 4.0


def mean_with_view(mean: np.ndarray, views: int, crops: np.ndarray, read, view) -> np.ndarray:
    """(n, k): ``mean`` (the mean of ``views`` readings of ``crops``) averaged with the readings
    of each crop's ``view`` (a function from one crop to another of its size) and its mirror,
    each reading weighing as one view. The settled tier passes the ink-contrast view
    (``vision.face_colour.ink_contrast_view``: each pixel's colour distance from the face colour,
    face white, pips and table dark).

    Why: the face reader sees a crop standardised in brightness, where red pips on a smoky
    dark die or yellow pips on an orange one are faint; their colour distance from the face is
    not. Grey and negative crops are part of the reader's training, so the view is no stranger
    to it. Measured on the settled tier's unsure dice (docs/vision.md, "Ink views")."""
    if len(crops) == 0:
        return np.asarray(mean)
    seen = np.stack([view(c) for c in crops])
    q = np.asarray(read(np.ascontiguousarray(np.concatenate([seen, seen[:, :, ::-1]]))))
    q = q.reshape(2, len(crops), -1)
    return (np.asarray(mean) * views + q.sum(0)) / (views + 2)


def load_session(path: str | Path = DEFAULT_MODEL, threads: int | None = None,
                 what: str = "face reader", trained_by: str = "vision.training.train",
                 eight_bit: bool = True):
    """An onnxruntime session for the model at ``path``; a missing file is a FileNotFoundError
    that names the model (``what``) and the module that trains it (``trained_by``).

    With ``eight_bit``, a model with an 8-bit copy beside it (``eight_bit_path``, made from this
    very file: its metadata ``quantized_from`` is the file's ``file_id``) runs as that copy:
    the shipped pip readers read about twice as fast on one core and within a die of the float
    weights on every set measured (``models/README.md``, "8-bit copies"). A copy of another
    file, a fine-tuned model without a copy, or ``eight_bit=False``: the file itself."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{what} model not found: {path} (train it with `python -m "
                                f"{trained_by}`)")
    if eight_bit:
        copy = eight_bit_path(path)
        if copy.is_file():
            session = _session(copy, threads)
            made_from = session.get_modelmeta().custom_metadata_map.get("quantized_from")
            if made_from == file_id(path):
                return session
    return _session(path, threads)


def _session(path: Path, threads: int | None):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    if threads:
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    # no busy-waiting between runs: the pipeline runs two sessions (detector, face reader) in turn,
    # and their spinning thread pools took the cores from each other (a 640x640 photo on two
    # threads: 39 ms with spinning, 17 ms without; bench/vision_speed.py)
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])


def eight_bit_path(path: str | Path) -> Path:
    """Where a model's 8-bit copy lies: beside it, ``NAME_int8.onnx``
    (``vision.training.quantize``)."""
    path = Path(path)
    return path.with_name(path.stem + "_int8" + path.suffix)


def file_id(path: str | Path) -> str:
    """A model file's identity: the start of its bytes' SHA-256 (an 8-bit copy names the file it
    was made from by it)."""
    st = Path(path).stat()
    return _file_id(str(path), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=16)
def _file_id(path: str, _mtime_ns: int, _size: int) -> str:
    return "sha256:" + hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def load_settled_session(threads: int | None = None, first=None,
                         eight_bit: bool = True) -> "Vote":
    """The settled tier's face reader (photos, `read`, the settled roll): the shipped reader
    (``first``, a loaded session of DEFAULT_MODEL, or loaded here) and the larger BIG_MODEL voted
    together. Camera frames read with the shipped reader alone (docs/vision.md, "Two tiers")."""
    first = first if first is not None else load_session(DEFAULT_MODEL, threads,
                                                         eight_bit=eight_bit)
    return Vote((first, load_session(BIG_MODEL, threads, "larger face reader",
                                     eight_bit=eight_bit)))


class Vote:
    """Several face readers read as one session: the mean of their log-probabilities (a
    geometric mean of their probabilities, renormalised by the softmax after it). Readers
    trained apart make different mistakes, so their vote is more often right than either
    (docs/vision.md, "Two tiers"). All must share their classes, which `__init__` checks.
    They may differ in input size: the vote takes the largest reader's crops (its input
    stands for the vote's) and shrinks them for the smaller readers (``shrink_crops``), so
    one set of crops and views serves all. The first reader's metadata stands for all."""

    def __init__(self, sessions) -> None:
        self.sessions = tuple(sessions)
        if not self.sessions:
            raise ValueError("a vote needs at least one face reader")
        first = self.sessions[0]
        for other in self.sessions[1:]:
            if _session_classes(other) != _session_classes(first):
                raise ValueError("the face readers of a vote must share their classes")
        self.sizes = tuple(_input_size(s) for s in self.sessions)
        self._largest = int(np.argmax(self.sizes))

    def get_inputs(self):
        return self.sessions[self._largest].get_inputs()

    def get_modelmeta(self):
        return self.sessions[0].get_modelmeta()

    def run(self, outputs, feed):
        (x,) = feed.values()
        logs = [self._log_probs(k, x) for k in range(len(self.sessions))]
        return [np.mean(logs, axis=0).astype(np.float32)]

    def run_screened(self, x: np.ndarray, screen: np.ndarray, below: float) -> np.ndarray:
        """``run``'s log-probabilities of the crops ``x``, except that a crop of ``screen``
        whose first reader gives it a die chance (1 - "not a die", the first class) under
        ``below`` keeps the first reader's alone: the others do not read it. The caller
        screens only crops that count as a die at a die chance well over ``below``, which
        the vote reached on none of them (``vision.pipeline.SCREEN_DIE``)."""
        first = self._log_probs(0, x)
        settled = np.asarray(screen, bool) & (1.0 - np.exp(first[:, 0]) < below)
        out = first.copy()
        rest = np.flatnonzero(~settled)
        if len(rest) and len(self.sessions) > 1:
            logs = [first[rest]] + [self._log_probs(k, x[rest])
                                    for k in range(1, len(self.sessions))]
            out[rest] = np.mean(logs, axis=0)
        return out.astype(np.float32)

    def _log_probs(self, k: int, x: np.ndarray) -> np.ndarray:
        session, size = self.sessions[k], self.sizes[k]
        xs = x if x.shape[-1] == size else shrink_crops(x, size)
        return log_softmax(np.asarray(
            session.run(None, {session.get_inputs()[0].name: xs})[0], np.float64))


def _input_size(session) -> int:
    """The side of a face reader's square input (32 when the model leaves it open)."""
    shape = session.get_inputs()[0].shape
    return int(shape[-1]) if isinstance(shape[-1], int) else 32


@functools.lru_cache(maxsize=8)
def area_matrix(size: int, to: int) -> np.ndarray:
    """(to, size): row i averages the input pixels that output pixel i covers, each weighted by
    the share of it that lies inside (cv2.INTER_AREA's weights when shrinking)."""
    m = np.zeros((to, size), np.float64)
    scale = size / to
    for i in range(to):
        lo, hi = i * scale, (i + 1) * scale
        for j in range(int(lo), min(size, int(np.ceil(hi)))):
            m[i, j] = min(hi, j + 1) - max(lo, j)
    m /= scale
    m.flags.writeable = False  # shared by the cache
    return m


def shrink_crops(x: np.ndarray, size: int) -> np.ndarray:
    """Standardised crops (n, 3, s, s) shrunk to (n, 3, size, size) by area averaging
    (``area_matrix``) and standardised again (``standardise``'s zero mean and unit spread per
    crop: the averaging narrows the spread)."""
    a = area_matrix(x.shape[-1], size).astype(np.float32)
    y = a @ x.astype(np.float32) @ a.T
    mean = y.mean(axis=(1, 2, 3), keepdims=True)
    std = y.std(axis=(1, 2, 3), keepdims=True)
    return np.ascontiguousarray((y - mean) / np.maximum(std, 1e-6), np.float32)


def is_upright(session) -> bool:
    """Whether a face reader was trained to read oblique dice with the picture's top as up
    (metadata ``upright``, ``vision.training.train --upright``); a vote is when any of its
    readers is, so that none of them is shown a turned crop."""
    if isinstance(session, Vote):
        return any(is_upright(s) for s in session.sessions)
    try:
        return json.loads(session.get_modelmeta().custom_metadata_map.get("upright", "false"))
    except Exception:  # fakes without metadata
        return False


def _session_classes(session) -> tuple[str, ...]:
    try:
        meta = session.get_modelmeta().custom_metadata_map
        if "classes" in meta:
            return tuple(json.loads(meta["classes"]))
    except Exception:  # fakes without metadata
        pass
    return DEFAULT_CLASSES


class FaceReader:
    """``FaceReader(session)(bgr, boxes) -> ReadResult``. Input name and size come from the
    session."""

    def __init__(self, session=None, context: float = CONTEXT, batch: int = 64):
        self.session = session if session is not None else load_session()
        self.input_name = self.session.get_inputs()[0].name
        self.size = _input_size(self.session)
        self.classes = _session_classes(self.session)
        # its second views: mirrored and turned a little (upright readers), or turned by
        # quarters (the others)
        self.upright = is_upright(self.session)
        self.context = context
        self.batch = batch

    def __call__(self, bgr: np.ndarray, boxes, screen=None, below: float = 0.5) -> ReadResult:
        """The class probabilities of the crops of ``boxes``. ``screen`` (a flag a box), for a
        vote of readers: the flagged boxes its first reader gives a die chance under
        ``below`` are read by that reader alone (``Vote.run_screened``); a single reader
        reads every box in full either way."""
        t0 = time.perf_counter()
        crops = crops_for_boxes(bgr, boxes, self.size, self.context)
        if screen is not None and isinstance(self.session, Vote):
            probs = self.read_crops(crops, np.asarray(screen, bool), below)
        else:
            probs = self.read_crops(crops)
        return ReadResult(probs, self.classes, (time.perf_counter() - t0) * 1000)

    def mean_over_views(self, first: np.ndarray, crops: np.ndarray, view=None) -> np.ndarray:
        """``first`` (this reader's reading of ``crops``) averaged with its readings of other
        views of the same crops: ``mean_over_upright_views`` for an upright reader, else
        ``mean_over_turns``; with ``view`` (a crop -> crop function), also that view of each
        crop and its mirror (``mean_with_view``)."""
        views = mean_over_upright_views if self.upright else mean_over_turns
        mean = views(first, crops, self.read_crops)
        return mean if view is None else mean_with_view(mean, 4, crops, self.read_crops, view)

    def read_crops(self, crops: np.ndarray, screen: np.ndarray | None = None,
                   below: float = 0.5) -> np.ndarray:
        """Softmax of the session's output for ``crops``, read in batches of ``batch``;
        ``screen``, ``below``: a vote's screened reading (``Vote.run_screened``)."""
        if len(crops) == 0:
            return np.zeros((0, len(self.classes)), np.float32)
        x = standardise(crops)
        out = [self.session.run(None, {self.input_name: x[i:i + self.batch]})[0]
               if screen is None else
               self.session.run_screened(x[i:i + self.batch], screen[i:i + self.batch], below)
               for i in range(0, len(x), self.batch)]
        return softmax(np.concatenate(out).astype(np.float32))

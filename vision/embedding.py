"""The learned face embedding (``FaceEmbedder``): ``models/face_embed.onnx``, a small CNN trained as
a metric model by ``vision.training.train_embed`` on the faces of thousands of procedurally rendered
die designs (and real pip dice): two crops of the same face of one design embed close together
whatever the rotation, light, colours and box, crops of other faces apart. It reads the reader's
square crop (``vision.read.crop_square``, context 1.15) at the model's input size (48 px),
standardised like the shipped reader's crops, and gives a unit vector (96 dims). It is colour-blind
on purpose: the symbol, not its colour, tells the face."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from .read import CONTEXT, crop_square, eight_bit_path, load_session, model_path, standardise

EMBED_MODEL = model_path("face_embed.onnx")


class FaceEmbedder:
    """``FaceEmbedder(path)(crops) -> (n, D)`` unit embeddings of ``size`` x ``size`` BGR crops.

    ``model_id`` (from the model file's metadata) names the weights: a dice set remembers it and is
    refused by an embedder with other weights. ``not_die`` is the model's "not a die" direction."""

    def __init__(self, path: str | Path = EMBED_MODEL, session=None, threads: int | None = 1,
                 batch: int = 64):
        self.path = Path(path)
        if session is None:
            # the float model itself: its 8-bit copy reads only further views (view_embedder)
            session = load_session(self.path, threads, "face embedding",
                                   "vision.training.train_embed", eight_bit=False)
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
        # an 8-bit copy names the float model it was made from (vision.training.quantize)
        self.quantized_from = meta.get("quantized_from")
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


def view_embedder(embedder: FaceEmbedder) -> FaceEmbedder:
    """The embedder for the further views of dice ``embedder`` read first (their quarter turns,
    ink-contrast and top-face views: ``vision.dice_set.DiceSetReader``): the 8-bit copy beside
    its model file (``vision.read.eight_bit_path``) where the copy was made from these weights
    (its ``quantized_from`` is their ``model_id``), about three times faster on one core with the
    same readings measured (``models/README_face_embed.md``, "8-bit copy for further views"); else
    ``embedder`` itself (another model, a test's fake, a checkout without the copy)."""
    copy = _copy_beside(str(embedder.path))
    return copy if copy is not None and copy.quantized_from == embedder.model_id else embedder


@lru_cache(maxsize=4)
def _copy_beside(path: str) -> FaceEmbedder | None:
    copy = eight_bit_path(path)
    return FaceEmbedder(copy) if copy.is_file() else None


def quarter_turns(crops: np.ndarray) -> np.ndarray:
    """(4n, h, w, 3): every crop turned by 0, 90, 180 and 270 degrees (crop-major order)."""
    if not len(crops):
        return np.zeros((0,) + tuple(np.asarray(crops).shape[1:]), np.uint8)
    return np.stack([np.ascontiguousarray(np.rot90(c, k)) for c in crops for k in range(4)])

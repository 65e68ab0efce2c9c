"""Teach the reader your dice: ``teach(examples)`` builds a ``vision.dice_set.DiceSet`` in seconds
from labelled crops (3-5 per face). Each example, with a few box jitters (boxes as the finder
proposes them) and its four quarter turns, becomes prototypes (their embeddings by
``vision.embedding.FaceEmbedder``); boxes half a die off become "not a die" prototypes, and the
model's own "not a die" direction is one more. Nothing is trained.

Colour is read apart from the embedding (``vision.face_colour.face_features``): ``teach``
measures each named colour on the examples under the table's light, on whichever part carries it
(face or symbol); see ``vision.dice_set``.
"""
from __future__ import annotations

import time
from dataclasses import replace

import cv2
import numpy as np

from .colour import scene_white
from .dice_set import DiceSet
from .embedding import FaceEmbedder, default_embedder, quarter_turns
from .face_colour import CROP, face_features
from .read import CONTEXT, crop_square
from .top_face import default_locator_or_none, top_face_crops


def _jitter(rng, box, amount):
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    s = rng.uniform(1 - amount, 1 + amount)
    cx = (x0 + x1) / 2 + rng.uniform(-amount, amount) * w
    cy = (y0 + y1) / 2 + rng.uniform(-amount, amount) * h
    return (cx - w * s / 2, cy - h * s / 2, cx + w * s / 2, cy + h * s / 2)


def _degrade(rng, *crops: np.ndarray) -> list[np.ndarray]:
    """The same die as a camera may see it: smaller (resampled), blurred, noisy. Every crop
    given (a box's crop and its top face, of one size) takes the same loss."""
    n = crops[0].shape[0]
    f = rng.uniform(0.45, 1.0)
    sigma = rng.uniform(0.4, 1.1) if rng.random() < 0.5 else None
    noise = rng.normal(0, rng.uniform(0, 4), crops[0].shape).astype(np.float32)
    out = []
    for crop in crops:
        c = crop.astype(np.float32)
        if f < 0.95:
            small = cv2.resize(c, (max(8, int(n * f)),) * 2, interpolation=cv2.INTER_AREA)
            c = cv2.resize(small, (n, n), interpolation=cv2.INTER_LINEAR)
        if sigma is not None:
            c = cv2.GaussianBlur(c, (0, 0), sigma)
        out.append(np.clip(c + noise, 0, 255).astype(np.uint8))
    return out


def teach(examples, jitters: int = 4, seed: int = 0, colour_names=None,
          embedder: FaceEmbedder | None = None, dice: int | None = None, locator="default"):
    """A ``DiceSet`` from labelled examples: ``(bgr, box, value, colour_or_None)`` each.
    ``dice``: how many dice the game rolls, where each die's faces carry their own colours (The
    Choice: 3): a value taught in that many colours has no other face
    (``vision.dice_set.DiceSet.name_faces``). ``locator``: the top-face locator
    (``vision.top_face``; "default": the shipped one where its model file is there, None: none)
    whose cut-out top faces of the same boxes become the set's ``top_embeddings``.

    ``box`` is the die in ``bgr`` (``None``: the whole image is the die, as in a crop). Values are
    kept as given (ints stay ints, ``"cow"`` stays a string).
    """
    t0 = time.perf_counter()
    emb = embedder or default_embedder()
    if isinstance(locator, str) and locator == "default":
        locator = default_locator_or_none()
    rng = np.random.default_rng(seed)
    crops, values, groups, neg_crops, top_crops = [], [], [], [], []
    face_labs, ink_labs, colour_labels, example_crops, example_values = [], [], [], [], []
    vivid_labs, as_is = [], []
    for g, (bgr, box, value, colour) in enumerate(examples):
        if box is None:
            box = (0, 0, bgr.shape[1], bgr.shape[0])
        boxes = [box] + [_jitter(rng, box, 0.08) for _ in range(jitters)]
        faces = locator(bgr, boxes) if locator is not None else None
        tops = (top_face_crops(bgr, boxes, emb.size, emb.context, locator, faces)[0]
                if faces is not None else None)
        for k, b in enumerate(boxes):
            seen = [crop_square(bgr, b, emb.size, emb.context)]
            if tops is not None:
                seen.append(tops[k])
            if k:   # the jittered boxes: as a camera may see the die (its face the same way)
                seen = _degrade(rng, *seen)
            crops.append(seen[0])
            if tops is not None:
                top_crops.append(seen[1])
            values.append(value)
            groups.append(g)
        # the colours as the photo's white shows them, on the top face cut out square where the
        # locator finds it (a side face's colour is not the face's): the reader measures a taught
        # set's colours so too (vision.dice_set.DiceSetReader); which part of the face carries
        # them is judged on the photo as it is
        crop = (top_face_crops(bgr, [box], CROP, CONTEXT, locator, faces[:1])[0][0]
                if faces is not None else crop_square(bgr, box, CROP, CONTEXT))
        f0 = face_features(crop)
        f = face_features(scene_white(bgr).apply_u8(crop)) if colour else f0
        face_labs.append(f.face_lab)
        ink_labs.append(f.ink_lab)
        vivid_labs.append(f.vivid_lab)
        as_is.append((f0.face_lab, f0.ink_lab, f0.vivid_lab))
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
                       example_crops=np.stack(example_crops), example_values=example_values,
                       vivid_labs=np.array(vivid_labs),
                       source_from=tuple(np.array(m) for m in zip(*as_is)) if as_is else None,
                       dice=dice)
    if locator is not None:
        ds = replace(ds, top_embeddings=emb(quarter_turns(np.stack(top_crops))),
                     top_model=locator.model_id)
    return replace(ds, white=True).with_info(teach_ms=round((time.perf_counter() - t0) * 1000, 1),
                                             examples=len(example_crops))

"""Train the face embedding for teaching and export it to ONNX (train extra: torch, onnx, tqdm).

    python -m vision.training.train_embed --device cuda --workers 16 --max-seconds 285 \
        --out models/face_embed.onnx
        # GPU (H200, 16 cores): ~3 min (rendering ~1 min, 6000 steps ~1.5 min)
    python -m vision.training.train_embed --device cpu --preset cpu --threads 2 --max-seconds 2300 \
        --out models/face_embed.onnx
        # CPU fallback, 2 cores: <= 40 min, a much weaker model (see models/README_face_embed.md)

The embedding maps the reader's square crop of a die (``vision.read.crop_square``, context 1.15,
``SIZE`` px, standardised like ``vision.read.standardise``) to a unit vector (output ``embedding``)
such that two crops of the same face of the same die design lie close together whatever the
rotation, light, colours, blur, box jitter, table, and crops of different faces lie apart. Teaching
(``vision.teach``) then needs a few examples per face: their embeddings are the prototypes.

Training data (``build_dataset``), made in memory over all cores:

* **procedural designs** (``random_design``): every class is one face of one random design. A design
  is a symbol set and a body style: pips (round, square, ring, diamond; sizes, spreads, a large 1),
  numerals in the Hershey fonts (plain and italic, thicknesses, sizes, a mark under 6 and 9, an
  optional frame), numerals with small pips, tally bars, or six random glyphs (polygons, stars,
  blobs, line drawings, ellipse outlines, composed of 1-4 parts); pip/numeral/bar sets may replace
  the 6 with a random glyph (a "cow"). Printed, engraved (dark, light rim) or outlined symbols.
  Bodies: plastic (gradient, glare), wood grain, marbled, translucent, matte. Colours are drawn per
  render (they are no part of the class): coloured face with a neutral symbol, neutral face with a
  coloured symbol, or any contrasting pair;
* the **seen designs** of ``vision.training.special_dice`` (``SEEN_DESIGNS``), drawn with that
  module's own symbols and textures, random colours per render; each of their faces is one class
  (``class_of``), whichever design number drew it;
* **real pip dice** from the training split of the shared sets
  (``vision.training.data.is_validation`` is False; never a validation photo): one class per pip
  value, jittered boxes;
* a "not a die" class: bare table, boxes half a die off, boxes much larger than the die.

Each face is drawn upright, then placed on a table patch (``vision.training.synth``'s backgrounds)
at any rotation with a small perspective, shadow, darker sides (an oblique view shows them, with
pips of the side faces), glare, and cropped with a finder-like jittered box; then colour cast,
gamma, blur, a smaller die (resampled), noise and JPEG. On the training device: quarter turns,
channel shuffle, grey and negative images (the symbol, not its colour, is the class).

**Held out, never produced by the generator**: the two designs of ``special_dice.HELD_OUT_DESIGNS``.
The generator has no stone body (no speckled texture at all), no cow silhouette (no body+legs
figure: its glyph parts are polygons, stars, blobs, strokes and ellipse outlines), no Roman
numerals and no ``FONT_HERSHEY_TRIPLEX`` (the held-out designs' font).

Loss: normalised softmax with an additive cosine margin (CosFace) over all classes. The net: a
small CNN (about 0.3 M parameters), global average pooling, a linear layer to ``DIMS``, L2-norm.
Deterministic for a seed (seeded renders per design, seeded sampling, deterministic kernels).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from ..read import CONTEXT, crop_square, model_path

OUT = model_path("face_embed.onnx")  # where teaching loads it from (vision.teach.EMBED_MODEL)
SIZE = 48  # input side of the net
DIMS = 96  # embedding dimensions
FACE = 64  # upright face canvas
PATCH = 96  # table patch the die is drawn on
NOT_DIE = 0  # class 0: not a die
N_REAL = 6  # classes 1..6: real pip dice of value 1..6
# classes 7..48: the faces of special_dice.SEEN_DESIGNS (one class per face, whatever the seed)
N_SEEN = 7
FIRST_DESIGN_CLASS = 1 + N_REAL + 6 * N_SEEN  # then 6 classes per random design

# every Hershey font but TRIPLEX (the held-out designs' font)
FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_DUPLEX,
         cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_COMPLEX_SMALL, cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
         cv2.FONT_HERSHEY_SCRIPT_COMPLEX)
HELD_OUT = ("stone body (speckled texture)", "cow silhouette (body, legs, head, tail)",
            "Roman numerals", "FONT_HERSHEY_TRIPLEX")
BODIES = ("plastic", "wood", "marbled", "translucent", "matte")
KINDS = ("pips", "numeral", "numeral_pips", "bars", "glyphs", "seen")
KIND_P = (0.3, 0.28, 0.1, 0.05, 0.17, 0.1)

PIP_LAYOUT = {
    1: ((0, 0),), 2: ((-1, -1), (1, 1)), 3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)), 5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}

PRESETS = {  # designs, renders per face, real crops per die, not-a-die crops, steps, batch
    "gpu": dict(designs=10000, per_face=5, real_per_die=10, not_die=15000, steps=6000, batch=1024),
    "cpu": dict(designs=1200, per_face=5, real_per_die=4, not_die=3000, steps=1500, batch=96),
    "tiny": dict(designs=40, per_face=3, real_per_die=1, not_die=100, steps=50, batch=32),
}


# ---- designs -------------------------------------------------------------------------------------

def random_design(seed: int) -> dict:
    """A random die design (plain data, JSON-able) from its seed."""
    rng = np.random.default_rng([seed, 17])
    kind = str(rng.choice(KINDS, p=KIND_P))
    d: dict = {"seed": int(seed), "kind": kind,
               "body": str(rng.choice(BODIES, p=(0.35, 0.25, 0.12, 0.1, 0.18))),
               "colour_on": str(rng.choice(["face", "symbol", "free"], p=(0.4, 0.4, 0.2))),
               "finish": str(rng.choice(["printed", "engraved", "outline"], p=(0.72, 0.2, 0.08)))}
    if kind == "pips":
        d["pip"] = {"shape": str(rng.choice(["round", "square", "ring", "diamond"],
                                            p=(0.7, 0.12, 0.1, 0.08))),
                    "radius": float(rng.uniform(0.06, 0.12)),
                    "spread": float(rng.uniform(0.22, 0.31)), "one": float(rng.uniform(1.0, 1.9))}
    elif kind in ("numeral", "numeral_pips"):
        d["font"] = int(rng.choice(FONTS))
        d["italic"] = bool(rng.random() < 0.2)
        d["thick"] = float(rng.uniform(0.05, 0.13))
        d["height"] = float(rng.uniform(0.38, 0.6) if kind == "numeral" else rng.uniform(0.3, 0.42))
        d["mark"] = str(rng.choice(["none", "bar", "dot"], p=(0.5, 0.35, 0.15)))
        d["frame"] = str(rng.choice(["none", "circle", "square"], p=(0.85, 0.08, 0.07)))
        if kind == "numeral_pips":
            d["small_pips"] = str(rng.choice(["row", "cluster"]))
    elif kind == "bars":
        d["bar"] = {"width": float(rng.uniform(0.04, 0.08)),
                    "length": float(rng.uniform(0.4, 0.65)), "gap": float(rng.uniform(0.1, 0.14))}
    elif kind == "glyphs":
        d["glyph_seeds"] = [int(v) for v in rng.integers(0, 2 ** 31, 6)]
    elif kind == "seen":
        d["seen"] = int(rng.integers(0, 7))
    if kind in ("pips", "numeral", "numeral_pips", "bars") and rng.random() < 0.35:
        d["cow"] = int(rng.integers(0, 2 ** 31))  # the 6 is a glyph standing for a cow
    return d


def _seen(design: dict):
    from .special_dice import SEEN_DESIGNS
    return SEEN_DESIGNS[design["seen"] % len(SEEN_DESIGNS)]


def _pips(value: int, p: dict, n: int = FACE, scale: float = 1.0, centre=(0.5, 0.5)) -> np.ndarray:
    m = np.zeros((n, n), np.uint8)
    r = p["radius"] * scale * n * (p["one"] if value == 1 and scale == 1.0 else 1.0)
    for px, py in PIP_LAYOUT[value]:
        x = (centre[0] + px * p["spread"] * scale) * n
        y = (centre[1] + py * p["spread"] * scale) * n
        c = (int(x * 16), int(y * 16))
        if p["shape"] == "square":
            q = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float32) * r * 0.88 + (x, y)
            cv2.fillPoly(m, [np.round(q * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
        elif p["shape"] == "diamond":
            q = np.array([[0, -1.25], [1.25, 0], [0, 1.25], [-1.25, 0]], np.float32) * r + (x, y)
            cv2.fillPoly(m, [np.round(q * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
        else:
            cv2.circle(m, c, int(r * 16), 255, -1, cv2.LINE_AA, shift=4)
            if p["shape"] == "ring":
                cv2.circle(m, c, int(r * 0.55 * 16), 0, -1, cv2.LINE_AA, shift=4)
    return m


def _text(text: str, font: int, height: float, thick_frac: float, italic: bool, offset=(0.0, 0.0),
          n: int = FACE) -> np.ndarray:
    m = np.zeros((n, n), np.uint8)
    f = font | (cv2.FONT_ITALIC if italic else 0)
    thick = max(1, int(round(thick_frac * n * 0.5)))
    (tw, th), _ = cv2.getTextSize(text, f, 1.0, thick)
    s = min(n * height / max(th, 1), n * 0.78 / max(tw, 1))
    (tw, th), _ = cv2.getTextSize(text, f, s, thick)
    org = (int((n - tw) / 2 + offset[0] * n), int((n + th) / 2 + offset[1] * n))
    cv2.putText(m, text, org, f, s, 255, thick, cv2.LINE_AA)
    return m


def random_glyph(seed: int, n: int = FACE) -> np.ndarray:
    """A glyph made of 1-4 random parts (polygons, stars, blobs, strokes, ellipse outlines), uint8
    mask."""
    rng = np.random.default_rng([seed, 23])
    m = np.zeros((n, n), np.uint8)
    c = n / 2
    for _ in range(int(rng.integers(1, 5))):
        part = rng.choice(["polygon", "star", "blob", "strokes", "ellipse"],
                          p=(0.25, 0.15, 0.25, 0.2, 0.15))
        ctr = c + rng.uniform(-0.15, 0.15, 2) * n
        size = rng.uniform(0.12, 0.3) * n
        if part in ("polygon", "star"):
            k = int(rng.integers(3, 9))
            ang = np.sort(rng.uniform(0, 2 * np.pi, k)) if part == "polygon" \
                else np.linspace(0, 2 * np.pi, 2 * k, endpoint=False)
            rad = size * (rng.uniform(0.5, 1.0, len(ang)) if part == "polygon" else
                          np.where(np.arange(len(ang)) % 2 == 0, 1.0, rng.uniform(0.35, 0.6)))
            pts = np.stack([ctr[0] + rad * np.cos(ang), ctr[1] + rad * np.sin(ang)], 1)
            cv2.fillPoly(m, [np.round(pts * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
        elif part == "blob":
            small = rng.random((5, 5)).astype(np.float32)
            field = cv2.resize(small, (n, n), interpolation=cv2.INTER_CUBIC)
            yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
            d = np.hypot(xx - ctr[0], yy - ctr[1]) / (size * 1.4)
            m[(field - d) > rng.uniform(-0.2, 0.1)] = 255
        elif part == "strokes":
            pts = [ctr + rng.uniform(-1, 1, 2) * size]
            for _s in range(int(rng.integers(2, 6))):
                pts.append(np.clip(pts[-1] + rng.uniform(-1, 1, 2) * size, 0.15 * n, 0.85 * n))
            cv2.polylines(m, [np.round(np.array(pts) * 16).astype(np.int32)], False, 255,
                          int(rng.integers(2, 6)), cv2.LINE_AA, shift=4)
        else:
            axes = (int(size), int(size * rng.uniform(0.4, 1.0)))
            cv2.ellipse(m, (int(ctr[0]), int(ctr[1])), axes, float(rng.uniform(0, 180)), 0,
                        float(rng.choice([360, 180, 270])), 255, int(rng.integers(2, 5)),
                        cv2.LINE_AA)
    inner = np.zeros_like(m)
    cv2.rectangle(inner, (int(0.1 * n), int(0.1 * n)), (int(0.9 * n), int(0.9 * n)), 255, -1)
    m &= inner
    if (m > 127).sum() < 0.02 * n * n:  # too little to see: a filled disc in the middle
        cv2.circle(m, (int(c), int(c)), int(0.2 * n), 255, -1, cv2.LINE_AA)
    return m


def face_mask(design: dict, face: int, n: int = FACE) -> np.ndarray:
    """The symbol of face ``face`` (0..5, value face+1) of ``design``: uint8 mask, upright."""
    value = face + 1
    kind = design["kind"]
    if kind == "seen":
        from .special_dice import FACE_PX, _symbol_mask, design_faces as sd_faces
        sd = _seen(design)
        v = sd_faces(sd)[face]
        m = _symbol_mask(np.random.default_rng([design["seed"], face]), sd, v)
        return cv2.resize(m, (n, n), interpolation=cv2.INTER_AREA) if FACE_PX != n else m
    if value == 6 and "cow" in design:
        return random_glyph(design["cow"], n)
    if kind == "pips":
        return _pips(value, design["pip"], n)
    if kind == "glyphs":
        return random_glyph(design["glyph_seeds"][face], n)
    if kind == "bars":
        b = design["bar"]
        m = np.zeros((n, n), np.uint8)
        for k in range(value):
            x = 0.5 + (k - (value - 1) / 2) * b["gap"]
            cv2.rectangle(m, (int((x - b["width"] / 2) * n), int((0.5 - b["length"] / 2) * n)),
                          (int((x + b["width"] / 2) * n), int((0.5 + b["length"] / 2) * n)), 255,
                          -1)
        return m
    num = kind == "numeral"
    m = _text(str(value), design["font"], design["height"], design["thick"], design["italic"],
              offset=(0.0, 0.0 if num else -0.12), n=n)
    if value in (6, 9) and design["mark"] != "none":
        ys, xs = np.nonzero(m)
        if len(ys):
            y = int(ys.max() + 0.06 * n)
            x0, x1 = int(xs.min()), int(xs.max())
            if design["mark"] == "bar":
                cv2.line(m, (x0, y), (x1, y), 255, max(1, int(0.04 * n)))
            else:
                cv2.circle(m, (x1 + int(0.05 * n), y), max(1, int(0.03 * n)), 255, -1)
    if num and design["frame"] == "circle":
        cv2.circle(m, (n // 2, n // 2), int(0.4 * n), 255, max(1, int(0.03 * n)), cv2.LINE_AA)
    elif num and design["frame"] == "square":
        cv2.rectangle(m, (int(0.14 * n), int(0.14 * n)), (int(0.86 * n), int(0.86 * n)), 255,
                      max(1, int(0.03 * n)))
    if not num:
        small = {"shape": "round", "radius": 0.035, "spread": 0.1, "one": 1.0}
        if design["small_pips"] == "row":
            for k in range(value):
                x = n * (0.5 + (k - (value - 1) / 2) * 0.1)
                cv2.circle(m, (int(x * 16), int(n * 0.8 * 16)), int(n * 0.035 * 16), 255, -1,
                           cv2.LINE_AA, shift=4)
        else:
            m |= _pips(value, small, n, scale=1.0, centre=(0.5, 0.78))
    return m


# ---- rendering -----------------------------------------------------------------------------------

def _hsv(rng, h, s, v) -> np.ndarray:
    hsv = np.array([[[(h % 360) / 2.0, s * 255, v * 255]]], np.float32)
    return cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def _vivid(rng) -> np.ndarray:
    return _hsv(rng, rng.uniform(0, 360), rng.uniform(0.45, 1.0), rng.uniform(0.35, 1.0))


def _neutral(rng) -> np.ndarray:
    if rng.random() < 0.5:
        return np.full(3, rng.uniform(220, 255), np.float32) \
            * rng.uniform(0.97, 1.03, 3).astype(np.float32)
    if rng.random() < 0.5:
        return np.full(3, rng.uniform(10, 50), np.float32)
    # ivory, beige, wood
    return _hsv(rng, rng.uniform(15, 40), rng.uniform(0.2, 0.5), rng.uniform(0.6, 0.95))


def _lum(c) -> float:
    return float(np.asarray(c) @ np.array([0.114, 0.587, 0.299]))


def _colours(rng, design: dict) -> tuple[np.ndarray, np.ndarray]:
    """(body, ink) BGR for one render: colours are no part of the class."""
    if design["kind"] == "seen":
        from .special_dice import CHOICE_COLOURS, _colours_for
        sd = _seen(design)
        colour = str(rng.choice(CHOICE_COLOURS)) if sd.game == "the_choice" else \
            str(rng.choice(["white", "red", "yellow", "blue", "green", "black"]))
        body, ink, _ = _colours_for(rng, sd, colour)
        return np.asarray(body, np.float32), np.asarray(ink, np.float32)
    for _ in range(20):
        on = design["colour_on"]
        if on == "face":
            body, ink = _vivid(rng), _neutral(rng)
        elif on == "symbol":
            body, ink = _neutral(rng), _vivid(rng)
        else:
            body, ink = _vivid(rng), _vivid(rng)
        dl = abs(_lum(body) - _lum(ink))
        if dl > 60 or (dl > 25 and np.abs(body - ink).max() > 120):
            return body, ink
    return body, np.full(3, 255.0 if _lum(body) < 128 else 0.0, np.float32)


def _texture(rng, body: str, colour: np.ndarray, n: int = FACE) -> np.ndarray:
    img = np.empty((n, n, 3), np.float32)
    img[:] = colour
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) / n
    if body == "wood":
        ang = rng.uniform(0, np.pi)
        u = (xx * np.cos(ang) + yy * np.sin(ang)) * n
        warp = cv2.resize(rng.random((5, 5)).astype(np.float32), (n, n),
                          interpolation=cv2.INTER_CUBIC) * \
            rng.uniform(5, 15)
        grain = np.sin((u + warp) / rng.uniform(1.0, 3.0)) * 0.5 + 0.5
        img *= (1 - rng.uniform(0.08, 0.25) * grain)[..., None]
    elif body == "marbled":
        field = cv2.resize(rng.random((6, 6)).astype(np.float32), (n, n),
                           interpolation=cv2.INTER_CUBIC)
        other = _vivid(rng) if rng.random() < 0.5 else _neutral(rng)
        m = (np.clip((field - 0.55) * 6, 0, 1) * rng.uniform(0.3, 0.7))[..., None]
        img = img * (1 - m) + m * other
    elif body == "matte":
        img *= (1 + rng.normal(0, rng.uniform(0.005, 0.03), (n, n)).astype(np.float32))[..., None]
    else:  # plastic, translucent: a soft light gradient
        a = rng.uniform(0, 2 * np.pi)
        img *= (1 + rng.uniform(0.0, 0.15)
                * ((xx - 0.5) * np.cos(a) + (yy - 0.5) * np.sin(a)))[..., None]
    return img


def render_face(rng, design: dict, face: int, body: np.ndarray, ink: np.ndarray) -> np.ndarray:
    """The upright face (``FACE`` square, float BGR)."""
    if design["kind"] == "seen":
        from .special_dice import design_faces as sd_faces, render_face as sd_render
        sd = _seen(design)
        f = sd_render(rng, sd, sd_faces(sd)[face], body, ink)
        return cv2.resize(f, (FACE, FACE), interpolation=cv2.INTER_AREA)
    img = _texture(rng, design["body"], body)
    m = face_mask(design, face).astype(np.float32) / 255.0
    if design["finish"] == "outline":
        k = np.ones((3, 3), np.uint8)
        m = np.clip(cv2.dilate(m, k) - cv2.erode(m, k), 0, 1)
    if design["finish"] == "engraved":
        rim = cv2.warpAffine(m, np.float32([[1, 0, -1], [0, 1, -1]]), (FACE, FACE))
        rim = np.clip(rim - m, 0, 1)
        img = img * (1 - m[..., None]) + m[..., None] * ink * 0.9 + rim[..., None] * 50
    else:
        img = img * (1 - m[..., None]) + m[..., None] * ink
    return img


def _round_alpha(n: int, radius: float) -> np.ndarray:
    a = np.zeros((n, n), np.float32)
    r = int(radius * n)
    cv2.rectangle(a, (r, 0), (n - 1 - r, n - 1), 1.0, -1)
    cv2.rectangle(a, (0, r), (n - 1, n - 1 - r), 1.0, -1)
    for x, y in ((r, r), (n - 1 - r, r), (r, n - 1 - r), (n - 1 - r, n - 1 - r)):
        cv2.circle(a, (x, y), r, 1.0, -1, cv2.LINE_AA)
    return a


def _table(rng, n: int = PATCH) -> np.ndarray:
    """A table patch: plain, felt, wood grain or paper, with low-frequency light (cheap)."""
    kind = rng.choice(["plain", "felt", "wood", "paper"], p=(0.3, 0.25, 0.3, 0.15))
    if kind == "wood":
        base = _hsv(rng, rng.uniform(20, 40), rng.uniform(0.15, 0.6), rng.uniform(0.4, 0.95))
    elif kind == "paper":
        base = np.full(3, rng.uniform(190, 250), np.float32)
    else:
        base = _hsv(rng, rng.uniform(0, 360), rng.uniform(0, 0.9) * rng.random(),
                    rng.uniform(0.1, 0.95))
    img = np.empty((n, n, 3), np.float32)
    img[:] = base
    light = cv2.resize(rng.random((3, 3)).astype(np.float32), (n, n), interpolation=cv2.INTER_CUBIC)
    shade = 1 + (light - 0.5) * rng.uniform(0, 0.5)
    if kind == "wood":
        ang = rng.uniform(0, np.pi)
        yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
        u = xx * np.cos(ang) + yy * np.sin(ang) + light * rng.uniform(10, 40)
        shade = shade * (1 - rng.uniform(0.05, 0.2) * (np.sin(u / rng.uniform(2, 8)) * 0.5 + 0.5))
    elif kind == "felt":
        shade = shade * (1 + rng.normal(0, rng.uniform(0.01, 0.05), (n, n)).astype(np.float32))
    return np.clip(img * shade[..., None], 0, 255)


def place_face(rng, face_img: np.ndarray, body: np.ndarray, translucent: bool = False,
               glossy: bool = True, side_frac: tuple[float, float] = (0.42, 0.62)):
    """Draw a die with this upright face on a table patch: (patch float BGR, die box, side)."""
    n = face_img.shape[0]
    img = _table(rng)
    P = img.shape[0]
    side = rng.uniform(*side_frac) * P
    cx, cy = P / 2 + rng.uniform(-0.05, 0.05, 2) * P
    theta = rng.uniform(0, 360)
    alpha = _round_alpha(n, rng.uniform(0.06, 0.22))
    s = side / n
    M = cv2.getRotationMatrix2D((n / 2, n / 2), theta, s)
    M[0, 2] += cx - n / 2
    M[1, 2] += cy - n / 2
    H = np.vstack([M, [0, 0, 1]]).astype(np.float64)
    # a small perspective (camera not straight above)
    q = np.float32([[0, 0], [n, 0], [n, n], [0, n]])
    jit = (q + rng.uniform(-1, 1, q.shape).astype(np.float32) * n
           * rng.uniform(0, 0.06)).astype(np.float32)
    H = H @ cv2.getPerspectiveTransform(q, jit)
    oblique = rng.random() < 0.35
    tilt = np.zeros(2)
    if oblique:
        a = rng.uniform(0, 2 * np.pi)
        tilt = np.array([np.cos(a), np.sin(a)]) * side * rng.uniform(0.08, 0.35)
    # shadow
    sh = side * rng.uniform(0.03, 0.2)
    sdir = rng.uniform(0, 2 * np.pi)
    T = np.array([[1, 0, sh * np.cos(sdir) + tilt[0]], [0, 1, sh * np.sin(sdir) + tilt[1]],
                  [0, 0, 1]])
    shadow = cv2.warpPerspective(alpha, T @ H, (P, P))
    k = int(side * 0.25) | 1
    img *= 1 - (cv2.GaussianBlur(shadow, (k, k), 0) * rng.uniform(0.15, 0.5))[..., None]
    # the die's sides: a slightly larger darker silhouette, extruded towards the tilt
    side_col = body * rng.uniform(0.55, 0.85)
    S = np.array([[1.05, 0, cx * (1 - 1.05)], [0, 1.05, cy * (1 - 1.05)], [0, 0, 1]])
    sides = cv2.warpPerspective(alpha, S @ H, (P, P))
    if oblique:
        for t in np.linspace(0, 1, 4)[1:]:
            Tt = np.array([[1, 0, tilt[0] * t], [0, 1, tilt[1] * t], [0, 0, 1]])
            sides = np.maximum(sides, cv2.warpPerspective(alpha, Tt @ H, (P, P)))
    op = rng.uniform(0.6, 0.85) if translucent else 1.0
    a_s = (sides * op)[..., None]
    img = img * (1 - a_s) + a_s * side_col
    if oblique and rng.random() < 0.6:  # pips of a side face
        top_a = cv2.warpPerspective(alpha, H, (P, P))
        ring = (sides > 0.5) & (top_a < 0.1)
        ys, xs = np.nonzero(ring)
        if len(ys):
            pip_col = np.asarray(face_img[n // 2, n // 2] if rng.random() < 0.3 else
                                 (255 - side_col), np.float32)
            for _ in range(int(rng.integers(1, 5))):
                i = int(rng.integers(0, len(ys)))
                cv2.circle(img, (int(xs[i]), int(ys[i])),
                           max(1, int(side * rng.uniform(0.04, 0.08))), (pip_col * 0.8).tolist(),
                           -1, cv2.LINE_AA)
    a = cv2.warpPerspective(alpha, H, (P, P))[..., None] * op
    f = cv2.warpPerspective(face_img, H, (P, P),
                            flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_REPLICATE)
    img = img * (1 - a) + a * f
    if glossy and rng.random() < 0.35:
        from .special_dice import add_glare
        add_glare(rng, img, cx, cy, side, a[..., 0], least=(0.06, 0.03), strongest=0.7)
    ys, xs = np.nonzero(np.maximum(sides, a[..., 0]) > 0.3)
    box = (float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)) \
        if len(xs) else (cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2)
    return img, box, side


def jitter_box(rng, box, shift=0.1, scale=(0.9, 1.15)):
    """A box as the finder may propose it around this die."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    s = rng.uniform(*scale)
    cx = (x0 + x1) / 2 + rng.uniform(-shift, shift) * w
    cy = (y0 + y1) / 2 + rng.uniform(-shift, shift) * h
    return (cx - w * s / 2, cy - h * s / 2, cx + w * s / 2, cy + h * s / 2)


def photometric(rng, img: np.ndarray) -> np.ndarray:
    """Camera: colour cast, gamma, blur, noise, JPEG. float BGR in, uint8 out."""
    img = img * (rng.uniform(0.8, 1.2, 3) * rng.uniform(0.75, 1.15)).astype(np.float32)
    img = 255.0 * (np.clip(img, 0, 255) / 255.0) ** np.float32(rng.uniform(0.7, 1.4))
    if rng.random() < 0.5:  # out of focus (the sigma scales with the die's size in pixels)
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.0) * max(0.5, img.shape[0] / 64))
    sigma = rng.uniform(0, 6)
    if sigma > 0.5:
        img = img + rng.standard_normal(img.shape, dtype=np.float32) * np.float32(sigma)
    out = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        ok, enc = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 96))])
        out = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    return out


def camera_crop(rng, img: np.ndarray, box, size: int = SIZE, shift=0.1,
                scale=(0.9, 1.15)) -> np.ndarray:
    """The reader's crop of a finder-like box around the die, as a camera sees a die of 18-80 px:
    cropped at that resolution, camera effects applied there, then resampled to ``size``."""
    die_px = float(np.exp(rng.uniform(np.log(18), np.log(80))))
    work = int(np.clip(round(die_px * CONTEXT * 1.1), 14, 2 * size))
    c = crop_square(img, jitter_box(rng, box, shift, scale), work, CONTEXT)
    c = photometric(rng, c)
    return cv2.resize(c, (size, size),
                      interpolation=cv2.INTER_LINEAR if work < size else cv2.INTER_AREA)


def render_crop(rng, design: dict, face: int, size: int = SIZE) -> np.ndarray:
    """One training crop (uint8 BGR ``size`` square) of face ``face`` of ``design``."""
    body, ink = _colours(rng, design)
    face_img = render_face(rng, design, face, body, ink)
    bodykind = _seen(design).body if design["kind"] == "seen" else design["body"]
    img, box, side = place_face(rng, face_img, body, translucent=bodykind == "translucent",
                                glossy=bodykind in ("plastic", "translucent"))
    return camera_crop(rng, img, box, size)


def render_not_die(rng, size: int = SIZE) -> np.ndarray:
    """A crop the finder may propose that is no die: bare table, half a die, a box far too large."""
    design = random_design(int(rng.integers(0, 2 ** 31)))
    kind = rng.choice(["table", "half", "large"], p=(0.4, 0.35, 0.25))
    if kind == "table":
        return camera_crop(rng, _table(rng), (20, 20, 76, 76), size)
    body, ink = _colours(rng, design)
    face_img = render_face(rng, design, int(rng.integers(0, 6)), body, ink)
    img, box, side = place_face(rng, face_img, body,
                                side_frac=(0.3, 0.42) if kind == "half" else (0.12, 0.2))
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    if kind == "half":
        d = rng.choice([-1, 1]) * rng.uniform(0.55, 0.8)
        dx, dy = (d * w, 0) if rng.random() < 0.5 else (0, d * h)
        b = (x0 + dx, y0 + dy, x1 + dx, y1 + dy)
    else:
        f = rng.uniform(2.6, 4.0)
        cx, cy = ((x0 + x1) / 2 + rng.uniform(-0.5, 0.5) * w,
                  (y0 + y1) / 2 + rng.uniform(-0.5, 0.5) * h)
        b = (cx - w * f / 2, cy - h * f / 2, cx + w * f / 2, cy + h * f / 2)
    return camera_crop(rng, img, b, size, 0.02, (0.98, 1.02))


def class_of(design: dict, index: int, face: int) -> int:
    """The class of face ``face`` of design number ``index``: a seen design's face is one class
    whichever design number drew it (its renders are the same face)."""
    if design["kind"] == "seen":
        return 1 + N_REAL + 6 * (design["seen"] % N_SEEN) + face
    return FIRST_DESIGN_CLASS + index * 6 + face


def design_crops(args) -> tuple[np.ndarray, np.ndarray]:
    """Worker: (first design index, number of designs, renders per face, seed) -> crops, classes."""
    first, count, per_face, seed = args
    cv2.setNumThreads(1)
    crops, ys = [], []
    for i in range(first, first + count):
        design = random_design(seed * 1_000_003 + i)
        for face in range(6):
            rng = np.random.default_rng([seed, i, face])
            for _ in range(per_face):
                crops.append(render_crop(rng, design, face))
                ys.append(class_of(design, i, face))
    return np.stack(crops), np.array(ys, np.int32)


def seen_crops(args) -> tuple[np.ndarray, np.ndarray]:
    """Worker: (seen design, first render, renders per face, seed) -> extra crops of one design of
    ``special_dice.SEEN_DESIGNS``, one class per face (``class_of``); renders seeded apart from the
    random designs' (``--seen-per-face``: the seen designs weigh more than a tenth of the
    designs)."""
    which, first, count, seed = args
    cv2.setNumThreads(1)
    design = {"seed": -1 - which, "kind": "seen", "seen": which}
    crops, ys = [], []
    for face in range(6):
        rng = np.random.default_rng([seed, 7_000_000 + which, face, first])
        for _ in range(count):
            crops.append(render_crop(rng, design, face))
            ys.append(class_of(design, -1, face))
    return np.stack(crops), np.array(ys, np.int32)


def not_die_crops(args) -> tuple[np.ndarray, np.ndarray]:
    first, count, seed = args
    cv2.setNumThreads(1)
    rng = np.random.default_rng([seed, 99, first])
    crops = [render_not_die(rng) for _ in range(count)]
    return np.stack(crops), np.full(count, NOT_DIE, np.int32)


def real_die_boxes(root: Path):
    """(path, box, value) of every real die of the training splits (crop sets: the whole crop)."""
    from .data import load_folder
    out = []
    root = Path(root)
    if not root.is_dir():
        return out
    for folder in sorted(p for p in root.iterdir() if (p / "labels.csv").is_file()):
        for im in load_folder(folder):
            if im.validation:
                continue
            for d in im.dice:
                if not 1 <= d.value <= 6:
                    continue
                if im.is_crop:
                    box = (0.0, 0.0, float(im.width), float(im.height))
                elif d.box_kind == "pips":  # the pips' box: about the top face, a little smaller
                    x0, y0, x1, y1 = d.box
                    cx, cy, s = (x0 + x1) / 2, (y0 + y1) / 2, max(x1 - x0, y1 - y0) * 1.3
                    box = (cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2)
                else:
                    box = d.box
                out.append((str(im.path), box, int(d.value)))
    return out


def real_crops(args) -> tuple[np.ndarray, np.ndarray]:
    path, items, per_die, seed, k = args
    cv2.setNumThreads(1)
    bgr = cv2.imread(path, cv2.IMREAD_COLOR)
    if bgr is None:
        return np.zeros((0, SIZE, SIZE, 3), np.uint8), np.zeros(0, np.int32)
    rng = np.random.default_rng([seed, 7, k])
    crops, ys = [], []
    for box, value in items:
        for j in range(per_die):
            b = box if j == 0 else jitter_box(rng, box, 0.08, (0.9, 1.12))
            c = crop_square(bgr, b, SIZE, CONTEXT)
            if j >= 2 and rng.random() < 0.5:  # a farther camera, another JPEG
                small = cv2.resize(c, (int(rng.integers(16, 40)),) * 2,
                                   interpolation=cv2.INTER_AREA)
                c = cv2.resize(small, (SIZE, SIZE), interpolation=cv2.INTER_LINEAR)
            crops.append(c)
            ys.append(value)  # classes 1..6: real pips of that value
    return np.stack(crops), np.array(ys, np.int32)


def build_dataset(n_designs: int, per_face: int, data_root: Path | None, real_per_die: int,
                  n_not_die: int, seed: int, workers: int, progress: bool = True,
                  seen_per_face: int = 0):
    """(crops uint8 (N, SIZE, SIZE, 3), classes int32 (N,), n_classes, info).

    The random designs' crops come first, in design order (``train``'s episodes rely on it)."""
    from tqdm import tqdm

    tasks = []
    chunk = 25
    for first in range(0, n_designs, chunk):
        tasks.append(("design", (first, min(chunk, n_designs - first), per_face, seed)))
    for which in range(N_SEEN):
        for first in range(0, seen_per_face, 100):
            tasks.append(("seen", (which, first, min(100, seen_per_face - first), seed)))
    for first in range(0, n_not_die, 500):
        tasks.append(("not_die", (first, min(500, n_not_die - first), seed)))
    real = real_die_boxes(data_root) if data_root is not None and real_per_die > 0 else []
    by_path: dict[str, list] = {}
    for path, box, value in real:
        by_path.setdefault(path, []).append((box, value))
    for k, (path, items) in enumerate(sorted(by_path.items())):
        tasks.append(("real", (path, items, real_per_die, seed, k)))
    results = []
    bar = tqdm(total=len(tasks), desc="rendering", disable=not progress, file=sys.stderr)
    if workers > 1:
        import multiprocessing as mp
        with mp.get_context("fork").Pool(workers) as pool:
            for r in pool.imap(_run_task, [(k, a) for k, a in tasks], chunksize=1):
                results.append(r)
                bar.update(1)
    else:
        for t in tasks:
            results.append(_run_task(t))
            bar.update(1)
    bar.close()
    X = np.concatenate([r[0] for r in results if len(r[0])])
    Y = np.concatenate([r[1] for r in results if len(r[1])])
    info = {"designs": n_designs, "renders_per_face": per_face, "seen_per_face": seen_per_face,
            "real_dice": len(real), "real_crops": int(((Y >= 1) & (Y <= N_REAL)).sum()),
            "not_die_crops": int((Y == NOT_DIE).sum()),
            "design_crops": int((Y >= 1 + N_REAL).sum()),
            "seen_design_crops": int(((Y >= 1 + N_REAL) & (Y < FIRST_DESIGN_CLASS)).sum())}
    return X, Y, FIRST_DESIGN_CLASS + 6 * n_designs, info


def _run_task(task):
    kind, args = task
    return {"design": design_crops, "seen": seen_crops, "not_die": not_die_crops,
            "real": real_crops}[kind](args)


# ---- the net -------------------------------------------------------------------------------------

def make_net(dims: int = DIMS, width: float = 1.0):
    """The embedding net; ``width`` multiplies every layer's channels (1.0: the shipped 0.31 M
    parameters; the reader's cost per die grows with its square)."""
    import torch
    import torch.nn as nn

    c = [max(8, int(round(n * width))) for n in (24, 32, 64, 128)]

    def block(cin, cout, stride=1):
        return [nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False), nn.BatchNorm2d(cout),
                nn.ReLU(inplace=True)]

    class EmbedNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.trunk = nn.Sequential(
                *block(3, c[0]), *block(c[0], c[1], 2),             # 48 -> 24
                *block(c[1], c[1]), nn.MaxPool2d(2),                # 24 -> 12
                *block(c[1], c[2]), *block(c[2], c[2]), nn.MaxPool2d(2),  # 12 -> 6
                *block(c[2], c[3]), *block(c[3], c[3]),
                nn.AdaptiveAvgPool2d(1), nn.Flatten())
            self.head = nn.Sequential(nn.Linear(c[3], dims), nn.BatchNorm1d(dims))

        def forward(self, x):
            return torch.nn.functional.normalize(self.head(self.trunk(x)), dim=1)

    return EmbedNet()


def load_exported(net, path: Path) -> str:
    """Copy the weights of an exported embedding (``export_onnx``) into ``net``, to fine-tune it.

    The export folds each batch norm of the trunk into its convolution (a weight and a bias). The
    convolution takes the folded weight, its batch norm becomes the folded bias (scale 1, mean 0,
    variance 1 - eps), so ``net`` in eval mode computes what the file computes; ``train`` keeps
    these batch norms frozen (batch statistics would undo the folding). Returns the file's model
    id."""
    import onnx
    import torch
    from onnx import numpy_helper

    model = onnx.load(str(path))
    weights = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    for node in model.graph.node:  # weights stored as float16 (``halve_weights``) and cast back
        if node.op_type == "Cast" and node.input[0] in weights:
            weights[node.output[0]] = weights[node.input[0]].astype(np.float32)
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    layers = [m for m in net.trunk if isinstance(m, torch.nn.Conv2d)]
    norms = [m for m in net.trunk if isinstance(m, torch.nn.BatchNorm2d)]
    if len(convs) != len(layers) or len(norms) != len(layers):
        raise ValueError(f"{path}: {len(convs)} convolutions, the net has {len(layers)}: not this "
                         "architecture")
    with torch.no_grad():
        for node, conv, bn in zip(convs, layers, norms):
            w = torch.from_numpy(weights[node.input[1]].copy())
            if tuple(w.shape) != tuple(conv.weight.shape):
                raise ValueError(f"{path}: weight {tuple(w.shape)} does not fit "
                                 f"{tuple(conv.weight.shape)}")
            conv.weight.copy_(w)
            bias = (weights[node.input[2]] if len(node.input) > 2
                    else np.zeros(w.shape[0], np.float32))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(bias.copy()))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        net.head.load_state_dict({k: torch.from_numpy(weights["head." + k].copy())
                                  for k in net.head.state_dict()
                                  if not k.endswith("num_batches_tracked")}, strict=False)
    meta = {p.key: p.value for p in model.metadata_props}
    return meta.get("model_id", "unknown")


def exported_width(path: Path) -> float:
    """The channel multiplier (``--width``) an exported embedding was trained with."""
    import onnx

    meta = {p.key: p.value for p in onnx.load(str(path), load_external_data=False).metadata_props}
    return float(json.loads(meta.get("width", "1.0")))


def _standardise(torch, x):
    """Standardise like ``vision.read.standardise`` (per crop), no augmentation: (n, 3, h, w)
    float."""
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    std = x.std(dim=(1, 2, 3), keepdim=True, unbiased=False).clamp_min(8.0)
    return (x - mean) / std


def _augment(torch, x, gen):
    """uint8 (n, h, w, 3) on the device -> standardised float (n, 3, h, w), like
    vision.read.standardise."""
    n = x.shape[0]
    dev = x.device
    x = x.permute(0, 3, 1, 2).float()
    r = torch.rand(n, 8, generator=gen, device=dev)
    k = (r[:, 0] * 4).long().clamp(max=3)
    out = torch.empty_like(x)
    for q in range(4):
        sel = k == q
        if bool(sel.any()):
            out[sel] = torch.rot90(x[sel], q, dims=(2, 3))
    x = out
    perm = torch.argsort(torch.rand(n, 3, generator=gen, device=dev), dim=1)
    x = x[torch.arange(n, device=dev)[:, None], perm]
    grey = x.mean(1, keepdim=True).expand_as(x)
    x = torch.where((r[:, 1] < 0.2)[:, None, None, None], grey, x)
    x = torch.where((r[:, 2] < 0.15)[:, None, None, None], 255 - x, x)
    x = x * (0.8 + 0.4 * r[:, 3])[:, None, None, None] + (r[:, 4] - 0.5)[:, None, None, None] * 50
    x = x + torch.randn(x.shape, generator=gen, device=dev) * (r[:, 5] * 4)[:, None, None, None]
    return _standardise(torch, x.clamp(0, 255))


def train(X, Y, n_classes: int, steps: int, batch: int, seed: int, device: str,
          progress: bool = True, threads: int | None = None, scale: float = 28.0,
          margin: float = 0.3, lr: float = 3e-3, budget_s: float | None = None,
          episodes: tuple[int, int] | None = None, tau: float = 0.1, init: Path | None = None,
          width: float = 1.0):
    """Train the net; ``budget_s`` (seconds) lowers the number of steps after timing steps 10-40.

    ``episodes`` = (designs, renders per face): the first designs x 6 x renders crops of X are the
    designs' renders in order. Three quarters of each batch are then whole designs (all six faces,
    two renders each) and a supervised contrastive loss (temperature ``tau``) over the batch adds
    to the CosFace loss: it asks directly for what teaching needs, the faces of one design apart
    and two renders of a face together. The last quarter is drawn from all crops (real, not a die).

    ``init`` (an exported embedding) fine-tunes it rather than starting afresh: its weights are
    loaded (``load_exported``), its batch norms stay frozen, and each class's CosFace weight starts
    at the mean embedding of the class's crops, so the first steps refine the embedding instead of
    pulling it towards random class directions."""
    import math

    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # deterministic cuBLAS
    import torch
    from tqdm import tqdm

    torch.manual_seed(seed)
    if threads:
        torch.set_num_threads(threads)
    if device.startswith("cuda"):
        torch.use_deterministic_algorithms(True, warn_only=True)
        torch.backends.cudnn.benchmark = False
        torch.backends.cudnn.deterministic = True
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    dev = torch.device(device)
    gen = torch.Generator(device=dev).manual_seed(seed)
    cuda = dev.type == "cuda"
    net = make_net(width=width)
    init_id = load_exported(net, init) if init else None
    net = net.to(dev)
    if cuda:  # bf16 tensor cores want channels-last
        net = net.to(memory_format=torch.channels_last)
    W = torch.nn.Parameter((torch.randn(n_classes, DIMS,
                                        generator=torch.Generator().manual_seed(seed + 1))
                            * 0.05).to(dev))
    Xd = torch.from_numpy(X).to(dev)
    Yd = torch.from_numpy(Y.astype(np.int64)).to(dev)
    if init:  # imprint: each class starts at its crops' mean embedding
        net.eval()
        with torch.no_grad():
            sums = torch.zeros(n_classes, DIMS, device=dev)
            for i in range(0, len(Xd), 512):
                e = net(_standardise(torch, Xd[i:i + 512].permute(0, 3, 1, 2).float()))
                sums.index_add_(0, Yd[i:i + 512], e.float())
            seen = sums.norm(dim=1) > 0
            W.data[seen] = torch.nn.functional.normalize(sums[seen], dim=1) \
                * W.data[seen].norm(dim=1, keepdim=True)
    opt = torch.optim.AdamW([{"params": net.parameters(), "weight_decay": 5e-4},
                             {"params": [W], "weight_decay": 0.0}], lr=lr)
    warmup = max(1, min(200, steps // 10))
    total = steps
    bar = tqdm(total=total, desc="training", disable=not progress, file=sys.stderr, mininterval=2)
    net.train()
    if init:  # the folded batch norms stay as they are
        for m in net.modules():
            if isinstance(m, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d)):
                m.eval()
    avg_loss = avg_acc = None
    t_start = time.time()
    step = 0
    while step < total:
        if step == 10:
            t_ten = time.time()
        # the only choice that depends on the machine: say it in the metadata
        if budget_s and step == 40:
            per_step = (time.time() - t_ten) / 30
            fit = int((budget_s - (time.time() - t_start)) / per_step) + step
            if fit < total:
                total = max(min(60, total), fit)
                bar.total = total
                bar.refresh()
        f = (step + 1) / warmup if step < warmup else \
            0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))
        for g in opt.param_groups:
            g["lr"] = lr * f
        if episodes:
            n_des, per = episodes
            k = max(1, (batch * 3 // 4) // 12)
            des = torch.randint(0, n_des, (k,), generator=gen, device=dev)
            two = torch.argsort(torch.rand(k * 6, per, generator=gen, device=dev), dim=1)[:, :2]
            base = (des[:, None] * 6 + torch.arange(6, device=dev)[None]).reshape(-1, 1) * per
            ep_idx = (base + two).reshape(-1)
            idx = torch.cat([ep_idx,
                             torch.randint(0, len(Xd), (batch - len(ep_idx),), generator=gen,
                                           device=dev)])
        else:
            idx = torch.randint(0, len(Xd), (batch,), generator=gen, device=dev)
        xb = _augment(torch, Xd[idx], gen)
        yb = Yd[idx]
        if cuda:
            with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
                emb = net(xb.contiguous(memory_format=torch.channels_last))
            emb = torch.nn.functional.normalize(emb.float(), dim=1)
        else:
            emb = net(xb)
        cos = emb @ torch.nn.functional.normalize(W, dim=1).T
        onehot = torch.nn.functional.one_hot(yb, n_classes).to(cos.dtype)
        loss = torch.nn.functional.cross_entropy(scale * (cos - margin * onehot), yb)
        if episodes:  # supervised contrastive over the batch
            sim = (emb @ emb.T) / tau
            eye = torch.eye(len(yb), device=dev, dtype=torch.bool)
            sim = sim.masked_fill(eye, -1e4)
            pos = (yb[:, None] == yb[None, :]) & ~eye
            logp = sim - torch.logsumexp(sim, dim=1, keepdim=True)
            npos = pos.sum(1)
            has = npos > 0
            supcon = -(logp * pos).sum(1)[has] / npos[has]
            loss = loss + supcon.mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 20 == 0 or step == total - 1:
            now_loss = float(loss.detach())
            now_acc = float((cos.detach().argmax(1) == yb).float().mean())
            avg_loss = now_loss if avg_loss is None else 0.9 * avg_loss + 0.1 * now_loss
            avg_acc = now_acc if avg_acc is None else 0.9 * avg_acc + 0.1 * now_acc
            bar.set_postfix(loss=f"{avg_loss:.3f}", acc=f"{avg_acc:.3f}")
        bar.update(1)
        step += 1
    bar.close()
    net.eval()
    net = net.to(memory_format=torch.contiguous_format)
    not_die = torch.nn.functional.normalize(W[NOT_DIE].detach(), dim=0).cpu().numpy()
    return net.cpu(), not_die, {"final_loss": round(avg_loss or 0.0, 4),
                                "final_train_acc": round(avg_acc or 0.0, 4), "steps_done": total,
                                **({"init": init_id} if init else {})}


def model_id(net) -> str:
    """A short hash of the weights: dice-set files carry it, a file made with other weights is
    refused."""
    h = hashlib.sha256()
    for k, v in sorted(net.state_dict().items()):
        h.update(k.encode())
        h.update(v.detach().cpu().numpy().tobytes())
    return "face-embed-" + h.hexdigest()[:16]


def export_onnx(net, path: Path, info: dict) -> str:
    import onnx
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    mid = model_id(net)
    dummy = torch.zeros(1, 3, SIZE, SIZE)
    torch.onnx.export(net, dummy, str(path), input_names=["crops"], output_names=["embedding"],
                      dynamic_axes={"crops": {0: "n"}, "embedding": {0: "n"}}, opset_version=17,
                      dynamo=False)
    model = onnx.load(str(path))
    meta = {"model_id": mid, "kind": "face-embedding", "dims": str(DIMS), "size": str(SIZE),
            "context": str(CONTEXT),
            "input": f"standardised BGR crops 3x{SIZE}x{SIZE} (vision.read.standardise)",
            "output": f"embedding: L2-normalised, {DIMS} dims",
            "held_out": json.dumps(list(HELD_OUT)), **{k: json.dumps(v) for k, v in info.items()}}
    for k, v in meta.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = k, v
    onnx.save(model, str(path))
    return mid


def halve_weights(src: Path, dst: Path) -> int:
    """Store the float32 weights of an exported model as float16, each followed by a Cast back to
    float32: the file is half as large, onnxruntime folds the casts when it loads the model, and the
    net still computes in float32 (the embeddings move by ~1e-3, far below what separates faces).
    The metadata, model id included, is kept. Returns the new file's size in bytes."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(src))
    graph = model.graph
    keep, casts = [], []
    for init in graph.initializer:
        w = numpy_helper.to_array(init)
        if w.dtype != np.float32 or w.size < 256:
            keep.append(init)
            continue
        half = numpy_helper.from_array(w.astype(np.float16), init.name + "_f16")
        keep.append(half)
        casts.append(helper.make_node("Cast", [half.name], [init.name], to=onnx.TensorProto.FLOAT,
                                      name=init.name + "_to_f32"))
    del graph.initializer[:]
    graph.initializer.extend(keep)
    nodes = casts + list(graph.node)
    del graph.node[:]
    graph.node.extend(nodes)
    onnx.checker.check_model(model)
    dst.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(dst))
    return dst.stat().st_size


def main(argv=None) -> int:
    from .data import default_data_root

    ap = argparse.ArgumentParser(prog="python -m vision.training.train_embed",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--preset", choices=sorted(PRESETS), default=None,
                    help="sizes: gpu (default with --device cuda), cpu (2 cores, ~35 min), tiny (a "
                         "smoke test)")
    ap.add_argument("--device", default="cpu", help="cpu or cuda")
    ap.add_argument("--data", type=Path, default=default_data_root(),
                    help="folder of labelled real sets")
    ap.add_argument("--designs", type=int, default=None)
    ap.add_argument("--per-face", type=int, default=None, help="renders per face of each design")
    ap.add_argument("--real-per-die", type=int, default=None,
                    help="crops per real die (0: no real photos)")
    ap.add_argument("--seen-per-face", type=int, default=0,
                    help="extra renders per face of each seen design (special_dice.SEEN_DESIGNS), "
                         "beyond their tenth of the random designs")
    ap.add_argument("--not-die", type=int, default=None)
    ap.add_argument("--steps", type=int, default=None)
    ap.add_argument("--batch", type=int, default=None)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="rendering processes")
    ap.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    ap.add_argument("--supcon", type=int, default=1,
                    help="1: add the in-batch supervised contrastive loss "
                    "over whole designs (default); 0: CosFace only")
    ap.add_argument("--max-seconds", type=float, default=None,
                    help="wall-time budget of the whole run: fewer steps when the machine is "
                         "slower (the steps done are in the metadata; --steps N without it "
                         "reproduces a run)")
    ap.add_argument("--cache", type=Path, default=None,
                    help="npz to reuse/store the rendered crops")
    ap.add_argument("--build-only", action="store_true",
                    help="render the crops into --cache and stop (several trainings can then share "
                         "them)")
    ap.add_argument("--init", type=Path, default=None,
                    help="fine-tune this exported embedding (e.g. models/face_embed.onnx) instead "
                         "of starting afresh")
    ap.add_argument("--width", type=float, default=None,
                    help="channel multiplier of the net (default 1.0, or --init's; the shipped "
                         "model: 2.0; cost per die ~ width squared)")
    ap.add_argument("--half-weights", action="store_true",
                    help="store the weights as float16 (half the file; the net computes in "
                         "float32)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    if args.width is None:
        args.width = exported_width(args.init) if args.init else 1.0
    preset = PRESETS[args.preset or ("gpu" if args.device.startswith("cuda") else "cpu")]
    cfg = {k: (getattr(args, k) if getattr(args, k) is not None else v) for k, v in preset.items()}
    t0 = time.time()
    if args.cache and args.cache.is_file():
        z = np.load(args.cache)
        X, Y, n_classes, info = z["X"], z["Y"], int(z["n_classes"]), json.loads(str(z["info"]))
    else:
        X, Y, n_classes, info = build_dataset(cfg["designs"], cfg["per_face"], args.data,
                                              cfg["real_per_die"], cfg["not_die"], args.seed,
                                              args.workers, seen_per_face=args.seen_per_face)
        if args.cache:
            args.cache.parent.mkdir(parents=True, exist_ok=True)
            np.savez(args.cache, X=X, Y=Y, n_classes=n_classes, info=json.dumps(info))
    t_data = time.time() - t0
    if args.build_only:
        if not args.cache:
            ap.error("--build-only needs --cache")
        print(f"dataset: {len(Y)} crops of {n_classes} classes in {t_data:.0f} s, stored in "
              f"{args.cache}", file=sys.stderr)
        return 0
    print(f"dataset: {len(Y)} crops of {n_classes} classes in {t_data:.0f} s: {info}",
          file=sys.stderr)
    budget = args.max_seconds - (time.time() - t0) - 20 if args.max_seconds else None
    net, not_die, stats = train(X, Y, n_classes, cfg["steps"], cfg["batch"], args.seed, args.device,
                                threads=args.threads, lr=args.lr, budget_s=budget, init=args.init,
                                width=args.width,
                                episodes=(info["designs"], info["renders_per_face"])
                                if args.supcon and info["renders_per_face"] >= 2 else None)
    info = {**info, **stats, "supcon": bool(args.supcon), "seed": args.seed, "steps": cfg["steps"],
            "batch": cfg["batch"], "classes": n_classes, "width": args.width, "device": args.device,
            "data_s": round(t_data), "train_s": round(time.time() - t0 - t_data),
            "not_die_centre": [round(float(v), 5) for v in not_die]}
    mid = export_onnx(net, args.out, info)
    if args.half_weights:
        halve_weights(args.out, args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} kB, {mid}) in "
          f"{time.time() - t0:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Random die designs as plain data (``random_design``) and the mask of each face's symbol
(``face_mask``): pips, numerals, numerals with pips, tally bars, random glyphs, or one of the seen
special designs. Nothing here produces what ``HELD_OUT`` names (the held-out designs' traits)."""
from __future__ import annotations

import cv2
import numpy as np

FACE = 64  # upright face canvas
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
    from ..special_dice import SEEN_DESIGNS
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
        from ..special_dice import FACE_PX, _symbol_mask, design_faces as sd_faces
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

"""Synthetic table scenes with exact labels (numpy + OpenCV only).

``render_scene(rng)`` draws a table (plain, felt, wood grain, tray with a rim, gradients of light)
with pip dice on it: any body colour from ``SYNTH_COLOURS`` (plain, marbled or translucent), pips
of a contrasting colour in several styles, any size and rotation, oblique views (side faces with
distractor pips), shadows, glare, touching dice, then a global perspective warp, colour cast,
blur, noise and JPEG compression. Every die comes back with its value, its axis-aligned box (the
whole die as seen), its four top-face corners and the name of its body colour.

The named body colours are sampled from hue/saturation/value *ranges* written for this renderer,
independently of the reference colours that ``vision.colour`` names against.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from ..colour import bgr_to_lab

__all__ = ["SynthDie", "SynthScene", "SYNTH_COLOURS", "PIP_LAYOUT", "render_scene", "sample_colour",
           "draw_dice_set"]

# name -> (hue range in degrees 0-360, saturation range 0-1, value range 0-1)
SYNTH_COLOURS: dict[str, tuple[tuple[float, float], tuple[float, float], tuple[float, float]]] = {
    "white": ((0, 360), (0.0, 0.08), (0.86, 1.0)),
    "black": ((0, 360), (0.0, 0.3), (0.04, 0.18)),
    "grey": ((0, 360), (0.0, 0.07), (0.4, 0.65)),
    "red": ((-8, 6), (0.75, 1.0), (0.6, 0.95)),
    "orange": ((18, 30), (0.8, 1.0), (0.88, 1.0)),
    "yellow": ((48, 58), (0.75, 1.0), (0.88, 1.0)),
    "green": ((105, 150), (0.6, 1.0), (0.45, 0.8)),
    "blue": ((210, 232), (0.7, 1.0), (0.5, 0.9)),
    "purple": ((268, 290), (0.55, 0.9), (0.35, 0.7)),
    "pink": ((320, 340), (0.35, 0.6), (0.9, 1.0)),
    "brown": ((20, 32), (0.6, 0.85), (0.3, 0.5)),
}

# pip centres in face coordinates (-1..1), per value
PIP_LAYOUT: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}


# distance between a face's two nearest pips in PIP_LAYOUT units (a single pip: none)
_NEAREST_PIPS = {v: min((math.dist(a, b) for a, b in itertools.combinations(pips, 2)),
                        default=math.inf) for v, pips in PIP_LAYOUT.items()}


@dataclass(frozen=True)
class SynthDie:
    value: int
    box: tuple[int, int, int, int]
    top: tuple[tuple[float, float], ...]  # four corners of the top face
    colour: str
    body_bgr: tuple[int, int, int]
    kind: str  # plain, marbled, translucent


@dataclass(frozen=True)
class SynthScene:
    image: np.ndarray
    dice: tuple[SynthDie, ...]
    light: tuple = ()  # (per-channel gains (B, G, R), gamma) of the scene's colour cast


def _hsv_to_bgr(h: float, s: float, v: float) -> np.ndarray:
    hsv = np.array([[[(h % 360) / 2.0, s * 255, v * 255]]], np.float32)
    return cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def sample_colour(rng: np.random.Generator, name: str) -> np.ndarray:
    (h0, h1), (s0, s1), (v0, v1) = SYNTH_COLOURS[name]
    return _hsv_to_bgr(rng.uniform(h0, h1), rng.uniform(s0, s1), rng.uniform(v0, v1))


KINDS, KIND_SHARES = ("plain", "marbled", "translucent"), (0.75, 0.15, 0.1)


def draw_dice_set(rng: np.random.Generator, names) -> dict[str, tuple[np.ndarray, str]]:
    """One physical die per colour name: its body colour (drawn from ``SYNTH_COLOURS``) and kind,
    for ``render_scene(dice_set=...)``: a game's own dice, the same in every photo of a table."""
    return {str(n): (sample_colour(rng, str(n)), str(rng.choice(KINDS, p=KIND_SHARES)))
            for n in names}


def _smooth_noise(rng, h, w, cell) -> np.ndarray:
    small = rng.random((max(2, h // cell + 2), max(2, w // cell + 2))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def _background(rng, h, w) -> np.ndarray:
    kind = rng.choice(["plain", "felt", "wood", "tray", "paper"], p=[0.2, 0.2, 0.25, 0.2, 0.15])
    if kind == "felt":
        base = _hsv_to_bgr(rng.choice([130, 140, 200, 0, 220, 30]) + rng.uniform(-10, 10),
                           rng.uniform(0.3, 0.9), rng.uniform(0.2, 0.6))
    elif kind == "wood":
        base = _hsv_to_bgr(rng.uniform(25, 40), rng.uniform(0.15, 0.6), rng.uniform(0.45, 0.95))
    elif kind == "paper":
        base = np.full(3, rng.uniform(200, 250), np.float32)
    else:
        base = _hsv_to_bgr(rng.uniform(0, 360), rng.uniform(0, 0.5) * rng.random(),
                           rng.uniform(0.15, 0.95))
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    if kind == "wood":
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ang = rng.uniform(0, np.pi)
        u = xx * np.cos(ang) + yy * np.sin(ang)
        warp = _smooth_noise(rng, h, w, 80) * rng.uniform(20, 60)
        grain = np.sin((u + warp) / rng.uniform(3, 12)) * 0.5 + 0.5
        img *= (1 - rng.uniform(0.05, 0.2) * grain)[..., None]
    elif kind == "felt":
        img += rng.normal(0, rng.uniform(3, 10), (h, w, 1)).astype(np.float32)
    elif kind == "tray":
        t = int(rng.uniform(0.02, 0.08) * min(h, w))
        rim = _hsv_to_bgr(rng.uniform(0, 360), rng.uniform(0, 0.4), rng.uniform(0.0, 0.3))
        x0, y0 = rng.integers(-w // 4, w // 6), rng.integers(-h // 4, h // 6)
        x1, y1 = w - rng.integers(-w // 4, w // 6), h - rng.integers(-h // 4, h // 6)
        cv2.rectangle(img, (int(x0), int(y0)), (int(x1), int(y1)), rim.tolist(), t)
    # low-frequency light and a little texture
    light = 1 + (_smooth_noise(rng, h, w, max(h, w) // 3) - 0.5) * rng.uniform(0, 0.5)
    img *= light[..., None]
    img += (_smooth_noise(rng, h, w, 6) - 0.5)[..., None] * rng.uniform(0, 20)
    return img


def _rounded_square(corners: np.ndarray, radius: float, n: int = 4) -> np.ndarray:
    """Polygon of a square given by 4 corners with the corners rounded (fraction 0..0.5)."""
    pts = []
    for i in range(4):
        p_prev, p, p_next = corners[i - 1], corners[i], corners[(i + 1) % 4]
        a = p + (p_prev - p) * radius
        b = p + (p_next - p) * radius
        for t in np.linspace(0, 1, n):
            pts.append((1 - t) ** 2 * a + 2 * (1 - t) * t * p + t ** 2 * b)
    return np.array(pts, np.float32)


def _mask(shape, poly) -> np.ndarray:
    """uint8 mask (0/255, antialiased) of the polygon ``poly`` in an image of ``shape``."""
    mask = np.zeros(shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(poly * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    return mask


def _fill(img, poly, colour, alpha=1.0):
    mask = _mask(img.shape, poly)
    m = (mask.astype(np.float32) / 255.0 * alpha)[..., None]
    img *= 1 - m
    img += m * np.asarray(colour, np.float32)
    return mask


def _see_through_pips(rng, img, top_poly, top, R, cx, cy, half, side, value, pip, face,
                      tilt_vec) -> None:
    """The hidden faces' pips seen through a translucent die's top face: the bottom face's
    (7 - ``value``, mirrored, as seen from above, shifted by the view's slant and by refraction)
    and, on one die in two, one or two side faces' pips squeezed along the top face's edges;
    blurred and faint, inside the top face only. Smoky and clear casino dice show them, and a
    reader that has seen only opaque faces counts them in (docs/vision.md, "Ink views")."""
    h, w = img.shape[:2]
    layer = np.zeros((h, w), np.float32)
    quarter = np.array([[0, -1], [1, 0]], np.float32)
    turn = np.linalg.matrix_power(quarter, int(rng.integers(0, 4)))
    shift = tilt_vec * rng.uniform(0.4, 1.0) + rng.uniform(-0.08, 0.08, 2) * side
    spread = rng.uniform(0.4, 0.6) * half * rng.uniform(0.8, 1.0)
    r = side * rng.uniform(0.07, 0.11)
    for px, py in PIP_LAYOUT[7 - value]:
        p = (np.array([-px, py], np.float32) @ turn.T) * spread @ R.T + [cx, cy] + shift
        cv2.circle(layer, (int(p[0] * 16), int(p[1] * 16)), max(1, int(r * 16)), 1.0, -1,
                   cv2.LINE_AA, shift=4)
    if rng.random() < 0.5:
        others = [v for v in range(1, 7) if v not in (value, 7 - value)]
        for e in rng.choice(4, size=int(rng.integers(1, 3)), replace=False):
            a, b = top[e], top[(e + 1) % 4]
            along = (b - a) / max(float(np.linalg.norm(b - a)), 1e-6)
            inward = np.array([cx, cy], np.float32) - (a + b) / 2
            inward /= max(float(np.linalg.norm(inward)), 1e-6)
            ang = float(np.degrees(np.arctan2(along[1], along[0])))
            for px, py in PIP_LAYOUT[int(rng.choice(others))]:
                p = (a + b) / 2 + along * px * spread + inward * (0.22 + 0.1 * (py + 1)) * half
                cv2.ellipse(layer, (int(p[0] * 16), int(p[1] * 16)),
                            (max(1, int(r * 16)), max(1, int(r * 0.4 * 16))), ang, 0, 360, 1.0,
                            -1, cv2.LINE_AA, shift=4)
    inside = _mask(img.shape, top_poly)
    layer = cv2.GaussianBlur(layer, (0, 0), max(0.5, side * rng.uniform(0.015, 0.05)))
    m = (layer * (inside.astype(np.float32) / 255.0) * rng.uniform(0.2, 0.55))[..., None]
    ink = np.asarray(pip, np.float32) * rng.uniform(0.6, 1.0) + np.asarray(face, np.float32) \
        * rng.uniform(0.0, 0.4)
    img *= 1 - m
    img += m * np.clip(ink, 0, 255)


_LETTERS = "ABCDEFGHKMNPRSTWXZ"


def _emblem_mask(rng, n: int = 64) -> np.ndarray:
    """A printed emblem on an ``n`` x ``n`` canvas (float mask 0-1), as many dice carry in place
    of their one pip: a spiral, one or two letters, a star, a ring around a small disc, or a
    disc with a letter cut out of it. Centred, one piece or two letters close together, larger
    than a pip: nothing like the spread pips of another face."""
    m = np.zeros((n, n), np.uint8)
    c = n / 2
    kind = rng.choice(["spiral", "letters", "star", "ring", "cut_disc"])
    thick = max(2, int(n * rng.uniform(0.05, 0.1)))
    if kind == "spiral":
        turns = rng.uniform(1.5, 3.0)
        t = np.linspace(0, 2 * np.pi * turns, 120)
        r = n * rng.uniform(0.3, 0.45) * t / t[-1]
        sign = 1 if rng.random() < 0.5 else -1
        pts = np.stack([c + r * np.cos(sign * t), c + r * np.sin(sign * t)], 1)
        cv2.polylines(m, [np.round(pts * 16).astype(np.int32)], False, 255, thick, cv2.LINE_AA,
                      shift=4)
    elif kind == "letters":
        text = "".join(rng.choice(list(_LETTERS), int(rng.integers(1, 3))))
        font = int(rng.choice([cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX,
                               cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX]))
        (tw, th), _ = cv2.getTextSize(text, font, 1.0, 2)
        scale = n * rng.uniform(0.5, 0.8) / max(tw, th)
        width = max(1, int(round(2 * scale * rng.uniform(0.8, 1.6))))
        (tw, th), _ = cv2.getTextSize(text, font, scale, width)
        cv2.putText(m, text, (int(c - tw / 2), int(c + th / 2)), font, scale, 255, width,
                    cv2.LINE_AA)
    elif kind == "star":
        k = int(rng.integers(5, 9))
        outer, inner = n * rng.uniform(0.3, 0.45), rng.uniform(0.4, 0.6)
        a = np.arange(2 * k) * np.pi / k + rng.uniform(0, np.pi)
        r = np.where(np.arange(2 * k) % 2 == 0, outer, outer * inner)
        pts = np.stack([c + r * np.cos(a), c + r * np.sin(a)], 1)
        cv2.fillPoly(m, [np.round(pts * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    elif kind == "ring":
        cv2.circle(m, (int(c), int(c)), int(n * rng.uniform(0.3, 0.42)), 255, thick, cv2.LINE_AA)
        cv2.circle(m, (int(c), int(c)), int(n * rng.uniform(0.08, 0.16)), 255, -1, cv2.LINE_AA)
    else:
        cv2.circle(m, (int(c), int(c)), int(n * rng.uniform(0.3, 0.42)), 255, -1, cv2.LINE_AA)
        font = cv2.FONT_HERSHEY_DUPLEX
        letter = str(rng.choice(list(_LETTERS)))
        (tw, th), _ = cv2.getTextSize(letter, font, 1.0, 2)
        scale = n * 0.35 / max(tw, th)
        (tw, th), _ = cv2.getTextSize(letter, font, scale, 2)
        cv2.putText(m, letter, (int(c - tw / 2), int(c + th / 2)), font, scale, 0,
                    max(1, int(scale * 2)), cv2.LINE_AA)
    return m.astype(np.float32) / 255


def _draw_emblem(rng, img, top, face, pip):
    """An emblem (``_emblem_mask``) printed on the top face whose corners are ``top``, in the
    pip colour or, on one die in four, another colour that stands out from the face."""
    n = 64
    colour = pip
    if rng.random() < 0.25:
        other = sample_colour(rng, str(rng.choice(["red", "blue", "green", "black", "white",
                                                   "yellow"])))
        if np.abs(other - face).sum() > 150:
            colour = other
    centre = top.mean(0)
    fill = rng.uniform(0.55, 0.85)   # the emblem's canvas as a share of the face
    corners = (centre + (top - centre) * fill).astype(np.float32)
    src = np.float32([[0, 0], [n, 0], [n, n], [0, n]])
    H = cv2.getPerspectiveTransform(src, corners)
    h, w = img.shape[:2]
    x0, y0 = np.floor(corners.min(0)).astype(int)
    x1, y1 = np.ceil(corners.max(0)).astype(int) + 1
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 <= x0 or y1 <= y0:
        return
    shift = np.float32([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]])
    a = cv2.warpPerspective(_emblem_mask(rng, n), shift @ H, (x1 - x0, y1 - y0),
                            flags=cv2.INTER_LINEAR)[..., None]
    patch = img[y0:y1, x0:x1]
    patch *= 1 - a
    patch += a * np.asarray(colour, np.float32)


def _draw_die(rng, img, cx, cy, side, value, body, pip, kind, tilt_vec, compact=0.0,
              see_through=False, logo=False):
    theta = rng.uniform(0, 2 * np.pi)
    c, s = np.cos(theta), np.sin(theta)
    squash = rng.uniform(0.75, 1.0) if np.hypot(*tilt_vec) > 0 else 1.0
    R = np.array([[c, -s], [s, c]], np.float32) @ np.diag([1.0, squash]).astype(np.float32)
    R = np.array([[np.cos(-theta / 3), -np.sin(-theta / 3)],
                  [np.sin(-theta / 3), np.cos(-theta / 3)]], np.float32) @ R if squash < 1 else R
    half = side / 2
    unit = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float32)
    top = (unit * half) @ R.T + np.array([cx, cy], np.float32)
    radius = rng.uniform(0.08, 0.3)
    top_poly = _rounded_square(top, radius)
    # shadow
    sh = rng.uniform(0.05, 0.25) * side
    sdir = rng.uniform(0, 2 * np.pi)
    far_poly = top_poly + tilt_vec + [sh * np.cos(sdir), sh * np.sin(sdir)]
    shadow = cv2.convexHull(np.vstack([top_poly, far_poly]).astype(np.float32))[:, 0]
    shadow_layer = np.zeros(img.shape[:2], np.uint8)
    cv2.fillPoly(shadow_layer, [np.round(shadow).astype(np.int32)], 255)
    k = int(side * 0.2) | 1
    shadow_layer = cv2.GaussianBlur(shadow_layer, (k, k), 0).astype(np.float32) / 255 \
        * rng.uniform(0.1, 0.5)
    img *= 1 - shadow_layer[..., None]
    alpha = rng.uniform(0.6, 0.85) if kind == "translucent" else 1.0
    body_poly = top_poly
    if np.hypot(*tilt_vec) > 0:  # body extruded towards the camera's side
        body_poly = cv2.convexHull(np.vstack([top_poly, top_poly + tilt_vec])
                                   .astype(np.float32))[:, 0]
        _fill(img, body_poly, body * rng.uniform(0.55, 0.85), alpha)
        # distractor pips on the visible side faces
        if rng.random() < 0.7:
            for _ in range(rng.integers(1, 6)):
                t = rng.uniform(0.2, 0.8)
                e = rng.integers(0, 4)
                p = top[e] * (1 - t) + top[(e + 1) % 4] * t + tilt_vec * rng.uniform(0.3, 0.7)
                pt = (float(p[0]), float(p[1]))
                if cv2.pointPolygonTest(body_poly.reshape(-1, 1, 2), pt, False) > 0 and \
                        cv2.pointPolygonTest(top_poly.reshape(-1, 1, 2), pt, False) < 0:
                    r = side * rng.uniform(0.05, 0.09)
                    cv2.ellipse(img, (int(p[0] * 16), int(p[1] * 16)),
                                (int(r * 16), int(r * 0.6 * 16)),
                                float(np.degrees(np.arctan2(tilt_vec[1], tilt_vec[0]))), 0, 360,
                                (pip * 0.8).tolist(), -1, cv2.LINE_AA, shift=4)
    face = body * rng.uniform(0.95, 1.1)
    if kind == "marbled":
        mask = _fill(img, top_poly, face, alpha)
        other = sample_colour(rng, str(rng.choice(list(SYNTH_COLOURS))))
        n = _smooth_noise(rng, img.shape[0], img.shape[1], max(3, int(side / 4)))
        m = ((n > 0.55).astype(np.float32) * (mask > 0) * rng.uniform(0.3, 0.6))[..., None]
        img *= 1 - m
        img += m * other
    else:
        _fill(img, top_poly, face, alpha)
    if see_through:
        _see_through_pips(rng, img, top_poly, top, R, cx, cy, half, side, value, pip, face,
                          tilt_vec)
    # pips
    spread = rng.uniform(0.45, 0.6) * half
    r = side * rng.uniform(0.075, 0.115)
    if value == 1:
        r *= rng.uniform(1.0, 1.8)
    if compact and rng.random() < compact:
        # a design with its pips nearer the centre than the corners (such dice exist: a reader
        # that has seen corner pips only reads their 2 as a 1), never so near that pips touch
        lo = max(0.2, 2.6 * r / (_NEAREST_PIPS[value] * half))
        if lo < 0.45:
            spread = rng.uniform(lo, 0.45) * half
    style = rng.choice(["disc", "ring", "square"], p=[0.8, 0.1, 0.1])
    if logo:   # a one printed as an emblem instead of its pip
        _draw_emblem(rng, img, top, face, pip)
    for px, py in () if logo else PIP_LAYOUT[value]:
        p = np.array([px, py], np.float32) * spread @ R.T + [cx, cy]
        axes = (r, r * squash)
        ang = float(np.degrees(np.arctan2(R[1, 0], R[0, 0])))
        centre = (int(p[0] * 16), int(p[1] * 16))
        ax = (max(1, int(axes[0] * 16)), max(1, int(axes[1] * 16)))
        if style == "square":
            q = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float32) * r * 0.85 @ R.T + p
            cv2.fillPoly(img, [np.round(q * 16).astype(np.int32)], pip.tolist(), cv2.LINE_AA,
                         shift=4)
        else:
            cv2.ellipse(img, centre, ax, ang, 0, 360, pip.tolist(), -1, cv2.LINE_AA, shift=4)
            if style == "ring":
                cv2.ellipse(img, centre, (ax[0] // 2, ax[1] // 2), ang, 0, 360, face.tolist(), -1,
                            cv2.LINE_AA, shift=4)
    # glare
    if rng.random() < 0.35:
        g = np.zeros(img.shape[:2], np.float32)
        gp = top[rng.integers(0, 4)] * 0.4 + np.array([cx, cy]) * 0.6
        cv2.ellipse(g, (int(gp[0]), int(gp[1])), (max(1, int(side * rng.uniform(0.08, 0.3))),
                                                  max(1, int(side * rng.uniform(0.04, 0.15)))),
                    rng.uniform(0, 180), 0, 360, 1.0, -1)
        k = int(side * 0.15) | 1
        g = cv2.GaussianBlur(g, (k, k), 0) * rng.uniform(0.3, 0.9)
        img += g[..., None] * (255 - img)
    hull = np.vstack([body_poly, top_poly])
    return top, hull


def hue_contrast_pip(rng: np.random.Generator, body) -> np.ndarray:
    """A pip colour (BGR, float32) within 3-15 of the body's lightness (CIE L*) and at least 30
    from it in Lab: yellow pips on an orange die, gold on red, white on pale yellow, red on smoky
    black. Real dice have such pips, and the other pip colours here keep a lightness contrast of at
    least 60 grey levels, so a reader trained on them alone reads these poorly (the shipped
    readers on 2-D scenes whose every die has such pips, `python bench/vision_accuracy.py
    --synth 100 --hue-pips 1`: faces 93.8 % against 99.0 %; docs/vision.md, "Pips told by
    hue"). When no such colour is found in 40 draws (a body so
    light or dark that no colourful pip is near its lightness), white or black pips."""
    lab = bgr_to_lab(body).astype(np.float64)
    for _ in range(40):
        dl = rng.uniform(3.0, 15.0) * (1 if rng.random() < 0.5 else -1)
        hue, chroma = rng.uniform(0, 2 * np.pi), rng.uniform(25.0, 70.0)
        want = np.array([np.clip(lab[0] + dl, 0, 100), chroma * np.cos(hue), chroma * np.sin(hue)],
                        np.float32)
        bgr = cv2.cvtColor(want.reshape(1, 1, 3), cv2.COLOR_LAB2BGR)[0, 0]
        bgr = np.clip(bgr * 255.0, 0, 255).astype(np.float32)
        got = bgr_to_lab(bgr).astype(np.float64)  # out of gamut colours clip: measure what is drawn
        if 3.0 <= abs(got[0] - lab[0]) <= 15.0 and np.linalg.norm(got - lab) >= 30.0:
            return bgr
    return np.full(3, 255.0 if lab[0] < 55 else 0.0, np.float32)


def render_scene(rng: np.random.Generator, size: tuple[int, int] | None = None,
                 n_dice: int | None = None, colours: list[str] | None = None,
                 side_range: tuple[float, float] | None = None, distinct: bool = False,
                 light: tuple | None = None, dice_set: dict | None = None,
                 compact_pips: float = 0.0, hue_pips: float = 0.0,
                 see_through: float = 0.0, logo_ones: float = 0.0) -> SynthScene:
    """One labelled scene. ``size`` is (height, width); ``colours`` limits the body colour names;
    ``distinct``: every die has another colour (a game's dice set, e.g. Qwinto's orange, yellow and
    purple die), so at most ``len(colours)`` dice. ``light``: the colour cast of another scene
    (its ``.light``), for a second photo under the same light (calibration); the random draws are
    the same either way, so a scene's other contents do not depend on it. ``dice_set``: one
    physical die per colour name, ``{name: (body BGR, kind)}`` (``draw_dice_set``), so that two
    photos show the same dice; the random draws are again the same either way. ``compact_pips``:
    the share of dice whose pips sit nearer the centre (0: every scene as before, draw for draw).
    ``hue_pips``: the share of dice whose pips differ from the body by hue more than by lightness
    (``hue_contrast_pip``; 0: every scene as before, draw for draw). ``see_through``: the
    share of dice drawn translucent with their hidden faces' pips showing through
    (``_see_through_pips``; 0: every scene as before, draw for draw). ``logo_ones``: the share
    of dice showing 1 whose one is a printed emblem (``_emblem_mask``: a spiral, letters, a star),
    as on many makers' dice (0: every scene as before, draw for draw)."""
    if size is None:
        size = [(480, 640), (640, 640), (720, 1280), (640, 480)][rng.integers(0, 4)]
    h, w = size
    img = _background(rng, h, w)
    if n_dice is None:
        n_dice = int(rng.integers(0, 14)) if rng.random() < 0.9 else int(rng.integers(14, 40))
    if side_range is None:
        lo = max(18.0, min(h, w) * 0.035)
        hi = min(h, w) * (0.14 if n_dice > 8 else 0.3)
        side_range = (lo, max(lo + 1, hi))
    mean_side = float(np.exp(rng.uniform(np.log(side_range[0]), np.log(side_range[1]))))
    tilt_dir = rng.uniform(0, 2 * np.pi)
    oblique = rng.random() < 0.4
    names = colours or list(SYNTH_COLOURS)
    if distinct:
        n_dice = min(n_dice, len(names))
        order = [str(v) for v in rng.permutation(names)]
    placed: list[tuple[float, float, float]] = []
    dice = []
    for _ in range(n_dice):
        side = mean_side * rng.uniform(0.85, 1.15)
        for _try in range(30):
            cx = rng.uniform(side, w - side)
            cy = rng.uniform(side, h - side)
            # touching allowed: centres at least ~1.05 sides apart
            if all(np.hypot(cx - px, cy - py) > 0.75 * (side + ps) for px, py, ps in placed):
                break
        else:
            continue
        placed.append((cx, cy, side))
        name = order[len(dice)] if distinct else str(rng.choice(names))
        body = sample_colour(rng, name)
        if dice_set is not None and name in dice_set:
            body = np.asarray(dice_set[name][0], np.float32)
        lum = float(body @ np.array([0.114, 0.587, 0.299]))
        if rng.random() < 0.75:
            pip = np.full(3, rng.uniform(230, 255) if lum < 140 else rng.uniform(0, 40), np.float32)
        else:
            pip = sample_colour(rng,
                                str(rng.choice(["red", "yellow", "white", "black", "blue",
                                                "green"])))
            if abs(float(pip @ np.array([0.114, 0.587, 0.299])) - lum) < 60:
                pip = np.full(3, 255.0 if lum < 140 else 0.0, np.float32)
        if hue_pips and rng.random() < hue_pips:
            pip = hue_contrast_pip(rng, body)
        kind = str(rng.choice(KINDS, p=KIND_SHARES))
        if dice_set is not None and name in dice_set:
            kind = dice_set[name][1]
        ghost = bool(see_through and rng.random() < see_through)
        if ghost:
            kind = "translucent"
        tilt = np.array([np.cos(tilt_dir), np.sin(tilt_dir)], np.float32) * side \
            * rng.uniform(0.1, 0.45) if oblique else np.zeros(2, np.float32)
        value = int(rng.integers(1, 7))
        logo = bool(logo_ones and value == 1 and rng.random() < logo_ones)
        top, hull = _draw_die(rng, img, cx, cy, side, value, body, pip, kind, tilt,
                              compact_pips, ghost, logo)
        dice.append((value, top, hull, name, body, kind))
    # global: perspective, colour cast, blur, noise, jpeg
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    j = 0.06 * min(h, w) * rng.random()
    dst = (src + rng.uniform(-j, j, src.shape)).astype(np.float32)
    H = cv2.getPerspectiveTransform(src, dst)
    img = cv2.warpPerspective(np.clip(img, 0, 255), H, (w, h), borderMode=cv2.BORDER_REFLECT)
    gains = rng.uniform(0.8, 1.2, 3).astype(np.float32)
    gamma = float(rng.uniform(0.7, 1.4))
    if light is not None:
        gains, gamma = np.asarray(light[0], np.float32), float(light[1])
    img *= gains
    img = 255.0 * (np.clip(img, 0, 255) / 255.0) ** gamma
    if rng.random() < 0.6:
        sigma = rng.uniform(0.3, 1.6)
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    if rng.random() < 0.15:
        k = int(rng.integers(3, 8))
        kern = np.zeros((k, k), np.float32)
        kern[k // 2] = 1.0 / k
        M = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
        kern = cv2.warpAffine(kern, M, (k, k))
        img = cv2.filter2D(img, -1, kern / max(kern.sum(), 1e-6))
    img += rng.normal(0, rng.uniform(0, 6), img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    ok, enc = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 96))])
    out = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    labelled = []
    for value, top, hull, name, body, kind in dice:
        t = cv2.perspectiveTransform(top.reshape(-1, 1, 2), H).reshape(-1, 2)
        hh = cv2.perspectiveTransform(hull.reshape(-1, 1, 2).astype(np.float32), H).reshape(-1, 2)
        x0, y0 = np.floor(hh.min(0)).astype(int)
        x1, y1 = np.ceil(hh.max(0)).astype(int)
        box = (max(0, int(x0)), max(0, int(y0)), min(w, int(x1)), min(h, int(y1)))
        labelled.append(SynthDie(value, box, tuple(map(tuple, t.tolist())), name,
                                 tuple(int(v) for v in np.clip(body, 0, 255)), kind))
    return SynthScene(out, tuple(labelled), (tuple(float(g) for g in gains), gamma))

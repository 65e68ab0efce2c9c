"""A design's face drawn upright in colour: body and ink colours drawn per render, body textures
(plastic, wood, marbled, translucent, matte), printed, engraved or outlined symbols."""
from __future__ import annotations

import cv2
import numpy as np

from .designs import FACE, _seen, face_mask


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
        from ..special_dice import CHOICE_COLOURS, _colours_for
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
        from ..special_dice import design_faces as sd_faces, render_face as sd_render
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

"""A drawn face placed on a table patch as a camera sees it (rotation, perspective, shadow, darker
sides, glare), cropped with a finder-like jittered box, then light, blur, scale, noise and JPEG;
and crops that are no die."""
from __future__ import annotations

import cv2
import numpy as np

from ...read import CONTEXT, crop_square
from .designs import _seen, random_design
from .faces import _colours, _hsv, render_face
from .net import SIZE

PATCH = 96  # table patch the die is drawn on


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
        from ..special_dice import add_glare
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

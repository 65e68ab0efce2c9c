"""Renders of special dice: Kuh Vadis (1-5 and a cow) and The Choice (a number and a colour).

No public photos of these dice exist, so they are rendered in several plausible *designs*. A
design is a body style and a symbol set:

* bodies: ``plastic`` (flat colour, soft light gradient, glare), ``wood`` (beige to brown grain,
  matte), and, kept apart for the held-out measurement, ``stone`` (speckled, matte);
* Kuh Vadis symbols: faces 1-5 as ``pips`` or printed ``numerals``; the cow as a ``head`` (horns,
  ears, snout), a ``hide`` (cow-print patches), ``horns`` (a pair of horns over a bell), and, held
  out, a ``silhouette`` (body, legs, head, tail); each cow ``printed`` (flat ink) or ``engraved``
  (dark ink with a light rim, as burnt or cut into wood);
* The Choice: every face a number and a colour (red, yellow, green, blue, purple, grey), as
  ``numeral`` (a big printed numeral), ``pips``, or ``numeral_pips`` (numeral and small pips), the
  colour on the ``face`` (coloured face, white or black symbol) or on the ``symbol`` (white or
  wooden face, coloured symbol); held out: ``roman`` numerals.

Each face is drawn upright on its own canvas (body texture, then the symbol) and warped into the
scene at the die's rotation and size, on ``vision.training.synth``'s table backgrounds, with its
shadow, glare, blur, noise and JPEG compression. Labels are exact: ``value`` (1..6 or ``"cow"``),
the face's ``colour`` (The Choice) or the body's colour name, and the die's box.

The face-to-colour mapping of the real The Choice dice is unknown, so the renders draw a face's
colour independently of its number (``choice_faces``): a reader cannot learn one from the other.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .synth import _background, sample_colour

__all__ = ["Design", "SpecialDie", "SpecialScene", "KUH_VADIS_FACES", "CHOICE_COLOURS",
           "SEEN_DESIGNS", "HELD_OUT_DESIGNS", "render_face", "draw_special_die",
           "render_special_scene", "design_faces", "choice_faces"]

KUH_VADIS_FACES = (1, 2, 3, 4, 5, "cow")
CHOICE_COLOURS = ("red", "yellow", "green", "blue", "purple", "grey")
FACE_PX = 96  # side of the upright face canvas

PIPS = {
    1: ((0, 0),), 2: ((-1, -1), (1, 1)), 3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)), 5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}
ROMAN = {1: "I", 2: "II", 3: "III", 4: "IV", 5: "V", 6: "VI"}


@dataclass(frozen=True)
class Design:
    name: str
    game: str  # "kuh_vadis" or "the_choice"
    body: str  # plastic, wood, stone
    symbols: str  # pips, numerals (Kuh Vadis 1-5); numeral, pips, numeral_pips, roman (The Choice)
    cow: str = "head"  # head, hide, horns, silhouette (Kuh Vadis)
    cow_finish: str = "printed"  # printed, engraved
    colour_on: str = "face"  # face or symbol (The Choice)
    font: int = cv2.FONT_HERSHEY_SIMPLEX


SEEN_DESIGNS: tuple[Design, ...] = (
    Design("kv-plastic-pips-head", "kuh_vadis", "plastic", "pips", "head", "printed"),
    Design("kv-wood-pips-head-engraved", "kuh_vadis", "wood", "pips", "head", "engraved"),
    Design("kv-plastic-numerals-hide", "kuh_vadis", "plastic", "numerals", "hide", "printed",
           font=cv2.FONT_HERSHEY_DUPLEX),
    Design("kv-wood-pips-horns-engraved", "kuh_vadis", "wood", "pips", "horns", "engraved"),
    Design("tc-plastic-numeral-face", "the_choice", "plastic", "numeral", colour_on="face",
           font=cv2.FONT_HERSHEY_DUPLEX),
    Design("tc-plastic-pips-symbol", "the_choice", "plastic", "pips", colour_on="symbol"),
    Design("tc-wood-numeral_pips-symbol", "the_choice", "wood", "numeral_pips", colour_on="symbol",
           font=cv2.FONT_HERSHEY_SIMPLEX),
)

# never used while writing or tuning the reader: a new symbol set and a new body style
HELD_OUT_DESIGNS: tuple[Design, ...] = (
    Design("kv-stone-numerals-silhouette-engraved", "kuh_vadis", "stone", "numerals", "silhouette",
           "engraved", font=cv2.FONT_HERSHEY_TRIPLEX),
    Design("tc-stone-roman-face", "the_choice", "stone", "roman", colour_on="face",
           font=cv2.FONT_HERSHEY_TRIPLEX),
)


@dataclass(frozen=True)
class SpecialDie:
    value: object  # 1..6 or "cow"
    colour: str  # The Choice: the face's colour; Kuh Vadis: the body's colour name
    box: tuple[int, int, int, int]
    design: str


@dataclass(frozen=True)
class SpecialScene:
    image: np.ndarray
    dice: tuple[SpecialDie, ...]


def design_faces(design: Design) -> tuple:
    return KUH_VADIS_FACES if design.game == "kuh_vadis" else (1, 2, 3, 4, 5, 6)


def choice_faces(rng: np.random.Generator) -> dict[int, str]:
    """One The Choice die: a colour for each number, drawn independently of the number."""
    return {n: str(c) for n, c in zip(range(1, 7), rng.permutation(CHOICE_COLOURS))}


# ---- faces --------------------------------------------------------------------------------------

def _grain(rng, n, scale=1.0) -> np.ndarray:
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    ang = rng.uniform(0, np.pi)
    u = xx * np.cos(ang) + yy * np.sin(ang)
    small = rng.random((6, 6)).astype(np.float32)
    warp = cv2.resize(small, (n, n), interpolation=cv2.INTER_CUBIC) * rng.uniform(8, 20)
    return np.sin((u + warp) / (rng.uniform(1.5, 4.0) * scale)) * 0.5 + 0.5


def _body_canvas(rng, design: Design, colour_bgr: np.ndarray) -> np.ndarray:
    n = FACE_PX
    img = np.empty((n, n, 3), np.float32)
    img[:] = colour_bgr
    if design.body == "wood":
        img *= (1 - rng.uniform(0.08, 0.2) * _grain(rng, n))[..., None]
    elif design.body == "stone":
        speck = rng.random((n, n)).astype(np.float32)
        speck = cv2.GaussianBlur(speck, (0, 0), rng.uniform(0.6, 1.2))
        img *= (0.88 + 0.24 * speck)[..., None]
        dots = rng.random((n, n)) < rng.uniform(0.01, 0.03)
        img[dots] *= 0.6
    else:  # plastic: a soft light gradient
        yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) / n
        a = rng.uniform(0, 2 * np.pi)
        img *= (1 + rng.uniform(0.0, 0.12)
                * ((xx - 0.5) * np.cos(a) + (yy - 0.5) * np.sin(a)))[..., None]
    return img


def _cow_mask(rng, style: str) -> np.ndarray:
    n = FACE_PX
    m = np.zeros((n, n), np.uint8)
    c = n // 2
    if style == "head":
        cv2.ellipse(m, (c, c + 4), (20, 26), 0, 0, 360, 255, -1, cv2.LINE_AA)  # head
        cv2.ellipse(m, (c, c + 24), (17, 11), 0, 0, 360, 255, -1, cv2.LINE_AA)  # snout
        for sx in (-1, 1):
            # ears
            cv2.ellipse(m, (c + sx * 28, c - 6), (12, 6), sx * 20, 0, 360, 255, -1, cv2.LINE_AA)
            cv2.ellipse(m, (c + sx * 20, c - 22), (14, 12), 0, 180 if sx < 0 else 270,
                        270 if sx < 0 else 360, 255, 5, cv2.LINE_AA)  # horns
        for sx in (-1, 1):
            cv2.circle(m, (c + sx * 9, c - 2), 4, 0, -1, cv2.LINE_AA)  # eyes
            cv2.circle(m, (c + sx * 7, c + 25), 3, 0, -1, cv2.LINE_AA)  # nostrils
    elif style == "hide":
        cv2.rectangle(m, (12, 12), (n - 12, n - 12), 0, -1)
        for _ in range(int(rng.integers(5, 8))):
            p = rng.uniform(18, n - 18, 2)
            pts = []
            r0 = rng.uniform(7, 14)
            for k in range(9):
                a = 2 * np.pi * k / 9
                r = r0 * rng.uniform(0.6, 1.3)
                pts.append((p[0] + r * np.cos(a), p[1] + r * np.sin(a)))
            cv2.fillPoly(m, [np.round(np.array(pts)).astype(np.int32)], 255, cv2.LINE_AA)
        inner = np.zeros_like(m)
        cv2.rectangle(inner, (10, 10), (n - 10, n - 10), 255, -1)
        m &= inner
    elif style == "horns":
        for sx in (-1, 1):
            cv2.ellipse(m, (c + sx * 16, c - 14), (18, 16), 0, 180 if sx < 0 else 270,
                        270 if sx < 0 else 360, 255, 7, cv2.LINE_AA)
        bell = np.array([[c - 9, c - 10], [c + 9, c - 10], [c + 16, c + 22], [c - 16, c + 22]],
                        np.int32)
        cv2.fillPoly(m, [bell], 255, cv2.LINE_AA)
        cv2.circle(m, (c, c + 27), 5, 255, -1, cv2.LINE_AA)
        cv2.rectangle(m, (c - 3, c - 16), (c + 3, c - 10), 255, -1)
    elif style == "silhouette":
        cv2.ellipse(m, (c - 2, c), (26, 14), 0, 0, 360, 255, -1, cv2.LINE_AA)  # body
        for x in (c - 22, c - 14, c + 8, c + 16):
            cv2.rectangle(m, (x, c + 8), (x + 5, c + 28), 255, -1)  # legs
        cv2.ellipse(m, (c + 30, c - 10), (10, 7), -30, 0, 360, 255, -1, cv2.LINE_AA)  # head
        cv2.line(m, (c + 30, c - 16), (c + 36, c - 24), 255, 3, cv2.LINE_AA)  # horn
        cv2.line(m, (c - 27, c - 4), (c - 36, c + 14), 255, 3, cv2.LINE_AA)  # tail
        cv2.ellipse(m, (c + 2, c + 14), (6, 4), 0, 0, 360, 255, -1, cv2.LINE_AA)  # udder
    else:
        raise ValueError(f"unknown cow style {style!r}")
    return m


def _text_mask(text: str, font: int, height_frac: float, offset=(0, 0)) -> np.ndarray:
    n = FACE_PX
    m = np.zeros((n, n), np.uint8)
    thick = 5 if font in (cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX) else 6
    (tw, th), base = cv2.getTextSize(text, font, 1.0, thick)
    s = min(n * height_frac / th, n * 0.8 / tw)
    (tw, th), base = cv2.getTextSize(text, font, s, thick)
    org = (int((n - tw) / 2 + offset[0]), int((n + th) / 2 + offset[1]))
    cv2.putText(m, text, org, font, s, 255, thick, cv2.LINE_AA)
    return m


def _pip_mask(value: int, spread: float = 0.27, radius: float = 0.095, centre=(0.5, 0.5),
              scale=1.0) -> np.ndarray:
    n = FACE_PX
    m = np.zeros((n, n), np.uint8)
    for px, py in PIPS[value]:
        x = (centre[0] + px * spread * scale) * n
        y = (centre[1] + py * spread * scale) * n
        r = radius * scale * n * (1.35 if value == 1 and scale == 1.0 else 1.0)
        cv2.circle(m, (int(x * 16), int(y * 16)), int(r * 16), 255, -1, cv2.LINE_AA, shift=4)
    return m


def _symbol_mask(rng, design: Design, value) -> np.ndarray:
    if value == "cow":
        return _cow_mask(rng, design.cow)
    v = int(value)
    kind = design.symbols
    if kind == "pips":
        return _pip_mask(v)
    if kind in ("numerals", "numeral"):
        return _text_mask(str(v), design.font, 0.55)
    if kind == "roman":
        return _text_mask(ROMAN[v], design.font, 0.45)
    if kind == "numeral_pips":
        m = _text_mask(str(v), design.font, 0.42, offset=(0, -10))
        pips = np.zeros_like(m)
        for k in range(v):  # a row of small pips under the numeral
            x = FACE_PX * (0.5 + (k - (v - 1) / 2) * 0.1)
            cv2.circle(pips, (int(x * 16), int(FACE_PX * 0.8 * 16)), int(FACE_PX * 0.035 * 16), 255,
                       -1, cv2.LINE_AA, shift=4)
        return m | pips
    raise ValueError(f"unknown symbols {kind!r}")


def render_face(rng: np.random.Generator, design: Design, value, body_bgr: np.ndarray,
                ink_bgr: np.ndarray) -> np.ndarray:
    """The upright face (``FACE_PX`` square, float BGR) with its symbol."""
    img = _body_canvas(rng, design, body_bgr)
    m = _symbol_mask(rng, design, value).astype(np.float32) / 255.0
    if design.body == "wood" and value != "cow":
        ink_img = np.empty_like(img)
        ink_img[:] = ink_bgr
    else:
        ink_img = np.empty_like(img)
        ink_img[:] = ink_bgr
    if value == "cow" and design.cow_finish == "engraved":
        # dark, burnt-in symbol with a light rim on one side (light from the top left)
        rim = cv2.warpAffine(m, np.float32([[1, 0, -1.5], [0, 1, -1.5]]), (FACE_PX, FACE_PX))
        rim = np.clip(rim - m, 0, 1)
        img = img * (1 - m[..., None]) + m[..., None] * (ink_img * 0.9)
        img = img + rim[..., None] * 50
    else:
        img = img * (1 - m[..., None]) + m[..., None] * ink_img
    return img


# ---- dice and scenes ----------------------------------------------------------------------------

def _colours_for(rng, design: Design, colour: str | None) -> tuple[np.ndarray, np.ndarray, str]:
    """(body BGR, ink BGR, colour name of the label) for one face."""
    if design.game == "the_choice":
        col = sample_colour(rng, colour)
        neutral = np.full(3, rng.uniform(235, 255), np.float32) if design.body != "wood" else \
            sample_colour(rng, "orange") * np.array([0.75, 0.85, 0.95], np.float32) \
            * rng.uniform(0.9, 1.0)
        if design.colour_on == "face":
            lum = float(col @ np.array([0.114, 0.587, 0.299]))
            ink = np.full(3, 250.0 if lum < 150 else 25.0, np.float32)
            return col, ink, colour
        if design.body == "wood":
            neutral = _wood_colour(rng)
        return neutral, col * 0.95, colour
    # Kuh Vadis: one body colour per die
    if design.body == "wood":
        body = _wood_colour(rng)
        ink = np.full(3, rng.uniform(20, 60), np.float32) * np.array([0.7, 0.85, 1.0], np.float32)
        return body, ink, colour or "brown"
    if design.body == "stone":
        body = np.full(3, rng.uniform(150, 200), np.float32) \
            * np.array([0.95, 1.0, 1.02], np.float32)
        return body, np.full(3, rng.uniform(20, 50), np.float32), colour or "grey"
    body = sample_colour(rng, colour)
    lum = float(body @ np.array([0.114, 0.587, 0.299]))
    ink = np.full(3, rng.uniform(235, 255) if lum < 140 else rng.uniform(10, 40), np.float32)
    return body, ink, colour


def _wood_colour(rng) -> np.ndarray:
    hsv = np.array([[[rng.uniform(12, 20), rng.uniform(0.25, 0.5) * 255,
                      rng.uniform(0.65, 0.92) * 255]]], np.float32)
    return cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def add_glare(rng, img: np.ndarray, cx: float, cy: float, side: float, coverage: np.ndarray,
              least=(0.08, 0.04), strongest: float = 0.6) -> None:
    """A soft elliptical highlight near the centre of a die face, in place on the float image
    ``img``, limited to ``coverage`` (the face's alpha). ``least``: the smallest half-axes as a
    share of the side; ``strongest``: the most it brightens towards white."""
    g = np.zeros(img.shape[:2], np.float32)
    gx, gy = cx + rng.uniform(-0.3, 0.3) * side, cy + rng.uniform(-0.3, 0.3) * side
    cv2.ellipse(g, (int(gx), int(gy)), (max(1, int(side * rng.uniform(least[0], 0.25))),
                                        max(1, int(side * rng.uniform(least[1], 0.12)))),
                rng.uniform(0, 180), 0, 360, 1.0, -1)
    kk = int(side * 0.15) | 1
    g = cv2.GaussianBlur(g, (kk, kk), 0) * rng.uniform(0.2, strongest) * coverage
    img += g[..., None] * (255 - img)


def draw_special_die(rng, img: np.ndarray, cx: float, cy: float, side: float, value, look: dict):
    """Draw one die in place (``img`` float BGR); returns its box. ``look``: design, body BGR, ink
    BGR."""
    design: Design = look["design"]
    theta = rng.uniform(0, 360)
    face = render_face(rng, design, value, look["body"], look["ink"])
    n = FACE_PX
    radius = rng.uniform(0.08, 0.2)
    alpha = np.zeros((n, n), np.float32)
    r = int(radius * n)
    cv2.rectangle(alpha, (r, 0), (n - 1 - r, n - 1), 1.0, -1)
    cv2.rectangle(alpha, (0, r), (n - 1, n - 1 - r), 1.0, -1)
    for x, y in ((r, r), (n - 1 - r, r), (r, n - 1 - r), (n - 1 - r, n - 1 - r)):
        cv2.circle(alpha, (x, y), r, 1.0, -1, cv2.LINE_AA)
    s = side / n
    M = cv2.getRotationMatrix2D((n / 2, n / 2), theta, s)
    M[0, 2] += cx - n / 2
    M[1, 2] += cy - n / 2
    h, w = img.shape[:2]
    # shadow: the face's alpha, shifted and blurred
    sh = side * rng.uniform(0.05, 0.2)
    sdir = rng.uniform(0, 2 * np.pi)
    Ms = M.copy()
    Ms[0, 2] += sh * np.cos(sdir)
    Ms[1, 2] += sh * np.sin(sdir)
    shadow = cv2.warpAffine(alpha, Ms, (w, h))
    k = int(side * 0.25) | 1
    shadow = cv2.GaussianBlur(shadow, (k, k), 0) * rng.uniform(0.2, 0.5)
    img *= 1 - shadow[..., None]
    # the die's sides: a slightly larger, darker silhouette
    Mb = cv2.getRotationMatrix2D((n / 2, n / 2), theta, s * 1.06)
    Mb[0, 2] += cx - n / 2
    Mb[1, 2] += cy - n / 2
    body_a = cv2.warpAffine(alpha, Mb, (w, h))[..., None]
    img *= 1 - body_a
    img += body_a * look["body"] * rng.uniform(0.6, 0.8)
    a = cv2.warpAffine(alpha, M, (w, h), flags=cv2.INTER_LINEAR)[..., None]
    f = cv2.warpAffine(face, M, (w, h), flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR,
                       borderMode=cv2.BORDER_REPLICATE)
    img *= 1 - a
    img += a * f
    if design.body == "plastic" and rng.random() < 0.4:  # glare on glossy plastic
        add_glare(rng, img, cx, cy, side, a[..., 0])
    corners = cv2.transform(np.float32([[[0, 0], [n, 0], [n, n], [0, n]]]), Mb)[0]
    x0, y0 = np.floor(corners.min(0)).astype(int)
    x1, y1 = np.ceil(corners.max(0)).astype(int)
    return max(0, int(x0)), max(0, int(y0)), min(w, int(x1)), min(h, int(y1))


def special_look(rng, design: Design, colour: str | None = None) -> dict:
    """A die's look for ``draw_special_die``: The Choice dice get their face colours later."""
    body, ink, name = _colours_for(rng, design, colour or (
        "red" if design.game == "the_choice"
        else str(rng.choice(["white", "red", "yellow", "blue", "green", "black"]))))
    return {"design": design, "body": body, "ink": ink, "colour": name}


def render_special_scene(rng: np.random.Generator, design: Design, n_dice: int | None = None,
                         size: tuple[int, int] = (480, 640),
                         side_range: tuple[float, float] | None = None, values: list | None = None,
                         colours: list | None = None) -> SpecialScene:
    """A table with ``n_dice`` dice of one design (faces and colours drawn at random, or the given
    ``values``/``colours``, one per die)."""
    h, w = size
    img = np.clip(_background(rng, h, w), 0, 255)
    if n_dice is None:
        n_dice = int(rng.integers(1, 8))
    lo, hi = side_range or (max(28.0, min(h, w) * 0.07), min(h, w) * 0.17)
    side0 = float(rng.uniform(lo, hi))
    faces = design_faces(design)
    placed: list[tuple[float, float, float]] = []
    dice = []
    for k in range(n_dice):
        side = side0 * rng.uniform(0.9, 1.1)
        for _try in range(40):
            cx, cy = rng.uniform(side, w - side), rng.uniform(side, h - side)
            if all(np.hypot(cx - px, cy - py) > 0.85 * (side + ps) for px, py, ps in placed):
                break
        else:
            continue
        placed.append((cx, cy, side))
        value = values[k % len(values)] if values else faces[int(rng.integers(0, len(faces)))]
        if design.game == "the_choice":
            colour = colours[k % len(colours)] if colours else str(rng.choice(CHOICE_COLOURS))
            look = special_look(rng, design, colour)
        else:
            look = special_look(rng, design)
        box = draw_special_die(rng, img, cx, cy, side, value, look)
        dice.append(SpecialDie(value, look["colour"], box, design.name))
    return SpecialScene(_finish(rng, img), tuple(dice))


def _finish(rng, img: np.ndarray) -> np.ndarray:
    img = img * rng.uniform(0.88, 1.12, 3).astype(np.float32)
    img = 255.0 * (np.clip(img, 0, 255) / 255.0) ** rng.uniform(0.8, 1.25)
    if rng.random() < 0.6:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.2))
    img += rng.normal(0, rng.uniform(0, 5), img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    ok, enc = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(50, 96))])
    return cv2.imdecode(enc, cv2.IMREAD_COLOR)

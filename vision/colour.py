"""Stage 3: name the body colour of each die against a palette, with an optional calibration.

* ``measure_body`` takes the median colour of a disc in the middle of the die's box (a disc of
  radius 0.3 x the box's shorter side lies inside the top face whatever the rotation); the median
  ignores the pips, which cover well under half of that disc. For the general palette, a disc of
  two distinct colours is measured on the larger (the body, not the pips).
* ``name_colour`` compares the measured colour, corrected by the calibration, with the palette's
  reference colours in CIE Lab (lightness weighted 0.6: shading changes lightness more than hue)
  and turns the distances into a confidence with a softmax. A name may have several reference
  colours (``Palette.variants``: a navy and a sky blue are both "blue"; the nearest counts).
* Without a stored calibration the light is **estimated from the photo itself**: first its white
  (``scene_white``, applied by ``ColourNamer``, which has the photo: its brightest pixels, white
  pips and dice, paper, glare) sets the level, so that a dim photo's white die is not "grey",
  and the tint; then (``estimate_gains``, in ``name_colour``) all dice of
  one photo share one light, so the blue and red gains (a 9 x 9 grid, 0.7-1.43) that bring every
  die closest to some reference win, against a prior that prefers no correction (one die alone
  cannot shift the light much).
* A game's palette may say that its dice set has **one die of each colour** (``one_each``:
  Qwinto's orange, yellow and purple die; twenty one's six): the names of one photo are then
  the best one-to-one assignment of dice to colours, not each die's nearest colour alone.
* ``calibrate`` learns the table's light from one photo of dice whose colours are in the palette:
  per-channel gains in linear RGB (von Kries), fitted by alternating "assign each die to its
  nearest reference" and "least-squares gains", clamped to 0.5-2. ``Calibration`` is a frozen
  value with a JSON form, so the caller stores it and passes it back.

Palettes are data (``Palette``): vision knows no games. ``PALETTES`` holds the ones used so far;
a caller may build its own.
"""
from __future__ import annotations

import functools
import itertools
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

__all__ = ["Palette", "PALETTES", "GENERAL", "Calibration", "ColourResult", "measure_body",
           "name_colour", "calibrate", "calibrate_dice", "bgr_to_lab", "ColourNamer",
           "estimate_gains", "assign_one_each", "scene_white"]


def _srgb_to_linear(c: np.ndarray) -> np.ndarray:
    c = np.asarray(c, np.float64) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _linear_to_srgb(c: np.ndarray) -> np.ndarray:
    c = np.clip(c, 0, 1)
    return 255.0 * np.where(c <= 0.0031308, c * 12.92, 1.055 * c ** (1 / 2.4) - 0.055)


def bgr_to_lab(bgr) -> np.ndarray:
    """(..., 3) BGR 0-255 -> CIE Lab (L 0-100)."""
    a = np.asarray(bgr, np.float32).reshape(-1, 1, 3) / 255.0
    return cv2.cvtColor(a, cv2.COLOR_BGR2LAB).reshape(np.shape(bgr))


@dataclass(frozen=True)
class Palette:
    """Colour names with a reference colour each (BGR 0-255), optional further references of a
    name (``variants``, e.g. a dark blue), and whether a photo holds at most one die of each
    colour (``one_each``: a game's dice set). ``everyday``: the dice of any table, not one
    game's set (the general palette): its dice are measured on their body's colour group
    (``measure_body``) and it has the references of ``EVERYDAY_ONLY``, which ``subset``, the
    palette of a game's own dice, leaves out."""
    name: str
    colours: tuple[tuple[str, tuple[int, int, int]], ...]
    variants: tuple[tuple[str, tuple[int, int, int]], ...] = ()
    one_each: bool = False
    everyday: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.colours)

    def lab(self) -> np.ndarray:
        return bgr_to_lab(np.array([c for _, c in self.colours], np.float32))

    def references(self) -> tuple[np.ndarray, np.ndarray]:
        """(Lab of every reference colour, index of its name in ``names``), grouped by name."""
        return _references(self)

    def subset(self, name: str, names, one_each: bool = False) -> "Palette":
        """The palette of a game's own dice: these names with their variants, except the
        everyday palette's own (``EVERYDAY_ONLY``)."""
        ref = dict(self.colours)
        names = tuple(names)
        return Palette(name, tuple((n, ref[n]) for n in names),
                       tuple(v for v in self.variants if v[0] in names and v not in EVERYDAY_ONLY),
                       one_each)


# a muted red (Lab 45, 24, 16: a red hue at half the chroma): a translucent burgundy or red die
# with the table showing through, a red die under a warm, dim lamp. Its hue is red's, brown's lies
# 30-50 degrees further towards yellow, but with only the full reds to match, these dice were
# nearer brown (docs/vision.md, "Name the colour"). Only the general palette has it: a game's red
# die is the set's own opaque red, and on renders of the twenty one set it cost 3 dice of 321.
MUTED_RED = ("red", (81, 90, 151))
EVERYDAY_ONLY = (MUTED_RED,)

# reference colours (BGR) of everyday dice under neutral light
GENERAL = Palette("general", (
    ("white", (235, 240, 240)),
    ("black", (35, 30, 30)),
    ("grey", (128, 128, 128)),
    ("red", (40, 30, 200)),
    ("orange", (20, 125, 245)),
    ("yellow", (35, 215, 245)),
    ("green", (70, 150, 40)),
    ("blue", (185, 80, 30)),
    ("purple", (140, 45, 105)),
    ("pink", (185, 140, 245)),
    ("brown", (35, 70, 110)),
), variants=(
    # deep shades: a die's top face in shade, a dark plastic, a translucent die over a dark table
    ("blue", (110, 45, 15)),
    ("green", (40, 95, 25)),
    ("red", (30, 20, 130)),
    ("purple", (90, 25, 60)),
    # darker still: each deep shade at half its light (linear RGB), the top face of a dark
    # plastic die (an aubergine purple, a navy or blue-black marbled die, a burgundy die read
    # "black" without them; bench/vision_colour.py, docs/vision.md)
    ("blue", (79, 30, 8)),
    ("green", (26, 68, 15)),
    ("red", (19, 11, 94)),
    ("purple", (64, 15, 41)),
    MUTED_RED,
), everyday=True)

PALETTES: dict[str, Palette] = {
    "general": GENERAL,
    "qwinto": GENERAL.subset("qwinto", ("orange", "yellow", "purple"), one_each=True),
    "twenty_one": GENERAL.subset("twenty_one", ("white", "black", "red", "blue", "yellow", "green"),
                                 one_each=True),
}

_L_WEIGHT = 0.6
_SIGMA = 12.0


@dataclass(frozen=True)
class Calibration:
    """The table's light: per-channel gains (B, G, R) in linear light that make it neutral, and,
    when the table's own dice were shown (``calibrate_dice``), each die's measured colour under
    that light (``dice``: name -> BGR, one entry per die). A die is near a name when its colour is
    near that name's die as it was seen, or its gains-corrected colour near the name's palette
    colour."""
    gains: tuple[float, float, float] = (1.0, 1.0, 1.0)
    dice: tuple[tuple[str, tuple[int, int, int]], ...] = ()

    def apply(self, bgr) -> np.ndarray:
        lin = _srgb_to_linear(bgr) * np.array(self.gains)
        return _linear_to_srgb(lin)

    def lut_u8(self) -> np.ndarray:
        """``apply`` of every uint8 level, per channel, rounded: the (1, 256, 3) table
        ``cv2.LUT`` corrects a uint8 BGR image with (made once, used for every crop of a
        frame)."""
        levels = np.arange(256, dtype=np.float64)[:, None].repeat(3, 1)
        return np.clip(np.round(self.apply(levels)), 0, 255).astype(np.uint8).reshape(1, 256, 3)

    def apply_u8(self, bgr: np.ndarray) -> np.ndarray:
        """``apply`` for a uint8 BGR image, rounded back to uint8: one table lookup a pixel."""
        return cv2.LUT(np.ascontiguousarray(bgr, np.uint8), self.lut_u8())

    def to_json(self) -> str:
        out: dict = {"gains": list(self.gains)}
        if self.dice:
            out["dice"] = [[n, list(c)] for n, c in self.dice]
        return json.dumps(out)

    @classmethod
    def from_json(cls, text: str) -> "Calibration":
        d = json.loads(text)
        g = d["gains"]
        if len(g) != 3 or not all(isinstance(v, (int, float)) and 0.1 <= v <= 10 for v in g):
            raise ValueError(f"bad calibration gains: {g!r}")
        dice = []
        for entry in d.get("dice", []):
            if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
                    and isinstance(entry[1], list) and len(entry[1]) == 3
                    and all(isinstance(v, (int, float)) and 0 <= v <= 255 for v in entry[1])):
                raise ValueError(f"bad calibration die: {entry!r}")
            dice.append((entry[0], tuple(int(v) for v in entry[1])))
        return cls(tuple(float(v) for v in g), tuple(dice))

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_json() + "\n")

    @classmethod
    def load(cls, path: str | Path) -> "Calibration":
        return cls.from_json(Path(path).read_text())


@dataclass(frozen=True)
class ColourResult:
    """Each die's colour name, the namer's confidence in it and its body as measured; a reader
    that names no colours (``DiceReader(name_colours=False)``) gives None for name and body."""
    names: tuple[str | None, ...]
    confidences: tuple[float, ...]
    measured_bgr: tuple[tuple[int, int, int] | None, ...]
    elapsed_ms: float


def _body_disc(bgr: np.ndarray, box) -> tuple[np.ndarray, np.ndarray]:
    """(patch, inside): the image around the disc of radius 0.3 x the box's shorter side at its
    centre, and which of the patch's pixels the disc holds (all of them when it holds none)."""
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    cx, cy = (x0 + x1) / 2.0, (y0 + y1) / 2.0
    r = max(1.0, 0.3 * min(x1 - x0, y1 - y0))
    ya, yb = max(0, int(cy - r)), min(bgr.shape[0], int(cy + r) + 1)
    xa, xb = max(0, int(cx - r)), min(bgr.shape[1], int(cx + r) + 1)
    patch = bgr[ya:yb, xa:xb]
    inside = (((np.arange(ya, yb) - cy) ** 2)[:, None] + ((np.arange(xa, xb) - cx) ** 2)[None, :]
              <= r * r)
    if not inside.any():
        inside[:] = True
    return patch, inside


def _disc_median(patch: np.ndarray, inside: np.ndarray) -> tuple[int, int, int]:
    """Per-channel median of the patch's pixels under ``inside``."""
    # the median from each channel's histogram under the disc: the two middle ranks, as a sort
    # would give them, at half a sort's cost (np.median's overhead was 0.1 ms per die)
    n = int(np.count_nonzero(inside))
    ranks = ((n - 1) // 2 + 1, n // 2 + 1)
    patch = np.ascontiguousarray(patch)
    mask = inside.view(np.uint8)
    out = []
    for c in range(3):
        below = np.cumsum(cv2.calcHist([patch], [c], mask, [256], [0, 256]).ravel())
        lo, hi = np.searchsorted(below, ranks)
        out.append(int((lo + hi) / 2))
    return tuple(out)


BODY_SPLIT = 40.0   # BGR distance between the disc's two colour groups above which they are two
BODY_SAMPLE = 512   # at most about this many of the disc's pixels are grouped


def _larger_group(px: np.ndarray) -> np.ndarray | None:
    """The pixels (n, 3 float32) of the larger of two colour groups (2-means from the pixels at
    the 5th and 95th percentile of brightness, at most 6 rounds), or None when the groups'
    centres are nearer than ``BODY_SPLIT``: one colour with its shading, not two.

    A camera frame measures every die this way, so the rounds are cheap: they stop once no
    pixel changes group (the centres would not move again), and a group's centre is its sum
    over the count, the sums taken as one product (uint8 values: every sum is exact in float32,
    so the centres are the group means to the bit)."""
    lum = px.sum(1)
    n = len(px)
    a, b = np.percentile(lum, (5, 95))
    c0, c1 = px[np.argmin(np.abs(lum - a))], px[np.argmin(np.abs(lum - b))]
    total = px.sum(0)
    last = None
    for _ in range(6):
        # nearer c1 than c0: p.(c1 - c0) > (|c1|^2 - |c0|^2) / 2, one product per pixel
        second = px @ (c1 - c0) > 0.5 * float(c1 @ c1 - c0 @ c0)
        n1 = int(np.count_nonzero(second))
        if n1 == 0 or n1 == n:
            return None
        if last is not None and np.array_equal(second, last):
            break
        last = second
        s1 = second.astype(np.float32) @ px
        c0, c1 = (total - s1) / np.float32(n - n1), s1 / np.float32(n1)
    if float(np.sqrt(((c0 - c1) ** 2).sum())) < BODY_SPLIT:
        return None
    return px[second] if n1 * 2 > n else px[~second]


def measure_body(bgr: np.ndarray, box, grouped: bool = False) -> tuple[int, int, int]:
    """The body colour of the die in ``box`` (uint8 BGR): the per-channel median of the disc of
    radius 0.3 x shorter side at the box's centre; with ``grouped``, when the disc holds two
    distinct colours, the median of the larger of them.

    Why the larger group: the disc takes in pips, and a six's middle pips or a dark die's red
    pips are a fifth to a third of it; a smoky black die with red pips then measured dark red.
    The everyday palette groups (``Palette.everyday``, ``ColourNamer``): 243 instead of 242
    of the tune split's 253 dice, 268 instead of 257 of the check split's 317 (`python
    bench/vision_colour.py`, docs/vision.md, "Name the colour"). The game palettes do not: on
    renders of the twenty one set it named 5 of 636 dice worse."""
    patch, inside = _body_disc(bgr, box)
    if patch.size == 0:
        return (0, 0, 0)
    px = patch[inside]
    if grouped and len(px) >= 24:
        step = max(1, len(px) // BODY_SAMPLE)
        body = _larger_group(px[::step].astype(np.float32))
        if body is not None:
            return tuple(int(v) for v in np.median(body, axis=0))
    return _disc_median(patch, inside)


@functools.lru_cache(maxsize=64)
def _references(palette: Palette) -> tuple[np.ndarray, np.ndarray]:
    """``Palette.references``, computed once per palette (a photo needs them twice, a camera
    stream every frame). Sorted by name so ``_distances`` takes each name's minimum in one call;
    read-only so the cached arrays cannot be changed by a caller."""
    refs = list(palette.colours) + [v for v in palette.variants if v[0] in palette.names]
    owner = np.array([palette.names.index(n) for n, _ in refs])
    order = np.argsort(owner, kind="stable")
    lab = bgr_to_lab(np.array([refs[i][1] for i in order], np.float32))
    owner = owner[order]
    lab.flags.writeable = False
    owner.flags.writeable = False
    return lab, owner


def _distances(lab: np.ndarray, palette: Palette) -> np.ndarray:
    """(..., n) Lab colours -> (..., n, names) distance to each name's nearest reference."""
    ref, owner = palette.references()
    # channel by channel: a sum over a last axis of 3 was most of the time (0.6 ms a photo)
    dist = np.square((lab[..., 0, None] - ref[:, 0]) * _L_WEIGHT)
    dist += np.square(lab[..., 1, None] - ref[:, 1])
    dist += np.square(lab[..., 2, None] - ref[:, 2])
    np.sqrt(dist, out=dist)
    starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])  # each name's first reference
    return np.minimum.reduceat(dist, starts, axis=-1)


# Two dice of one photo whose colours (Lab, lightness weighted by _L_WEIGHT) are nearer than this
# look alike: the one-to-one naming of a game's set is not used. On renders of the games' own
# sets (bench/vision_game_colours.py, seeds 31 and 32; docs/vision.md) every value from 4 to 12
# named the same; two dice of one plastic under one light differ by a few units, a deep yellow
# and an orange die by 15-20.
_ALIKE = 8.0


def _two_alike(lab: np.ndarray) -> bool:
    """Whether two of these Lab colours are nearer than ``_ALIKE``."""
    diff = lab[:, None, :] - lab[None, :, :]
    diff[..., 0] *= _L_WEIGHT
    near = np.sqrt((diff ** 2).sum(-1)) < _ALIKE
    return bool(np.triu(near, 1).any())

_GAIN_GRID = np.exp(np.linspace(-np.log(1.43), np.log(1.43), 9))  # 0.7 .. 1.43, 1.0 in the middle
_GAIN_PRIOR = 1000.0  # cost of a gain of e (in squared Lab units): one die moves the light little


def estimate_gains(measured_bgr, palette: Palette) -> Calibration:
    """The light of one photo, from its dice alone: blue and red gains (green fixed, since the
    overall level is not a colour) on a grid, minimising the summed squared distance of every die
    to its nearest reference plus a prior against large corrections."""
    m = np.asarray(measured_bgr, np.float64).reshape(-1, 3)
    if len(m) == 0:
        return Calibration()
    gb, gr = np.meshgrid(_GAIN_GRID, _GAIN_GRID, indexing="ij")
    gains = np.stack([gb.ravel(), np.ones(gb.size), gr.ravel()], 1)  # (g, 3)
    corrected = _linear_to_srgb(_srgb_to_linear(m)[None] * gains[:, None, :])  # (g, n, 3)
    lab = bgr_to_lab(corrected.astype(np.float32))
    cost = ((_distances(lab, palette).min(-1) ** 2).sum(-1)
            + _GAIN_PRIOR * (np.log(gains) ** 2).sum(-1))
    return Calibration(tuple(float(v) for v in gains[int(np.argmin(cost))]))


_WHITE_SHARE = 0.999  # the scene's white: the level that this share of its pixels lies under
_WHITE_TARGET = float(_srgb_to_linear(240))  # ...brought up to sRGB 240 in its brightest channel
# at most this much brighter (linear): a dim photo, not a table with nothing white
_WHITE_MAX_GAIN = 1.6
_WHITE_MAX_TINT = 1.25  # a channel of a tinted white raised at most this much against the brightest
_WHITE_STEP = 3  # every 3rd pixel of every 3rd row: 0.15 ms for a 640x640 photo instead of 0.7 ms


def scene_white(bgr: np.ndarray) -> Calibration:
    """The light of one photo from its brightest pixels (white pips, white dice, paper, glare):
    per channel, the level that 99.9 % of the pixels lie under is the scene's white. The gains
    (linear RGB) raise its brightest channel to sRGB 240 (at most x1.6: an underexposed photo's
    white dice otherwise read grey) and its other channels towards that one (at most x1.25: a
    tinted white is the light's tint). Never darker: a photo whose white is already bright, or
    clipped, keeps its level.

    The photo is median-filtered (3 x 3) first, so that the white is the level of bright
    surfaces, not of lone bright pixels: impulse noise, hot pixels and specks of glare a pixel or
    two wide set every channel's level near 255 and so took the correction away from the whole
    photo (13 of the 44 epanemu_own photos that carry 1 % salt-and-pepper noise had none; with the
    filter every one has). ``python bench/vision_colour.py --split all``, 4 Dec 2026: 1,195 →
    1,208 of 1,319 dice named right, no split lower (on epanemu's check split 8 white dice more
    right, 3 red ones fewer); 0.16 ms more a 640x640 photo, 4 ms a 4K one (one thread)."""
    x = np.asarray(bgr)
    if x.ndim != 3 or x.shape[2] != 3 or x.size == 0:
        return Calibration()
    if x.dtype == np.uint8 and min(x.shape[:2]) >= 3:
        x = cv2.medianBlur(np.ascontiguousarray(x), 3)
    x = np.ascontiguousarray(x[::_WHITE_STEP, ::_WHITE_STEP])
    white = []
    for c in range(3):
        below = np.cumsum(cv2.calcHist([x], [c], None, [256], [0, 256]).ravel())
        white.append(int(np.searchsorted(below, below[-1] * _WHITE_SHARE)))
    lin = _srgb_to_linear(np.maximum(white, 1))
    level = float(np.clip(_WHITE_TARGET / lin.max(), 1.0, _WHITE_MAX_GAIN))
    gains = level * np.minimum(lin.max() / lin, _WHITE_MAX_TINT)
    return Calibration(tuple(float(g) for g in gains))


def _shares(d: np.ndarray) -> np.ndarray:
    """Each name's share (a softmax over names, width ``_SIGMA``) from the (n, names) distances."""
    z = -(d ** 2) / (2 * _SIGMA ** 2)
    z -= z.max(1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(1, keepdims=True)


def assign_one_each(cost: np.ndarray) -> np.ndarray:
    """Column of each row in the one-to-one assignment of minimal total ``cost`` (rows <= columns;
    at most a few dice and colours, so all assignments are tried)."""
    n, k = cost.shape
    if n > k:
        raise ValueError("more dice than colours")
    best, best_cost = None, np.inf
    rows = np.arange(n)
    for perm in itertools.permutations(range(k), n):
        c = cost[rows, perm].sum()
        if c < best_cost:
            best, best_cost = perm, c
    return np.array(best, int)


def name_colour(measured_bgr, palette: Palette, calibration: Calibration | None = None,
                estimate_light: bool = True):
    """(names, confidences) for each measured BGR colour (an (n, 3) array-like).

    ``calibration``: the table's light, stored from a calibration photo; without one the light is
    estimated from these dice (``estimate_light``). With ``palette.one_each`` and no more dice than
    colours, the names are a one-to-one assignment, unless two of the dice look alike (then each
    die gets its nearest colour); a die's confidence is the softmax share of the name it got."""
    m = np.asarray(measured_bgr, np.float64).reshape(-1, 3)
    if len(m) == 0:
        return (), ()
    if calibration is None and estimate_light:
        calibration = estimate_gains(m, palette)
    seen = m if calibration is None else calibration.apply(m)
    lab = bgr_to_lab(seen.astype(np.float32))
    d = _distances(lab, palette)
    if calibration is not None and calibration.dice:
        d = _dice_distances(m, palette, calibration.dice, d)
    p = _shares(d)
    idx = p.argmax(1)
    if palette.one_each and 1 < len(m) <= len(palette.names):
        # one die per colour, unless two of the dice look alike: two dice that both look orange
        # cannot be told apart by the assignment, something else is wrong (a die of another set,
        # a second box on one die), and a forced "purple" would hide which; each keeps its
        # nearest colour instead. Dice that merely all look far from their colours (a dim room,
        # a warm lamp that washes them out) are still told apart by the assignment.
        if not _two_alike(lab):
            idx = assign_one_each(d ** 2)
    return tuple(palette.names[i] for i in idx), tuple(float(p[k, i]) for k, i in enumerate(idx))


def _dice_distances(m: np.ndarray, palette: Palette, dice, d: np.ndarray) -> np.ndarray:
    """``d`` (the gains-corrected colours' distances to the palette) with the column of every name
    that has measured dice lowered to the distance of the *uncorrected* colours to those dice (they
    were seen under the same light), where that is nearer. Nearer of the two, not the dice alone:
    one measurement of a marbled die (a vein under the centre) or of a die with glare on it is a
    poor reference by itself (synthetic scenes, seed 20261125: Qwinto game sets 98.0 % with the dice
    alone, 99.5 % with the nearer of the two; docs/vision.md)."""
    lab = bgr_to_lab(m.astype(np.float32))
    d = d.copy()
    for k, name in enumerate(palette.names):
        seen = [c for n, c in dice if n == name]
        if not seen:
            continue
        diff = lab[:, None, :] - bgr_to_lab(np.array(seen, np.float32))[None]
        diff[..., 0] *= _L_WEIGHT
        d[:, k] = np.minimum(d[:, k], np.sqrt((diff ** 2).sum(-1)).min(1))
    return d


def calibrate_dice(measured_bgr, names, palette: Palette) -> Calibration:
    """The table's light from a photo of the table's own dice whose colours the user confirmed:
    each die's measured colour becomes that name's reference (``Calibration.dice``), and the gains
    that bring the dice closest to their names' palette colours serve any name without a die.

    Why the dice themselves and not only gains: a game's dice are the same dice every turn, and
    their colours are theirs (a pale yellow, an orange that is nearly red); the gains of one photo
    correct the light but not the dice (bench/vision_accuracy.py --synth N --calibrated)."""
    m = np.asarray(measured_bgr, np.float64).reshape(-1, 3)
    names = [str(n) for n in names]
    if len(m) == 0:
        raise ValueError("calibration needs at least one die")
    if len(names) != len(m):
        raise ValueError(f"{len(m)} dice but {len(names)} colour names")
    unknown = sorted(set(names) - set(palette.names))
    if unknown:
        raise ValueError(f"{', '.join(unknown)}: not a colour of these dice "
                         f"({', '.join(palette.names)})")
    lin = _srgb_to_linear(m)
    target = _srgb_to_linear(np.array([dict(palette.colours)[n] for n in names], np.float64))
    gains = np.clip((lin * target).sum(0) / np.maximum((lin * lin).sum(0), 1e-9), 0.5, 2.0)
    return Calibration(tuple(float(g) for g in gains),
                       tuple((n, tuple(int(round(v)) for v in c)) for n, c in zip(names, m)))


def calibrate(measured_bgr, palette: Palette, iterations: int = 8) -> Calibration:
    """Gains that bring the measured die colours closest to their nearest palette colours."""
    m = np.asarray(measured_bgr, np.float64).reshape(-1, 3)
    if len(m) == 0:
        raise ValueError("calibration needs at least one die")
    lin = _srgb_to_linear(m)
    refs = _srgb_to_linear(np.array([c for _, c in palette.colours], np.float64))
    gains = np.ones(3)
    for _ in range(iterations):
        names, _ = name_colour(m, Palette(palette.name, palette.colours, palette.variants),
                               Calibration(tuple(gains)), estimate_light=False)
        target = refs[[palette.names.index(n) for n in names]]
        new = (lin * target).sum(0) / np.maximum((lin * lin).sum(0), 1e-9)
        new = np.clip(new, 0.5, 2.0)
        if np.allclose(new, gains, atol=1e-4):
            break
        gains = new
    return Calibration(tuple(float(g) for g in gains))


# A dark die's body colour shows where it is lit: the median of its top face is near black for a
# deep purple or navy die in shade, while its more chromatic pixels keep the hue. Those are the
# pixels between the 50th and 80th percentile of chroma under the body disc: above the 80th lie
# the pips (a six's cover up to a fifth of the disc) and glare, which may be coloured on a black
# die. A die named "black" whose such pixels (Lab, after the photo's white) have at least this
# chroma in this hue range (degrees of atan2(b, a)) is named by that hue instead, when the
# palette has the name. Chosen on the colour labels' tune split (bench/vision_colour.py,
# bench/data/README.md) and the synthetic scenes of seed 20261125 (the lightness bound: their
# black dice under a colour cast).
_VIVID_BAND = (50, 80)  # percentiles of chroma
_DARK_LIGHTNESS = 40.0  # the median lightness under which a die counts as dark
_VIVID_LIGHTNESS = 32.0  # ...and its vivid pixels', above which they are no dark body
_DARK_HUES = (("purple", 8.0, (-60.0, -20.0)), ("blue", 12.0, (-110.0, -60.0)))


def vivid_lab(bgr: np.ndarray, box, calibration: Calibration | None = None) -> np.ndarray:
    """(L, a, b, median L) of the body disc of ``measure_body``: the mean Lab of its pixels in
    ``_VIVID_BAND`` of chroma and the median lightness of all, after ``calibration``."""
    patch, inside = _body_disc(bgr, box)
    if patch.size == 0:
        return np.zeros(4)
    px = patch[inside].astype(np.float32)
    if calibration is not None:
        px = calibration.apply(px)
    lab = bgr_to_lab(np.clip(px, 0, 255).astype(np.float32))
    chroma = np.hypot(lab[:, 1], lab[:, 2])
    lo, hi = np.percentile(chroma, _VIVID_BAND)
    vivid = lab[(chroma >= lo) & (chroma <= hi)].mean(0)
    return np.array([*vivid, float(np.median(lab[:, 0]))])


def name_dark_die(lab4: np.ndarray, palette: Palette) -> str | None:
    """The name a die read "black" gets from ``vivid_lab``'s figures, or None to stay black."""
    if lab4[3] >= _DARK_LIGHTNESS or lab4[0] > _VIVID_LIGHTNESS:
        return None
    chroma = float(np.hypot(lab4[1], lab4[2]))
    hue = float(np.degrees(np.arctan2(lab4[2], lab4[1])))
    for name, least, (lo, hi) in _DARK_HUES:
        if name in palette.names and chroma >= least and lo <= hue <= hi:
            return name
    return None


_SURROUND = (0.625, 1.5)  # the ring around a die where the table's light is measured (box sides)
_SURROUND_GRID = 12       # ...sampled every 1/12 of the box's side (about 1,000 pixels a ring)
_SURROUND_SHARE = 75.0    # ...its lightness: this percentile (the lit table, not the shadows)
# a die named grey, lit as the photo's white dice are, would be lighter than this: its surroundings
# are another surface (a dark tray on a light table), not shade, so it keeps its name (paper is
# L 100; the margin is glare and the spread of one measurement)
_RELIT_MAX = 110.0


def _ring_pixels(bgr: np.ndarray, box) -> np.ndarray:
    """(k, 3) BGR samples of the square ring between 0.625 and 1.5 of the box's longer side
    from its centre, on a grid of 1/12 of that side."""
    x0, y0, x1, y1 = (float(v) for v in box)
    side = max(x1 - x0, y1 - y0, 1.0)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    H, W = bgr.shape[:2]
    ya, yb = max(0, int(cy - _SURROUND[1] * side)), min(H, int(cy + _SURROUND[1] * side) + 1)
    xa, xb = max(0, int(cx - _SURROUND[1] * side)), min(W, int(cx + _SURROUND[1] * side) + 1)
    step = max(1, int(side / _SURROUND_GRID))
    ys = np.arange(ya, yb, step)
    xs = np.arange(xa, xb, step)
    far = np.maximum(np.abs(xs[None, :] - cx), np.abs(ys[:, None] - cy)) >= _SURROUND[0] * side
    return bgr[ya:yb:step, xa:xb:step][far].reshape(-1, 3)


def surround_lightness(bgr: np.ndarray, boxes, calibration: Calibration | None = None
                       ) -> np.ndarray:
    """The lightness of what lies around each die: the 75th percentile of L over a square ring
    between 0.625 and 1.5 of its box's longer side from its centre (sampled on a grid of 1/12
    of that side), after ``calibration``; NaN where too little of the ring lies in the photo.
    All rings in one colour conversion (a ring alone cost 0.7 ms, mostly call overhead)."""
    rings = [_ring_pixels(bgr, b) for b in boxes]
    sizes = np.array([len(r) for r in rings], dtype=np.intp)
    out = np.full(len(rings), np.nan)
    if not sizes.sum():
        return out
    px = np.concatenate(rings).astype(np.float32)
    if calibration is not None:
        px = calibration.apply(px)
    light = bgr_to_lab(np.clip(px, 0, 255).astype(np.float32).reshape(-1, 1, 3))[:, 0, 0]
    ends = np.cumsum(sizes)
    for k, (lo, hi) in enumerate(zip(ends - sizes, ends)):
        if hi - lo >= 16:
            out[k] = float(np.percentile(light[lo:hi], _SURROUND_SHARE))
    return out


@functools.lru_cache(maxsize=64)
def shaded_white(palette: Palette) -> float | None:
    """How light against its surroundings a die named grey must be, as a share of the same ratio
    of the photo's dice named white, to be a white die in shade: where the palette's grey and
    white meet in lightness, over white's lightness (0.78 for the general palette). None when
    the palette lacks either name."""
    if not {"white", "grey"} <= set(palette.names):
        return None
    lab = palette.lab()
    white, grey = (float(lab[palette.names.index(n), 0]) for n in ("white", "grey"))
    return (white + grey) / 2 / white


# A picture whose most colourful pixels (``colour_extent``) stay under this shows no colour: a
# black-and-white photo, a phone's mono filter, a webcam's infrared night view. Measured with
# `python bench/vision_colour.py --chroma` (6 Dec 2026): black-and-white JPEGs 0.0 (and the
# grey crops of tomitomi3_crops); the colour photos of ../shared/data/dice/ 4.2 at the lowest
# (byler's white and black dice on plain tables), matteop65 11.4, epanemu_own 26.0; the sample
# pictures 15-97. A sepia filter (27-29) shows colour to this test and is not caught.
NO_COLOUR_CHROMA = 2.0


def colour_extent(bgr: np.ndarray) -> float:
    """The chroma of the picture's most colourful pixels (Lab, the 99.9th percentile of every
    n-th pixel each way, about 160 a side): 0 for a black-and-white picture. Every camera frame
    is judged, so it samples rather than shrinks: 1.3 to 2.5 times faster than a copy shrunk to
    320 px (0.6 against 1.5 ms and 1.8 against 2.4 ms a 640-px photo, scratch timings on a busy
    machine, 6 Dec 2026), within 5 chroma units of the shrunk copy's figure on the real sets'
    1,488 photos."""
    h, w = bgr.shape[:2]
    step = max(1, max(h, w) // 160)
    lab = cv2.cvtColor(np.ascontiguousarray(bgr[::step, ::step, :3]), cv2.COLOR_BGR2LAB)
    ab = lab[..., 1:].reshape(-1, 2).astype(np.int32) - 128
    c2 = (ab * ab).sum(1)
    k = min(len(c2) - 1, int(0.999 * len(c2)))
    return float(np.sqrt(np.partition(c2, k)[k]))


def shows_colour(bgr: np.ndarray) -> bool:
    """Whether the picture shows any colour at all (``NO_COLOUR_CHROMA``): in one without, a
    red die and a grey one look alike, and no colour named in it can be trusted."""
    return colour_extent(bgr) >= NO_COLOUR_CHROMA


@dataclass
class ColourNamer:
    """``ColourNamer(palette, calibration)(bgr, boxes) -> ColourResult``."""
    palette: Palette = GENERAL
    calibration: Calibration | None = field(default=None)

    def __call__(self, bgr: np.ndarray, boxes) -> ColourResult:
        """Names of the dice in ``boxes``; without a calibration, their colours are first
        corrected by the photo's white (``scene_white``), then the light is estimated from the
        dice (``estimate_gains``). ``measured_bgr`` are the colours as seen, uncorrected."""
        t0 = time.perf_counter()
        measured = tuple(measure_body(bgr, b, self.palette.everyday) for b in boxes)
        if not measured:
            names, conf = (), ()
        elif self.calibration is None:
            white = scene_white(bgr)
            seen = white.apply(measured)
            names, conf = name_colour(seen, self.palette)
            names, conf = self._dark_dice(bgr, boxes, names, conf, white)
            names = self._shaded_whites(bgr, boxes, names, white, seen)
        else:
            names, conf = name_colour(measured, self.palette, self.calibration)
        if measured and not shows_colour(bgr):   # named, but none of them can be trusted
            conf = (0.0,) * len(names)
        return ColourResult(tuple(names), tuple(conf), measured, (time.perf_counter() - t0) * 1000)

    def _shaded_whites(self, bgr, boxes, names, white: Calibration, seen) -> tuple:
        """Dice named grey that are white dice in shade. A white die whose top face lies in
        shade (a phone held at the table, a lamp to one side, a dim corner) is as dark as a grey
        die, but it is as light against the table around it as the photo's lit white dice are
        against theirs, and a grey die is not: a die named grey whose lightness over its
        surroundings' (``surround_lightness``) is at least ``shaded_white`` (0.78) of the median
        of that ratio over the dice named white becomes white, unless lit as the white dice are
        (their surroundings' median lightness) it would be lighter than ``_RELIT_MAX``: then
        its surroundings are a darker surface, not shade. Needs a die named white in the
        photo; the confidence stays (it was the share of grey against every other name)."""
        share = shaded_white(self.palette)
        if share is None or "grey" not in names or "white" not in names:
            return names
        light = bgr_to_lab(np.clip(np.asarray(seen, np.float32), 0, 255).reshape(-1, 1, 3))
        looked = [i for i, name in enumerate(names) if name in ("white", "grey")]
        around = dict(zip(looked, surround_lightness(bgr, [boxes[i] for i in looked], white)))
        ratio = {i: float(light[i, 0, 0]) / a for i, a in around.items() if a == a and a > 1.0}
        whites = [i for i in ratio if names[i] == "white"]
        if not whites:
            return names
        bar = share * float(np.median([ratio[i] for i in whites]))
        lit = float(np.median([around[i] for i in whites]))
        return tuple("white" if name == "grey" and i in ratio and ratio[i] >= bar
                     and ratio[i] * lit <= _RELIT_MAX else name
                     for i, name in enumerate(names))

    def _dark_dice(self, bgr, boxes, names, conf, white: Calibration):
        """Dice named black looked at again (``name_dark_die``). With one die per colour
        (``palette.one_each``) a name another die already has is not given twice. The new
        name's confidence is its softmax share for the vivid colour alone."""
        if "black" not in names:
            return names, conf
        names, conf = list(names), list(conf)
        for i, name in enumerate(names):
            if name != "black":
                continue
            lab4 = vivid_lab(bgr, boxes[i], white)
            new = name_dark_die(lab4, self.palette)
            if new is None or (self.palette.one_each and new in names):
                continue
            p = _shares(_distances(lab4[None, :3].astype(np.float32), self.palette))[0]
            names[i], conf[i] = new, float(p[self.palette.names.index(new)])
        return tuple(names), tuple(conf)

"""A die face's colours and symbol, hand-made (no model): ``face_features`` measures, on the
reader's square crop (``CROP`` px, context 1.15), the face's colour (median Lab of a ring inside
the top face, and the mean of its most colourful pixels near the centre), the ink's (pixels far
from the face colour, inside the die's region), the share of the face that is ink and an upright
ink map; ``ink_contrast_view`` stretches a faint symbol's contrast. The taught reader names
colours with them (``vision.dice_set``)."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from .read import CONTEXT, crop_square

CROP = 64
ALIGNED = 32
MIN_INK_DELTA = 14.0
INK_QUANTILE = 90.0  # the ink colour is measured on its pixels farthest from the face colour
INK_ZONE = 0.32  # ...within this radius (crop sides) of the crop's centre, where a face's symbol is
MIN_INK = 0.01  # share of the die's face that is ink: below it, no symbol was found
_RING = (0.14, 0.30)
# the face's most colourful pixels: those between these percentiles of chroma...
VIVID_CHROMA = (70.0, 95.0)
VIVID_DISC = 0.22  # ...within this radius (crop sides) of the centre


@dataclass(frozen=True)
class FaceFeatures:
    # (ALIGNED, ALIGNED) float32 ink map 0..1, die upright and scaled to its size
    aligned: np.ndarray
    face_lab: tuple[float, float, float]
    ink_lab: tuple[float, float, float]
    ink_fraction: float
    # side of the die region's rectangle / crop side (about 0.6-0.9 for a good box)
    die_side: float = 0.0
    border_touch: float = 0.0  # share of the crop's edge that is face-coloured (a good box: small)
    # the mean Lab of the face's most colourful pixels (``vivid_face``)
    vivid_lab: tuple[float, float, float] = (0.0, 0.0, 0.0)


def _lab(bgr: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(bgr.astype(np.float32) / 255.0, cv2.COLOR_BGR2LAB)


@lru_cache(maxsize=4)
def _radius(n: int) -> np.ndarray:
    """Each pixel's distance from the centre of an n x n crop, in crop sides."""
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    return np.hypot(xx - (n - 1) / 2, yy - (n - 1) / 2) / n


def _ring(n: int) -> np.ndarray:
    """Where the face colour is measured: a ring inside the top face whatever the rotation."""
    r = _radius(n)
    return (r >= _RING[0]) & (r <= _RING[1])


def _face_distance(lab: np.ndarray, ring: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the face colour: the ring's median Lab, each pixel's Lab distance from it, lightness
    weighted 0.8 since shading changes lightness more than colour)."""
    face = np.median(lab[ring], axis=0)
    d = lab - face
    d[..., 0] *= 0.8
    return face, np.sqrt((d ** 2).sum(-1))


_R = _radius(CROP)
_RING_MASK = _ring(CROP)
_INNER = _R <= 0.47
_INK_ZONE = _R <= INK_ZONE
_VIVID_MASK = _R <= VIVID_DISC
_EDGE = np.zeros((CROP, CROP), bool)
_EDGE[:2], _EDGE[-2:], _EDGE[:, :2], _EDGE[:, -2:] = True, True, True, True


CONTRAST_QUANTILE = 97.0  # the ink map's white point: this quantile of the distances inside the die
MIN_CONTRAST = 8.0  # Lab units: a crop with less contrast than this is not stretched further


def ink_contrast_view(crop_bgr: np.ndarray) -> np.ndarray:
    """The crop as a grey image of each pixel's colour distance from the face colour (face white,
    ink and table dark), stretched so the strongest ink is black.

    Why: the embedding is colour-blind and reads the crop's brightness pattern. A symbol whose ink
    differs from the face in hue but hardly in brightness (a green numeral on olive wood, grey on
    grey) is faint to it, while its colour distance is large. Averaging this view's reading with the
    crop's own, for the dice the first reading is unsure of, raised the wood-numeral design from
    96.1 to 98.9 % on dev seeds 77-81 and changed nothing on the other designs
    (docs/vision-special.md). Grey images are part of the embedding's training, so the view is no
    stranger to it."""
    n = crop_bgr.shape[0]
    _, dist = _face_distance(_lab(crop_bgr), _ring(n))
    white = max(float(np.percentile(dist[_radius(n) <= 0.42], CONTRAST_QUANTILE)), MIN_CONTRAST)
    grey = (255 - np.clip(dist / white, 0, 1) * 255).astype(np.uint8)
    return np.repeat(grey[..., None], 3, 2)


def vivid_face(lab: np.ndarray) -> np.ndarray:
    """The mean Lab of the pixels within ``VIVID_DISC`` of a ``CROP`` crop's centre whose chroma
    lies between the ``VIVID_CHROMA`` percentiles.

    Why: a coloured square on a white die (The Choice's number-and-colour faces), photographed at
    an angle under a lamp, shows as much white body, glare and shade as colour, and the ring's
    median is then a washed-out grey; its most colourful pixels keep the hue. A big coloured pip
    at the centre of a white die pulls it the other way, so the taught set keeps whichever of the
    two measures tells its taught colours apart (``vision.dice_set.DiceSet.build``)."""
    px = lab[_VIVID_MASK]
    chroma = np.hypot(px[:, 1], px[:, 2])
    lo, hi = np.percentile(chroma, VIVID_CHROMA)
    return px[(chroma >= lo) & (chroma <= hi)].mean(0)


def _otsu(values: np.ndarray) -> float:
    v = np.clip(values, 0, 255).astype(np.uint8)
    t, _ = cv2.threshold(v.reshape(-1, 1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return float(t)


def face_features(crop_bgr: np.ndarray) -> FaceFeatures:
    """The aligned ink map and the face/ink colours of one ``CROP`` x ``CROP`` BGR crop."""
    if crop_bgr.shape[:2] != (CROP, CROP):
        crop_bgr = cv2.resize(crop_bgr, (CROP, CROP), interpolation=cv2.INTER_AREA)
    lab = _lab(crop_bgr)
    face, dist = _face_distance(lab, _RING_MASK)
    t = max(MIN_INK_DELTA, _otsu(dist[_INNER]))
    facelike = (dist <= t).astype(np.uint8)
    n, labels = cv2.connectedComponents(facelike, connectivity=4)
    ring_labels = labels[_RING_MASK & (facelike > 0)]
    ring_labels = ring_labels[ring_labels > 0]
    if len(ring_labels):
        main = np.bincount(ring_labels).argmax()
        region = (labels == main).astype(np.uint8)
    else:
        region = facelike
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    pts = np.vstack(contours) if contours else None
    die = np.zeros((CROP, CROP), np.uint8)
    if pts is not None and len(pts) >= 5:
        hull = cv2.convexHull(pts)
        cv2.fillConvexPoly(die, hull, 1)
        rect = cv2.minAreaRect(pts)
    else:
        die[_INNER] = 1
        rect = ((CROP / 2, CROP / 2), (CROP * 0.8, CROP * 0.8), 0.0)
    die = cv2.erode(die, np.ones((3, 3), np.uint8)) & _INNER.astype(np.uint8)
    soft = np.clip((dist - t * 0.7) / (t * 0.6), 0, 1) * die
    ink = soft > 0.5
    # the ink's colour: its pixels farthest from the face (edges mix with the face),
    # in the middle of the crop. The farthest pixels may otherwise be the die's dark
    # rim, a side face or the table in the corners of a turned die's box (a green or
    # red numeral on wood named grey: dev seeds 77-81 of the wood design, 13 colours
    # wrong in 1518 dice before, 8 after; docs/vision-special.md)
    central = ink & _INK_ZONE
    measured = central if central.sum() >= 4 else ink
    if measured.sum() >= 4:
        strong = measured & (dist >= np.percentile(dist[measured], INK_QUANTILE))
        ink_lab = np.median(lab[strong if strong.sum() >= 3 else measured], axis=0)
    else:
        ink_lab = face
    # upright and scaled to the die: rotate about the rectangle's centre by its angle
    (cx, cy), (rw, rh), ang = rect
    side = max(8.0, min(max(rw, rh), CROP * 0.95))
    s = ALIGNED / side
    M = cv2.getRotationMatrix2D((cx, cy), ang, s)
    M[0, 2] += ALIGNED / 2 - cx
    M[1, 2] += ALIGNED / 2 - cy
    aligned = cv2.warpAffine(soft.astype(np.float32), M, (ALIGNED, ALIGNED), flags=cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_CONSTANT)
    return FaceFeatures(aligned, tuple(float(v) for v in face), tuple(float(v) for v in ink_lab),
                        float(ink.sum()) / max(1, int(die.sum())), float(max(rw, rh)) / CROP,
                        float(region[_EDGE].mean()),
                        tuple(float(v) for v in vivid_face(lab)))


def crops_of(bgr: np.ndarray, boxes, size: int = CROP) -> list[np.ndarray]:
    return [crop_square(bgr, b, size, CONTEXT) for b in boxes]

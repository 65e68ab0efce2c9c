"""Stage 1: find die candidates with OpenCV.

Candidates are proposals, not answers: the face reader (stage 2) has a "not a die" class and
rejects what is not a die. The finder therefore aims for recall, with three cues:

1. *distance from the table*: the table's colour is estimated by a heavy median over a 1/16
   thumbnail; pixels far from it (in Lab, lightness weighted down) form blobs at four thresholds
   (two low ones, one with local contrast added, for pale dice on pale tables, and two high ones
   that separate dice from each other and from tray rims). This cue works on a half-size copy
   (the working image is at most 640 px, so the copy is at most 320 px): Lab, the thresholds and
   the contours cost a quarter there, and a die of 14 px is still 7 px. The table colour is a
   median over cells of the same size in input pixels at either scale. The threshold with local
   contrast is done at full size (the edge between a pale die's top and side faces is thin);
2. *splitting*: a blob that is not convex or not square is also split into 2 and 3 parts (and
   around its area / a typical single die's area) by k-means on at most ~600 of its pixel
   positions (touching dice);
3. *pip clusters*: small round dark-or-bright spots close together are grouped and grown into a
   die-sized box (white dice on white tables, where only the pips stand out). Spots are found on
   the full-size grey image (pips of small dice are 3 px).

The proposals are then ranked by how many other proposals agree with them (IoU >= 0.5): one box
per object first (greedy suppression at IoU 0.5 in that order), then the other boxes that are not
near-duplicates (IoU < ``DEDUPE_IOU``) of a kept one, at most ``MAX_CANDIDATES``.

All functions are pure: ``propose`` takes a BGR image and returns boxes in that image's pixels.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import cv2
import numpy as np

__all__ = ["FindResult", "DieFinder", "propose", "table_distance", "box_iou", "iou_matrix",
           "rank_boxes", "nms_boxes", "to_bgr", "pip_groups"]

_K3 = np.ones((3, 3), np.uint8)
_K5 = np.ones((5, 5), np.uint8)
_K2 = np.ones((2, 2), np.uint8)
THRESHOLDS = ((11, False), (18, True), (30, False), (55, False))
DEDUPE_IOU = 0.8
VOTE_IOU = 0.5  # proposals that agree with a box (its score)
OBJECT_IOU = 0.5  # one box per object first: suppression at this IoU
MAX_CANDIDATES = 400
MAX_SPLIT = 6
SPLIT_POINTS = 600  # k-means on about this many pixel positions of a blob
# half-size blob boxes end one input pixel early (they measured ~1 px wider than full-size ones)
SHRINK = 1
# thresholds done at full size: the one with local contrast (face edges of pale dice)
FULL_THR = (1,)
RR_SIZE = 64  # rotated_rect segments at most this many pixels across
# the table-distance cue works at half size when the working image's shorter side is >= this
HALF_FROM = 240
PIP_REACHES = (3.2, 2.3)
# squared Lab distance: lightness weighted 0.5
_LAB_WEIGHTS = np.array([[0.5, 1.0, 1.0]], np.float32)


@dataclass(frozen=True)
class FindResult:
    """Candidate boxes (``[x0, y0, x1, y1]`` in input pixels) and the time the stage took."""
    boxes: tuple[tuple[int, int, int, int], ...]
    scale: float  # working image = input * scale
    elapsed_ms: float
    table_bgr: tuple[int, int, int] = (0, 0, 0)  # median colour of the table (input pixels)

    def draw(self, bgr: np.ndarray) -> np.ndarray:
        out = bgr.copy()
        for x0, y0, x1, y1 in self.boxes:
            cv2.rectangle(out, (x0, y0), (x1, y1), (255, 0, 255), 1)
        return out


def to_bgr(image: np.ndarray) -> np.ndarray:
    """Any uint8 image (grey HxW, HxWx1, BGR, BGRA) as a contiguous 3-channel BGR image."""
    if image.dtype != np.uint8:
        if (np.issubdtype(image.dtype, np.floating) and image.size
            and float(np.nanmax(image)) <= 1.0):
            image = image * 255.0
        image = np.clip(np.nan_to_num(image), 0, 255).astype(np.uint8)
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim == 3 and image.shape[2] == 1:
        return cv2.cvtColor(image[:, :, 0], cv2.COLOR_GRAY2BGR)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.ndim == 3 and image.shape[2] == 3:
        return np.ascontiguousarray(image)
    raise ValueError(f"unsupported image shape {image.shape}")


def box_area(b) -> float:
    return max(0.0, (b[2] - b[0]) * (b[3] - b[1]))


def box_intersection(a, b) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def box_iou(a, b) -> float:
    inter = box_intersection(a, b)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def same_die(a, b, overlap: float = 0.3, inside: float = 0.6) -> bool:
    """Two boxes hold one die: IoU >= ``overlap`` or ``inside`` of the smaller one in the other."""
    smaller = min(box_area(a), box_area(b))
    return box_iou(a, b) >= overlap or (smaller > 0 and box_intersection(a, b) / smaller >= inside)


def nms_boxes(boxes, scores, iou_threshold: float) -> list[int]:
    """Indices kept by greedy non-maximum suppression, best score first."""
    order = sorted(range(len(boxes)), key=lambda i: -scores[i])
    keep: list[int] = []
    for i in order:
        if all(box_iou(boxes[i], boxes[k]) < iou_threshold for k in keep):
            keep.append(i)
    return keep


def intersection_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The area shared by every box in ``a`` (n, 4) with every box in ``b`` (m, 4)."""
    a = np.asarray(a, np.float32).reshape(-1, 4)
    b = np.asarray(b, np.float32).reshape(-1, 4)
    ix = np.clip(np.minimum(a[:, None, 2], b[None, :, 2])
                 - np.maximum(a[:, None, 0], b[None, :, 0]), 0, None)
    iy = np.clip(np.minimum(a[:, None, 3], b[None, :, 3])
                 - np.maximum(a[:, None, 1], b[None, :, 1]), 0, None)
    return ix * iy


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of every box in ``a`` (n, 4) with every box in ``b`` (m, 4)."""
    a = np.asarray(a, np.float32).reshape(-1, 4)
    b = np.asarray(b, np.float32).reshape(-1, 4)
    inter = intersection_matrix(a, b)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    union = area_a[:, None] + area_b[None, :] - inter
    return np.where(union > 0, inter / np.maximum(union, 1e-9), 0.0)


def rank_boxes(boxes, w: int, h: int, iou_threshold: float, limit: int, vote_iou: float):
    """Clip, drop slivers, score each box by how many proposals agree with it (IoU >= ``vote_iou``),
    then keep the best-scored box of every group of near-duplicates (IoU >= ``iou_threshold``), at
    most ``limit``."""
    if not boxes:
        return []
    arr = np.array(boxes, np.int64)
    arr[:, [0, 2]] = np.clip(arr[:, [0, 2]], 0, w)
    arr[:, [1, 3]] = np.clip(arr[:, [1, 3]], 0, h)
    arr = arr[((arr[:, 2] - arr[:, 0]) >= 4) & ((arr[:, 3] - arr[:, 1]) >= 4)]
    if not len(arr):
        return []
    # identical boxes (the same blob at several thresholds)
    # are ranked once, their count is their vote
    _, first_at, counts = np.unique(arr, axis=0, return_index=True, return_counts=True)
    keep_order = np.argsort(first_at)
    arr, counts = arr[first_at[keep_order]], counts[keep_order]
    iou = iou_matrix(arr, arr)
    agree = iou >= vote_iou
    votes = agree @ counts + (iou * agree) @ counts * 1e-3
    order = np.argsort(-votes, kind="stable")
    first = np.zeros(len(arr), bool)  # one box per object: greedy NMS at a low IoU
    removed = np.zeros(len(arr), bool)
    for i in order:
        if not removed[i]:
            first[i] = True
            removed |= iou[i] >= OBJECT_IOU
    kept = []
    removed[:] = False
    for i in np.concatenate([order[first[order]], order[~first[order]]]):
        if removed[i]:
            continue
        kept.append(int(i))
        if len(kept) >= limit:
            break
        removed |= iou[i] >= iou_threshold
    return [tuple(int(v) for v in arr[i]) for i in kept]


def table_distance(lab: np.ndarray, cell: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """Per-pixel colour distance from the estimated table colour, and that estimate (Lab).

    The table colour is a 5x5 median over a thumbnail of ``cell`` x ``cell`` pixel cells (16 on a
    640 px image: dice are small against the table, so the median ignores them)."""
    h, w = lab.shape[:2]
    small = cv2.resize(lab, (max(8, w // cell), max(8, h // cell)), interpolation=cv2.INTER_AREA)
    small = cv2.medianBlur(small, 5)
    bg = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    d = cv2.absdiff(lab, bg).astype(np.float32)
    dist = cv2.sqrt(cv2.transform(cv2.multiply(d, d), _LAB_WEIGHTS))
    return dist, bg


def _components(mask: np.ndarray, minside: float, maxside: float):
    contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    for c in contours:
        x, y, bw, bh = cv2.boundingRect(c)
        if bw < minside or bh < minside or bw > maxside or bh > maxside:
            continue
        if max(bw, bh) > 3.2 * min(bw, bh):
            continue
        area = cv2.contourArea(c)
        if area < 0.3 * bw * bh:
            continue
        yield (x, y, x + bw, y + bh), c, area


def _split(contour, box, k: int, f: float, minside: float) -> list[tuple[int, int, int, int]]:
    """Boxes (scaled by ``f``) of ``k`` parts of the blob, by k-means on its pixel positions; parts
    whose longer side is under ``minside`` (working pixels) are dropped."""
    x0, y0, x1, y1 = box
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.drawContours(m, [contour], -1, 255, -1, offset=(-x0, -y0))
    st = max(1, int(np.sqrt((x1 - x0) * (y1 - y0) / SPLIT_POINTS)))
    ys, xs = np.nonzero(m[::st, ::st])
    pts = np.stack([xs, ys], 1).astype(np.float32) * st
    if len(pts) < k * 4:
        return []
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 15, 0.5)
    cv2.setRNGSeed(0)  # deterministic k-means
    _, labels, _ = cv2.kmeans(pts, k, None, crit, 1, cv2.KMEANS_PP_CENTERS)
    labels = labels.ravel()
    lo_x = np.full(k, 1e9, np.float32)
    lo_y = lo_x.copy()
    hi_x = np.full(k, -1e9, np.float32)
    hi_y = hi_x.copy()
    np.minimum.at(lo_x, labels, pts[:, 0])
    np.minimum.at(lo_y, labels, pts[:, 1])
    np.maximum.at(hi_x, labels, pts[:, 0])
    np.maximum.at(hi_y, labels, pts[:, 1])
    out = []
    for j in range(k):
        if hi_x[j] >= lo_x[j] and max(hi_x[j] - lo_x[j], hi_y[j] - lo_y[j]) + st >= minside / f:
            out.append((int((lo_x[j] + x0) * f), int((lo_y[j] + y0) * f),
                        int((hi_x[j] + x0 + st) * f), int((hi_y[j] + y0 + st) * f)))
    return out


def _pip_spots(grey: np.ndarray, near_mask: np.ndarray, maxside: float) -> np.ndarray:
    """(n, 3) x, y, diameter of small round high-contrast spots (pips); empty if none or too
    many."""
    k = 9
    loc = cv2.absdiff(grey, cv2.blur(grey, (k, k)))
    mask = cv2.bitwise_and(cv2.threshold(loc, 25, 255, cv2.THRESH_BINARY)[1], near_mask)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours or len(contours) > 4000:
        return np.zeros((0, 3), np.float32)
    rects = np.array([cv2.boundingRect(c) for c in contours], np.float32).reshape(-1, 4)
    bw, bh = rects[:, 2], rects[:, 3]
    ok = (bw >= 2) & (bh >= 2) & (bw <= maxside / 4) & (bh <= maxside / 4) \
        & (np.maximum(bw, bh) <= 2.5 * np.minimum(bw, bh))
    idx = np.nonzero(ok)[0]
    area = np.array([cv2.contourArea(contours[i]) + 0.5 * len(contours[i]) for i in idx],
                    np.float32)
    ok[idx] = area >= 0.4 * bw[idx] * bh[idx]
    cents = np.column_stack([rects[:, 0] + bw / 2, rects[:, 1] + bh / 2])
    if not ok.any() or ok.sum() > 400:
        return np.zeros((0, 3), np.float32)
    return np.column_stack([cents[ok], (bw[ok] + bh[ok]) / 2.0]).astype(np.float32)


def pip_groups(pts: np.ndarray, reach: float) -> np.ndarray:
    """Group label per pip: pips closer than ``reach`` diameters with similar size are joined."""
    n = len(pts)
    d = np.hypot(pts[:, None, 0] - pts[None, :, 0], pts[:, None, 1] - pts[None, :, 1])
    size = pts[:, 2]
    big = np.maximum(size[:, None], size[None, :])
    near = (d < reach * big) & (big < 1.8 * np.minimum(size[:, None], size[None, :]))
    lab = np.arange(n)
    ii, jj = np.nonzero(np.triu(near, 1))
    for _ in range(n):
        new = lab.copy()
        np.minimum.at(new, ii, lab[jj])
        np.minimum.at(new, jj, lab[ii])
        new = new[new]
        if np.array_equal(new, lab):
            break
        lab = new
    return lab


def _pip_clusters(pts: np.ndarray, minside: float, maxside: float, reach: float = 3.2):
    """Die-sized boxes grown around groups of pips closer than ``reach`` pip diameters."""
    if len(pts) == 0:
        return []
    g = pip_groups(pts, reach)
    n = len(pts)
    cnt = np.bincount(g, minlength=n)
    x0 = np.full(n, np.inf)
    y0 = x0.copy()
    x1 = np.full(n, -np.inf)
    y1 = x1.copy()
    np.minimum.at(x0, g, pts[:, 0])
    np.minimum.at(y0, g, pts[:, 1])
    np.maximum.at(x1, g, pts[:, 0])
    np.maximum.at(y1, g, pts[:, 1])
    pip = np.bincount(g, pts[:, 2], minlength=n) / np.maximum(cnt, 1)
    idx = np.nonzero((cnt >= 1) & (cnt <= 6))[0]  # group labels in use (a group of > 6 is no face)
    cx, cy = (x0[idx] + x1[idx]) / 2, (y0[idx] + y1[idx]) / 2
    ext = np.maximum(x1[idx] - x0[idx], y1[idx] - y0[idx])
    side = np.maximum(ext + 2.6 * pip[idx], 4.8 * pip[idx])
    ok = (side >= minside) & (side <= maxside)
    return [(int(x - s / 2), int(y - s / 2), int(x + s / 2 + 1), int(y + s / 2 + 1))
            for x, y, s in zip(cx[ok], cy[ok], side[ok])]


def propose(bgr: np.ndarray, work_size: int = 640) -> FindResult:
    """Candidate die boxes in ``bgr`` (any size); see the module docstring."""
    t0 = time.perf_counter()
    bgr = to_bgr(bgr)
    H, W = bgr.shape[:2]
    scale = min(1.0, work_size / max(H, W))
    img = cv2.resize(bgr, (max(1, round(W * scale)), max(1, round(H * scale))),
                     interpolation=cv2.INTER_AREA) \
        if scale < 1.0 else bgr
    h, w = img.shape[:2]
    if h < 16 or w < 16:
        return FindResult((), scale, (time.perf_counter() - t0) * 1000)
    f = 2 if min(h, w) >= HALF_FROM else 1
    sw, sh = w // f, h // f
    small = cv2.resize(img, (sw, sh), interpolation=cv2.INTER_AREA) if f > 1 else img
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
    dist, bg = table_distance(lab, 16 // f)
    L = np.ascontiguousarray(lab[..., 0])
    gk = 7 if f == 1 else 4
    grad = cv2.blur(cv2.morphologyEx(L, cv2.MORPH_GRADIENT, _K3), (gk, gk))
    minside = max(14, min(w, h) // 45)
    maxside = min(w, h) * 0.75
    props: list[tuple[int, int, int, int]] = []
    blobs, single_areas = [], []
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    dist_full = grad_full = None
    for ti, (thr, use_grad) in enumerate(THRESHOLDS):
        fm = 1 if ti in FULL_THR else f
        if fm == f:
            mask = cv2.threshold(dist, thr, 255, cv2.THRESH_BINARY)[1].astype(np.uint8)
            if use_grad:
                mask |= cv2.threshold(grad, thr, 255, cv2.THRESH_BINARY)[1]
        else:
            if dist_full is None:
                dist_full = cv2.resize(dist, (w, h), interpolation=cv2.INTER_LINEAR)
                grad_full = cv2.blur(cv2.morphologyEx(grey, cv2.MORPH_GRADIENT, _K3), (7, 7))
            mask = cv2.threshold(dist_full, thr, 255, cv2.THRESH_BINARY)[1].astype(np.uint8)
            if use_grad:
                mask |= cv2.threshold(grad_full, thr, 255, cv2.THRESH_BINARY)[1]
        if fm == 1:
            mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, _K3)
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, _K5 if fm == 1 else _K2)
        for box, contour, area in _components(mask, minside / fm, maxside / fm):
            props.append((box[0] * fm, box[1] * fm, box[2] * fm - (fm - 1) * SHRINK,
                          box[3] * fm - (fm - 1) * SHRINK))
            bw, bh = box[2] - box[0], box[3] - box[1]
            hull_area = cv2.contourArea(cv2.convexHull(contour))
            if area < 0.85 * max(hull_area, 1.0) or max(bw, bh) > 1.5 * min(bw, bh):
                blobs.append((box, contour, area * fm * fm, fm))
            else:
                single_areas.append(area * fm * fm)
    typical = float(np.median(single_areas)) if len(single_areas) >= 3 else 0.0
    done = []
    for box, contour, area, fm in blobs:
        fbox = [v * fm for v in box]
        if done and iou_matrix([fbox], done).max() >= 0.9:
            continue
        done.append(fbox)  # the same blob at another threshold is split once
        ks = {2, 3}
        if typical > 0:
            k_est = int(round(area / typical))
            ks |= {k for k in (k_est - 1, k_est, k_est + 1) if 2 <= k <= MAX_SPLIT}
        for k in sorted(ks):
            props.extend(_split(contour, box, k, fm, minside))
    near = cv2.threshold(dist, 12, 255, cv2.THRESH_BINARY)[1].astype(np.uint8)
    if near.shape[:2] != (h, w):
        near = cv2.resize(near, (w, h), interpolation=cv2.INTER_NEAREST)
    spots = _pip_spots(grey, near, maxside)
    for r in PIP_REACHES:
        props.extend(_pip_clusters(spots, minside, maxside, r))
    kept = rank_boxes(props, w, h, DEDUPE_IOU, MAX_CANDIDATES, VOTE_IOU)
    inv = 1.0 / scale
    boxes = tuple((int(b[0] * inv), int(b[1] * inv), min(W, int(round(b[2] * inv))),
                   min(H, int(round(b[3] * inv))))
                  for b in kept)
    table = cv2.cvtColor(np.median(bg[::4, ::4].reshape(-1, 3), 0).astype(np.uint8)[None, None],
                         cv2.COLOR_LAB2BGR)[0, 0]
    return FindResult(boxes, scale, (time.perf_counter() - t0) * 1000, tuple(int(v) for v in table))


@dataclass
class DieFinder:
    """Callable stage object: ``DieFinder()(bgr) -> FindResult``. Holds settings only."""
    work_size: int = 640

    def __call__(self, bgr: np.ndarray) -> FindResult:
        return propose(bgr, self.work_size)


def _angle_mod90(a: float) -> float:
    a = float(a) % 90.0
    return 0.0 if a >= 90.0 - 1e-6 else a


def rotated_rect(bgr: np.ndarray, box, context: float = 0.15
                 ) -> tuple[tuple[float, float], tuple[float, float], float]:
    """The rotated rectangle ``((cx, cy), (w, h), angle)`` of the die in the axis-aligned ``box``.

    The die is segmented from the table inside the box: the table colour is the median of a ring
    just outside the box (``context`` x its side), each pixel's Lab distance from it (lightness
    weighted 0.5) is thresholded by Otsu, and ``cv2.minAreaRect`` of the largest outer contour
    that holds the box centre region gives the rectangle. ``angle`` is in degrees in [0, 90) (a
    square die has a 90-degree symmetry), as OpenCV measures it (clockwise in image coordinates).
    Falls back to the box itself (angle 0) when the segmentation fails: too few table pixels, no
    contrast, or a shape that is too small or too large for the box.
    """
    x0, y0, x1, y1 = (float(v) for v in box)
    fallback = (((x0 + x1) / 2.0, (y0 + y1) / 2.0), (max(0.0, x1 - x0), max(0.0, y1 - y0)), 0.0)
    H, W = bgr.shape[:2]
    bw, bh = x1 - x0, y1 - y0
    if bw < 4 or bh < 4:
        return fallback
    m = max(2, int(round(context * max(bw, bh))))
    ex0, ey0 = max(0, int(x0) - m), max(0, int(y0) - m)
    ex1, ey1 = min(W, int(np.ceil(x1)) + m), min(H, int(np.ceil(y1)) + m)
    crop = (to_bgr(bgr[ey0:ey1, ex0:ex1]) if bgr.ndim != 3 or bgr.shape[2] != 3
            else bgr[ey0:ey1, ex0:ex1])
    if crop.shape[0] < 6 or crop.shape[1] < 6:
        return fallback
    # big dice: segment every step-th pixel (the angle needs few)
    step = -(-max(crop.shape[:2]) // RR_SIZE)
    if step > 1:  # an integer factor: INTER_AREA's fast path
        ch, cw = (crop.shape[0] // step) * step, (crop.shape[1] // step) * step
        crop = cv2.resize(crop[:ch, :cw], (cw // step, ch // step), interpolation=cv2.INTER_AREA)
    scale = 1.0 / step
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB)
    ch, cw = lab.shape[:2]
    # the box inside the crop, in crop pixels
    bx0, by0 = (x0 - ex0) * scale, (y0 - ey0) * scale
    bx1, by1 = (x1 - ex0) * scale, (y1 - ey0) * scale
    # the ring around the box: strips above, below, left and right of it (at most 256 pixels)
    iy0, iy1 = max(0, int(by0)), min(ch, int(np.ceil(by1)))
    strips = [lab[:iy0].reshape(-1, 3), lab[iy1:].reshape(-1, 3),
              lab[iy0:iy1, :max(0, int(bx0))].reshape(-1, 3),
              lab[iy0:iy1, min(cw, int(np.ceil(bx1))):].reshape(-1, 3)]
    table_px = np.concatenate(strips)
    if len(table_px) < 8:  # box fills the image: no table around it
        return fallback
    if len(table_px) > 256:
        table_px = table_px[:: len(table_px) // 256 + 1]
    # median
    ref = np.partition(table_px, len(table_px) // 2, axis=0)[len(table_px) // 2].astype(np.float32)
    d = lab.astype(np.float32) - ref
    dist = cv2.sqrt(cv2.transform(cv2.multiply(d, d), _LAB_WEIGHTS))
    dmax = float(dist.max())
    if dmax < 8:  # no contrast: the die looks like the table
        return fallback
    dist8 = cv2.convertScaleAbs(dist, alpha=255.0 / dmax)
    otsu, _ = cv2.threshold(dist8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    # keep only the box (plus a pixel): a touching neighbour must not join the die
    clip = np.zeros_like(dist8)
    clip[max(0, int(by0) - 1):int(np.ceil(by1)) + 1,
         max(0, int(bx0) - 1):int(np.ceil(bx1)) + 1] = 255
    box_area = (bx1 - bx0) * (by1 - by0)
    found = None
    # Otsu first; when it only separates the pips (a pale die on a pale table), lower thresholds
    for thr in (otsu, otsu / 2, otsu / 4):
        if thr * dmax / 255.0 < 4:  # under ~4 Lab units: noise, not a die
            break
        mask = cv2.bitwise_and(cv2.threshold(dist8, thr, 255, cv2.THRESH_BINARY)[1], clip)
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, _K3)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, _K3)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if not contours:
            continue
        c = max(contours, key=cv2.contourArea)
        if cv2.contourArea(c) < 0.3 * box_area:
            continue
        (cx, cy), (rw, rh), ang = cv2.minAreaRect(c)
        if rw * rh > 1.6 * box_area or min(rw, rh) < 0.4 * min(bx1 - bx0, by1 - by0):
            continue
        found = (cx, cy, rw, rh, ang)
        break
    if found is None:
        return fallback
    cx, cy, rw, rh, ang = found
    a = float(ang) % 90.0
    if a >= 90.0 - 1e-6 or a < 0:
        a = 0.0
    if abs(float(ang) % 180.0 - a) >= 45.0:  # angle wrapped by 90: the sides swap
        rw, rh = rh, rw
    off = (step - 1) / 2.0  # centre of a step x step cell, in input pixels
    return ((float(cx) * step + off + ex0, float(cy) * step + off + ey0),
            (float(rw) * step, float(rh) * step), a)

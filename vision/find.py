"""Stage 1: find die candidates with OpenCV.

Candidates are proposals, not answers: the face reader (stage 2) has a "not a die" class and
rejects what is not a die. The finder therefore aims for recall, with three cues:

1. *distance from the table*: the table's colour is estimated by a heavy median over a 1/16
   thumbnail; pixels far from it (in Lab, lightness weighted down) form blobs at four thresholds
   (two low ones, one with local contrast added, for pale dice on pale tables, and two high ones
   that separate dice from each other and from tray rims);
2. *splitting*: a blob that is not convex or not square is also split into 2 and 3 parts by
   k-means on its pixel positions (touching dice);
3. *pip clusters*: small round dark-or-bright spots close together are grouped and grown into a
   die-sized box (white dice on white tables, where only the pips stand out).

All functions are pure: ``propose`` takes a BGR image and returns boxes in that image's pixels.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import cv2
import numpy as np

__all__ = ["FindResult", "DieFinder", "propose", "table_distance", "box_iou", "iou_matrix", "dedupe_boxes",
           "nms_boxes", "to_bgr"]

_K3 = np.ones((3, 3), np.uint8)
_K5 = np.ones((5, 5), np.uint8)
THRESHOLDS = ((11, False), (18, True), (30, False), (55, False))
DEDUPE_IOU = 0.8
MAX_SPLIT = 6


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
        if np.issubdtype(image.dtype, np.floating) and image.size and float(np.nanmax(image)) <= 1.0:
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


def box_iou(a, b) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def nms_boxes(boxes, scores, iou_threshold: float) -> list[int]:
    """Indices kept by greedy non-maximum suppression, best score first."""
    order = sorted(range(len(boxes)), key=lambda i: -scores[i])
    keep: list[int] = []
    for i in order:
        if all(box_iou(boxes[i], boxes[k]) < iou_threshold for k in keep):
            keep.append(i)
    return keep


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of every box in ``a`` (n, 4) with every box in ``b`` (m, 4)."""
    a = np.asarray(a, np.float32).reshape(-1, 4)
    b = np.asarray(b, np.float32).reshape(-1, 4)
    ix = np.clip(np.minimum(a[:, None, 2], b[None, :, 2]) - np.maximum(a[:, None, 0], b[None, :, 0]), 0, None)
    iy = np.clip(np.minimum(a[:, None, 3], b[None, :, 3]) - np.maximum(a[:, None, 1], b[None, :, 1]), 0, None)
    inter = ix * iy
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    union = area_a[:, None] + area_b[None, :] - inter
    return np.where(union > 0, inter / np.maximum(union, 1e-9), 0.0)


def dedupe_boxes(boxes, w: int, h: int, iou_threshold: float = 0.8, limit: int = 400):
    """Clip to the image, drop slivers and near-duplicates (first one wins), at most ``limit``."""
    if not boxes:
        return []
    arr = np.array(boxes, np.int64)
    arr[:, [0, 2]] = np.clip(arr[:, [0, 2]], 0, w)
    arr[:, [1, 3]] = np.clip(arr[:, [1, 3]], 0, h)
    arr = arr[((arr[:, 2] - arr[:, 0]) >= 4) & ((arr[:, 3] - arr[:, 1]) >= 4)]
    iou = iou_matrix(arr, arr)
    removed = np.zeros(len(arr), bool)
    kept = []
    for i in range(len(arr)):
        if removed[i]:
            continue
        kept.append(tuple(int(v) for v in arr[i]))
        if len(kept) >= limit:
            break
        removed |= iou[i] >= iou_threshold
    return kept


def table_distance(lab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-pixel colour distance from the estimated table colour, and that estimate (Lab)."""
    h, w = lab.shape[:2]
    small = cv2.resize(lab, (max(8, w // 16), max(8, h // 16)), interpolation=cv2.INTER_AREA)
    small = cv2.medianBlur(small, 5)
    bg = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    d = cv2.absdiff(lab, bg).astype(np.float32)
    dist = cv2.sqrt(0.5 * d[..., 0] ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2)
    return dist, bg


def _components(mask: np.ndarray, minside: int, maxside: float):
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


def _split(contour, box, k: int) -> list[tuple[int, int, int, int]]:
    x0, y0, x1, y1 = box
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.drawContours(m, [contour], -1, 255, -1, offset=(-x0, -y0))
    ys, xs = np.nonzero(m[::2, ::2])
    pts = np.stack([xs, ys], 1).astype(np.float32) * 2
    if len(pts) < k * 4:
        return []
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 15, 0.5)
    cv2.setRNGSeed(0)  # deterministic k-means
    _, labels, _ = cv2.kmeans(pts, k, None, crit, 1, cv2.KMEANS_PP_CENTERS)
    out = []
    for j in range(k):
        p = pts[labels.ravel() == j]
        if len(p):
            a, b = p.min(0), p.max(0)
            out.append((int(a[0]) + x0, int(a[1]) + y0, int(b[0]) + x0 + 2, int(b[1]) + y0 + 2))
    return out


def _pip_spots(dist: np.ndarray, lab_l: np.ndarray, maxside: float) -> np.ndarray:
    """(n, 3) x, y, diameter of small round high-contrast spots (pips); empty if none or too many."""
    # local contrast against a 9x9 neighbourhood catches dark pips on white and white on dark
    loc = cv2.absdiff(lab_l, cv2.blur(lab_l, (9, 9)))
    mask = ((loc > 25) & (dist > 12)).astype(np.uint8) * 255
    n, _, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    bw, bh, area = stats[1:, 2], stats[1:, 3], stats[1:, 4]
    ok = (bw >= 2) & (bh >= 2) & (bw <= maxside / 4) & (bh <= maxside / 4) \
        & (np.maximum(bw, bh) <= 2.5 * np.minimum(bw, bh)) & (area >= 0.4 * bw * bh)
    if not ok.any() or ok.sum() > 400:
        return np.zeros((0, 3), np.float32)
    return np.column_stack([cents[1:][ok], (bw[ok] + bh[ok]) / 2.0]).astype(np.float32)


def _pip_clusters(pts: np.ndarray, minside: int, maxside: float, reach: float = 3.2):
    """Die-sized boxes grown around groups of pips closer than ``reach`` pip diameters."""
    if len(pts) == 0:
        return []
    # union-find of pips closer than `reach` pip diameters with similar size
    parent = list(range(len(pts)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    d = np.hypot(pts[:, None, 0] - pts[None, :, 0], pts[:, None, 1] - pts[None, :, 1])
    size = pts[:, 2]
    near = (d < reach * np.maximum(size[:, None], size[None, :])) & \
        (np.maximum(size[:, None], size[None, :]) < 1.8 * np.minimum(size[:, None], size[None, :]))
    for i, j in zip(*np.nonzero(np.triu(near, 1))):
        parent[find(i)] = find(j)
    groups: dict[int, list[int]] = {}
    for i in range(len(pts)):
        groups.setdefault(find(i), []).append(i)
    out = []
    for g in groups.values():
        if len(g) > 6:
            continue
        p = pts[g]
        pip = float(np.median(p[:, 2]))
        cx = (p[:, 0].min() + p[:, 0].max()) / 2
        cy = (p[:, 1].min() + p[:, 1].max()) / 2
        ext = max(p[:, 0].max() - p[:, 0].min(), p[:, 1].max() - p[:, 1].min())
        side = max(ext + 2.6 * pip, 4.8 * pip)
        if side < minside or side > maxside:
            continue
        out.append((int(cx - side / 2), int(cy - side / 2), int(cx + side / 2 + 1), int(cy + side / 2 + 1)))
    return out


def propose(bgr: np.ndarray, work_size: int = 640) -> FindResult:
    """Candidate die boxes in ``bgr`` (any size); see the module docstring."""
    t0 = time.perf_counter()
    bgr = to_bgr(bgr)
    H, W = bgr.shape[:2]
    scale = min(1.0, work_size / max(H, W))
    img = cv2.resize(bgr, (max(1, round(W * scale)), max(1, round(H * scale))), interpolation=cv2.INTER_AREA) \
        if scale < 1.0 else bgr
    h, w = img.shape[:2]
    if h < 16 or w < 16:
        return FindResult((), scale, (time.perf_counter() - t0) * 1000)
    # Lab costs ~8 ms at 640x640 on one core (YCrCb 0.4 ms) but finds 1 % more dice on the real sets
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB)
    dist, bg = table_distance(lab)
    grad = cv2.blur(cv2.morphologyEx(lab[..., 0], cv2.MORPH_GRADIENT, _K3), (7, 7)).astype(np.float32)
    minside = max(14, min(w, h) // 45)  # dice smaller than ~14 px are not read (pips would be 2 px)
    maxside = min(w, h) * 0.75
    props: list[tuple[int, int, int, int]] = []
    blobs, single_areas = [], []
    for thr, use_grad in THRESHOLDS:
        mask = dist > thr
        if use_grad:
            mask |= grad > thr
        mask = mask.astype(np.uint8) * 255
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, _K3)
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, _K5)
        for box, contour, area in _components(mask, minside, maxside):
            props.append(box)
            bw, bh = box[2] - box[0], box[3] - box[1]
            hull_area = cv2.contourArea(cv2.convexHull(contour))
            if area < 0.85 * max(hull_area, 1.0) or max(bw, bh) > 1.5 * min(bw, bh):
                blobs.append((box, contour, area))
            else:
                single_areas.append(area)
    # touching dice: split into k parts, k around (blob area / a typical single die's area)
    typical = float(np.median(single_areas)) if len(single_areas) >= 3 else 0.0
    for box, contour, area in blobs:
        ks = {2, 3}
        if typical > 0:
            k_est = int(round(area / typical))
            ks |= {k for k in (k_est - 1, k_est, k_est + 1) if 2 <= k <= MAX_SPLIT}
        for k in sorted(ks):
            props.extend(_split(contour, box, k))
    spots = _pip_spots(dist, lab[..., 0], maxside)
    props.extend(_pip_clusters(spots, minside, maxside, 3.2))
    props.extend(_pip_clusters(spots, minside, maxside, 2.3))
    kept = dedupe_boxes(props, w, h, DEDUPE_IOU, 400)
    inv = 1.0 / scale
    boxes = tuple((int(b[0] * inv), int(b[1] * inv), min(W, int(round(b[2] * inv))), min(H, int(round(b[3] * inv))))
                  for b in kept)
    table = cv2.cvtColor(np.median(bg[::8, ::8].reshape(-1, 3), 0).astype(np.uint8)[None, None],
                         cv2.COLOR_LAB2BGR)[0, 0]
    return FindResult(boxes, scale, (time.perf_counter() - t0) * 1000, tuple(int(v) for v in table))


@dataclass
class DieFinder:
    """Callable stage object: ``DieFinder()(bgr) -> FindResult``. Holds settings only."""
    work_size: int = 640

    def __call__(self, bgr: np.ndarray) -> FindResult:
        return propose(bgr, self.work_size)

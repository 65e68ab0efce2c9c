"""The whole read: image -> find (learned detector or OpenCV) -> read faces (ONNX) -> name colours
-> ``Roll``.

``DiceReader`` holds only settings and the injected stages; every call returns a new frozen
``Roll`` with the per-stage timings. ``decode_image`` turns bytes into a BGR image and refuses,
with a ``BadImage`` (a ``ValueError``) that says why, what it cannot read: empty data, bytes that
are not an image, a header that claims more than ``MAX_PIXELS`` pixels (checked before any pixel
is decoded), a decoder failure.
"""
from __future__ import annotations

import struct
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from .colour import GENERAL, Calibration, ColourNamer, ColourResult, Palette
from .dice import Die, Roll
from .detect import SIZE_FROM, DieDetector, drop_side_faces, drop_specks
from .face_colour import ink_contrast_view
from .find import (DieFinder, box_area, box_intersection, intersection_matrix, iou_matrix,
                   rotated_rect, same_die, to_bgr)
from .read import FaceReader, crops_for_boxes

__all__ = ["BadImage", "Die", "Roll", "DiceReader", "decode_image", "decode_reduced",
           "read_image_file", "read_image_bytes", "header_size", "seen_size", "exif_orientation",
           "orient", "MAX_PIXELS", "select_dice", "face_of"]

MAX_PIXELS = 50_000_000  # a little over 8K x 6K; 4K photos are 8.3 Mpx
MAX_SIDE = 16384


class BadImage(ValueError):
    """The bytes are not an image this pipeline can read (the message says why)."""


def _tiff_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a TIFF's first image directory (tags 256 and 257), or None."""
    order = "<" if data[:2] == b"II" else ">"
    try:
        (ifd,) = struct.unpack(order + "I", data[4:8])
        (n,) = struct.unpack(order + "H", data[ifd:ifd + 2])
        size = {}
        for k in range(min(n, 512)):
            at = ifd + 2 + 12 * k
            tag, kind = struct.unpack(order + "HH", data[at:at + 4])
            if tag in (256, 257):
                size[tag] = struct.unpack(order + ("H" if kind == 3 else "I"),
                                          data[at + 8:at + (10 if kind == 3 else 12)])[0]
        return (size[256], size[257]) if len(size) == 2 else None
    except (struct.error, KeyError):
        return None


def _pnm_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNM header ("P6\n# comment\n640 480\n255\n"), or None."""
    words: list[bytes] = []
    for line in data[2:512].splitlines():
        words += line.split(b"#")[0].split()
        if len(words) >= 2:
            return (int(words[0]), int(words[1])) if words[0].isdigit() \
                and words[1].isdigit() else None
    return None


def header_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a JPEG, PNG, GIF, BMP, WebP, TIFF or PNM header without decoding;
    None if unknown."""
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return _tiff_size(data)
    if data[:2] in (b"P1", b"P2", b"P3", b"P4", b"P5", b"P6") and len(data) > 3 \
            and data[2:3].isspace():
        return _pnm_size(data)
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        w, h = struct.unpack(">II", data[16:24])
        return w, h
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        return struct.unpack("<HH", data[6:10])
    if data[:2] == b"BM" and len(data) >= 26:
        w, h = struct.unpack("<ii", data[18:26])
        return abs(w), abs(h)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP" and len(data) >= 30:
        chunk = data[12:16]
        if chunk == b"VP8X":
            w = 1 + int.from_bytes(data[24:27], "little")
            h = 1 + int.from_bytes(data[27:30], "little")
            return w, h
        if chunk == b"VP8 " and len(data) >= 30:
            w, h = struct.unpack("<HH", data[26:30])
            return w & 0x3FFF, h & 0x3FFF
        if chunk == b"VP8L" and len(data) >= 25:
            b = int.from_bytes(data[21:25], "little")
            return (b & 0x3FFF) + 1, ((b >> 14) & 0x3FFF) + 1
        return None
    if data[:2] == b"\xff\xd8":
        i = 2
        n = len(data)
        while i + 4 <= n:
            if data[i] != 0xFF:
                i += 1
                continue
            marker = data[i + 1]
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
                i += 1 if marker == 0xFF else 2
                continue
            seg = struct.unpack(">H", data[i + 2:i + 4])[0]
            if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE,
                          0xCF):
                if i + 9 <= n:
                    h, w = struct.unpack(">HH", data[i + 5:i + 9])
                    return w, h
                return None
            if marker == 0xDA:  # start of scan before any frame header
                return None
            i += 2 + seg
        return None
    return None


def exif_orientation(data: bytes) -> int:
    """A JPEG's EXIF orientation (1-8: how its stored pixels are turned or mirrored to be seen
    upright; tag 0x0112 of its first image directory), 1 when it has none or it cannot be read.

    Why: phones store a photo as the sensor reads it and write how to turn it; a portrait photo
    of a table is stored on its side. Read as stored, its oblique dice show their top faces to
    the side, which the upright face readers do not expect (docs/vision.md, "Large photos")."""
    if data[:2] != b"\xff\xd8":
        return 1
    i, n = 2, len(data)
    while i + 4 <= n and data[i] == 0xFF:
        marker = data[i + 1]
        if marker == 0xDA or marker == 0xD9:  # image data begins: no EXIF before it
            return 1
        seg = struct.unpack(">H", data[i + 2:i + 4])[0]
        if marker == 0xE1 and data[i + 4:i + 10] == b"Exif\x00\x00":
            return _tiff_orientation(data[i + 10:i + 2 + seg])
        i += 2 + seg
    return 1


def _tiff_orientation(tiff: bytes) -> int:
    """The orientation tag of a TIFF header's first directory (EXIF's layout), 1 if absent."""
    if len(tiff) < 8 or tiff[:2] not in (b"II", b"MM"):
        return 1
    e = "<" if tiff[:2] == b"II" else ">"
    ifd = struct.unpack(e + "I", tiff[4:8])[0]
    if ifd + 2 > len(tiff):
        return 1
    count = struct.unpack(e + "H", tiff[ifd:ifd + 2])[0]
    for k in range(count):
        at = ifd + 2 + 12 * k
        if at + 12 > len(tiff):
            return 1
        tag, kind = struct.unpack(e + "HH", tiff[at:at + 4])
        if tag == 0x0112 and kind == 3:  # SHORT
            value = struct.unpack(e + "H", tiff[at + 8:at + 10])[0]
            return value if 1 <= value <= 8 else 1
    return 1


# what EXIF orientation 2-8 asks of the stored pixels, as numpy views (PIL's exif_transpose:
# mirror, half turn, flip, transpose, a quarter clockwise, transverse, a quarter anticlockwise)
_ORIENT = {2: lambda a: a[:, ::-1], 3: lambda a: a[::-1, ::-1], 4: lambda a: a[::-1],
           5: lambda a: a.swapaxes(0, 1), 6: lambda a: np.rot90(a, 3),
           7: lambda a: a.swapaxes(0, 1)[::-1, ::-1], 8: lambda a: np.rot90(a, 1)}


def orient(img: np.ndarray, orientation: int) -> np.ndarray:
    """Pure: stored pixels turned and mirrored as EXIF ``orientation`` (1-8) says they are seen."""
    if orientation not in _ORIENT:
        return img
    return np.ascontiguousarray(_ORIENT[orientation](img))


# what to do with a phone's HEIC/HEIF photo, which OpenCV does not decode
AS_JPEG = ("send it as JPEG or PNG (an iPhone takes JPEG with Settings > Camera > Formats > "
           "Most Compatible)")
# ...and with an AVIF picture (a browser's or gallery app's "save as" or "share")
AVIF_AS_JPEG = "send it as JPEG or PNG (a gallery app's share or export gives one)"
# what this reader decodes, said when bytes are none of them
FORMATS = "JPEG, PNG, WebP, GIF, BMP, TIFF or PNM"


def _checked_size(data: bytes) -> tuple[int, int]:
    """The header's (width, height), refused when it is too large. ``BadImage`` for empty data,
    a header cut short, and bytes of a format whose size is not read from its header (checked
    before a pixel is decoded) or of no image format at all."""
    if not data:
        raise BadImage("empty file (0 bytes)")
    size = header_size(data)
    if size is not None:
        w, h = size
        if w <= 0 or h <= 0:
            raise BadImage(f"image header gives a size of {w}x{h}")
        if w * h > MAX_PIXELS or max(w, h) > MAX_SIDE:
            raise BadImage(f"image too large: header says {w}x{h} pixels (at most "
                           f"{MAX_PIXELS // 1_000_000} megapixels and {MAX_SIDE} pixels a side)")
    elif brand := heif_brand(data):
        raise BadImage(f"an AVIF picture, which cannot be read here: {AVIF_AS_JPEG}"
                       if brand == "AVIF" else
                       f"a {brand} photo, which cannot be read here: {AS_JPEG}")
    elif _sized_format(data):   # a header cut short or broken
        raise BadImage("cannot decode the image (corrupt or truncated)")
    elif _looks_like_image(data):   # no size to check before decoding: a small file may claim
        # any size (a 1.3 MB TIFF of 16000 x 16000 pixels took 1.6 GB and 10 s to decode)
        raise BadImage("a picture in a format whose size cannot be checked before it is read: "
                       f"send it as {FORMATS}")
    else:
        raise BadImage(f"not an image (unknown format; {FORMATS} are read)")
    return size


# a JPEG is decoded at 1/2, 1/4 or 1/8 while its longer side stays at least this
REDUCE_ABOVE = 1600
# decoded as stored, then turned by its EXIF orientation as decode_image's copy is (orient), so
# that both agree on coordinates
_REDUCED = {k: flag | cv2.IMREAD_IGNORE_ORIENTATION for k, flag in
            ((2, cv2.IMREAD_REDUCED_COLOR_2), (4, cv2.IMREAD_REDUCED_COLOR_4),
             (8, cv2.IMREAD_REDUCED_COLOR_8))}


def decode_reduced(data: bytes) -> tuple[np.ndarray, int]:
    """(BGR image, factor): a large JPEG decoded at 1/2, 1/4 or 1/8 of its size (libjpeg scales
    while decoding: a 12-megapixel photo at 1/2 took 51 instead of 161 ms here), as long as its
    longer side stays at least ``REDUCE_ABOVE``; anything else whole, factor 1. Refuses as
    ``decode_image`` does."""
    size = _checked_size(data)
    if data[:2] != b"\xff\xd8":
        return decode_image(data), 1
    factor = next((k for k in (8, 4, 2) if max(size) / k >= REDUCE_ABOVE), 1)
    if factor == 1:
        return decode_image(data), 1
    img = cv2.imdecode(np.frombuffer(data, np.uint8), _REDUCED[factor])
    if img is None or img.size == 0:
        raise BadImage("cannot decode the image (corrupt or truncated)")
    return orient(img, exif_orientation(data)), factor


def decode_image(data: bytes) -> np.ndarray:
    """Encoded bytes -> BGR uint8 image as it is seen (a JPEG turned by its EXIF orientation),
    or ``BadImage``."""
    _checked_size(data)
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
    if img is None or img.size == 0:
        raise BadImage("cannot decode the image (corrupt or truncated)")
    if img.shape[0] * img.shape[1] > MAX_PIXELS:
        raise BadImage(f"image too large: {img.shape[1]}x{img.shape[0]} pixels")
    if img.dtype == np.uint16:
        img = (img >> 8).astype(np.uint8)
    if img.ndim == 3 and img.shape[2] == 4:  # composite alpha over white, as a viewer shows it
        a = img[..., 3:4].astype(np.float32) / 255.0
        img = (img[..., :3].astype(np.float32) * a + 255.0 * (1 - a)).astype(np.uint8)
    return orient(to_bgr(img), exif_orientation(data))


def seen_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) of the image as it is seen: the header's, swapped for a JPEG whose EXIF
    orientation turns it by a quarter (5-8)."""
    size = header_size(data)
    if size is not None and exif_orientation(data) >= 5:
        return size[1], size[0]
    return size



def as_bgr(image) -> np.ndarray:
    """Encoded bytes or an array of any channel layout -> a BGR uint8 array."""
    if isinstance(image, (bytes, bytearray, memoryview)):
        image = decode_image(bytes(image))
    return to_bgr(np.asarray(image))


_HEIF_BRANDS = {b"heic": "HEIC", b"heix": "HEIC", b"heim": "HEIC", b"heis": "HEIC",
                b"hevc": "HEIC", b"mif1": "HEIF", b"msf1": "HEIF", b"avif": "AVIF",
                b"avis": "AVIF"}


def heif_brand(data: bytes) -> str | None:
    """"HEIC", "HEIF" or "AVIF" for an ISO media file of those brands (a phone's photo in the
    formats OpenCV does not decode), else None."""
    if len(data) >= 12 and data[4:8] == b"ftyp":
        return _HEIF_BRANDS.get(data[8:12])
    return None


def _sized_format(data: bytes) -> bool:
    """Bytes that begin as a format whose size ``header_size`` reads (``FORMATS``)."""
    return data[:2] in (b"\xff\xd8", b"BM", b"P1", b"P2", b"P3", b"P4", b"P5", b"P6") \
        or data[:4] in (b"II*\x00", b"MM\x00*", b"GIF8") or data[:8] == b"\x89PNG\r\n\x1a\n" \
        or (data[:4] == b"RIFF" and data[8:12] == b"WEBP")


def _looks_like_image(data: bytes) -> bool:
    """Other formats OpenCV decodes, whose size is not read: JPEG 2000, OpenEXR, HDR, Sun
    raster (refused, with what to send instead)."""
    return data[:4] in (b"\x00\x00\x00\x0c", b"v/1\x01", b"\x59\xa6\x6a\x95") \
        or data[:10] == b"#?RADIANCE" or data[:4] == b"\xff\x4f\xff\x51"


def read_image_bytes(path: str | Path) -> bytes:
    """An image file's bytes, undecoded (``BadImage`` or ``OSError`` when it cannot be read)."""
    p = Path(path)
    if p.is_dir():
        raise BadImage("is a directory")
    size = p.stat().st_size
    if size > 200_000_000:
        raise BadImage(f"file too large ({size} bytes)")
    return p.read_bytes()


def read_image_file(path: str | Path) -> np.ndarray:
    """Read and decode an image file (``BadImage`` or ``OSError`` when it cannot)."""
    return decode_image(read_image_bytes(path))


def face_of(probs_row, faces=(1, 2, 3, 4, 5, 6)) -> tuple[int, float]:
    """(value, confidence) from one row of (not a die, 1..6) probabilities: the likeliest allowed
    face and its share of the probability of all six faces."""
    p = np.asarray(probs_row, np.float64)
    allowed = np.array([f for f in faces if 1 <= f <= 6], int)
    j = int(np.argmax(p[allowed]))
    total = float(p[1:].sum())
    return int(allowed[j]), float(p[allowed[j]] / total) if total > 0 else 0.0


def select_dice(boxes, probs: np.ndarray, faces=(1, 2, 3, 4, 5, 6), min_die: float = 0.5,
                overlap: float = 0.3, scores=None, sure_box: float | None = None,
                sure_box_die: float = 0.5) -> list[tuple[int, int, float, float]]:
    """Pure post-processing: (box index, value, value confidence, die confidence) of the kept dice.

    ``probs`` columns are (not a die, 1, ..., 6). A candidate is a die when the probability of
    "not a die" is below ``1 - min_die``, or, given the detector's ``scores`` and ``sure_box``,
    when the detector is at least ``sure_box`` sure of its box and the reader gives it at least
    ``sure_box_die``: two judgments that agree. Overlapping dice (IoU >= ``overlap``, or one box
    mostly inside the other) keep the most confident. The value is the likeliest of the allowed
    ``faces``.
    """
    if len(boxes) == 0:
        return []
    probs = np.asarray(probs, np.float64)
    p_die = 1.0 - probs[:, 0]
    is_die = p_die >= min_die
    if scores is not None and sure_box is not None:
        is_die |= (np.asarray(scores, np.float64) >= sure_box) & (p_die >= sure_box_die)
    order = np.argsort(-p_die, kind="stable")
    kept: list[int] = []
    for i in order:
        if not is_die[i]:
            continue
        if not any(same_die(boxes[i], boxes[k], overlap) for k in kept):
            kept.append(int(i))
    out = []
    for i in sorted(kept, key=lambda k: (boxes[k][1], boxes[k][0])):
        value, confidence = face_of(probs[i], faces)
        out.append((i, value, confidence, float(p_die[i])))
    return out


def _sure_boxes(found, scores) -> list:
    """The boxes that size the dice: those the detector is at least ``SIZE_FROM`` sure of (all
    of the OpenCV finder's, which has no scores)."""
    if scores is None:
        return list(found.boxes)
    return [b for b, s in zip(found.boxes, scores) if s >= SIZE_FROM]


FAR_FROM = 48  # working pixels: first-look dice this big (median) ask for the far look
KNOWN_IOU = 0.5  # a further look's box this close to a die kept already is that die again
SCREEN_DIE = 0.5  # DiceReader.screen_die: measured in docs/vision.md, "Two tiers"

# How camera frames are read: the cheap tier (docs/vision.md, "Two tiers"). No quarter turns, no
# second reading of the boxes around a die already read surely, no further looks; the tracker's
# vote over several frames does their job; ``session`` is the shipped face reader alone
# (``vision.read.load_session()``), not the settled tier's vote of two.
# ``DiceReader(session, **CAMERA_FRAME)``.
CAMERA_FRAME = {"turns": False, "skip_sure_duplicates": True, "second_look": None,
                "far_look": None, "scene_turns": False}


SCENE_TURN_MARGIN = 0.7    # likeliest-face probability gained, summed over the dice...
SCENE_TURN_PER_DIE = 0.05  # ...and per die (docs/vision.md, "Turned pictures")
SCENE_TURN_ROUND = 4  # dice read turned a round at a time (at least; a quarter of them)


def scene_quarter(reader: FaceReader, bgr: np.ndarray, boxes, faces=(1, 2, 3, 4, 5, 6),
                  margin: float = SCENE_TURN_MARGIN, per_die: float = SCENE_TURN_PER_DIE,
                  as_they_stand: np.ndarray | None = None) -> tuple[int, np.ndarray]:
    """(k, evidence): the quarter turns (``np.rot90``'s k, anticlockwise) under which the upright
    ``reader`` reads the dice in ``boxes`` surest; 0 unless that quarter beats the picture as it
    stands by more than ``margin`` in all and ``per_die`` a die. evidence[k]: the sum over the
    dice of the likeliest face's probability in that quarter (a die the reader is sure of
    counts 1, one it doubts little; "not a die" counts against); NaN for the turns not read
    because the dice read so surely as they stand that no turn could beat it.

    Why: an upright reader, trained on pictures whose top is the table's far side, reads an
    oblique die surest when its top face is towards the picture's top; all dice share the
    camera's turn, so their evidence is summed, and the picture as it stands is the rule (most
    cameras are held upright), left only on clear evidence.

    ``as_they_stand``: the reader's probabilities for ``boxes`` in ``bgr`` as it stands, when
    they were read already (the pipeline has them from finding the dice); else they are read
    here. The dice's own confidences are not that raw reading: unsure dice's are averaged over
    further views, and a die's confidence is 1 - "not a die"."""
    cols = [reader.classes.index(str(f)) for f in faces if str(f) in reader.classes]
    crops = None
    if as_they_stand is None:
        crops = crops_for_boxes(bgr, boxes, reader.size, reader.context)
        as_they_stand = reader.read_crops(crops)
    evidence = np.zeros(4)
    evidence[0] = np.asarray(as_they_stand)[:, cols].max(1).sum()
    room = len(boxes) - evidence[0]  # the most any turn can gain: dice read sure need no turn
    if room <= margin or room <= per_die * len(boxes):
        evidence[1:] = np.nan
        return 0, evidence
    if crops is None:
        crops = crops_for_boxes(bgr, boxes, reader.size, reader.context)
    need = max(margin, per_die * len(boxes))  # a turn must gain more than this
    # the turns are read a round of dice at a time, surest as they stand first; a turn that
    # can no longer gain enough, even were every die not read yet sure in it, is read no
    # further (its evidence NaN): the choice is the one every die read in every turn gives
    order = np.argsort(-np.asarray(as_they_stand)[:, cols].max(1), kind="stable")
    size = max(SCENE_TURN_ROUND, -(-len(boxes) // 4))
    live, done = [1, 2, 3], 0
    evidence[1:] = 0.0
    while live and done < len(boxes):
        part = order[done:done + size]
        turns = np.concatenate([np.rot90(crops[part], k, axes=(1, 2)) for k in live])
        probs = reader.read_crops(np.ascontiguousarray(turns))  # one batch a round
        evidence[live] += probs[:, cols].max(1).reshape(len(live), -1).sum(1)
        done += len(part)
        if done < len(boxes):
            out = [k for k in live if evidence[k] + (len(boxes) - done) - evidence[0] <= need]
            evidence[out] = np.nan
            live = [k for k in live if k not in out]
    if not live:
        return 0, evidence
    best = max(live, key=lambda k: evidence[k])
    return (best if evidence[best] - evidence[0] > need else 0), evidence


def unturn_box(box, k: int, width: int, height: int) -> tuple:
    """Pure: ``box`` (x_min, y_min, x_max, y_max) in a picture turned by ``np.rot90(., k)``
    given in the pixels of the picture before the turn, ``width`` x ``height`` (whole pixels in,
    whole pixels out). A box turned the other way: ``unturn_box(box, 4 - k, ...)`` with the
    turned picture's size."""
    x0, y0, x1, y1 = box
    for j in range(k % 4, 0, -1):
        # undo one anticlockwise quarter of a picture that was (after j-1 turns) w x h:
        # the turned picture's (x, y) was (w - y, x) before it
        w = width if (j - 1) % 2 == 0 else height
        x0, y0, x1, y1 = w - y1, x0, w - y0, x1
    return (x0, y0, x1, y1)


def find_candidates(finder, bgr: np.ndarray):
    """(FindResult, the detector's scores or None): the learned detector's boxes with how sure it
    is of each (``DieDetector.detect``), or the OpenCV finder's proposals, which have none."""
    return finder.detect(bgr) if isinstance(finder, DieDetector) else (finder(bgr), None)


GROUP_INSIDE = 0.8  # a die of a further look is in a box when this share of it is
GROUP_SIDE = 0.5    # ...and its side at most this share of the box's


def lies_in(die, box, inside: float = GROUP_INSIDE, side: float = GROUP_SIDE) -> bool:
    """Pure: the box ``die`` has ``inside`` of its area in ``box`` and a side at most ``side``
    of ``box``'s: a die of a group that ``box`` may be."""
    return (box_intersection(die, box) >= inside * box_area(die)
            and max(die[2] - die[0], die[3] - die[1]) <= side * max(box[2] - box[0],
                                                                    box[3] - box[1]))


def holds_dice(box, dice, inside: float = GROUP_INSIDE, side: float = GROUP_SIDE) -> bool:
    """Pure: ``box`` holds two or more of ``dice`` (items: (box, ...)) that ``lies_in`` it: the
    box is a group of dice (a dice tray seen whole, a cluster), not one die."""
    return sum(lies_in(d[0], box, inside, side) for d in dice) >= 2


def boxed_again(boxes, dice, iou: float = KNOWN_IOU, touch: float = 0.2) -> dict[int, int]:
    """Pure: {index in ``boxes``: index in ``dice``} for the boxes of a further look that are a
    die kept already boxed again (IoU at least ``iou``) and whose reading cannot change the
    look's dice: no box of theirs is linked to a new box by overlap (more than ``touch`` of the
    smaller box's area in the other, which holds both ``select_dice``'s and ``drop_side_faces``'s
    overlaps), directly or through other boxes. Such a box could only be kept as a die that
    ``add_sure_dice`` leaves out, so it need not be read. Boxes that could make a kept die a
    group of dice (``holds_dice``'s shape: inside it and small beside it) count as new, and a
    kept die that holds two of them is no die whose boxes may go unread."""
    n = len(boxes)
    if n == 0 or len(dice) == 0:
        return {}
    b = np.asarray(boxes, np.float32).reshape(-1, 4)
    d = np.asarray(dice, np.float32).reshape(-1, 4)
    iou_known = iou_matrix(b, d)
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    side = np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])
    held = ((intersection_matrix(b, d) >= GROUP_INSIDE * area[:, None])
            & (side[:, None] <= GROUP_SIDE * np.maximum(d[:, 2] - d[:, 0], d[:, 3] - d[:, 1])))
    group = held.sum(0) >= 2   # the kept dice that may be a group seen whole
    again = ((iou_known.max(1) >= iou) & ~held.any(1)
             & ~(iou_known >= iou)[:, group].any(1))
    if not again.any():
        return {}
    linked = intersection_matrix(b, b) > touch * np.minimum(area[:, None], area[None, :])
    reach = ~again  # the new boxes, and every box linked to them
    while True:
        more = reach | linked[:, reach].any(1)
        if (more == reach).all():
            break
        reach = more
    return {int(i): int(np.argmax(iou_known[i])) for i in np.flatnonzero(again & ~reach)}


def may_be_added(box, kept, maybe_sure) -> bool:
    """Pure: whether a further look's die in ``box`` may change the roll once it is sure of its
    value (``add_sure_dice``), given the dice ``kept`` already and the boxes of the look's dice
    that may turn out sure (``maybe_sure``; items: (box, ...) both). It may when it is no kept
    die (``same_die``), when it lies in a kept die as ``holds_dice`` counts (it may make that
    die a group of dice seen whole), or when each kept die it is the same die as may be such a
    group (holding two of ``maybe_sure``), which ``add_sure_dice`` would take away. Any other
    die is a kept die found again, left out however sure of its value: its further views can
    change nothing."""
    if any(lies_in(box, k[0]) for k in kept):
        return True
    return not any(same_die(box, k[0]) and not holds_dice(k[0], maybe_sure) for k in kept)


def add_sure_dice(dice: list, more: list, sure_die: float, sure_value: float) -> list:
    """Pure: ``dice`` with the dice of ``more`` that the reader is sure of (die confidence at
    least ``sure_die``, value confidence at least ``sure_value``) and that are not a die of
    ``dice`` (``same_die``), top to bottom. Items: (box, value, value confidence, die
    confidence). A second look adds what the first missed; the only die it takes away is one
    whose box holds two or more of its sure dice (``holds_dice``): from afar, a round or
    hexagonal dice tray with its dice looks like one die with pips to the detector and the
    reader alike, and the closer look sees the dice in it (docs/vision.md, "Trays seen
    whole")."""
    sure = [d for d in more if d[3] >= sure_die and d[2] >= sure_value]
    kept = [e for e in dice if not holds_dice(e[0], sure)]
    added = [d for d in sure if not any(same_die(d[0], e[0]) for e in kept)]
    return sorted(kept + added, key=lambda d: (d[0][1], d[0][0]))


@dataclass
class DiceReader:
    """``DiceReader()(image) -> Roll``; ``image`` is a BGR/grey/BGRA array or encoded bytes.

    ``session``: an onnxruntime-like session for the face reader (default: the settled tier's
    two shipped readers voted together, ``vision.read.load_settled_session``; camera frames pass
    the shipped reader alone with ``CAMERA_FRAME``).
    ``palette``/``calibration``: colour naming. ``faces``: the values a die can show.
    """
    session: object | None = None
    palette: Palette = GENERAL
    calibration: Calibration | None = None
    # name each die's body colour; False where the dice do not differ by colour (a Knister or
    # Kuh Vadis table): the colour stage is skipped and every die's colour is None
    name_colours: bool = True
    faces: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
    min_die: float = 0.9  # chosen on the training photos (precision vs recall), see docs/vision.md
    # ...or at least sure_box_die for a box the detector is at least sure_box sure of
    # (docs/vision.md, "Boxes the detector is sure of"); None: the reader's min_die alone
    sure_box: float | None = 0.65
    sure_box_die: float = 0.5
    # a settled vote's first reader alone reads the boxes under sure_box that it gives a die
    # chance under this (they would need min_die); None: the whole vote reads every box
    # (docs/vision.md, "Two tiers")
    screen_die: float | None = SCREEN_DIE
    work_size: int = 640  # the OpenCV finder's working copy (the detector's: vision.detect.WORK)
    threads: int | None = None
    # read each chosen die in three more views and average: quarter turns, or for an upright
    # reader the mirror and small turns (FaceReader.mean_over_views, docs/vision.md)
    turns: bool = True
    # ...only the dice whose first reading's value confidence is below this (docs/vision.md)
    turn_below: float = 0.9
    # ...and in their ink-contrast view and its mirror too (vision.read.mean_with_view;
    # docs/vision.md, "Ink views")
    ink_views: bool = True
    # read the finder's boxes in two rounds (see _read_candidates)
    skip_sure_duplicates: bool = False
    # ...a die this sure (die and value) is not read again in the boxes overlapping it
    sure: float = 0.99
    # "detector": the learned detector (vision.detect); "opencv": vision.find's proposals
    find_with: str = "detector"
    # the detector's ONNX session (default: the shipped model)
    detector_session: object | None = None
    # drop weak detector boxes leaning on a surer die (vision.detect.drop_side_faces)
    side_faces: bool = True
    specks: bool = True  # drop dice far smaller than the sure ones (vision.detect.drop_specks)
    # the settled tier's further looks (_extra_looks): the detector again on a working copy of
    # this longer side, closer (when the photo has 1.25 times the first look's pixels) and
    # farther (when the first look kept no die or big ones), each adding only the dice the
    # reader is this sure of (die, value; add_sure_dice), and taking away only a kept die whose
    # box holds two or more of them (a dice tray seen whole). None for camera frames. Measured
    # and chosen: docs/vision.md, "Two tiers", "Trays seen whole"
    second_look: int | None = 640
    far_look: int | None = 192
    second_look_die: float = 0.99
    second_look_value: float = 0.9
    # each die's rotated rectangle (Die.rotated); ~0.25 ms a die, unused by camera frames
    outlines: bool = True
    # a reduced JPEG's dice are read at full size when smaller than this (px)
    read_at_least: int = 32
    # the settled tier reads a picture turned by a quarter when its dice read clearly surer
    # turned (scene_quarter): an upright reader reads the face towards the picture's top, and a
    # camera held sideways or turned across the table puts the top faces elsewhere. The margins
    # (likeliest-face probability gained, in all and a die) were chosen on renders and training
    # photos: docs/vision.md, "Turned pictures"
    scene_turns: bool = True
    scene_turn_margin: float = SCENE_TURN_MARGIN
    scene_turn_per_die: float = SCENE_TURN_PER_DIE
    finder: object = field(init=False)
    reader: FaceReader = field(init=False)

    def __post_init__(self):
        if self.session is None:
            from .read import load_settled_session
            self.session = load_settled_session(threads=self.threads)
        if self.find_with == "detector":
            self.finder = DieDetector(self.detector_session, threads=self.threads)
        elif self.find_with == "opencv":
            self.finder = DieFinder(self.work_size)
        else:
            raise ValueError(f"find_with must be 'opencv' or 'detector', not {self.find_with!r}")
        self.reader = FaceReader(self.session)

    def with_calibration(self, calibration: Calibration | None) -> "DiceReader":
        return replace(self, calibration=calibration)

    def __call__(self, image) -> Roll:
        """Read a photo or frame. Encoded bytes of a large JPEG are decoded at a reduced size
        (``decode_reduced``) and the dice found there; they are read there when they are at least
        ``read_at_least`` px on their longer side (the face reader sees 32 px), else read on the
        photo decoded whole, in the boxes found on the reduced copy (scaled); a reduced copy with
        no die found is looked at whole."""
        if not isinstance(image, (bytes, bytearray, memoryview)):
            return self._read(as_bgr(image), time.perf_counter())
        t0 = time.perf_counter()
        data = bytes(image)
        small, factor = decode_reduced(data)
        if factor == 1:
            return self._read(small, t0)
        found = self._find(small)
        sure = _sure_boxes(*found)
        if not sure:
            return self._read(decode_image(data), t0)
        w, h = seen_size(data)
        k = w / small.shape[1]
        if float(np.median([max(b[2] - b[0], b[3] - b[1]) for b in sure])) >= self.read_at_least:
            roll = self._read(small, t0, found)
            return replace(roll, width=w, height=h, dice=tuple(d.scaled(k) for d in roll.dice),
                           elapsed_ms=(time.perf_counter() - t0) * 1000)
        boxes, scores = found
        scaled = tuple(tuple(int(round(v * k)) for v in b) for b in boxes.boxes)
        return self._read(decode_image(data), t0,
                          (replace(boxes, boxes=scaled, scale=boxes.scale / k), scores))

    def _find(self, bgr: np.ndarray):
        """(FindResult, detector scores or None for the OpenCV finder)."""
        return find_candidates(self.finder, bgr)

    def _read(self, bgr: np.ndarray, t0: float, found_scores=None) -> Roll:
        """The roll in ``bgr``; ``found_scores``: the candidates already found in it. With
        ``scene_turns`` and an upright reader, read again turned by the quarter whose reading
        of the dice found is surer by ``scene_turn_margin`` (``scene_quarter``), and the dice
        of that reading given back in ``bgr``'s pixels."""
        roll, raw = self._read_as_is(bgr, t0, found_scores)
        if not (self.scene_turns and roll.dice and self.reader.upright):
            return roll
        t1 = time.perf_counter()
        k, _ = scene_quarter(self.reader, bgr, [d.box for d in roll.dice], self.faces,
                             self.scene_turn_margin, self.scene_turn_per_die, raw)
        roll = replace(roll, read_ms=roll.read_ms + (time.perf_counter() - t1) * 1000)
        if k == 0:
            return replace(roll, elapsed_ms=(time.perf_counter() - t0) * 1000)
        turned, _ = self._read_as_is(np.ascontiguousarray(np.rot90(bgr, k)), t0)
        if not turned.dice:  # the dice read surer turned, but the turned picture's boxes hold
            return replace(roll, elapsed_ms=(time.perf_counter() - t0) * 1000)  # none: keep them
        h, w = bgr.shape[:2]
        dice = []
        for d in turned.dice:
            box = unturn_box(d.box, k, w, h)
            dice.append(replace(d, box=box,
                                rotated=rotated_rect(bgr, box) if self.outlines else None))
        dice.sort(key=lambda d: (d.box[1], d.box[0]))
        return replace(turned, width=w, height=h, dice=tuple(dice),
                       find_ms=roll.find_ms + turned.find_ms,
                       read_ms=roll.read_ms + turned.read_ms,
                       colour_ms=roll.colour_ms + turned.colour_ms,
                       elapsed_ms=(time.perf_counter() - t0) * 1000,
                       candidates=roll.candidates + turned.candidates)

    def _read_as_is(self, bgr: np.ndarray, t0: float, found_scores=None
                    ) -> tuple[Roll, np.ndarray]:
        """(the roll in ``bgr`` as the picture stands, the face reader's probabilities for its
        dice's boxes, one row a die)."""
        found, scores = found_scores or self._find(bgr)
        dice, read_ms = self._read_found(bgr, found, scores)
        find_ms, candidates = found.elapsed_ms, len(found.boxes)
        for work in self._extra_looks(bgr, [d[0] for d in dice], found.scale):
            found2, scores2 = self.finder.detect(bgr, work)
            more, more_ms = self._read_found(bgr, found2, scores2, dice)
            dice = add_sure_dice(dice, more, self.second_look_die, self.second_look_value)
            find_ms, read_ms = find_ms + found2.elapsed_ms, read_ms + more_ms
            candidates += len(found2.boxes)
        boxes = [d[0] for d in dice]
        colours = (ColourNamer(self.palette, self.calibration)(bgr, boxes) if self.name_colours
                   else ColourResult((None,) * len(boxes), (1.0,) * len(boxes),
                                     (None,) * len(boxes), 0.0))
        out = tuple(Die(box, v, vc, colours.names[k], colours.confidences[k],
                        colours.measured_bgr[k], dc,
                        rotated_rect(bgr, box) if self.outlines else None)
                    for k, (box, v, vc, dc, _) in enumerate(dice))
        raw = (np.array([d[4] for d in dice], np.float32) if dice
               else np.zeros((0, len(self.reader.classes)), np.float32))
        return (Roll(bgr.shape[1], bgr.shape[0], out, find_ms, read_ms, colours.elapsed_ms,
                     (time.perf_counter() - t0) * 1000, candidates), raw)

    def _read_found(self, bgr, found, scores, known=()) -> tuple[list, float]:
        """([(box, value, value confidence, die confidence, probabilities)] of the dice among
        the found boxes, top to bottom, ms of reading). ``known``: for a further look, the dice
        kept already (items as returned). The further look's dice count only where
        ``add_sure_dice`` takes them: sure dice that are not a die kept already. So its boxes
        that are a kept die boxed again, and linked to no new box (``boxed_again``), take that
        die's reading instead of being read, and only its dice of a die confidence that can be
        sure (``second_look_die``) and that ``may_be_added`` are read in more views (the views
        change the value's confidence, not the die's). The roll is the same as with every box
        read: one reading fewer for about a third of a 640-px look's boxes on real photos
        (docs/vision.md, "Two tiers")."""
        boxes = found.boxes
        again = {int(i): known[j] for i, j in boxed_again(boxes, [d[0] for d in known]).items()}
        fresh = [i for i in range(len(boxes)) if i not in again]
        probs, read_ms = self._read_candidates(
            bgr, [boxes[i] for i in fresh],
            None if scores is None else [scores[i] for i in fresh]) if fresh \
            else (np.zeros((0, len(self.reader.classes)), np.float32), 0.0)
        if again:
            full = np.zeros((len(boxes), probs.shape[1]), np.float32)
            full[fresh] = probs
            for i, d in again.items():
                full[i] = d[4]
            probs = full
        chosen = select_dice(boxes, probs, self.faces, self.min_die, scores=scores,
                             sure_box=self.sure_box, sure_box_die=self.sure_box_die)
        if scores is not None and self.side_faces:
            keep = set(drop_side_faces(boxes, scores, [c[0] for c in chosen]))
            chosen = [c for c in chosen if c[0] in keep]
        if scores is not None and self.specks:
            keep = set(drop_specks(boxes, scores, [c[0] for c in chosen]))
            chosen = [c for c in chosen if c[0] in keep]
        chosen = [(c[0], *again[c[0]][1:4]) if c[0] in again else c for c in chosen]
        counts = [k for k, c in enumerate(chosen) if c[0] not in again
                  and (not known or c[3] >= self.second_look_die)]
        if known and counts:
            maybe_sure = [(boxes[chosen[k][0]],) for k in counts]
            counts = [k for k in counts if may_be_added(boxes[chosen[k][0]], known, maybe_sure)]
        if self.turns and counts:
            t1 = time.perf_counter()
            turned = self._read_turned(bgr, [boxes[chosen[k][0]] for k in counts], probs,
                                       [chosen[k] for k in counts])
            for k, c in zip(counts, turned):
                chosen[k] = c
            read_ms += (time.perf_counter() - t1) * 1000
        return [(tuple(int(v) for v in boxes[i]), v, vc, dc, probs[i])
                for i, v, vc, dc in chosen], read_ms

    def _extra_looks(self, bgr, boxes, scale: float) -> list[int]:
        """The working sizes of the settled tier's further looks, after a first look that kept
        the dice in ``boxes`` on a working copy scaled by ``scale``: none without the detector;
        a closer one (``second_look``) where the photo has the pixels for it; a farther one
        (``far_look``) when the first look kept no die or big ones (median side at least
        ``FAR_FROM`` working pixels): dice on one table are alike in size."""
        if self.find_with != "detector":
            return []
        longer, first = max(bgr.shape[:2]), self.finder.work_size
        out = []
        if self.second_look and min(self.second_look, longer) >= 1.25 * first:
            out.append(min(self.second_look, longer))
        sides = [max(b[2] - b[0], b[3] - b[1]) * scale for b in boxes]
        if (self.far_look and self.far_look * 1.25 <= min(first, longer)
                and (not sides or float(np.median(sides)) >= FAR_FROM)):
            out.append(self.far_look)
        return out

    def _read_candidates(self, bgr, boxes, scores=None) -> tuple[np.ndarray, float]:
        """(probabilities per box, ms). ``scores``: the detector's, a box; with ``screen_die``,
        a box it is under ``sure_box`` sure of counts as a die only at ``min_die``, so a vote
        of readers leaves it to its first reader when that one gives it a die chance under
        ``screen_die`` (``FaceReader.__call__``'s ``screen``). With ``skip_sure_duplicates``
        the boxes are read in two rounds: first the best-ranked box of each place (a box
        overlapping no better-ranked one, as ``select_dice`` counts overlap), then the
        others, except those overlapping a die the first round is sure of (die and value at
        least ``sure``): the finder proposes several boxes around every die, and a sure die's
        other boxes would only lose to it. A box not read gets the row "not a die"."""
        if not self.skip_sure_duplicates or len(boxes) < 2:
            screen = None
            if (scores is not None and self.screen_die is not None and self.sure_box is not None
                    and self.screen_die <= self.min_die):
                screen = [s < self.sure_box for s in scores]
            read = self.reader(bgr, boxes, screen, self.screen_die or 0.0)
            return read.probs, read.elapsed_ms
        first: list[int] = []
        for i, b in enumerate(boxes):
            if not any(same_die(b, boxes[k]) for k in first):
                first.append(i)
        r1 = self.reader(bgr, [boxes[i] for i in first])
        probs = np.zeros((len(boxes), r1.probs.shape[1]), np.float32)
        probs[:, 0] = 1.0
        probs[first] = r1.probs
        p_face = r1.probs[:, 1:].max(1) / np.maximum(r1.probs[:, 1:].sum(1), 1e-9)
        sure = [first[j] for j in range(len(first)) if 1.0 - r1.probs[j, 0] >= self.sure
                and p_face[j] >= self.sure]
        taken = set(first)
        rest = [i for i, b in enumerate(boxes) if i not in taken
                and not any(same_die(b, boxes[k]) for k in sure)]
        ms = r1.elapsed_ms
        if rest:
            r2 = self.reader(bgr, [boxes[i] for i in rest])
            probs[rest] = r2.probs
            ms += r2.elapsed_ms
        return probs, ms

    def read_faces(self, image, boxes) -> list[tuple[int, float]]:
        """(value, confidence) of dice whose boxes are known (a crop, a box the user drew), read
        like the dice a photo is found to hold: the allowed faces, the second views."""
        bgr = as_bgr(image)
        boxes = [tuple(b) for b in boxes]
        if not boxes:
            return []
        probs = self.reader(bgr, boxes).probs
        chosen = [(i, *face_of(probs[i], self.faces), float(1 - probs[i, 0]))
                  for i in range(len(boxes))]
        if self.turns:
            chosen = self._read_turned(bgr, boxes, probs, chosen)
        return [(v, vc) for _, v, vc, _ in chosen]

    def _read_turned(self, bgr, boxes, probs, chosen):
        """The chosen dice the first reading is not sure of (value confidence under
        ``turn_below``) read again in three more views (``FaceReader.mean_over_views``: quarter
        turns, or for an upright reader the mirror and small turns; with ``ink_views`` also
        the ink-contrast view and its mirror); their value comes from the mean of the readings
        (a pip pattern is the same face turned, the model's errors are not)."""
        unsure = [k for k, (_, _, vc, _) in enumerate(chosen) if vc < self.turn_below]
        if not unsure:
            return chosen
        crops = crops_for_boxes(bgr, [boxes[k] for k in unsure], self.reader.size,
                                self.reader.context)
        mean = self.reader.mean_over_views(probs[[chosen[k][0] for k in unsure]], crops,
                                           ink_contrast_view if self.ink_views else None)
        out = list(chosen)
        for j, k in enumerate(unsure):
            i, _, _, dc = chosen[k]
            out[k] = (i, *face_of(mean[j], self.faces), dc)
        return out

    def calibrate(self, image) -> Calibration:
        """Learn the table's light from one photo of dice whose colours are in the palette."""
        from .colour import calibrate
        if not self.name_colours:
            raise ValueError("this reader names no colours (name_colours=False): there is no "
                             "light to calibrate")
        roll = self.with_calibration(None)(image)
        if not roll.dice:
            raise ValueError("no dice found in the calibration photo")
        return calibrate([d.colour_bgr for d in roll.dice], self.palette)

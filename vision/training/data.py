"""Reading labelled dice folders (``images/`` + ``labels.csv``) and the validation split.

The layout is the one of ``shared/data/dice/<set>/``: one ``labels.csv`` row per die with
``filename,image_w,image_h,die,value,x_min,y_min,x_max,y_max,orig_split[,box_kind]`` and an
optional ``images.csv`` (one row per photo, may carry ``source_photo``).

The validation split is a pure function of the set name and the row, so that training and the
benchmark agree without sharing state:

* ``matteop65``: the author's ``valid`` folder;
* crop sets (``chase_casino``, ``skovy_crops``): a hash of the source photo (the two crops of one
  photo never straddle the split), one photo in four;
* any other set: the author's split where it has ``val``/``valid``/``test`` rows, otherwise a hash
  of the file name, one photo in five.
"""
from __future__ import annotations

import csv
import statistics
import zlib
from dataclasses import dataclass, replace
from pathlib import Path

import cv2

__all__ = ["LabelledDie", "LabelledImage", "load_folder", "face_class", "is_validation",
           "default_data_root", "STRETCHED", "taken_upright", "as_taken"]


UNREADABLE_TOP = 0.5  # a die whose top face is hidden more than this cannot be read
# a picture face by name (renders of Kuh Vadis dice label the cow so) and the face reader's
# class for it: the die's sixth face, where Kuh Vadis' dice spec prints the cow (``engine``
# ``DiceSpec.symbols``; models/README.md, class 6)
SYMBOL_FACES = {"cow": 6}


def face_class(value) -> int:
    """The face reader's class of a labelled face: 1-6 as given (an int or its text), a picture
    face by ``SYMBOL_FACES``. Raises ValueError for any other name."""
    return SYMBOL_FACES.get(value) or int(value)


@dataclass(frozen=True)
class LabelledDie:
    value: int
    box: tuple[float, float, float, float]
    box_kind: str = "die"  # "die" (whole die) or "pips" (bounding box of the top face's pips)
    # share of the top face hidden by other objects (renders label it; photos 0)
    top_hidden: float = 0.0
    # the body's colour name (renders label it, The Choice: the up face's colour; photos "")
    colour: str = ""

    @property
    def readable(self) -> bool:
        """False for a die whose top face is mostly hidden (a render's die stacked under another or
        behind a tray's rim): it is a die, of no face anyone could read."""
        return self.top_hidden <= UNREADABLE_TOP


@dataclass(frozen=True)
class LabelledImage:
    set_name: str
    path: Path
    width: int
    height: int
    dice: tuple[LabelledDie, ...]
    orig_split: str
    source_photo: str
    is_crop: bool  # one die whose box is the whole image (a crop set: reader only)

    @property
    def validation(self) -> bool:
        return is_validation(self.set_name, self.path.name, self.orig_split, self.source_photo)


def _bucket(key: str, n: int) -> int:
    return zlib.crc32(key.encode("utf-8")) % n


def is_validation(set_name: str, filename: str, orig_split: str = "",
                  source_photo: str = "") -> bool:
    """True when this photo belongs to the held-out validation split (never trained on)."""
    if set_name == "matteop65":
        return orig_split == "valid"
    if set_name in ("chase_casino", "skovy_crops"):
        return _bucket(source_photo or filename, 4) == 0
    if orig_split in ("val", "valid", "test"):
        return True
    if orig_split in ("train", ""):
        return _bucket(filename, 5) == 0
    return False


# Sets whose export changed the shape of the photos: set -> (x scale, y scale) that gives each photo
# back the shape its camera took. epanemu_own: Roboflow stretched 4:3 landscape phone photos to
# 640x640 (its README), so its dice look 1.33x taller than they are; read back at 640x480, its
# glasses, laptop and dice have their own proportions again. No camera a player holds stretches
# its photos, so the benchmarks read such sets as taken (``as_taken``).
STRETCHED: dict[str, tuple[float, float]] = {"epanemu_own": (1.0, 0.75)}


def taken_upright(im: LabelledImage) -> bool:
    """Whether a photo of a ``STRETCHED`` set was taken upright (portrait, 3:4), so that the
    export stretched it across, not upwards: its labelled dice are wider than tall as stored
    (median height / width under 1). A camera tilted towards the table makes dice taller than
    wide; stretched upwards they are taller still. epanemu_own: six photos at 0.72-0.82, the
    other 61 at 1.28-1.74; by eye, dice_399's pips are ellipses lying on their side as stored
    and round once narrowed."""
    ratios = [(d.box[3] - d.box[1]) / (d.box[2] - d.box[0])
              for d in im.dice if d.box[2] > d.box[0]]
    return bool(ratios) and statistics.median(ratios) < 1.0


def as_taken(im: LabelledImage, bgr):
    """``(im, bgr)`` with the photo and its labels scaled back to the shape the camera took
    (``STRETCHED``; the two scales swapped for a photo ``taken_upright``); unchanged for any
    other set."""
    sx, sy = STRETCHED.get(im.set_name, (1.0, 1.0))
    if (sx, sy) == (1.0, 1.0):
        return im, bgr
    if taken_upright(im):
        sx, sy = sy, sx
    w, h = max(1, round(bgr.shape[1] * sx)), max(1, round(bgr.shape[0] * sy))
    bgr = cv2.resize(bgr, (w, h), interpolation=cv2.INTER_AREA)
    dice = tuple(replace(d, box=(d.box[0] * sx, d.box[1] * sy, d.box[2] * sx, d.box[3] * sy))
                 for d in im.dice)
    return replace(im, width=w, height=h, dice=dice), bgr


def default_data_root() -> Path:
    """``<repo>/../shared/data/dice`` (may not exist)."""
    return Path(__file__).resolve().parents[3] / "shared" / "data" / "dice"


def load_folder(folder: str | Path) -> list[LabelledImage]:
    """All labelled images of one folder, in file-name order. Raises FileNotFoundError."""
    folder = Path(folder)
    labels = folder / "labels.csv"
    if not labels.is_file():
        raise FileNotFoundError(f"{labels}: no labels.csv (expected images/ + labels.csv)")
    set_name = folder.resolve().name
    extra: dict[str, dict[str, str]] = {}
    if (folder / "images.csv").is_file():
        with open(folder / "images.csv", newline="") as fh:
            extra = {r["filename"]: r for r in csv.DictReader(fh)}
    rows: dict[str, list[dict[str, str]]] = {}
    with open(labels, newline="") as fh:
        for r in csv.DictReader(fh):
            rows.setdefault(r["filename"], []).append(r)
    for name, r in extra.items():  # photos with no dice at all
        if int(r.get("n_dice", "0") or 0) == 0:
            rows.setdefault(name, [])
    out = []
    for name in sorted(rows):
        rs = rows[name]
        info = extra.get(name, {})
        w = int(float((rs[0] if rs else info)["image_w"]))
        h = int(float((rs[0] if rs else info)["image_h"]))
        dice = tuple(
            LabelledDie(face_class(r["value"]),
                        (float(r["x_min"]), float(r["y_min"]), float(r["x_max"]),
                         float(r["y_max"])),
                        r.get("box_kind") or "die", float(r.get("top_hidden") or 0.0),
                        r.get("colour") or "")
            for r in rs)
        is_crop = len(dice) == 1 and dice[0].box_kind == "die" \
            and dice[0].box[0] <= 0 and dice[0].box[1] <= 0 \
            and dice[0].box[2] >= w - 1 and dice[0].box[3] >= h - 1
        split = (rs[0] if rs else info).get("orig_split", "")
        out.append(LabelledImage(set_name, folder / "images" / name, w, h, dice, split,
                                 info.get("source_photo", ""), is_crop))
    return out

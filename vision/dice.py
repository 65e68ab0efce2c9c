"""The value types vision hands on, and the interface every reader of dice offers.

``Die`` and ``Roll`` are what a reader returns for a picture: the pip reader
(``vision.pipeline.DiceReader``) and the taught reader (``vision.dice_set.DiceSetReader``) alike,
and what the tracker (``vision.track``) reports once dice have settled (``Roll.settled``).
``DiceReading`` is the interface both declare: read a picture, name colours under a table's
light (``with_calibration``), learn that light from a photo (``calibrate``).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol, runtime_checkable

import cv2
import numpy as np

from .colour import Calibration
from .find import to_bgr

# A settled reading asks the player to check a die whose face it read with less confidence than
# this. Chosen on byler's training photos (the knee: 0.7 and 0.8 both mark 13 of its 18 misread
# dice, 0.7 marks fewer read right: 5.9 against 7.9 %); on photos it was not chosen on it marks
# all 11 misread dice of byler's validation photos (9.7 % of those read right; photos right once
# the marked dice are checked 80.6 -> 96.8 %) and 54 of epanemu_own's 62 (12.2 %; 40.3 -> 62.7 %)
# (`python bench/vision_accuracy.py --loso`, 2 Dec 2026; docs/vision.md, "Dice to check").
CHECK_FACE_BELOW = 0.7


@dataclass(frozen=True)
class Die:
    """One die as vision hands it on: where it is, its face and its colour, each with the
    reader's confidence. A die of a settled roll (``vision.track``) carries the vote of the
    frames it was seen in (``frames``, ``value_votes``, ``colour_votes``) and no measured
    colour or detector confidence."""
    box: tuple[int, int, int, int]  # x_min, y_min, x_max, y_max in input pixels
    value: int | str  # a face: 1-6, or the word of a taught symbol face ("cow")
    value_confidence: float
    colour: str | None  # None: a colour not named (the caller's game has none, or not surely)
    colour_confidence: float
    colour_bgr: tuple[int, int, int] | None = None  # the body's measured colour
    die_confidence: float | None = None  # the detector's
    # the die's outline as a rotated rectangle ((cx, cy), (w, h), angle in degrees 0-90), or None
    rotated: tuple[tuple[float, float], tuple[float, float], float] | None = None
    frames: int | None = None  # frames of the still window in which the die was seen
    value_votes: tuple[tuple[int | str, int], ...] = ()  # (value, frames), most frequent first
    colour_votes: tuple[tuple[str | None, int], ...] = ()

    @property
    def check_face(self) -> bool:
        """The reader was unsure of the face (``CHECK_FACE_BELOW``): the page and the ``read``
        command mark the die for the player to look at before the roll is sent. Why: the
        misread dice are mostly the unsure ones, and a marked die costs a glance where an
        unmarked misread costs a wrong roll."""
        return self.value_confidence < CHECK_FACE_BELOW

    @property
    def disagrees(self) -> bool:
        """The frames of its vote did not all read it alike."""
        return len(self.value_votes) > 1 or len(self.colour_votes) > 1

    def scaled(self, factor: float) -> "Die":
        """The same die in a picture ``factor`` times as large."""
        box = tuple(int(round(v * factor)) for v in self.box)
        rotated = None
        if self.rotated is not None:
            (cx, cy), (w, h), angle = self.rotated
            rotated = ((cx * factor, cy * factor), (w * factor, h * factor), angle)
        return replace(self, box=box, rotated=rotated)

    def to_dict(self) -> dict:
        """The die's fields, those it has: the measured colour (as RGB) and the detector's
        confidence of a die read in a picture, the vote of a die of a settled roll."""
        out = {"box": list(self.box), "value": self.value, "colour": self.colour,
               "value_confidence": round(self.value_confidence, 4),
               "colour_confidence": round(self.colour_confidence, 4),
               "check_face": self.check_face}
        if self.colour_bgr is not None:
            b, g, r = self.colour_bgr
            out["colour_rgb"] = [r, g, b]
        if self.die_confidence is not None:
            out["die_confidence"] = round(self.die_confidence, 4)
        if self.rotated is not None:
            (cx, cy), (w, h), angle = self.rotated
            out["rotated_box"] = {"centre": [round(cx, 1), round(cy, 1)],
                                  "size": [round(w, 1), round(h, 1)], "angle": round(angle, 1)}
        if self.frames is not None:
            out["frames"] = self.frames
            out["value_votes"] = {str(v): n for v, n in self.value_votes}
            out["colour_votes"] = {str(c): n for c, n in self.colour_votes}
        return out


@dataclass(frozen=True)
class Settled:
    """When the dice of a settled roll came to rest in a stream of frames (``vision.track``)."""
    index: int  # 0 for the first roll reported by a tracker, then 1, 2, ...
    frame: int  # the frame at which it was reported
    time_s: float  # that frame's time
    still_since_frame: int  # first frame of the still window
    still_since_s: float


@dataclass(frozen=True)
class Roll:
    """The dice read in one picture, with the picture's size and the time each stage took
    (``find_ms``, ``read_ms``, ``colour_ms``: finding, reading faces, naming colours; for a
    frame of a stream, ``read_ms`` is the reader's whole time and ``elapsed_ms`` includes the
    tracker's). ``state``: how a stream's tracker took the frame ("read"; "busy": something
    moved, "occluded": a hand or a moved camera, neither read). ``settled``: set on the roll a
    tracker reports once the dice have come to rest (its dice then carry their votes)."""
    width: int
    height: int
    dice: tuple[Die, ...]
    find_ms: float = 0.0
    read_ms: float = 0.0
    colour_ms: float = 0.0
    elapsed_ms: float = 0.0
    candidates: int = 0
    state: str = "read"
    settled: Settled | None = None

    @property
    def values(self) -> tuple[int | str, ...]:
        return tuple(d.value for d in self.dice)

    @property
    def colourless(self) -> bool:
        """The picture shows no colours (black and white): every die's colour confidence is
        0, which only ``ColourNamer`` gives, for such a picture (``colour.shows_colour``)."""
        return bool(self.dice) and all(d.colour_confidence == 0 for d in self.dice)

    @property
    def disagreeing(self) -> tuple[int, ...]:
        """Indices (into ``dice``) of the dice whose frames did not all agree."""
        return tuple(i for i, d in enumerate(self.dice) if d.disagrees)

    def to_dict(self) -> dict:
        """A picture's roll: its size, dice and times; a settled roll: when it settled, its
        values, colours, dice and the dice whose frames disagreed."""
        s = self.settled
        if s is not None:
            return {"roll": s.index, "frame": s.frame, "time_s": round(s.time_s, 3),
                    "still_since_s": round(s.still_since_s, 3), "values": list(self.values),
                    "colours": [d.colour for d in self.dice],
                    "dice": [d.to_dict() for d in self.dice],
                    "disagreeing": list(self.disagreeing)}
        return {"width": self.width, "height": self.height,
                "dice": [d.to_dict() for d in self.dice], "elapsed_ms": round(self.elapsed_ms, 2),
                "stage_ms": {"find": round(self.find_ms, 2), "read": round(self.read_ms, 2),
                             "colour": round(self.colour_ms, 2)}}

    def draw(self, bgr: np.ndarray) -> np.ndarray:
        out = to_bgr(bgr).copy()
        t = max(1, round(max(self.width, self.height) / 640))
        for d in self.dice:
            x0, y0, x1, y1 = d.box
            b, g, r = d.colour_bgr or (128, 128, 128)
            edge = (0, 0, 0) if (0.299 * r + 0.587 * g + 0.114 * b) > 128 else (255, 255, 255)
            cv2.rectangle(out, (x0, y0), (x1, y1), (0, 255, 0), t + 1)
            if d.rotated is not None:  # the die's own outline, thin, inside the box
                corners = np.round(cv2.boxPoints(d.rotated)).astype(np.int32)
                cv2.polylines(out, [corners], True, (255, 255, 0), t, cv2.LINE_AA)
            label = f"{d.value}{'?' if d.check_face else ''} {d.colour}"  # ?: to check
            fs = 0.45 * t
            (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, fs, t)
            ty = y0 - 3 if y0 - th - 4 > 0 else y1 + th + 3
            cv2.rectangle(out, (x0, ty - th - 2), (x0 + tw + 2, ty + 2), (b, g, r), -1)
            cv2.putText(out, label, (x0 + 1, ty), cv2.FONT_HERSHEY_SIMPLEX, fs, edge, t,
                        cv2.LINE_AA)
        return out


@runtime_checkable
class DiceReading(Protocol):
    """A reader of dice: ``reader(image) -> Roll`` (a BGR/grey/BGRA array or encoded bytes)."""

    def __call__(self, image) -> Roll: ...

    def with_calibration(self, calibration: Calibration | None) -> DiceReading:
        """The same reader naming colours under this light (``None``: uncalibrated)."""
        ...

    def calibrate(self, image) -> Calibration:
        """The table's light learned from one photo of its dice."""
        ...

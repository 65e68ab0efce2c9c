"""The value types vision hands on, and the interface every reader of dice offers.

``Die`` and ``Roll`` are what a reader returns for a picture: the pip reader
(``vision.pipeline.DiceReader``) and the taught reader (``vision.dice_set.DiceSetReader``) alike.
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


@dataclass(frozen=True)
class Die:
    """One die as vision hands it on: where it is, its face and its colour, each with the
    reader's confidence."""
    box: tuple[int, int, int, int]  # x_min, y_min, x_max, y_max in input pixels
    value: int | str  # a face: 1-6, or the word of a taught symbol face ("cow")
    value_confidence: float
    colour: str
    colour_confidence: float
    colour_bgr: tuple[int, int, int]
    die_confidence: float
    # the die's outline as a rotated rectangle ((cx, cy), (w, h), angle in degrees 0-90), or None
    rotated: tuple[tuple[float, float], tuple[float, float], float] | None = None

    def scaled(self, factor: float) -> "Die":
        """The same die in a picture ``factor`` times as large."""
        box = tuple(int(round(v * factor)) for v in self.box)
        rotated = None
        if self.rotated is not None:
            (cx, cy), (w, h), angle = self.rotated
            rotated = ((cx * factor, cy * factor), (w * factor, h * factor), angle)
        return replace(self, box=box, rotated=rotated)

    def to_dict(self) -> dict:
        b, g, r = self.colour_bgr
        out = {"box": list(self.box), "value": self.value, "colour": self.colour,
               "value_confidence": round(self.value_confidence, 4),
               "colour_confidence": round(self.colour_confidence, 4),
               "colour_rgb": [r, g, b], "die_confidence": round(self.die_confidence, 4)}
        if self.rotated is not None:
            (cx, cy), (w, h), angle = self.rotated
            out["rotated_box"] = {"centre": [round(cx, 1), round(cy, 1)],
                                  "size": [round(w, 1), round(h, 1)], "angle": round(angle, 1)}
        return out


@dataclass(frozen=True)
class Roll:
    """The dice read in one picture, with the picture's size and the time each stage took."""
    width: int
    height: int
    dice: tuple[Die, ...]
    find_ms: float
    read_ms: float
    colour_ms: float
    elapsed_ms: float
    candidates: int = 0

    @property
    def values(self) -> tuple[int | str, ...]:
        return tuple(d.value for d in self.dice)

    def to_dict(self) -> dict:
        return {"width": self.width, "height": self.height,
                "dice": [d.to_dict() for d in self.dice], "elapsed_ms": round(self.elapsed_ms, 2),
                "stage_ms": {"find": round(self.find_ms, 2), "read": round(self.read_ms, 2),
                             "colour": round(self.colour_ms, 2)}}

    def draw(self, bgr: np.ndarray) -> np.ndarray:
        out = to_bgr(bgr).copy()
        t = max(1, round(max(self.width, self.height) / 640))
        for d in self.dice:
            x0, y0, x1, y1 = d.box
            b, g, r = d.colour_bgr
            edge = (0, 0, 0) if (0.299 * r + 0.587 * g + 0.114 * b) > 128 else (255, 255, 255)
            cv2.rectangle(out, (x0, y0), (x1, y1), (0, 255, 0), t + 1)
            if d.rotated is not None:  # the die's own outline, thin, inside the box
                corners = np.round(cv2.boxPoints(d.rotated)).astype(np.int32)
                cv2.polylines(out, [corners], True, (255, 255, 0), t, cv2.LINE_AA)
            label = f"{d.value} {d.colour}"
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

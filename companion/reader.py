"""Frames -> dice: the one place the companion calls vision, and the settling of readings.

`decode_frame` checks an uploaded frame (JPEG/PNG bytes) and raises `BadFrame` with a
message for anything that is not a readable image. The image goes to vision's
`DiceReader` (`vision.pipeline`) when vision has one and its model is there; otherwise
`ReaderUnavailable` ("camera reading unavailable") is raised, and the table is played by
tapping the dice in.

`TableReader` turns the frames of one table into settled rolls: with vision's
`StreamTracker` when vision has it, else with `Settler` (the same dice in `frames`
consecutive readings). It keeps the last settled reading, so a corrupt frame in between
changes nothing.
"""
from __future__ import annotations

import importlib
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

MAX_SIDE = 4096


class BadFrame(ValueError):
    """The upload is not an image we can read (400)."""


class ReaderUnavailable(RuntimeError):
    """vision has no dice reader (yet): the roll must be tapped in."""


@dataclass(frozen=True)
class SeenDie:
    colour: str | None
    face: int | str
    box: tuple[int, int, int, int]
    confidence: float

    def to_json(self) -> dict:
        return {"colour": self.colour, "face": self.face, "box": list(self.box),
                "confidence": round(float(self.confidence), 3)}


@dataclass(frozen=True)
class Reading:
    dice: tuple[SeenDie, ...]
    width: int
    height: int
    elapsed_ms: float       # the whole reading: vision's reader and its tracker
    read_ms: float = 0.0    # of which vision's DiceReader on this frame
    state: str = "reading"  # "moving" (not read: something moves), "covered" (not read: a hand
    # or the camera moved; a still new view is taken as the table after a few seconds), "reading"

    def key(self) -> tuple:
        return tuple(sorted((str(d.colour), str(d.face)) for d in self.dice))


DECODE_AT_ONCE = 2  # frames decoded at the same time (a 4096 px square takes 50 MB)
_DECODING = threading.BoundedSemaphore(DECODE_AT_ONCE)


def decode_frame(data: bytes, what: str = "frame"):
    """The frame as a BGR image; `BadFrame` when it is empty, not an image, or corrupt. `what`
    names it in the message: "frame" (the camera's) or "photo" (one the player took).

    The size is read from the header (PNG IHDR, JPEG SOF: `vision.pipeline.header_size`) and
    an image over `MAX_SIDE` pixels a side is refused before a pixel is decoded: a 380 KB PNG
    can claim 20000x20000 (2.4 GB decoded). At most `DECODE_AT_ONCE` frames are decoded at
    once; the others wait their turn."""
    if not data:
        raise BadFrame(f"the {what} is empty")
    if not (data[:3] == b"\xff\xd8\xff" or data[:8] == b"\x89PNG\r\n\x1a\n"):
        raise BadFrame(f"the {what} is not a JPEG or PNG image")
    from vision.pipeline import header_size
    size = header_size(data)
    if size is None or min(size) <= 0:
        raise BadFrame(f"the {what} is corrupt: its header gives no size")
    w, h = size
    if max(w, h) > MAX_SIDE:
        raise BadFrame(f"the {what} is {w}x{h}: at most {MAX_SIDE} pixels a side")
    import cv2
    import numpy as np
    with _DECODING:
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None or image.size == 0:
        raise BadFrame(f"the {what} is corrupt: it could not be decoded")
    return image


_READERS: dict[tuple, Any] = {}
_SESSION: list = []
_DETECTOR: list = []  # the die detector's session, shared the same way
_VISION_LOCK = threading.Lock()


def detector():
    """vision's die detector (`DieDetector`) on the shared detector session."""
    with _VISION_LOCK:
        detect = importlib.import_module("vision.detect")
        if not _DETECTOR:
            _DETECTOR.append(detect.load_detector())
        return detect.DieDetector(_DETECTOR[0])


def vision_reader(palette: Sequence[str | None], faces: Sequence[int], settled: bool = False):
    """vision's `DiceReader` for this palette and these faces, built once each (they share
    one face-reader session and one detector session); `ReaderUnavailable` when vision has no
    reader or no model. Two tiers: a camera frame's (`settled=False`) must be cheap; a settled
    roll's (`settled=True`) is read once and must be right."""
    key = (tuple(str(c) for c in palette), tuple(faces), settled)
    with _VISION_LOCK:
        reader = _READERS.get(key)
        if reader is not None:
            return reader
        try:
            pipeline = importlib.import_module("vision.pipeline")
            colour = importlib.import_module("vision.colour")
            read = importlib.import_module("vision.read")
        except ImportError as exc:
            raise ReaderUnavailable(f"camera reading unavailable: vision has no reader "
                                    f"({exc})") from None
        try:
            if not _SESSION:
                _SESSION.append(read.load_session())
            if not _DETECTOR:
                _DETECTOR.append(importlib.import_module("vision.detect").load_detector())
        except (FileNotFoundError, OSError, RuntimeError, ImportError) as exc:
            raise ReaderUnavailable(f"camera reading unavailable: {exc}") from None
        pal = game_palette(palette, colour)
        # camera frames: no quarter-turn re-reads and no second reading of the boxes around a die
        # already read surely; the tracker's vote over several frames does that job, and a frame
        # must be read in well under 60 ms. The settled roll: every box read, unsure dice read in
        # four quarter turns (the `read` command's reader). Neither draws the dice's rotated
        # outlines, which nothing on the table's page shows (~0.25 ms a die)
        fast = {} if settled else {"turns": False, "skip_sure_duplicates": True}
        reader = pipeline.DiceReader(_SESSION[0], palette=pal, faces=tuple(faces),
                                     detector_session=_DETECTOR[0], outlines=False, **fast)
        _READERS[key] = reader
        return reader


def game_palette(palette: Sequence[str | None], colour=None):
    """vision's palette for a game's dice colours: the game's own colours when vision knows
    them all (Qwinto, twenty one: one die per colour), else the general palette."""
    colour = colour or importlib.import_module("vision.colour")
    named = [c for c in palette if c]
    general = colour.GENERAL
    known = {name for name, _ in general.colours}
    if named and set(named) <= known:
        return general.subset("game", tuple(named), one_each=len(set(named)) == len(named))
    return general


def _to_seen(d, coloured: bool, words: Sequence[str], faces: Sequence[Any]) -> SeenDie:
    face: Any = d.value
    if words and d.value == 6 and 6 not in faces:
        face = words[0]
    conf = min(float(d.value_confidence), float(d.colour_confidence) if coloured else 1.0)
    return SeenDie(d.colour if coloured else None, face, tuple(int(v) for v in d.box), conf)


STATES = {"busy": "moving", "occluded": "covered", "read": "reading"}  # vision's tracker -> the API's

# A colour is shown only when the reader is sure of it; else the die is shown without one ("?")
# and the player taps its colour. vision's confidence is its softmax share among the game's own
# colours, so a die of another colour (a white die on a Qwinto table) may get "purple" at 100 %;
# for dice that differ by body colour the die's body is therefore also named against vision's
# general palette, and a colour it does not agree with is not shown (`python bench/web_colours.py`:
# 60 synthetic scenes per game, every third with a die of another colour).
SURE_COLOUR = 0.9


def sure_colours(image, dice: Sequence[SeenDie], shares: Sequence[float],
                 body: bool) -> tuple[SeenDie, ...]:
    """`dice` with the colours the reader was not sure of removed (colour None): a colour share
    under `SURE_COLOUR`, or (`body`: dice told apart by their body colour) a body that vision's
    general palette names otherwise."""
    general: Sequence[str | None] = [d.colour for d in dice]
    if body and dice:
        colour = importlib.import_module("vision.colour")
        # named as the reader names them: the photo's white first (vision.colour.scene_white)
        measured = colour.scene_white(image).apply([colour.measure_body(image, d.box) for d in dice])
        general = colour.name_colour(measured, colour.GENERAL)[0]
    return tuple(d if d.colour is None or (share >= SURE_COLOUR and seen == d.colour)
                 else SeenDie(None, d.face, d.box, d.confidence)
                 for d, share, seen in zip(dice, shares, general))


class TableReader:
    """Frames of one table -> the dice of each frame, and a roll once they have settled.

    Reads each frame with vision's fast `DiceReader`; settling is vision's `StreamTracker`
    (motion check, resting tracks, a vote over the still frames) when vision has it, else
    `Settler` (the same dice in `frames` readings in a row). The frame a roll settles on is read
    once more by the settled-roll reader (`vision_reader(..., settled=True)`), whose dice are the
    roll when it finds as many as the vote (a different count means that frame is not like the
    others the vote saw, and the vote stands). `reader` and `settled_reader` may be injected
    (tests; a table's taught reader serves as both)."""

    def __init__(self, palette: Sequence[str | None], faces: Sequence[Any],
                 frames: int = 3, reader=None, body_colours: bool = False,
                 settled_reader=None) -> None:
        self.faces = list(faces)
        # dice told apart by body colour (Qwinto, twenty one): their colours are checked against
        # vision's general palette before they are shown (`sure_colours`); once the table names
        # its colours by its own dice (`calibrate`), the names they give are shown
        self.body_colours = body_colours
        self.calibrated = False
        self.words = [f for f in faces if not isinstance(f, int)]
        numbers = sorted({f for f in faces if isinstance(f, int)} | ({6} if self.words else set()))
        self.coloured = any(palette)
        self.reader = reader or vision_reader(palette if self.coloured else (), numbers)
        self.settled_reader = settled_reader or (
            reader if reader is not None else vision_reader(palette if self.coloured else (), numbers, True))
        self.last = None           # the per-frame result the tracker saw last
        self.read_ms = 0.0         # how long the reader took on the last frame
        self.lock = threading.Lock()
        self.settled: Reading | None = None
        self.clock = time.monotonic  # frames' times (tests inject a fake clock)
        self.last_still: bytes | None = None  # the slideshow picture read last (see feed)
        try:
            track = importlib.import_module("vision.track")
            self.stream = track.StreamTracker(self._read, track.RollTracker(still_frames=frames))
            self.settler = None
        except (ImportError, AttributeError, TypeError):
            self.stream = None
            self.settler = Settler(frames)

    def _new_view(self) -> None:
        """The next frame is another view altogether (the next picture of a slideshow): read it
        as it is, not as a change to the table seen so far (a hand, a moved camera), and report
        its dice once they are read alike, even if they are the dice reported before."""
        if self.stream is not None:
            self.stream.new_view()
        else:
            self.settler = Settler(self.settler.frames)

    def calibrate(self, calibration) -> None:
        """Name colours under the table's light (`vision.colour.Calibration`, from the table's
        teaching page) from now on."""
        self.reader = self.reader.with_calibration(calibration)
        if self.settled_reader is not self.reader:
            self.settled_reader = self.settled_reader.with_calibration(calibration)
        self.calibrated = True   # the colours are named by the dice the players named: shown

    def _seen(self, image, dice) -> tuple[SeenDie, ...]:
        """vision's dice as the page shows them: only colours the reader is sure of."""
        seen = tuple(_to_seen(d, self.coloured, self.words, self.faces) for d in dice)
        if not self.coloured or self.calibrated:
            return seen
        shares = [float(getattr(d, "colour_confidence", 1.0)) for d in dice]
        return sure_colours(image, seen, shares, self.body_colours)

    def _read(self, image):
        t0 = time.perf_counter()
        self.last = self.reader(image)
        self.read_ms = (time.perf_counter() - t0) * 1000
        return self.last

    def _read_settled(self, image, voted) -> tuple[tuple, float]:
        """(the settled roll's dice, ms): the settled-roll reader's reading of the frame the
        roll settled on when it finds as many dice as the frames' vote, else the vote."""
        if self.settled_reader is self.reader:
            return tuple(voted), 0.0
        t0 = time.perf_counter()
        dice = tuple(self.settled_reader(image).dice)
        return (dice if len(dice) == len(voted) else tuple(voted)), (time.perf_counter() - t0) * 1000

    def feed(self, image, still: bytes | None = None) -> tuple[Reading, bool]:
        """(this frame's reading, whether a new roll settled with it); `self.settled` keeps
        the last settled reading. `still`: the frame's bytes when it is a picture of a slideshow
        (the demo pictures): a picture other than the last one is a new view, not a moved camera."""
        with self.lock:
            if still is not None and still != self.last_still:
                self._new_view()
                self.last_still = still
            t0 = time.perf_counter()
            h, w = image.shape[:2]
            if self.stream is not None:
                self.last, self.read_ms = None, 0.0
                # the phone sends a frame every 0.4 s or slower, not the tracker's 10 fps: its
                # times in seconds keep "the camera moved" at seconds (4 s), not 40 frames (16 s)
                roll = self.stream.feed(image, t=self.clock())
                frame_dice = () if self.last is None else self._seen(image, self.last.dice)
                state = STATES.get(getattr(self.stream, "last_state", ""), "reading")
                reading = Reading(frame_dice, w, h, (time.perf_counter() - t0) * 1000,
                                  self.read_ms, state)
                if roll is not None and roll.dice:
                    dice, settled_ms = self._read_settled(image, roll.dice)
                    self.settled = Reading(self._seen(image, dice), w, h,
                                           (time.perf_counter() - t0) * 1000, self.read_ms + settled_ms)
                    return self.settled, True
                return reading, False
            result = self._read(image)
            reading = Reading(self._seen(image, result.dice), w, h,
                              (time.perf_counter() - t0) * 1000, self.read_ms)
            if self.settler.add(reading):
                dice, settled_ms = self._read_settled(image, result.dice)
                self.settled = replace(reading, dice=self._seen(image, dice),
                                       read_ms=self.read_ms + settled_ms)
                self.settler.settled = self.settled
                return self.settled, True
            return reading, False


@dataclass
class Settler:
    """Settled = the same dice in `frames` consecutive readings."""

    frames: int = 3
    last_key: tuple | None = None
    same: int = 0
    last: Reading | None = None
    settled: Reading | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, reading: Reading) -> bool:
        with self.lock:
            key = reading.key()
            self.same = self.same + 1 if key == self.last_key else 1
            self.last_key = key
            self.last = reading
            if self.same == self.frames and reading.dice:   # once per new roll
                self.settled = reading
                return True
            return False

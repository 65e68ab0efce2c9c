"""Frames -> dice: the one place the companion calls vision, and the settling of readings.

`decode_frame` checks an uploaded frame (JPEG/PNG bytes) and raises `BadFrame` with a
message for anything that is not a readable image. The image goes to vision's
`DiceReader` (`vision.pipeline`), built by the app's `Vision` (its model sessions, loaded at
start); without a model `ReaderUnavailable` ("camera reading unavailable") is raised, and the
table is played by tapping the dice in.

`TableReader` turns the frames of one table into settled rolls: with vision's
`StreamTracker` when vision has it, else with `Settler` (the same dice in `frames`
consecutive readings). It keeps the last settled reading, so a corrupt frame in between
changes nothing. Tables read in parallel; a table's frames one at a time, a waiting frame
`Superseded` by a newer one of the same table. A frame's reading is vision's `Roll` of
vision's `Die`s as the table shows them (`read_die_json`: the API's form of a die).
"""
from __future__ import annotations

import importlib
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

from vision.dice import Die, Roll

MAX_SIDE = 4096


class BadFrame(ValueError):
    """The upload is not an image we can read (400)."""


class ReaderUnavailable(RuntimeError):
    """vision has no dice reader (yet): the roll must be tapped in."""


def read_die_json(d: Die) -> dict:
    """A die as the API answers it: its colour (None: not named surely, or a game without
    colours), its face, its box, the reader's confidence in what it names (the lower of face
    and colour; the face's alone where no colour is named: a colour left to the player is
    shown as "?", and its share, near 0 for a forced name, said nothing of the face), and
    whether the player should check its face (`check`: `vision.dice.Die.check_face`)."""
    sure = (d.value_confidence if d.colour is None
            else min(d.value_confidence, d.colour_confidence))
    return {"colour": d.colour, "face": d.value, "box": list(d.box),
            "confidence": round(float(sure), 3), "check": d.check_face}


def roll_key(roll: Roll) -> tuple:
    """What makes two readings the same dice: each die's colour and face, in any order."""
    return tuple(sorted((str(d.colour), str(d.value)) for d in roll.dice))


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
    from vision.pipeline import BadImage, decode_image, header_size, heif_brand
    if not (data[:3] == b"\xff\xd8\xff" or data[:8] == b"\x89PNG\r\n\x1a\n"):
        brand = heif_brand(data)
        # a phone's own format: say how to get a JPEG (written out whole: the German catalogue
        # matches the sentence, companion/reasons.py "app.photo_heif", "app.photo_avif")
        if brand == "AVIF":
            raise BadFrame(f"the {what} is an AVIF image, which cannot be read here: send it as "
                           f"JPEG or PNG (a gallery app's share or export gives one)")
        if brand:
            raise BadFrame(f"the {what} is a {brand} image, which cannot be read here: send it "
                           f"as JPEG or PNG (an iPhone takes JPEG with Settings > Camera > "
                           f"Formats > Most Compatible)")
        raise BadFrame(f"the {what} is not a JPEG or PNG image")
    size = header_size(data)
    if size is None or min(size) <= 0:
        raise BadFrame(f"the {what} is corrupt: its header gives no size")
    w, h = size
    if max(w, h) > MAX_SIDE:
        raise BadFrame(f"the {what} is {w}x{h}: at most {MAX_SIDE} pixels a side")
    # decoded as the `read` command decodes it (a transparent PNG over white, turned by its
    # EXIF orientation), so that a photo reads alike on the page and on the command line
    with _DECODING:
        try:
            return decode_image(data)
        except BadImage:
            raise BadFrame(f"the {what} is corrupt: it could not be decoded") from None


class Vision:
    """The camera readers of one app: vision's face-reader and die-detector sessions, loaded
    once (`load`, which the app factory calls at start so that no frame waits for a model), and
    the `DiceReader`s built on them, one per (palette, faces, tier), at most `kept` of them
    (least recently used dropped). `ReaderUnavailable` when vision has no reader or no model:
    the server runs on without the camera.

    `threads`: onnxruntime's threads per model run. Tables' frames are read in parallel by the
    server's request threads, so one each by default: 4 threads reading one 640x480 frame each
    at once read 315 frames/s with one onnxruntime thread a run and 254/s with its default (two
    on the 2-core machine), 27 Nov 2026. `loaders` (face reader, detector, the settled reader
    made from the face reader's session) load the sessions (tests inject their own); `loads`
    counts the loads."""

    def __init__(self, kept: int = 16, threads: int | None = 1, loaders=None) -> None:
        from .bounded import Bounded
        self.threads = threads
        self.loaders = loaders
        self.loads = 0
        self._sessions: tuple | None = None     # (face reader, detector, settled face reader)
        self._readers: Bounded = Bounded(kept)
        self._lock = threading.Lock()

    def load(self) -> tuple:
        """(face-reader session, detector session, settled-tier face reader), loaded on the
        first call only; `ReaderUnavailable` (with the reason) when vision or a model is
        missing. The settled tier's reader is the face reader voted with the larger one
        (`vision.read.load_settled_session`)."""
        with self._lock:
            if self._sessions is None:
                try:
                    face, detect, settled = self.loaders or _model_loaders(self.threads)
                    face_session = face()
                    self._sessions = (face_session, detect(), settled(face_session))
                except (FileNotFoundError, OSError, RuntimeError, ImportError) as exc:
                    raise ReaderUnavailable(f"camera reading unavailable: {exc}") from None
                self.loads += 1
            return self._sessions

    def warm(self) -> None:
        """Read one drawn frame (two dice on a green cloth) as a table's frames are read, so
        that the first frame a phone sends pays for no first run (imports, OpenCV's colour
        tables, onnxruntime's first runs): with the models loaded but nothing warmed, a first
        frame took 112-168 ms in the server against ~10 ms for the next ones (27 Nov 2026)."""
        import cv2
        import numpy as np
        image = np.full((480, 640, 3), (60, 110, 60), np.uint8)
        for x, y, body in ((200, 200, (40, 140, 240)), (380, 220, (40, 220, 240))):
            cv2.rectangle(image, (x, y), (x + 70, y + 70), body, -1)
            for pip in (18, 35, 52):
                cv2.circle(image, (x + pip, y + pip), 6, (20, 20, 20), -1)
        frame = cv2.imencode(".jpg", image)[1].tobytes()
        TableReader(("orange", "yellow"), range(1, 7), frames=1, vision=self).feed(
            decode_frame(frame))

    def detector(self):
        """vision's die detector (`DieDetector`) on this app's detector session."""
        from vision.detect import DieDetector
        return DieDetector(self.load()[1])

    def reader(self, palette: Sequence[str | None], faces: Sequence[int], settled: bool = False,
               repeat_colours: bool = False):
        """vision's `DiceReader` for this palette and these faces, built once each on the shared
        sessions. Two tiers: a camera frame's (`settled=False`) must be cheap; a settled roll's
        (`settled=True`) is read once and must be right. `repeat_colours`: two dice may show
        one colour (`DiceSpec.repeat_colours`)."""
        key = (tuple(str(c) for c in palette), tuple(faces), settled, repeat_colours)
        return self._readers.get_or_make(
            key, lambda: self._build(palette, faces, settled, repeat_colours))

    def _build(self, palette, faces, settled: bool, repeat_colours: bool = False):
        frame_session, detector_session, settled_session = self.load()
        session = settled_session if settled else frame_session
        from vision import colour, pipeline
        pal = game_palette(palette, colour, repeat_colours)
        # camera frames: vision's cheap tier (CAMERA_FRAME), a frame must be read in well under
        # 60 ms. The settled roll: the `read` command's reader (every box read, unsure dice in
        # four quarter turns, further looks at two scales). Neither draws the dice's rotated
        # outlines, which nothing on the table's page shows (~0.25 ms a die)
        fast = {} if settled else pipeline.CAMERA_FRAME
        # a game whose dice do not differ by colour (no palette: Knister, Kuh Vadis) names none:
        # its page shows none, and naming them cost ~4 ms of a ~10-ms frame (docs/vision.md)
        return pipeline.DiceReader(session, palette=pal, faces=tuple(faces),
                                   detector_session=detector_session, outlines=False,
                                   name_colours=any(palette), **fast)


def init_app(app) -> Vision:
    """The app's camera readers (`app.extensions["vision"]`), their models loaded and run once
    now unless `VISION_AT_START` is false (then on the first frame). A missing model does not
    stop the app: each frame is then answered "camera reading unavailable" (503) with the
    reason."""
    app.config.setdefault("VISION_AT_START", True)
    app.config.setdefault("VISION_THREADS", 1)
    vision = app.extensions["vision"] = Vision(threads=app.config["VISION_THREADS"])
    if app.config["VISION_AT_START"]:
        try:
            vision.load()
            vision.warm()
        except ReaderUnavailable:
            pass
    return vision


def _model_loaders(threads: int | None) -> tuple:
    """The shipped models' loaders: (face reader, detector, the settled tier's reader built on
    the face reader's session)."""
    from vision import detect, read
    return (lambda: read.load_session(threads=threads),
            lambda: detect.load_detector(threads=threads),
            lambda face: read.load_settled_session(threads=threads, first=face))


def declared_palette(dice_spec: dict, colour=None):
    """vision's palette for a game's declared dice (`games.dice_spec`: the JSON of its
    `DiceSpec`): `game_palette` of their colours. The tables' teaching and the `read` and
    `watch` commands name colours with it."""
    return game_palette([c["colour"] for c in dice_spec["colours"]], colour,
                        dice_spec["repeat_colours"])


def game_palette(palette: Sequence[str | None], colour=None, repeat_colours: bool = False):
    """vision's palette for a game's dice colours: the game's own colours when vision knows
    them all, else the general palette. One die per colour (Qwinto, twenty one) unless two dice
    may show one colour (`repeat_colours`: The Choice's colours are on the faces)."""
    if colour is None:
        from vision import colour
    named = [c for c in palette if c]
    general = colour.GENERAL
    known = {name for name, _ in general.colours}
    if named and set(named) <= known:
        return general.subset("game", tuple(named), one_each=not repeat_colours
                              and len(set(named)) == len(named))
    return general


def symbol_faces(symbol_sides: Mapping[str, int] | None) -> dict[int, str]:
    """face -> symbol of a game's dice from its declared `symbol_sides` (symbol -> the face whose
    pips the pip reader reads for it: Kuh Vadis' cow on the sixth)."""
    return {side: name for name, side in (symbol_sides or {}).items()}


def game_face(value: Any, symbol_at: Mapping[int, str]) -> Any:
    """A face as the game names it: the pip reader's number of a symbol's face is the symbol
    (`symbol_at`: `symbol_faces`); other faces, and words a taught set read, stay."""
    return symbol_at.get(value, value) if isinstance(value, int) else value


def _to_seen(d, coloured: bool, symbol_at: Mapping[int, str]) -> Die:
    """A die a reader handed on as the table shows it: its face as the game names it
    (`game_face`); a game without colours shows none (and nothing to doubt of it: colour
    confidence 1)."""
    return Die(tuple(int(v) for v in d.box), game_face(d.value, symbol_at),
               float(d.value_confidence),
               d.colour if coloured else None,
               float(d.colour_confidence) if coloured else 1.0,
               getattr(d, "colour_bgr", None), getattr(d, "die_confidence", None))


# vision's tracker's states of a frame (`Roll.state`) -> the API's: "moving" (not read: something
# moves), "covered" (not read: a hand or the camera moved; a still new view is taken as the
# table after a few seconds), "reading"
STATES = {"busy": "moving", "occluded": "covered", "read": "reading"}

# A colour is shown only when the reader is sure of it; else the die is shown without one ("?")
# and the player taps its colour. vision's confidence is its softmax share among the game's own
# colours, so a die of another colour (a white die on a Qwinto table) may get "purple" at 100 %;
# for dice that differ by body colour the die's body is therefore also named against vision's
# general palette, and a colour it does not agree with is not shown (`python bench/web_colours.py`:
# 60 synthetic scenes per game, every third with a die of another colour).
SURE_COLOUR = 0.9


def sure_colours(image, dice: Sequence[Die], shares: Sequence[float],
                 body: bool) -> tuple[Die, ...]:
    """`dice` with the colours the reader was not sure of removed (colour None): a colour share
    under `SURE_COLOUR`, or (`body`: dice told apart by their body colour) a body that vision's
    general palette names otherwise."""
    general: Sequence[str | None] = [d.colour for d in dice]
    if body and dice:
        from vision import colour
        # named as the reader names them: the photo's white first (vision.colour.scene_white)
        pal = colour.GENERAL
        measured = colour.scene_white(image).apply(
            [colour.measure_body(image, d.box, pal.everyday) for d in dice])
        general = colour.name_colour(measured, pal)[0]
    return tuple(d if d.colour is None or (share >= SURE_COLOUR and seen == d.colour)
                 else replace(d, colour=None)
                 for d, share, seen in zip(dice, shares, general))


class Superseded(RuntimeError):
    """A newer frame of the same table came while this one waited: it is not read."""


class Turns:
    """One at a time, newest first: `take()` waits while another holder reads, and raises
    `Superseded` at once when a newer `take()` arrives meanwhile (so at most one frame of a
    table waits, and it is the newest)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._busy = False
        self._newest = 0

    @property
    def taken(self) -> int:
        """How many turns were asked for so far."""
        return self._newest

    @contextmanager
    def take(self):
        with self._cond:
            self._newest += 1
            mine = self._newest
            self._cond.notify_all()            # an older waiter is superseded now
            while self._busy and mine == self._newest:
                self._cond.wait()
            if mine != self._newest:
                raise Superseded("a newer frame of this table came meanwhile")
            self._busy = True
        try:
            yield
        finally:
            with self._cond:
                self._busy = False
                self._cond.notify_all()


class TableReader:
    """Frames of one table -> the dice of each frame, and a roll once they have settled.

    Reads each frame with vision's fast `DiceReader`; settling is vision's `StreamTracker`
    (motion check, resting tracks, a vote over the still frames) when vision has it, else
    `Settler` (the same dice in `frames` readings in a row). The frame a roll settles on is read
    once more by the settled-roll reader (`vision_reader(..., settled=True)`), whose dice are the
    roll when it finds as many as the vote (a different count means that frame is not like the
    others the vote saw, and the vote stands). `reader` and `settled_reader` may be injected
    (tests; a table's taught dice: `DiceSetReader.camera_frame` for the frames, the whole taught
    reader for the settled roll); `reader` alone serves as both."""

    def __init__(self, palette: Sequence[str | None], faces: Sequence[Any],
                 frames: int = 3, reader=None, body_colours: bool = False,
                 settled_reader=None, vision: Vision | None = None,
                 symbols: Mapping[str, int] | None = None, repeat_colours: bool = False) -> None:
        self.faces = list(faces)
        # the faces that are pictures, each on the face whose pips the pip reader reads for it
        # (`DiceSpec.symbols`: Kuh Vadis' cow on the sixth face)
        self.symbol_at = symbol_faces(symbols)
        # dice told apart by body colour (Qwinto, twenty one): their colours are checked against
        # vision's general palette before they are shown (`sure_colours`); once the table names
        # its colours by its own dice (`calibrate`), the names they give are shown
        self.body_colours = body_colours
        self.calibrated = False
        numbers = sorted({f for f in faces if isinstance(f, int)} | set(self.symbol_at))
        self.coloured = any(palette)
        if reader is None and vision is None:
            raise TypeError("a TableReader reads with `reader` or with the app's `vision`")
        colours = palette if self.coloured else ()
        self.reader = reader or vision.reader(colours, numbers, False, repeat_colours)
        self.settled_reader = settled_reader or (
            reader if reader is not None else vision.reader(colours, numbers, True,
                                                            repeat_colours))
        self.last = None           # the per-frame result the tracker saw last
        self.read_ms = 0.0         # how long the reader took on the last frame
        self.turn = Turns()        # one frame read at a time; a waiting frame a newer one replaces
        self.settled: Roll | None = None   # the last settled reading
        self.clock = time.monotonic  # frames' times (tests inject a fake clock)
        self.last_still: bytes | None = None  # the slideshow picture read last (see feed)
        self._photo = threading.Lock()       # one photo read at a time (`read_photo`)
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

    def _seen(self, image, dice) -> tuple[Die, ...]:
        """vision's dice as the page shows them: only colours the reader is sure of."""
        seen = tuple(_to_seen(d, self.coloured, self.symbol_at) for d in dice)
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
        """(the settled roll's dice by `settled_dice`, ms)."""
        if self.settled_reader is self.reader:
            return tuple(voted), 0.0
        t0 = time.perf_counter()
        dice = tuple(self.settled_reader(image).dice)
        return settled_dice(voted, dice), (time.perf_counter() - t0) * 1000

    def read_photo(self, image) -> Roll:
        """One photo of the dice the player took (not a camera's frame): read once by the
        settled-roll reader, the accurate path, and answered as read. It neither feeds nor
        resets the camera's tracker: a photo is no view of a fixed camera. One photo of a
        table at a time."""
        with self._photo:
            t0 = time.perf_counter()
            dice = self.settled_reader(image).dice
            ms = (time.perf_counter() - t0) * 1000
            h, w = image.shape[:2]
            return Roll(w, h, self._seen(image, dice), read_ms=ms, elapsed_ms=ms,
                        state="photo")

    def feed(self, image, still: bytes | None = None) -> tuple[Roll, bool]:
        """(this frame's reading, whether a new roll settled with it); `self.settled` keeps
        the last settled reading. `still`: the frame's bytes when it is a picture of a slideshow
        (the demo pictures): a picture other than the last one is a new view, not a moved camera.

        The table's frames are read one at a time, in the order they came; `Superseded` when a
        newer frame of the table came while this one waited its turn (it is not read: the
        tracker goes by the newest view, and a phone waits for no stale answer)."""
        return self.feed_frame(lambda: image, still)

    def feed_frame(self, decode, still: bytes | None = None) -> tuple[Roll, bool]:
        """`feed` of the image `decode()` gives, called in the table's turn: a frame superseded
        while it waits is not decoded either (what `decode` raises goes to the caller)."""
        with self.turn.take():
            image = decode()
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
                reading = Roll(w, h, frame_dice, read_ms=self.read_ms,
                               elapsed_ms=(time.perf_counter() - t0) * 1000,
                               state=getattr(self.stream, "last_state", "") or "read")
                dice, settled_ms = (self._read_settled(image, roll.dice)
                                    if roll is not None and roll.dice else ((), 0.0))
                if dice:
                    self.settled = Roll(w, h, self._seen(image, dice),
                                        read_ms=self.read_ms + settled_ms,
                                        elapsed_ms=(time.perf_counter() - t0) * 1000,
                                        settled=roll.settled)
                    return self.settled, True
                return reading, False
            result = self._read(image)
            reading = Roll(w, h, self._seen(image, result.dice), read_ms=self.read_ms,
                           elapsed_ms=(time.perf_counter() - t0) * 1000)
            if self.settler.add(reading):
                dice, settled_ms = self._read_settled(image, result.dice)
                if dice:
                    self.settled = replace(reading, dice=self._seen(image, dice),
                                           read_ms=self.read_ms + settled_ms)
                    self.settler.settled = self.settled
                    return self.settled, True
            return reading, False


def settled_dice(voted, careful) -> tuple:
    """A settled roll's dice from the frames' vote and the settled-roll reader's reading of
    the frame it settled on: that reading when it finds as many dice as the vote; the vote
    when it finds another number (that frame is not like the others the vote saw); no dice,
    so nothing settles, when it finds none at all: what the frames saw there was no die (the
    camera-frame reader read a die on an empty mottled cloth for three still frames,
    bench/tracker.py video 4; over 811 labelled photos and renders with dice the settled
    reader found none where the frame reader found some once; docs/vision.md, "Two tiers")."""
    if not careful:
        return ()
    return tuple(careful) if len(careful) == len(voted) else tuple(voted)


@dataclass
class Settler:
    """Settled = the same dice in `frames` consecutive readings."""

    frames: int = 3
    last_key: tuple | None = None
    same: int = 0
    last: Roll | None = None
    settled: Roll | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, reading: Roll) -> bool:
        with self.lock:
            key = roll_key(reading)
            self.same = self.same + 1 if key == self.last_key else 1
            self.last_key = key
            self.last = reading
            if self.same == self.frames and reading.dice:   # once per new roll
                self.settled = reading
                return True
            return False

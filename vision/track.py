"""Settled rolls from a stream of frames.

``RollTracker`` turns per-frame detections into *settled rolls*: a roll is reported once, when
the same dice have lain in the same places for ``still_frames`` frames in a row, and never while
anything moves (a frame that changed too much, ``motion_fraction``; a region of change larger
than a few dice, a hand at rest; a detection away from where its track came to rest). Each die's
value and colour are then a vote over the still frames weighted by the reader's confidences. A
settled configuration is reported only when a die lies where none of the last roll lay
(position decides, not value). ``StreamTracker(reader)`` runs the injected reader (a frame ->
an object with ``.dice``) on the frames that are not busy. The steps, their thresholds and the
measured reasons for them: docs/vision-special.md, "Settled rolls from a stream".
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Hashable, Iterable, Iterator, Sequence

import cv2
import numpy as np

from .dice import Die, Roll, Settled

__all__ = ["Detection", "RollTracker", "StreamTracker", "motion_fraction", "small_grey",
           "small_frame", "detections_from", "largest_change"]


@dataclass(frozen=True)
class Detection:
    """One die in one frame (the fields of ``vision.dice.Die`` the tracker needs)."""
    box: tuple[float, float, float, float]
    value: Hashable
    colour: str | None = None
    value_confidence: float = 1.0
    colour_confidence: float = 1.0


def detections_from(dice: Iterable) -> list[Detection]:
    """Detections from any dice objects with ``box``/``value``/``colour``/confidences."""
    out = []
    for d in dice:
        out.append(Detection(tuple(float(v) for v in d.box), d.value, getattr(d, "colour", None),
                             float(getattr(d, "value_confidence", 1.0)),
                             float(getattr(d, "colour_confidence", 1.0))))
    return out


def small_grey(bgr: np.ndarray, width: int = 160) -> np.ndarray:
    """A small blurred grey copy of the frame, what ``motion_fraction`` compares."""
    g = bgr if bgr.ndim == 2 else cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    f = width / max(1, g.shape[1])
    if f < 1:
        g = cv2.resize(g, (width, max(1, round(g.shape[0] * f))), interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(g, (3, 3), 0).astype(np.int16)


def small_frame(bgr: np.ndarray, width: int = 160) -> np.ndarray:
    """A small blurred colour copy of the frame (a hand as bright as the table still differs in
    colour)."""
    f = width / max(1, bgr.shape[1])
    small = (cv2.resize(bgr, (width, max(1, round(bgr.shape[0] * f))), interpolation=cv2.INTER_AREA)
             if f < 1 else bgr)
    return cv2.GaussianBlur(small, (3, 3), 0).astype(np.int16)


def _change(prev: np.ndarray, cur: np.ndarray) -> np.ndarray:
    """Per-pixel change, the median change of each channel removed (a uniform light change is
    none)."""
    d = cur.astype(np.int16) - prev.astype(np.int16)
    if d.ndim == 3:
        d = d - np.median(d.reshape(-1, d.shape[2]), axis=0).astype(np.int16)
        return np.abs(d).max(axis=2)
    return np.abs(d - int(np.median(d)))


def motion_fraction(prev: np.ndarray, cur: np.ndarray, pixel_delta: int = 16) -> float:
    """Share of pixels that changed by more than ``pixel_delta`` (uniform light change removed);
    ``small_grey`` or ``small_frame`` copies."""
    if prev is None or prev.shape != cur.shape:
        return 1.0
    d = _change(prev, cur)
    return float(np.count_nonzero(d > pixel_delta)) / d.size


def _centre(box) -> tuple[float, float]:
    return (box[0] + box[2]) / 2.0, (box[1] + box[3]) / 2.0


def _inside(point, box) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def _side(box) -> float:
    return max(1.0, ((box[2] - box[0]) * (box[3] - box[1])) ** 0.5)


@dataclass
class _Track:
    anchor: tuple[float, float, float, float]  # where it came to rest
    since: int  # frame at which it came to rest here
    obs: list = field(default_factory=list)  # (frame, Detection)
    last_seen: int = 0
    confirmed: bool = False  # seen in two frames: a detection seen once is flicker until then


def _vote(pairs) -> tuple[Hashable, float, tuple]:
    """Weighted vote over (label, confidence) pairs -> (winner, confidence, (label, count)
    votes)."""
    pairs = list(pairs)
    score: dict = {}
    count: dict = {}
    for label, conf in pairs:
        score[label] = score.get(label, 0.0) + max(1e-6, float(conf))
        count[label] = count.get(label, 0) + 1
    winner = max(score, key=lambda k: (score[k], count[k]))
    votes = tuple(sorted(count.items(), key=lambda kv: (-kv[1], str(kv[0]))))
    return winner, min(1.0, score[winner] / len(pairs)), votes


@dataclass
class RollTracker:
    """``update(detections, busy=False, t=None, size=(0, 0)) -> Roll | None``, once per frame:
    a settled roll (``Roll.settled`` set; its dice, median box over the still window, carry
    their votes; in reading order, top to bottom, then left to right) or None.

    ``still_frames``: frames the dice must stay put (at 10 fps, 3 frames = 0.2 s after the first
    frame at rest). ``move_tolerance``: how far (x side) a die may wander and still be the same die
    at rest (boxes jitter by a few pixels). ``max_missing``: frames a resting die may go undetected
    (reader flicker) before its disappearance counts as a change. ``counts``: when given, only
    configurations with one of these numbers of dice are rolls (a game's dice count).
    """
    still_frames: int = 3
    move_tolerance: float = 0.35
    match_radius: float = 0.8
    max_missing: int = 2
    counts: frozenset[int] | None = None
    fps: float = 10.0
    frame: int = field(default=-1, init=False)
    tracks: list[_Track] = field(default_factory=list, init=False)
    last_change: int = field(default=-(10 ** 9), init=False)
    reported: tuple[Die, ...] | None = field(default=None, init=False)
    settled_done: bool = field(default=False, init=False)
    rolls: int = field(default=0, init=False)
    _times: dict = field(default_factory=dict, init=False, repr=False)

    def reset(self) -> None:
        self.frame, self.tracks, self.last_change = -1, [], -(10 ** 9)
        self.reported, self.settled_done, self.rolls = None, False, 0
        self._times = {}

    def _changed(self, at: int | None = None) -> None:
        self.last_change = max(self.last_change, self.frame if at is None else at)
        self.settled_done = False

    def update(self, detections: Sequence | None, busy: bool = False,
               t: float | None = None, size: tuple[int, int] = (0, 0)) -> Roll | None:
        """Feed one frame. ``detections=None`` or ``busy=True``: the frame shows motion (not
        read). ``size``: the frame's (width, height), the settled roll's size ((0, 0): not
        given)."""
        self.frame += 1
        now = self.frame / self.fps if t is None else float(t)
        self._times[self.frame] = now
        self._times.pop(self.frame - 10 * self.still_frames - 50, None)
        if busy or detections is None:
            # motion: nothing seen now can be trusted to stay; every track starts again after it
            self.tracks = []
            self._changed()
            return None
        dets = [d if isinstance(d, Detection) else detections_from([d])[0] for d in detections]
        self._match(dets)
        return self._maybe_report(now, size)

    def _match(self, dets: list[Detection]) -> None:
        pairs = []
        for ti, tr in enumerate(self.tracks):
            tc, ts = _centre(tr.anchor), _side(tr.anchor)
            for di, d in enumerate(dets):
                dc = _centre(d.box)
                dist = np.hypot(dc[0] - tc[0], dc[1] - tc[1]) / max(ts, _side(d.box))
                if dist <= self.match_radius:
                    pairs.append((dist, ti, di))
        pairs.sort()
        used_t, used_d = set(), set()
        for dist, ti, di in pairs:
            if ti in used_t or di in used_d:
                continue
            used_t.add(ti)
            used_d.add(di)
            tr, d = self.tracks[ti], dets[di]
            size_change = abs(_side(d.box) / _side(tr.anchor) - 1.0)
            if dist > self.move_tolerance or size_change > 0.35:  # it moved (or it is another die)
                tr.anchor, tr.since, tr.obs = d.box, self.frame, []
                self._changed()
            tr.obs.append((self.frame, d))
            tr.last_seen = self.frame
            if not tr.confirmed:  # a new die: the change happened when it was first seen
                tr.confirmed = True
                self._changed(tr.since)
        kept = []
        present = [self.tracks[ti] for ti in used_t]
        for ti, tr in enumerate(self.tracks):
            if ti in used_t:
                kept.append(tr)
            elif tr.confirmed and self.frame - tr.last_seen <= self.max_missing:
                kept.append(tr)
            elif tr.confirmed and any(p.confirmed and (_inside(_centre(tr.anchor), p.anchor) or
                                                       _inside(_centre(p.anchor), tr.anchor))
                                      for p in present):
                # read as another box at the same place for now: keep it a while, no change
                if self.frame - tr.last_seen <= self.max_missing + 3 * self.still_frames:
                    kept.append(tr)
            elif tr.confirmed:
                self._changed()  # a die vanished
        self.tracks = kept
        for di, d in enumerate(dets):
            # unconfirmed until it is seen again (a single-frame detection is flicker)
            if di not in used_d:
                self.tracks.append(_Track(d.box, self.frame, [(self.frame, d)], self.frame))

    def _maybe_report(self, now: float, size: tuple[int, int]) -> Roll | None:
        tracks = [tr for tr in self.tracks if tr.confirmed]
        if self.settled_done or not tracks:
            return None
        start = max(0, self.last_change)  # the frame of the last change already shows the new state
        if self.frame - start + 1 < self.still_frames:
            return None
        tracks = self._one_per_place(tracks, start)
        if any(tr.last_seen != self.frame
               or len(tr.obs) < min(self.still_frames, self.frame - tr.since + 1)
               for tr in tracks):
            return None  # a resting die is momentarily undetected: wait for it
        if self.counts is not None and len(tracks) not in self.counts:
            return None
        self.settled_done = True
        dice = tuple(sorted((self._settle(tr, start) for tr in tracks),
                            key=lambda d: (d.box[1], d.box[0])))
        if self.reported is not None and self._same_as_reported(dice):
            return None
        self.reported = dice
        roll = Roll(size[0], size[1], dice, settled=Settled(
            self.rolls, self.frame, now, start, self._times.get(start, start / self.fps)))
        self.rolls += 1
        return roll

    def _one_per_place(self, tracks: list[_Track], start: int) -> list[_Track]:
        """Competing readings of one place (a die's box, and a larger box around it and the table,
        read in turns): a track whose centre lies in another's box. A track of the size of the
        other dice beats one that is not (1.5 x larger or smaller), then the one seen more often."""
        seen = {id(tr): sum(1 for f, _ in tr.obs if f >= start) for tr in tracks}
        typical = float(np.median([_side(tr.anchor) for tr in tracks]))
        # not die-sized
        odd = {id(tr): abs(np.log(_side(tr.anchor) / typical)) > np.log(1.5) for tr in tracks}
        order = sorted(tracks,
                       key=lambda tr: (odd[id(tr)], -seen[id(tr)], tr.last_seen != self.frame))
        kept: list[_Track] = []
        for tr in order:
            if not any(_inside(_centre(tr.anchor), k.anchor)
                       or _inside(_centre(k.anchor), tr.anchor) for k in kept):
                kept.append(tr)
        return kept

    def _settle(self, tr: _Track, start: int) -> Die:
        obs = [d for f, d in tr.obs if f >= start] or [d for _, d in tr.obs]
        value, vconf, vvotes = _vote((d.value, d.value_confidence) for d in obs)
        colour, cconf, cvotes = _vote((d.colour, d.colour_confidence) for d in obs)
        box = tuple(int(round(v))
                    for v in np.median(np.array([d.box for d in obs], np.float64), axis=0))
        return Die(box, value, vconf, colour, cconf, frames=len(obs), value_votes=vvotes,
                   colour_votes=cvotes)

    def _same_as_reported(self, dice: tuple[Die, ...]) -> bool:
        """True when every die lies where a reported die lay (whatever the value read now)."""
        free = list(self.reported)
        for d in dice:
            dc, ds = _centre(d.box), _side(d.box)
            hit = None
            for k, r in enumerate(free):
                rc = _centre(r.box)
                if (np.hypot(dc[0] - rc[0], dc[1] - rc[1])
                    <= self.move_tolerance * max(ds, _side(r.box))):
                    hit = k
                    break
            if hit is None:
                return False
            free.pop(hit)
        return True


def largest_change(reference: np.ndarray, cur: np.ndarray, pixel_delta: int = 16) -> int:
    """Area in pixels of the largest connected region that differs between two ``small_grey``
    frames."""
    if reference is None or reference.shape != cur.shape:
        return cur.shape[0] * cur.shape[1]
    mask = (_change(reference, cur) > pixel_delta).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    return int(stats[1:, cv2.CC_STAT_AREA].max()) if n > 1 else 0


@dataclass
class StreamTracker:
    """Frames in, settled rolls out: ``feed(bgr, t=None) -> Roll | None``.

    ``reader``: a callable BGR frame -> object with ``.dice`` (``vision.pipeline.DiceReader``, a
    dice-set reader, a fake). A frame whose ``motion_fraction`` against the previous frame exceeds
    ``busy_fraction`` is busy and is not read.

    A hand that stops over the table does not move, so a second cue catches it: the frame is
    compared with a *reference* (the table at the last settled roll, or the empty table), and a
    connected region of change larger than ``occluder_dice`` dice (and than ``occluder_min`` of the
    frame) is an occluder (a hand, an arm,
    a dice cup): the frame counts as busy. Dice thrown again change die-sized regions only. If such
    a region stays put for ``rebase_s`` seconds it is taken as the new table (the camera moved).
    ``read_ms`` and ``frames_read`` say what reading cost.
    """
    reader: Callable
    tracker: RollTracker = field(default_factory=RollTracker)
    busy_fraction: float = 0.004
    pixel_delta: int = 16
    occluder_dice: float = 4.0
    occluder_min: float = 0.04
    rebase_s: float = 4.0
    prev: np.ndarray | None = field(default=None, init=False)
    reference: np.ndarray | None = field(default=None, init=False)
    # in input pixels, from the last settled dice
    die_side: float | None = field(default=None, init=False)
    # when the current occluder appeared
    occluded_since: float | None = field(default=None, init=False)
    frames_read: int = field(default=0, init=False)
    read_ms: float = field(default=0.0, init=False)
    last_motion: float = field(default=0.0, init=False)
    last_state: str = field(default="", init=False)  # busy, occluded, read

    def feed(self, bgr: np.ndarray, t: float | None = None) -> Roll | None:
        """One frame; ``t``: its time in seconds (default: frame number / the tracker's fps). Give
        it when frames do not come at the tracker's fps (a phone sending a frame every 0.4 s):
        ``rebase_s`` is then seconds of the clock, not a count of frames."""
        now = (self.tracker.frame + 1) / self.tracker.fps if t is None else float(t)
        small = small_frame(bgr) if bgr.ndim == 3 else small_grey(bgr)
        # a first frame is compared with nothing: it may be a camera's dark or unexposed start
        first = self.prev is None
        motion = (motion_fraction(self.prev, small, self.pixel_delta) if not first else 0.0)
        self.prev = small
        self.last_motion = motion
        if motion > self.busy_fraction:
            self.occluded_since = None
            self.last_state = "busy"
            return self.tracker.update(None, busy=True, t=t)
        if self.reference is not None and self._occluded(small, bgr.shape[1]):
            if self.occluded_since is None:
                self.occluded_since = now
            # the first still frame with the occluder counts as one frame's time already
            if now - self.occluded_since + 1 / self.tracker.fps < self.rebase_s - 1e-9:
                self.last_state = "occluded"
                return self.tracker.update(None, busy=True, t=t)
            self.reference = small  # it stayed put that long: it is the table now
        self.occluded_since = None
        self.last_state = "read"
        t0 = time.perf_counter()
        result = self.reader(bgr)
        self.read_ms += (time.perf_counter() - t0) * 1000
        self.frames_read += 1
        roll = self.tracker.update(detections_from(result.dice), t=t,
                                   size=(bgr.shape[1], bgr.shape[0]))
        if roll is not None:
            self.die_side = float(np.median([_side(d.box) for d in roll.dice]))
        # the table as it is now: settled dice, or no dice at all; never a first frame, which
        # no second one has shown to be still (a camera's first frame, taken as the table, made
        # the real picture after it an occluder for `rebase_s`)
        if not first and (self.tracker.settled_done
                          or not any(tr.confirmed for tr in self.tracker.tracks)):
            self.reference = small
        return roll

    def new_view(self) -> None:
        """The next frame shows another view altogether (the next photo of a slideshow, not the
        same camera): it is read as it is, not compared with the table seen so far, and its dice
        are reported once settled even if they equal the roll reported before."""
        self.prev = self.reference = None
        self.occluded_since = None
        self.tracker.reset()

    def _occluded(self, small: np.ndarray, width: int) -> bool:
        scale = small.shape[1] / max(1, width)
        # a die's area on the small copy; an occluder is at least ``occluder_min`` of the frame
        # too, so that a wrong tiny box (a false die) does not make every thrown die an occluder
        die_area = (self.die_side * scale) ** 2 if self.die_side else 0.0
        limit = max(self.occluder_dice * die_area,
                    self.occluder_min * small.shape[0] * small.shape[1])
        return largest_change(self.reference, small, self.pixel_delta) > limit

    def run(self, frames: Iterable[np.ndarray], fps: float | None = None) -> Iterator[Roll]:
        """Every settled roll of a sequence of frames (times from ``fps`` or the tracker's)."""
        rate = fps or self.tracker.fps
        for i, frame in enumerate(frames):
            roll = self.feed(frame, t=i / rate)
            if roll is not None:
                yield roll

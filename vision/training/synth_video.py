"""Rendered video sequences of a dice table, with the truth about every frame (for the tracker).

A sequence, at ``fps`` frames per second, from a fixed camera over one table
(``vision.training.synth``'s backgrounds and dice):

1. an empty table;
2. the dice **roll in** from one edge, tumbling (a new face and rotation every frame) and slowing
   down, each stopping at its own frame;
3. they **rest**; a **hand** (a big skin-coloured palm, fingers and arm) **passes over** them;
4. the hand comes back, **picks up some dice** and leaves; those dice are **thrown again** and
   settle in new places beside the dice that stayed;
5. optionally the hand **rests over part of the dice** for a while, then leaves.

``Video.rolls`` lists the settled rolls a perfect tracker reports (step 2 and step 4), each with
the first frame at which every die is at rest; ``Video.moving`` says for each frame whether a die
moved or a hand was in view. Between frames only the sensor noise changes, so a die at rest looks
the same in every frame (it is drawn with the same random generator).

The die drawing is injectable (``draw``: ``(rng, img, cx, cy, side, value, look)``, ``look`` being
whatever ``new_look`` returns for a die), so special dice (cow faces, numbers with colours) are
rendered into the same sequences.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import cv2
import numpy as np

from .synth import SYNTH_COLOURS, _background, _draw_die, sample_colour

__all__ = ["TruthDie", "TruthRoll", "Video", "render_video", "pip_die_look", "draw_pip_die",
           "draw_hand", "teach_examples"]


@dataclass(frozen=True)
class TruthDie:
    value: object
    colour: str | None
    centre: tuple[float, float]
    side: float


@dataclass(frozen=True)
class TruthRoll:
    rest_frame: int  # first frame at which every die of this roll lies still
    dice: tuple[TruthDie, ...]

    @property
    def values(self) -> list:
        return sorted(d.value for d in self.dice)


@dataclass(frozen=True)
class Video:
    frames: tuple[np.ndarray, ...]
    fps: float
    rolls: tuple[TruthRoll, ...]
    moving: tuple[bool, ...]  # per frame: a die moves or a hand is in view
    events: tuple[tuple[int, str], ...]  # (frame, what starts there), for reading failures
    background: np.ndarray | None = None  # the empty table (float BGR)
    looks: tuple = ()  # each die's look, as ``new_look`` made it
    side: float = 0.0  # the dice's side in pixels


def pip_die_look(rng: np.random.Generator, colours=None) -> dict:
    """A pip die's look: body colour (name and BGR), pip colour, kind, as ``vision.training.synth``
    draws."""
    name = str(rng.choice(colours or [c for c in SYNTH_COLOURS if c not in ("brown", "grey")]))
    body = sample_colour(rng, name)
    lum = float(body @ np.array([0.114, 0.587, 0.299]))
    pip = np.full(3, rng.uniform(230, 255) if lum < 140 else rng.uniform(0, 40), np.float32)
    return {"colour": name, "body": body, "pip": pip, "kind": "plain"}


def draw_pip_die(rng, img, cx, cy, side, value, look) -> None:
    _draw_die(rng, img, cx, cy, side, int(value), look["body"], look["pip"], look["kind"],
              np.zeros(2, np.float32))


def teach_examples(video: Video, rng: np.random.Generator, faces=(1, 2, 3, 4, 5, 6),
                   per_face: int = 3, draw: Callable = draw_pip_die):
    """Labelled examples of the video's own dice on its own table, as a user teaches them before
    playing: ``(image, box, value, colour)`` for every die look, face and ``per_face`` throws."""
    out = []
    h, w = video.background.shape[:2]
    side = video.side
    for look in video.looks:
        for face in faces:
            for _ in range(per_face):
                r = int(side * 1.8)
                cx, cy = rng.uniform(r, w - r), rng.uniform(r, h - r)
                x0, y0 = int(cx) - r, int(cy) - r
                patch = video.background[y0:y0 + 2 * r, x0:x0 + 2 * r].copy()
                draw(np.random.default_rng(int(rng.integers(0, 2 ** 31))), patch, cx - x0, cy - y0,
                     side, face, look)
                patch += rng.normal(0, 2.0, patch.shape).astype(np.float32)
                img = np.clip(patch, 0, 255).astype(np.uint8)
                half = side * 0.72
                c = r
                out.append((img, (c - half, c - half, c + half, c + half), face,
                            look.get("colour")))
    return out


def draw_hand(img: np.ndarray, palm: tuple[float, float], scale: float, angle: float,
              skin: np.ndarray) -> None:
    """A hand seen from above: palm, four fingers, thumb and the arm out to the frame's edge."""
    h, w = img.shape[:2]
    cx, cy = palm
    c, s = np.cos(angle), np.sin(angle)
    mask = np.zeros((h, w), np.uint8)

    def at(u, v):  # hand coordinates (u along the fingers) -> image
        return int(round(cx + u * c - v * s)), int(round(cy + u * s + v * c))

    deg = float(np.degrees(angle))
    cv2.ellipse(mask, at(0, 0), (int(scale * 1.1), int(scale * 0.95)), deg, 0, 360, 255, -1,
                cv2.LINE_AA)
    for k, (v, length) in enumerate(((-0.65, 1.2), (-0.22, 1.4), (0.22, 1.35), (0.62, 1.05))):
        cv2.ellipse(mask, at(scale * (0.9 + length / 2), scale * v),
                    (int(scale * length / 2), int(scale * 0.2)), deg, 0, 360, 255, -1, cv2.LINE_AA)
    cv2.ellipse(mask, at(scale * 0.3, scale * 1.1), (int(scale * 0.6), int(scale * 0.22)), deg + 50,
                0, 360, 255, -1, cv2.LINE_AA)
    arm_end = at(-scale * 12, 0)
    cv2.line(mask, at(-scale * 0.5, 0), arm_end, 255, int(scale * 1.4), cv2.LINE_AA)
    m = cv2.GaussianBlur(mask, (5, 5), 0).astype(np.float32) / 255.0
    # shading: darker towards the edges of the blob
    inner = cv2.GaussianBlur(mask, (0, 0), scale * 0.3).astype(np.float32) / 255.0
    shade = (0.75 + 0.25 * inner)[..., None]
    img *= 1 - m[..., None] * 0.999
    img += m[..., None] * skin * shade


def _skin(rng) -> np.ndarray:
    hsv = np.array([[[rng.uniform(5, 14), rng.uniform(0.25, 0.55) * 255,
                      rng.uniform(0.55, 0.92) * 255]]], np.float32)
    return cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def _place(rng, n, w, h, side, taken=()) -> list[tuple[float, float]]:
    pts = list(taken)
    out = []
    m = side * 1.2
    for _ in range(n):
        for _try in range(200):
            p = (rng.uniform(m + w * 0.1, w * 0.9 - m), rng.uniform(m + h * 0.1, h * 0.9 - m))
            if all(np.hypot(p[0] - q[0], p[1] - q[1]) > side * 1.9 for q in pts):
                break
        pts.append(p)
        out.append(p)
    return out


def render_video(rng: np.random.Generator, n_dice: int = 3, size: tuple[int, int] = (360, 480),
                 fps: float = 10.0, reroll: int = 2, hand_pass: bool = True, hand_rest: bool = True,
                 side: float | None = None, values: Callable | None = None,
                 new_look: Callable = pip_die_look, draw: Callable = draw_pip_die,
                 noise: float = 2.0) -> Video:
    """A rendered sequence (see the module's description). ``values(rng)`` draws a face value."""
    h, w = size
    bg = _background(rng, h, w)
    bg = np.clip(bg, 0, 255)
    side = side or float(rng.uniform(0.09, 0.13) * min(h, w))
    draw_value = values or (lambda r: int(r.integers(1, 7)))
    looks = [new_look(rng) for _ in range(n_dice)]
    rng.integers(0, 2 ** 31, n_dice)  # a draw kept so that a seed renders the same video
    skin = _skin(rng)
    hand_scale = side * rng.uniform(0.9, 1.2)
    frames: list[np.ndarray] = []
    moving: list[bool] = []
    events: list[tuple[int, str]] = []
    rolls: list[TruthRoll] = []
    # state of each die: None (not on the table) or (centre, value, rest seed)
    state: list[tuple | None] = [None] * n_dice

    def frame(dice_draw, hand=None):
        img = bg.copy()
        for cx, cy, value, look, seed in dice_draw:  # each die drawn in a patch around it (faster)
            r = int(side * 1.6)
            x0, y0 = max(0, int(cx) - r), max(0, int(cy) - r)
            x1, y1 = min(w, int(cx) + r + 1), min(h, int(cy) + r + 1)
            if x1 - x0 < 4 or y1 - y0 < 4:
                continue
            patch = np.ascontiguousarray(img[y0:y1, x0:x1])
            draw(np.random.default_rng(seed), patch, cx - x0, cy - y0, side, value, look)
            img[y0:y1, x0:x1] = patch
        if hand is not None:
            draw_hand(img, *hand, skin)
        img += rng.normal(0, noise, img.shape).astype(np.float32)
        frames.append(np.clip(img, 0, 255).astype(np.uint8))

    def resting():
        return [(s[0][0], s[0][1], s[1], looks[i], s[2]) for i, s in enumerate(state)
                if s is not None]

    def rest(n):
        for _ in range(n):
            frame(resting())
            moving.append(False)

    def throw(which):
        """Dice ``which`` roll in from one edge; returns the first frame at which all rest."""
        events.append((len(frames), f"throw {len(which)} dice"))
        taken = [s[0] for i, s in enumerate(state) if s is not None and i not in which]
        targets = _place(rng, len(which), w, h, side, taken)
        edge = int(rng.integers(0, 4))
        starts = []
        for tx, ty in targets:
            if edge == 0:
                starts.append((rng.uniform(0, w), -side))
            elif edge == 1:
                starts.append((w + side, rng.uniform(0, h)))
            elif edge == 2:
                starts.append((rng.uniform(0, w), h + side))
            else:
                starts.append((-side, rng.uniform(0, h)))
        durations = [int(rng.integers(5, 10)) for _ in which]
        finals = [draw_value(rng) for _ in which]
        rest_seeds = [int(s) for s in rng.integers(0, 2 ** 31, len(which))]
        for i in which:
            state[i] = None
        for k in range(max(durations) + 1):
            dice_now = resting()
            for j, i in enumerate(which):
                f = min(1.0, k / durations[j])
                e = 1 - (1 - f) ** 2
                x = starts[j][0] + (targets[j][0] - starts[j][0]) * e
                y = starts[j][1] + (targets[j][1] - starts[j][1]) * e
                if k >= durations[j]:
                    dice_now.append((x, y, finals[j], looks[i], rest_seeds[j]))
                else:
                    dice_now.append((x, y, draw_value(rng), looks[i],
                                     int(rng.integers(0, 2 ** 31))))
            frame(dice_now)
            moving.append(k < max(durations))
        for j, i in enumerate(which):
            state[i] = (targets[j], finals[j], rest_seeds[j])
        rest_frame = len(frames) - 1
        return rest_frame

    def hand_path(start, end, n, stay=0):
        ang = float(np.arctan2(end[1] - start[1], end[0] - start[0]))
        for k in range(n):
            f = k / max(1, n - 1)
            p = (start[0] + (end[0] - start[0]) * f, start[1] + (end[1] - start[1]) * f)
            frame(resting(), (p, hand_scale, ang))
            moving.append(True)
        for _ in range(stay):
            frame(resting(), (end, hand_scale, ang))
            moving.append(True)

    def truth(rest_frame):
        dice = tuple(TruthDie(s[1], looks[i].get("colour"), s[0], side) for i, s in enumerate(state)
                     if s is not None)
        rolls.append(TruthRoll(rest_frame, dice))

    rest(3)
    truth(throw(list(range(n_dice))))
    rest(8)
    if hand_pass:
        events.append((len(frames), "hand passes over"))
        y = float(np.mean([s[0][1] for s in state if s is not None]))
        hand_path((-hand_scale * 3, y), (w + hand_scale * 3, y + rng.uniform(-side, side)), 8)
        rest(6)
    if reroll:
        which = sorted(int(i) for i in rng.choice(n_dice, size=min(reroll, n_dice), replace=False))
        events.append((len(frames), f"hand picks up {len(which)} dice"))
        target = state[which[0]][0]
        hand_path((w + hand_scale * 3, target[1]), target, 4)
        for i in which:
            state[i] = None
        hand_path(target, (w + hand_scale * 3, target[1]), 4)
        rest(2)
        truth(throw(which))
        rest(8)
    if hand_rest:
        events.append((len(frames), "hand rests over the dice"))
        target = state[0][0] if state[0] is not None else (w / 2, h / 2)
        hand_path((-hand_scale * 3, target[1]), (target[0] - side * 0.3, target[1]), 4, stay=8)
        hand_path((target[0] - side * 0.3, target[1]), (-hand_scale * 3, target[1]), 4)
        rest(6)
    return Video(tuple(frames), fps, tuple(rolls), tuple(moving), tuple(events), bg, tuple(looks),
                 side)

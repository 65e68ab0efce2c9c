"""Settled rolls from rendered video: latency, missed and false rolls, values, cost per frame.

    python bench/tracker.py [--videos 10] [--dice 3] [--seed 0] [--still-frames 3] [--onnx]

Each video (``vision.training.synth_video``, 10 fps) has dice rolling in, a hand passing over, some
dice picked up and thrown again, and a hand resting over the dice; it holds two settled rolls. The
frames are read by a dice set taught on the same dice and table (3 throws per face, like a user
before playing), and with ``--onnx`` also by the shipped ONNX reader (``models/dice_face.onnx``).

Per reader it prints: rolls expected / reported once / missed; false rolls (a report with no
settled roll behind it, a second report of one roll, or a report while something moves); latency
from the first frame at rest to the report (median and max, seconds); rolls with every value right
and dice misread; milliseconds per read frame (every model on one thread) and the share of frames
read at all. The taught dice are read twice: by one reader for every frame, and in two tiers as
the companion reads a taught table (frames by ``DiceSetReader.camera_frame``, the frame a roll
settles on again by the whole reader).
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.reader import settled_dice  # noqa: E402
from vision.detect import load_detector  # noqa: E402
from vision.dice_set import DiceSetReader  # noqa: E402
from vision.training.synth_video import render_video, teach_examples  # noqa: E402
from vision.teach import teach  # noqa: E402
from vision.track import RollTracker, StreamTracker  # noqa: E402


def score(video, reports):
    """reports: [(frame, settled Roll)] -> dict of counts for one video."""
    out = {"expected": len(video.rolls), "reported": 0, "false": 0, "moving": 0, "latency": [],
           "right": 0, "misread": 0, "dice": 0}
    seen = set()
    for i, roll in reports:
        if video.moving[i]:
            out["moving"] += 1
            out["false"] += 1
            continue
        k = max((j for j, r in enumerate(video.rolls) if r.rest_frame <= i), default=None)
        if k is None or k in seen:
            out["false"] += 1
            continue
        truth = video.rolls[k]
        if len(roll.dice) != len(truth.dice):
            out["false"] += 1  # a roll with dice that are not there
            continue
        seen.add(k)
        out["reported"] += 1
        out["latency"].append((i - truth.rest_frame) / video.fps)
        got = np.bincount([int(v) for v in roll.values], minlength=7)
        want = np.bincount(truth.values, minlength=7)
        wrong = int((got - want).clip(0).sum())
        out["misread"] += wrong
        out["dice"] += len(truth.dice)
        out["right"] += wrong == 0
    return out


def run(name, make_reader, videos, still_frames, make_settled=None):
    """``make_settled(reader)``: the reader of the frame a roll settles on (the companion's
    second tier), its reading and the frames' vote made one as the companion makes them
    (``companion.reader.settled_dice``)."""
    tot = {"expected": 0, "reported": 0, "false": 0, "moving": 0, "latency": [], "right": 0,
           "misread": 0, "dice": 0}
    read_ms, read_frames, frames = 0.0, 0, 0
    settled_ms = []
    for video in videos:
        reader = make_reader(video)
        reader(video.frames[0])  # warm up (prototype cache, ONNX session)
        settled = make_settled(reader) if make_settled else None
        stream = StreamTracker(reader, RollTracker(still_frames=still_frames, fps=video.fps))
        reports = []
        for i, frame in enumerate(video.frames):
            r = stream.feed(frame, t=i / video.fps)
            if r is not None and settled is not None:
                t0 = time.perf_counter()
                dice = settled_dice(r.dice, settled(frame).dice)
                settled_ms.append((time.perf_counter() - t0) * 1000)
                r = replace(r, dice=dice) if dice else None
            if r is not None:
                reports.append((i, r))
        s = score(video, reports)
        for k in tot:
            tot[k] = tot[k] + s[k]
        read_ms += stream.read_ms
        read_frames += stream.frames_read
        frames += len(video.frames)
    lat = np.array(tot["latency"]) if tot["latency"] else np.array([np.nan])
    print(f"\n{name}: {len(videos)} videos, {frames} frames at {videos[0].fps:g} fps, still frames "
          f"{still_frames}")
    print(f"  settled rolls: {tot['expected']} expected, {tot['reported']} reported once, "
          f"{tot['expected'] - tot['reported']} missed")
    print(f"  false rolls: {tot['false']} (of which while moving: {tot['moving']})")
    print(f"  latency from rest to report: median {np.median(lat):.2f} s, max {np.max(lat):.2f} s")
    print(f"  rolls with every value right: {tot['right']}/{tot['reported']}; dice misread: "
          f"{tot['misread']}/{tot['dice']}")
    print(f"  reading: {read_ms / max(1, read_frames):.1f} ms per read frame; "
          f"{read_frames / frames:.0%} of frames read")
    if settled_ms:
        print(f"  the settled frame read again: median {np.median(settled_ms):.1f} ms")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--videos", type=int, default=10)
    ap.add_argument("--dice", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--still-frames", type=int, default=3)
    ap.add_argument("--onnx", action="store_true", help="also read with the shipped ONNX model")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    videos = [render_video(np.random.default_rng(args.seed + k), n_dice=args.dice)
              for k in range(args.videos)]
    print(f"rendered {len(videos)} videos in {time.perf_counter() - t0:.0f} s")

    seeds = {id(v): args.seed + 100 + k for k, v in enumerate(videos)}

    detector = load_detector(threads=1)   # every reader here on one thread (the embedder's
    # and the face reader's sessions are loaded with one thread too)

    def taught(video):
        ds = teach(teach_examples(video, np.random.default_rng(seeds[id(video)]), per_face=3))
        return DiceSetReader(ds, detector_session=detector)

    run("dice set taught on the same dice (3 throws per face), one reader for every frame",
        taught, videos, args.still_frames)
    # as the companion reads a taught table: frames by the cheap tier, the settled frame again
    # by the whole reader (quarter turns and ink contrast of unsure dice)
    whole = {}

    def taught_frames(video):
        whole["reader"] = taught(video)
        return whole["reader"].camera_frame()

    run("dice set taught, two tiers as the companion reads it (frames: camera_frame)",
        taught_frames, videos, args.still_frames, lambda _: whole["reader"])
    if args.onnx:
        model = ROOT / "models" / "dice_face.onnx"
        if not model.is_file():
            print(f"\nshipped ONNX reader: {model} is absent")
        else:
            from vision.pipeline import CAMERA_FRAME, DiceReader
            from vision.read import load_session, load_settled_session
            session = load_session(model, threads=1)

            def frames(_video):   # the camera-frame tier
                return DiceReader(session, detector_session=detector, **CAMERA_FRAME)
            run("shipped ONNX reader (no teaching), camera frames alone", frames, videos,
                args.still_frames)
            # as `dice-companion watch` and the companion read a table: the settled frame again
            # by the settled tier (both readers voted, further views, turned pictures)
            settled = DiceReader(load_settled_session(threads=1, first=session),
                                 detector_session=detector)
            run("shipped ONNX readers, two tiers as the companion and `watch` read them", frames,
                videos, args.still_frames, lambda _: settled)
    return 0


if __name__ == "__main__":
    sys.exit(main())

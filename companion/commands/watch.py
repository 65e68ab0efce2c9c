"""`dice-companion watch [--camera N | VIDEO] [--game G]`: print each settled roll as a JSON line.

The frames come from a webcam (`--camera 0`), a video file, or a folder of frame images (read in
name order). Every frame goes to the tracker (`vision.track`): frames in which something moves
are not read; once the same dice have lain in the same places for `--still-frames` frames, the
roll is printed, once: `{"roll": 0, "frame": 42, "time_s": 4.2, "values": [...], "colours":
[...], "dice": [...], "disagreeing": [...]}`. A video is read at `--fps` frames per second (its
own frames are skipped to match); a camera as fast as it delivers, up to `--fps`.

Two tiers, as the companion reads a table: frames by the cheap camera-frame reader, and the frame
a roll settles on once more by the settled-roll reader (the `read` command's: both face readers
voted, unsure dice in more views, a turned picture turned back; a taught set's whole reader),
whose dice are the roll when it finds as many as the frames' vote
(`companion.reader.settled_dice`; each die keeps its frames' votes: `carry_votes`); when it finds
no die at all, the roll is not printed: what the frames saw there was no die.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from companion.cli import EXIT_OK, BadInput
from companion.commands.read import as_game_faces, game_names, palette_for, symbol_sides
from companion.commands.teach import IMAGE_SUFFIXES, dice_set_reader


def register(subparsers) -> None:
    p = subparsers.add_parser("watch",
                              help="watch a camera or a video and print each settled roll "
                                   "(JSON Lines)",
                              description=__doc__.splitlines()[0])
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("video", nargs="?", metavar="VIDEO", type=Path,
                     help="a video file or a folder of frames")
    src.add_argument("--camera", metavar="N", help="a webcam index (0, 1, ...) or a stream URL")
    p.add_argument("--game", choices=game_names(), default=None,
                   help="name colours with this game's palette and faces as it names them "
                        "(Kuh Vadis' sixth face: cow)")
    p.add_argument("--dice-set", metavar="FILE", type=Path,
                   help="read faces with a taught dice set (see teach)")
    p.add_argument("--model", type=Path, default=None,
                   help="face reader ONNX model, read alone for every frame and the settled "
                        "one (default: frames by the shipped dice_face.onnx, the settled frame "
                        "by the two shipped ones voted together)")
    p.add_argument("--fps", type=float, default=10.0, help="frames per second to read (default 10)")
    p.add_argument("--still-frames", type=int, default=3,
                   help="frames the dice must lie still (default 3)")
    p.add_argument("--dice", type=int, default=None,
                   help="report only rolls of exactly this many dice")
    p.add_argument("--max-seconds", type=float, default=None, help="stop after this long (camera)")
    p.set_defaults(func=run)


def _video_frames(path: Path, fps: float):
    """(time, frame) of a video file, subsampled to about ``fps``; or the images of a folder."""
    import cv2

    if path.is_dir():
        files = sorted(f for f in path.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
        if not files:
            raise BadInput(f"{path}: no frame images in this folder")
        for i, f in enumerate(files):
            frame = cv2.imread(str(f), cv2.IMREAD_COLOR)
            if frame is None:
                print(f"dice-companion watch: {f}: cannot decode, skipped", file=sys.stderr)
                continue
            yield i / fps, frame
        return
    if not path.is_file():
        raise BadInput(f"{path}: no such video file")
    cap = cv2.VideoCapture(str(path))
    if not cap.isOpened():
        raise BadInput(f"{path}: cannot open this video")
    native = cap.get(cv2.CAP_PROP_FPS) or fps
    if not native or native != native or native <= 0:
        native = fps
    step = max(1.0, native / fps)
    i, next_keep = 0, 0.0
    try:
        while True:
            ok, frame = cap.read()
            if not ok:
                break
            if i >= next_keep - 1e-6:
                next_keep += step
                yield i / native, frame
            i += 1
    finally:
        cap.release()
    if i == 0:
        raise BadInput(f"{path}: no frames could be decoded")


def _camera_frames(spec: str, fps: float, max_seconds: float | None):
    import cv2

    cap = cv2.VideoCapture(int(spec) if spec.isdigit() else spec)
    if not cap.isOpened():
        raise BadInput(f"cannot open camera {spec}")
    t0 = time.monotonic()
    last = -1.0
    try:
        while max_seconds is None or time.monotonic() - t0 < max_seconds:
            ok, frame = cap.read()
            if not ok:
                time.sleep(0.05)
                continue
            now = time.monotonic() - t0
            if now - last < 1.0 / fps * 0.95:
                continue
            last = now
            yield now, frame
    finally:
        cap.release()


def make_readers(args):
    """(the frames' reader, the settled frame's reader), as the companion reads a table."""
    palette = palette_for(args.game)
    if args.dice_set:   # taught dice read as the companion reads a taught table
        whole = dice_set_reader(args.dice_set, palette, None)
        return whole.camera_frame(), whole
    from vision.detect import load_detector
    from vision.pipeline import CAMERA_FRAME, DiceReader
    from vision.read import DEFAULT_MODEL, load_session, load_settled_session
    try:
        session = load_session(args.model or DEFAULT_MODEL)
        # --model: that reader alone in both tiers; else the shipped pair voted for the settled
        settled_session = session if args.model else load_settled_session(first=session)
        detector = load_detector()
    except FileNotFoundError as exc:
        raise BadInput(str(exc)) from None
    # the tracker votes over frames instead of quarter turns and second readings
    frames = DiceReader(session, palette=palette, detector_session=detector, **CAMERA_FRAME)
    return frames, DiceReader(settled_session, palette=palette, detector_session=detector)


def carry_votes(careful, voted) -> tuple:
    """The settled reader's dice, each with the frames' votes (``frames``, ``value_votes``,
    ``colour_votes``) of the voted die its box overlaps most: the printed roll still says which
    dice the frames did not all read alike. Pure."""
    from dataclasses import replace

    from vision.find import box_iou
    out, free = [], list(voted)
    for d in careful:
        if not free:
            out.append(d)
            continue
        v = max(free, key=lambda v: box_iou(d.box, v.box))
        free.remove(v)
        out.append(replace(d, frames=v.frames, value_votes=v.value_votes,
                           colour_votes=v.colour_votes))
    return tuple(out)


def run(args) -> int:
    from dataclasses import replace

    from companion.reader import settled_dice
    from vision.track import RollTracker, StreamTracker

    if args.fps <= 0 or args.still_frames < 1:
        raise BadInput("--fps must be positive and --still-frames at least 1")
    reader, settled_reader = make_readers(args)
    tracker = RollTracker(still_frames=args.still_frames, fps=args.fps,
                          counts=frozenset({args.dice}) if args.dice else None)
    stream = StreamTracker(reader, tracker)
    frames = _camera_frames(args.camera, args.fps, args.max_seconds) if args.camera is not None \
        else _video_frames(args.video, args.fps)
    symbol_at = symbol_sides(args.game)
    source = f"camera {args.camera}" if args.camera is not None else str(args.video)
    try:
        for t, frame in frames:
            roll = stream.feed(frame, t=t)
            if roll is None:
                continue
            dice = settled_dice(roll.dice, settled_reader(frame).dice)
            if not dice:  # the settled reader sees no die there: what the frames saw was none
                continue
            roll = as_game_faces(replace(roll, dice=carry_votes(dice, roll.dice)), symbol_at)
            print(json.dumps({"source": source, **roll.to_dict()}, default=str))
            sys.stdout.flush()
    except KeyboardInterrupt:
        pass
    return EXIT_OK

"""The tracker on rendered video: dice rolling in, a hand passing over, some dice thrown again, a
hand resting over the dice. Real frames, read by a dice set taught on the same dice and table."""
import json
import subprocess
import sys

import cv2
import numpy as np
import pytest

from vision.dice_set import DiceSetReader
from vision.training.synth_video import render_video, teach_examples
from vision.teach import teach
from vision.track import RollTracker, StreamTracker
from vision_helpers import CountingEmbedder

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def video():
    return render_video(np.random.default_rng(0), n_dice=3)


@pytest.fixture(scope="module")
def video_and_reader(video):
    seed = 0
    ds = teach(teach_examples(video, np.random.default_rng(seed + 100), per_face=3))
    return video, DiceSetReader(ds), ds


def test_the_sequence_has_what_the_test_needs(video_and_reader):
    video, _, _ = video_and_reader
    kinds = " ".join(e for _, e in video.events)
    for what in ("throw 3", "hand passes over", "picks up", "throw 2", "hand rests"):
        assert what in kinds
    assert len(video.rolls) == 2 and any(video.moving) and not all(video.moving)


def test_every_settled_roll_once_never_while_moving(video_and_reader):
    video, reader, _ = video_and_reader
    stream = StreamTracker(reader, RollTracker(still_frames=3, fps=video.fps))
    reports = []
    for i, frame in enumerate(video.frames):
        roll = stream.feed(frame, t=i / video.fps)
        if roll is not None:
            reports.append((i, roll))
    assert len(reports) == len(video.rolls), [(i, r.values) for i, r in reports]
    misread = 0
    for (i, roll), truth in zip(reports, video.rolls):
        assert not video.moving[i]
        assert truth.rest_frame <= i <= truth.rest_frame + 5  # <= 0.5 s at 10 fps
        assert len(roll.dice) == len(truth.dice)
        misread += sum((np.bincount(roll.values, minlength=7)
                        - np.bincount(truth.values, minlength=7)).clip(0))
        # each reported die lies on a true die
        for d in roll.dice:
            cx, cy = (d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2
            assert (min(np.hypot(cx - t.centre[0], cy - t.centre[1]) for t in truth.dice)
                    < truth.dice[0].side * 0.5)
    # the tracker reports what the reader reads: the hand-made dice-set reader misreads about one
    # die in twenty on these renders (glare over a pip; bench/tracker.py gives the exact figure)
    assert misread <= 1


def test_watch_command_on_a_folder_of_frames(video_and_reader, tmp_path):
    video, _, ds = video_and_reader
    frames = tmp_path / "frames"
    frames.mkdir()
    for i, f in enumerate(video.frames):
        cv2.imwrite(str(frames / f"{i:04d}.jpg"), f, [cv2.IMWRITE_JPEG_QUALITY, 95])
    ds.save(tmp_path / "set.npz")
    out = subprocess.run([sys.executable, "-m", "companion.cli", "watch", str(frames), "--dice-set",
                          str(tmp_path / "set.npz")], capture_output=True, text=True, cwd=ROOT,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    lines = [json.loads(x) for x in out.stdout.splitlines()]
    assert [x["roll"] for x in lines] == [0, 1]
    assert [len(x["values"]) for x in lines] == [len(r.dice) for r in video.rolls]
    assert all(0 <= x["frame"] - r.rest_frame <= 5 for x, r in zip(lines, video.rolls))
    assert all(len(x["dice"]) == len(x["values"]) and "disagreeing" in x for x in lines)


def test_watch_reads_pip_dice_in_a_folder_of_frames(video, tmp_path):
    frames = tmp_path / "frames"
    frames.mkdir()
    for i, f in enumerate(video.frames):
        cv2.imwrite(str(frames / f"{i:04d}.jpg"), f, [cv2.IMWRITE_JPEG_QUALITY, 95])
    out = subprocess.run([sys.executable, "-m", "companion.cli", "watch", str(frames)],
                         capture_output=True, text=True, cwd=ROOT, timeout=180)
    assert out.returncode == 0, out.stderr
    lines = [json.loads(x) for x in out.stdout.splitlines()]
    assert [sorted(x["values"]) for x in lines] == [sorted(r.values) for r in video.rolls]
    assert all(len(x["dice"]) == len(x["values"]) and "disagreeing" in x for x in lines)


def test_watch_reads_in_two_tiers_as_the_companion_does():
    """Without a dice set `watch` reads frames by the shipped reader alone (no further views, no
    turns) and the frame a roll settles on once more by the settled tier: both face readers voted,
    unsure dice in more views, a turned picture turned back."""
    from argparse import Namespace

    from companion.commands.watch import make_readers
    from vision.read import Vote
    frames, settled = make_readers(Namespace(game=None, dice_set=None, model=None))
    assert (frames.turns, frames.scene_turns, frames.second_look) == (False, False, None)
    assert (settled.turns, settled.scene_turns) == (True, True) and settled.second_look
    assert isinstance(settled.session, Vote) and settled.session.sessions[0] is frames.session
    assert settled.detector_session is frames.detector_session


def test_the_settled_dice_keep_the_frames_votes():
    from companion.commands.watch import carry_votes
    from vision.dice import Die
    voted = (Die((0, 0, 10, 10), 3, 0.9, None, 0.0, frames=3, value_votes=((3, 2), (5, 1))),
             Die((50, 0, 60, 10), 4, 0.9, None, 0.0, frames=3, value_votes=((4, 3),)))
    careful = (Die((51, 1, 61, 11), 4, 0.99, None, 0.0), Die((1, 0, 11, 10), 5, 0.6, None, 0.0))
    kept = carry_votes(careful, voted)
    assert [d.value for d in kept] == [4, 5]            # the settled reader's faces...
    assert [d.value_votes for d in kept] == [((4, 3),), ((3, 2), (5, 1))]  # ...the frames' votes
    assert [d.frames for d in kept] == [3, 3]


def test_watch_refuses_what_it_cannot_read(tmp_path):
    bad = tmp_path / "nothing.avi"

    def run(*a):
        return subprocess.run([sys.executable, "-m", "companion.cli", "watch", *a],
                              capture_output=True, text=True, cwd=ROOT, timeout=60)

    empty = tmp_path / "empty"
    empty.mkdir()
    set_file = tmp_path / "s.npz"
    set_file.write_bytes(b"junk")
    r = run(str(bad), "--dice-set", str(set_file))
    assert r.returncode == 2 and "dice set" in r.stderr
    r = run(str(bad))
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    r = run("--camera", "0", str(bad))
    assert r.returncode == 2


def test_with_the_shipped_onnx_reader(video):
    """The same sequences read by the shipped pip-dice model (skipped where the model file is
    absent)."""
    model = ROOT / "models" / "dice_face.onnx"
    if not model.is_file():
        pytest.skip(f"{model} is absent (the face reader is trained with "
                    "python -m vision.training.train)")
    from vision.pipeline import DiceReader
    from vision.read import load_session
    reader = DiceReader(load_session(model, threads=1))
    stream = StreamTracker(reader, RollTracker(still_frames=3, fps=video.fps))
    reports = [(i, r) for i, f in enumerate(video.frames)
               if (r := stream.feed(f, t=i / video.fps)) is not None]
    assert len(reports) == 2
    for (i, roll), truth in zip(reports, video.rolls):
        assert not video.moving[i] and truth.rest_frame <= i <= truth.rest_frame + 5
        assert sorted(roll.values) == truth.values
    assert stream.frames_read < len(video.frames)  # busy frames are not read


def frame_tier(ds):
    from vision.embedding import default_embedder
    counting = CountingEmbedder(default_embedder())
    return DiceSetReader(ds, embedder=counting).camera_frame(), counting


def test_the_frame_tier_reads_a_resting_die_once(video_and_reader):
    """A camera frame of a taught table embeds each new box once; the next still frame's boxes
    whose crops did not change keep their reading, and read as a fresh reader reads them."""
    video, reader, ds = video_and_reader
    rest = video.rolls[0].rest_frame
    frames = video.frames[rest:rest + 3]
    tier, counting = frame_tier(ds)
    first = tier(frames[0])
    assert len(first.dice) == len(video.rolls[0].dice) and counting.embedded >= len(first.dice)
    before = counting.embedded
    for frame in frames[1:]:
        again = tier(frame)
        fresh = frame_tier(ds)[0](frame)
        assert [(d.box, d.value) for d in again.dice] == [(d.box, d.value) for d in fresh.dice]
    assert counting.embedded == before          # nothing embedded again
    assert not tier.turns and not tier.contrast and reader.turns and reader.contrast


def test_the_frame_tier_reads_a_die_turned_in_place_again(video_and_reader):
    """A die turned to another face where it lay: its crop changed, so it is embedded again and
    read as a fresh reader reads that frame, never as the face it showed before."""
    video, _, ds = video_and_reader
    rest = video.rolls[0].rest_frame
    frame = video.frames[rest]
    tier, counting = frame_tier(ds)
    dice = tier(frame).dice
    a, b = next((a, b) for a in dice for b in dice if a.value != b.value)
    turned = frame.copy()   # die a shows what die b shows: b's pixels pasted over a's box
    x0, y0, x1, y1 = a.box
    turned[y0:y1, x0:x1] = cv2.resize(frame[b.box[1]:b.box[3], b.box[0]:b.box[2]],
                                      (x1 - x0, y1 - y0))
    before = counting.embedded
    now = {d.box: d.value for d in tier(turned).dice}
    fresh = {d.box: d.value for d in frame_tier(ds)[0](turned).dice}
    assert counting.embedded > before and now == fresh
    assert b.value in now.values() and list(now.values()).count(b.value) >= 2

"""The tracker fed with synthetic detections: when it reports, what it votes, what it ignores."""
import numpy as np
import pytest

from vision.dice import Roll
from vision.track import Detection, RollTracker, motion_fraction, small_grey


def die(x, y, value, colour="red", side=40, vc=0.95, cc=0.9):
    return Detection((x, y, x + side, y + side), value, colour, vc, cc)


REST = [die(100, 100, 3), die(200, 120, 5, "blue"), die(320, 90, 1, "green")]


def feed(tracker, frames):
    """frames: list of detection lists, or None for a busy frame; returns [(frame, roll)]."""
    out = []
    for dets in frames:
        r = tracker.update(dets, busy=dets is None)
        if r is not None:
            out.append((tracker.frame, r))
    return out


def rolling_in(n=6, seed=0):
    """Detections that move a lot between frames (dice tumbling in), with random values."""
    rng = np.random.default_rng(seed)
    frames = []
    for k in range(n):
        frames.append([die(d.box[0] - 15 * (n - k), d.box[1] + 9 * (n - k), int(rng.integers(1, 7)),
                           d.colour)
                       for d in REST])
    return frames


class TestSettling:
    def test_one_report_after_still_frames_with_the_right_values(self):
        t = RollTracker(still_frames=3)
        reports = feed(t, rolling_in() + [REST] * 10)
        assert len(reports) == 1
        frame, roll = reports[0]
        assert frame == 6 + 2  # rest begins at frame 6; the third frame at rest reports
        assert roll.settled.still_since_frame == 6
        assert sorted(roll.values) == [1, 3, 5]
        assert {(d.value, d.colour) for d in roll.dice} == {(3, "red"), (5, "blue"), (1, "green")}
        assert roll.disagreeing == ()
        assert all(d.frames == 3 for d in roll.dice)

    def test_never_while_moving(self):
        t = RollTracker(still_frames=3)
        assert feed(t, rolling_in(30)) == []

    def test_busy_frames_restart_the_window(self):
        t = RollTracker(still_frames=3)
        reports = feed(t, [REST, REST, None, REST, REST, None, REST, REST, REST])
        assert [f for f, _ in reports] == [8]

    def test_slowly_sliding_die_is_not_at_rest(self):
        t = RollTracker(still_frames=3, move_tolerance=0.2)
        frames = [[die(100 + 12 * k, 100, 4)] for k in range(10)]  # 0.3 side per frame
        assert feed(t, frames) == []
        reports = feed(t, [[die(100 + 12 * 9, 100, 4)]] * 3)
        assert len(reports) == 1 and reports[0][1].values == (4,)

    def test_box_jitter_of_a_few_pixels_is_rest(self):
        rng = np.random.default_rng(3)
        frames = [[die(d.box[0] + rng.integers(-3, 4), d.box[1] + rng.integers(-3, 4), d.value,
                       d.colour)
                   for d in REST] for _ in range(8)]
        assert len(feed(RollTracker(still_frames=3), frames)) == 1

    def test_counts_constraint_waits_for_all_dice(self):
        t = RollTracker(still_frames=3, counts=frozenset({3}))
        assert feed(t, [REST[:2]] * 5) == []
        assert len(feed(t, [REST] * 3)) == 1


class TestVoting:
    def test_majority_value_and_disagreement_reported(self):
        t = RollTracker(still_frames=5)
        flicker = [REST[0], die(200, 120, 6, "blue", vc=0.6), REST[2]]
        reports = feed(t, [REST, flicker, REST, REST, REST])
        (frame, roll), = reports
        blue = next(d for d in roll.dice if d.colour == "blue")
        assert blue.value == 5
        assert dict(blue.value_votes) == {5: 4, 6: 1}
        assert roll.dice.index(blue) in roll.disagreeing and len(roll.disagreeing) == 1
        assert blue.value_confidence == pytest.approx(0.95 * 4 / 5)
        others = [d for d in roll.dice if d is not blue]
        assert all(d.value_confidence == pytest.approx(0.95) for d in others)

    def test_confident_minority_can_win_against_unsure_majority(self):
        t = RollTracker(still_frames=3)
        frames = [[die(100, 100, 2, vc=0.3)], [die(100, 100, 2, vc=0.3)],
                  [die(100, 100, 5, vc=0.99)]]
        (_, roll), = feed(t, frames)
        assert roll.values == (5,) and roll.dice[0].value_confidence < 0.5

    def test_colour_vote(self):
        t = RollTracker(still_frames=3)
        frames = [[die(100, 100, 2, "orange")], [die(100, 100, 2, "yellow", cc=0.55)],
                  [die(100, 100, 2, "orange")]]
        (_, roll), = feed(t, frames)
        assert roll.dice[0].colour == "orange" and roll.disagreeing == (0,)

    def test_to_dict_is_json(self):
        import json
        (_, roll), = feed(RollTracker(), [REST] * 3)
        d = json.loads(json.dumps(roll.to_dict()))
        assert d["values"] == [1, 3, 5] and d["roll"] == 0 and len(d["dice"]) == 3


    def test_a_settled_rolls_json_is_what_watch_prints(self):
        """`dice-companion watch` prints `{"source", **roll.to_dict()}`: these keys in this
        order, the votes of each die, a symbol's word as a value, no colour as null."""
        import json
        t = RollTracker(still_frames=3)
        frames = [[die(100, 100, 3), die(200, 120, "cow", None, cc=1.0)],
                  [die(101, 100, 3), die(200, 121, 6, None, vc=0.6, cc=1.0)],
                  [die(100, 101, 4, "blue", vc=0.5, cc=0.7), die(200, 120, "cow", None, cc=1.0)]]
        rolls = [r for i, f in enumerate(frames) if (r := t.update(f, t=0.4 * i))]
        assert json.dumps({"source": "x", **rolls[0].to_dict()}) == (
            '{"source": "x", "roll": 0, "frame": 2, "time_s": 0.8, "still_since_s": 0.0, '
            '"values": [3, "cow"], "colours": ["red", null], "dice": [{"box": [100, 100, 140, '
            '140], "value": 3, "colour": "red", "value_confidence": 0.6333, '
            '"colour_confidence": 0.6, "check_face": true, "frames": 3, '
            '"value_votes": {"3": 2, "4": 1}, '
            '"colour_votes": {"red": 2, "blue": 1}}, {"box": [200, 120, 240, 160], "value": '
            '"cow", "colour": null, "value_confidence": 0.6333, "colour_confidence": 1.0, '
            '"check_face": true, "frames": 3, "value_votes": {"cow": 2, "6": 1}, '
            '"colour_votes": {"None": 3}}], '
            '"disagreeing": [0, 1]}')
        assert rolls[0].settled.still_since_frame == 0 and isinstance(rolls[0], Roll)

class TestNewRolls:
    def test_hand_passing_over_resting_dice_gives_no_second_report(self):
        t = RollTracker(still_frames=3)
        frames = [REST] * 5 + [None] * 6 + [REST] * 10
        assert len(feed(t, frames)) == 1

    def test_hand_covering_some_dice_for_a_while_gives_no_report(self):
        t = RollTracker(still_frames=3)
        frames = [REST] * 5 + [None] * 2 + [REST[:1]] * 10 + [None] * 2 + [REST] * 6
        assert len(feed(t, frames)) == 1

    def test_reroll_of_some_dice_is_a_new_roll_with_all_dice(self):
        t = RollTracker(still_frames=3)
        moved = [REST[0], die(260, 220, 2, "blue"), die(60, 250, 6, "green")]
        reports = feed(t, [REST] * 5 + [None] * 6 + rolling_in(4) + [moved] * 5)
        assert [r.settled.index for _, r in reports] == [0, 1]
        assert sorted(reports[1][1].values) == [2, 3, 6]

    def test_same_place_other_value_is_no_new_roll(self):
        # a die does not land exactly where it lay: a new value there is the reader's flicker
        t = RollTracker(still_frames=3)
        other = [REST[0], REST[1], die(320, 90, 4, "green")]
        reports = feed(t, [REST] * 4 + [None] * 3 + [other] * 4)
        assert len(reports) == 1

    def test_single_frame_false_detections_do_not_delay_the_report(self):
        t = RollTracker(still_frames=3)
        ghost = [die(500, 400, 2)]
        frames = rolling_in() + [REST, REST + ghost, REST, REST]
        reports = feed(t, frames)
        assert [(f, sorted(r.values)) for f, r in reports] == [(8, [1, 3, 5])]

    def test_a_die_missed_for_one_frame_is_no_change(self):
        t = RollTracker(still_frames=3, max_missing=2)
        frames = [REST] * 4 + [REST[:2]] + [REST] * 6
        assert len(feed(t, frames)) == 1

    def test_a_die_taken_away_is_no_new_roll_but_a_die_added_is(self):
        t = RollTracker(still_frames=3)
        assert len(feed(t, [REST] * 4 + [REST[:2]] * 6)) == 1
        assert len(feed(t, [REST[:2] + [die(400, 300, 6)]] * 4)) == 1

    def test_reset(self):
        t = RollTracker()
        feed(t, [REST] * 4)
        t.reset()
        assert len(feed(t, [REST] * 4)) == 1 and t.rolls == 1


class TestMotion:
    def base(self):
        rng = np.random.default_rng(0)
        img = rng.integers(60, 200, (240, 320, 3)).astype(np.uint8)
        import cv2
        return cv2.GaussianBlur(img, (0, 0), 4)

    def test_same_frame_and_light_change_are_still(self):
        a = self.base()
        assert motion_fraction(small_grey(a), small_grey(a)) == 0.0
        brighter = np.clip(a.astype(int) + 12, 0, 255).astype(np.uint8)
        assert motion_fraction(small_grey(a), small_grey(brighter)) < 0.001

    def test_noise_is_still_a_moving_square_is_not(self):
        a = self.base()
        rng = np.random.default_rng(1)
        noisy = np.clip(a + rng.normal(0, 3, a.shape), 0, 255).astype(np.uint8)
        assert motion_fraction(small_grey(a), small_grey(noisy)) < 0.001
        b, c = a.copy(), a.copy()
        b[100:140, 100:140] = 250
        c[100:140, 115:155] = 250
        assert motion_fraction(small_grey(b), small_grey(c)) > 0.004

    def test_shape_change_is_motion(self):
        a = self.base()
        assert motion_fraction(small_grey(a), small_grey(a[:200])) == 1.0


class TestCompetingReadings:
    def test_a_die_and_a_box_around_it_read_in_turns_give_one_die(self):
        t = RollTracker(still_frames=3)
        big = Detection((60, 60, 200, 200), 1, "red", 0.99, 0.9)  # the die plus table around it
        a = REST + [big]
        b = REST
        frames = [a, b, a, b, b, a, b]
        reports = feed(t, frames)
        assert len(reports) == 1
        assert sorted(reports[0][1].values) == [1, 3, 5]
        assert all(d.box != (60, 60, 200, 200) for d in reports[0][1].dice)


class TestCameraMoved:
    """The phone is moved: every pixel changes and stays changed. The tracker takes it for an
    occluder at first (a hand resting over the table), then, after ``rebase_s`` seconds of the
    clock, for the new table, and reads the dice on it."""

    class _Reader:
        """Reads the dice of table A on table A's frame, those of table B on B's."""
        A = [die(100, 100, 3), die(200, 120, 5, "blue")]
        B = [die(60, 150, 6), die(240, 40, 2, "blue"), die(150, 60, 4)]

        def __init__(self, table_a):
            self.table_a = table_a

        def __call__(self, frame):
            return type("Result", (), {"dice": self.A if frame is self.table_a else self.B})()

    @staticmethod
    def table(seed):
        """A textured table (wood, cloth): what the camera sees everywhere changes when it moves."""
        import cv2
        noise = np.random.default_rng(seed).random((24, 32)).astype(np.float32)
        grey = cv2.resize(noise, (320, 240), interpolation=cv2.INTER_CUBIC) * 160 + 40
        return np.repeat(np.clip(grey, 0, 255).astype(np.uint8)[..., None], 3, 2)

    def run(self, frame_interval, times: bool):
        from vision.track import StreamTracker
        table_a, table_b = self.table(1), self.table(2)
        stream = StreamTracker(self._Reader(table_a), RollTracker(still_frames=3))
        frames = [table_a] * 8 + [table_b] * 60
        reports = []
        for k, frame in enumerate(frames):
            roll = stream.feed(frame, t=k * frame_interval if times else None)
            if roll is not None:
                reports.append((k, sorted(roll.values)))
        return reports

    def test_a_phone_sending_a_frame_every_0_4_s_reads_the_new_table_after_about_4_s(self):
        reports = self.run(0.4, times=True)
        assert [values for _, values in reports] == [[3, 5], [2, 4, 6]]
        moved_at = 8 * 0.4
        waited = reports[1][0] * 0.4 - moved_at
        # rebase_s, then three still readings (16 s and more when it counted frames)
        assert 4.0 <= waited <= 6.0

    def test_without_times_it_counts_frames_at_the_trackers_fps(self):
        reports = self.run(0.1, times=False)
        assert [values for _, values in reports] == [[3, 5], [2, 4, 6]]
        assert 40 <= reports[1][0] - 8 <= 45  # 4 s at 10 fps

    def test_a_new_view_is_read_at_once(self):
        """The next photo of a slideshow is another table, not a moved camera: read at once."""
        from vision.track import StreamTracker
        table_a, table_b = self.table(1), self.table(2)
        stream = StreamTracker(self._Reader(table_a), RollTracker(still_frames=3))
        reports = []
        for k, frame in enumerate([table_a] * 5 + [table_b] * 5):
            if k == 5:
                stream.new_view()
            roll = stream.feed(frame, t=k * 0.4)
            if roll is not None:
                reports.append((k, sorted(roll.values)))
        assert reports == [(2, [3, 5]), (7, [2, 4, 6])]

    def test_a_cameras_dark_first_frame_is_not_taken_for_the_table(self):
        """A phone's camera starts with a dark frame, then shows the table: its dice are read
        once they lie still for three frames, not after `rebase_s` of "something covers the
        table" (the dark frame taken as the table made the real one an occluder)."""
        from vision.track import StreamTracker
        table_a = self.table(1)
        stream = StreamTracker(self._Reader(table_a), RollTracker(still_frames=3))
        reports, states = [], []
        for k, frame in enumerate([np.zeros_like(table_a)] + [table_a] * 8):
            roll = stream.feed(frame, t=k * 0.4)
            states.append(stream.last_state)
            if roll is not None:
                reports.append((k, sorted(roll.values)))
        assert "occluded" not in states
        assert reports == [(4, [3, 5])]     # the dark frame, one busy, three still

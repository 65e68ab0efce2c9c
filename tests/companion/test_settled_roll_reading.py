"""User story: the phone's camera frames are read cheaply, and the roll the table settles on is
read once more by the careful reader, whose reading is the one the players see and write from."""
import pytest

from tests.companion.test_web_api import _FakeDie, _FakeResult, textured_table


def _readers(fast_dice, careful_dice):
    calls = {"fast": 0, "careful": 0}

    def fast(image):
        calls["fast"] += 1
        return _FakeResult(fast_dice)

    def careful(image):
        calls["careful"] += 1
        return _FakeResult(careful_dice)

    return fast, careful, calls


def _table(fast, careful, tracker: bool, monkeypatch):
    """An orange/yellow table reading with `fast` and `careful`; settled by vision's stream
    tracker, or (`tracker` False) by the companion's own `Settler`."""
    from companion import reader as R
    if not tracker:
        monkeypatch.setattr(R.importlib, "import_module", _no_tracker(R.importlib.import_module))
    return R.TableReader(["orange", "yellow"], [1, 2, 3, 4, 5, 6], frames=3, reader=fast,
                         settled_reader=careful)


@pytest.mark.parametrize("tracker", [True, False], ids=["stream tracker", "settler"])
def test_the_settled_roll_is_the_careful_reading_of_the_still_frame(tracker, monkeypatch):
    fast, careful, calls = _readers([_FakeDie((40, 40, 80, 80), 3, "orange"),
                                     _FakeDie((120, 40, 160, 80), 5, "yellow")],
                                    [_FakeDie((40, 40, 80, 80), 3, "orange"),
                                     _FakeDie((120, 40, 160, 80), 6, "yellow")])
    table = _table(fast, careful, tracker, monkeypatch)
    frame = textured_table(1)
    results = [table.feed(frame) for _ in range(6)]
    settled = [reading for reading, done in results if done]
    assert len(settled) == 1
    assert sorted(d.value for d in settled[0].dice) == [3, 6]          # the careful reading
    assert sorted(d.value for d in results[0][0].dice) in ([3, 5], [])  # frames: the fast one
    assert calls["careful"] == 1 and calls["fast"] >= 3               # once per roll


def test_a_careful_reading_with_another_count_of_dice_leaves_the_vote(monkeypatch):
    from companion import reader as R
    fast, careful, calls = _readers([_FakeDie((40, 40, 80, 80), 3, "orange"),
                                     _FakeDie((120, 40, 160, 80), 5, "yellow")],
                                    [_FakeDie((40, 40, 80, 80), 2, "orange")])
    table = R.TableReader(["orange", "yellow"], [1, 2, 3, 4, 5, 6], frames=3, reader=fast,
                          settled_reader=careful)
    frame = textured_table(2)
    settled = [reading for reading, done in (table.feed(frame) for _ in range(6)) if done]
    assert len(settled) == 1 and calls["careful"] == 1
    assert sorted(d.value for d in settled[0].dice) == [3, 5]


@pytest.mark.parametrize("tracker", [True, False], ids=["stream tracker", "settler"])
def test_a_die_the_careful_reader_does_not_see_at_all_never_settles(tracker, monkeypatch):
    """The frame reader reads a die in the mottled cloth of an empty table, frame after frame;
    the careful reader finds no die in the frame: nothing settles, the players are shown no roll
    (bench/tracker.py's video 4 reported such a 4 before the dice came in)."""
    fast, careful, calls = _readers([_FakeDie((40, 40, 80, 80), 4, "orange")], [])
    table = _table(fast, careful, tracker, monkeypatch)
    frame = textured_table(4)
    results = [table.feed(frame) for _ in range(6)]
    assert not any(done for _, done in results) and table.settled is None
    assert calls["careful"] >= 1


def test_a_taught_reader_reads_frames_and_settled_rolls_alike():
    from companion import reader as R
    fast, _, calls = _readers([_FakeDie((40, 40, 80, 80), 4, "orange")], [])
    table = R.TableReader(["orange"], [1, 2, 3, 4, 5, 6], frames=3, reader=fast)
    assert table.settled_reader is table.reader
    frame = textured_table(3)
    settled = [reading for reading, done in (table.feed(frame) for _ in range(6)) if done]
    assert [d.value for d in settled[0].dice] == [4] and calls["careful"] == 0


def test_the_two_tiers_are_built_differently(monkeypatch):
    """The frame reader skips the quarter turns and the second reading of sure dice and reads
    with the shipped face reader alone; the settled roll's reader does both and reads with
    that same session voted with the larger reader (vision's DiceReader with the shipped
    models). Only the settled roll's reader reads a turned picture turned back (a phone held
    sideways or from across the table)."""
    pytest.importorskip("onnxruntime")
    from companion import reader as R
    try:
        vision = R.Vision()
        fast = vision.reader(("orange", "yellow"), (1, 2, 3, 4, 5, 6))
        careful = vision.reader(("orange", "yellow"), (1, 2, 3, 4, 5, 6), settled=True)
    except R.ReaderUnavailable as exc:
        pytest.skip(str(exc))
    assert (fast.turns, fast.skip_sure_duplicates, fast.scene_turns) == (False, True, False)
    assert (careful.turns, careful.skip_sure_duplicates, careful.scene_turns) == (True, False, True)
    assert careful.reader.upright  # the turn is asked of upright readers only
    from vision.read import Vote
    assert isinstance(careful.session, Vote) and not isinstance(fast.session, Vote)
    assert careful.session.sessions[0] is fast.session and len(careful.session.sessions) == 2
    assert careful.detector_session is fast.detector_session


def _no_tracker(real_import):
    def fake(name, *a, **k):
        if name == "vision.track":
            raise ImportError("no tracker in this test")
        return real_import(name, *a, **k)
    return fake

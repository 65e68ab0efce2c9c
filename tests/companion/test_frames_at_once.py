"""Camera frames from many tables at once: each app loads its camera models when it starts (not on
the first frame) and owns them; tables read their frames in parallel; a table's frame that waits
while a newer one of the same table comes is answered "superseded" at once and not read."""
import os
import threading
import time

import cv2
import numpy as np
import pytest

from companion.app import create_app
from companion.reader import Superseded, TableReader, Turns


def _jpeg(seed: int = 0) -> bytes:
    image = np.random.default_rng(seed).integers(0, 255, (120, 160, 3), dtype=np.uint8)
    return cv2.imencode(".jpg", image)[1].tobytes()


def _wait_until(check, what: str) -> None:
    deadline = time.monotonic() + 10
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.005)


class _Nothing:
    dice = ()


class TestModelsLoadAtStart:
    @pytest.fixture
    def counted(self, monkeypatch):
        """How often the face readers' (the shipped one; the settled tier's larger one) and
        the detector's sessions are loaded."""
        pytest.importorskip("onnxruntime")
        from vision import detect, read
        loads = {"face reader": 0, "larger face reader": 0, "detector": 0}
        real_face, real_detector = read.load_session, detect.load_detector

        def face(path=read.DEFAULT_MODEL, *a, **k):
            loads["larger face reader" if path == read.BIG_MODEL else "face reader"] += 1
            return real_face(path, *a, **k)

        def detector(*a, **k):
            loads["detector"] += 1
            return real_detector(*a, **k)

        monkeypatch.setattr(read, "load_session", face)
        monkeypatch.setattr(detect, "load_detector", detector)
        return loads

    def test_the_first_frame_of_a_started_app_loads_no_model(self, tmp_path, counted,
                                                              make_table):
        app = create_app({"TESTING": True, "DATABASE": os.path.join(tmp_path, "a.sqlite")})
        # loaded by the app factory
        assert counted == {"face reader": 1, "larger face reader": 1, "detector": 1}
        client = app.test_client()
        code = make_table(client)
        r = client.post(f"/api/tables/{code}/frame", data=_jpeg(), content_type="image/jpeg")
        assert r.status_code == 200, r.json
        # the frame loaded nothing
        assert counted == {"face reader": 1, "larger face reader": 1, "detector": 1}

    def test_a_missing_model_starts_the_app_and_frames_are_unavailable(self, tmp_path,
                                                                      monkeypatch, make_table):
        from vision import read

        def missing(*a, **k):
            raise FileNotFoundError("face reader model not found: nowhere/dice_face.onnx")

        monkeypatch.setattr(read, "load_session", missing)
        app = create_app({"TESTING": True, "DATABASE": os.path.join(tmp_path, "a.sqlite")})
        client = app.test_client()
        code = make_table(client)
        r = client.post(f"/api/tables/{code}/frame", data=_jpeg(), content_type="image/jpeg")
        assert r.status_code == 503
        assert r.json["error"] == ("camera reading unavailable: face reader model not found: "
                                   "nowhere/dice_face.onnx")

    def test_two_apps_in_one_process_have_their_own_models_and_readers(self, tmp_path, counted):
        one = create_app({"TESTING": True, "DATABASE": os.path.join(tmp_path, "1.sqlite")})
        two = create_app({"TESTING": True, "DATABASE": os.path.join(tmp_path, "2.sqlite")})
        a, b = one.extensions["vision"], two.extensions["vision"]
        assert a is not b and a.load()[0] is not b.load()[0]
        assert a.reader(("orange",), (1, 2, 3)) is not b.reader(("orange",), (1, 2, 3))
        assert counted == {"face reader": 2, "larger face reader": 2, "detector": 2}


class TestTablesReadAtOnce:
    @pytest.fixture
    def blocking(self, tmp_path):
        """An app whose reader holds each table's first frame until `release` is set."""
        entered: dict[str, threading.Event] = {}
        release = threading.Event()
        calls: list[str] = []

        def factory(palette, faces, frames, symbols):
            def read(image):
                name = threading.current_thread().name
                calls.append(name)
                if name in entered:
                    entered[name].set()
                    assert release.wait(10)
                return _Nothing
            return TableReader(palette, faces, frames, reader=read, symbols=symbols)

        app = create_app({"TESTING": True, "DATABASE": os.path.join(tmp_path, "b.sqlite"),
                          "READER_FACTORY": factory})
        return app, entered, release, calls

    @staticmethod
    def _table(app, make_table):
        """A new table's code and its creator's token (frames are read for the table's own)."""
        owner = app.test_client()
        code = make_table(owner)
        return code, owner.get_cookie(f"dc_{code}").value

    @staticmethod
    def _post(app, table, frame, name, answers):
        code, token = table

        def run():
            r = app.test_client().post(f"/api/tables/{code}/frame", data=frame,
                                       content_type="image/jpeg", headers={"X-Token": token})
            answers[name] = (r.status_code, r.json)
        t = threading.Thread(target=run, name=name)
        t.start()
        return t

    def test_a_waiting_frame_is_superseded_at_once_by_a_newer_one(self, blocking, make_table):
        app, entered, release, calls = blocking
        table = self._table(app, make_table)
        frame, answers = _jpeg(1), {}
        entered["first"] = threading.Event()
        first = self._post(app, table, frame, "first", answers)
        assert entered["first"].wait(10)                 # the first frame is being read
        turn = app.extensions["readers"].get(table[0]).turn
        # not even decoded: a corrupt frame that waits is superseded, not refused
        waiting = self._post(app, table, b"\xff\xd8\xff" + bytes(64), "waiting", answers)
        _wait_until(lambda: turn.taken == 2, "the second frame to wait its turn")
        newest = self._post(app, table, frame, "newest", answers)
        waiting.join(10)                                 # answered while the first is still read
        assert not waiting.is_alive() and first.is_alive()
        status, body = answers["waiting"]
        assert status == 200 and body["superseded"] is True and body["state"] == "superseded"
        assert body["dice"] == [] and body["settled"] is False and "width" not in body
        release.set()
        first.join(10)
        newest.join(10)
        assert [answers[n][0] for n in ("first", "newest")] == [200, 200]
        assert not any(answers[n][1].get("superseded") for n in ("first", "newest"))
        assert calls == ["first", "newest"]              # the superseded frame was not read

    def test_tables_read_their_frames_at_the_same_time(self, blocking, make_table):
        app, entered, release, calls = blocking
        tables = [self._table(app, make_table) for _ in range(2)]
        answers: dict = {}
        for name in ("one", "two"):
            entered[name] = threading.Event()
        threads = [self._post(app, table, _jpeg(i), name, answers)
                   for i, (table, name) in enumerate(zip(tables, ("one", "two")))]
        # the second table's frame is in the reader while the first table's is held there
        assert entered["one"].wait(10) and entered["two"].wait(10)
        release.set()
        for t in threads:
            t.join(10)
        assert [answers[n][0] for n in ("one", "two")] == [200, 200]


class TestTurns:
    def test_one_at_a_time_and_only_the_newest_waiter_goes_next(self):
        turns, order, errors = Turns(), [], []
        inside = threading.Event()
        go = threading.Event()

        def frame(name, hold=False):
            try:
                with turns.take():
                    order.append(name)
                    if hold:
                        inside.set()
                        go.wait(10)
            except Superseded:
                errors.append(name)

        first = threading.Thread(target=frame, args=("first", True))
        first.start()
        inside.wait(10)
        waiters = []
        for k, name in enumerate(("second", "third", "fourth"), start=2):
            waiters.append(threading.Thread(target=frame, args=(name,)))
            waiters[-1].start()
            _wait_until(lambda k=k: turns.taken == k, f"{name} to wait")
        _wait_until(lambda: len(errors) == 2, "the older waiters to be superseded")
        # both older waiters are superseded; which of them wakes to say so first is the scheduler's
        assert sorted(errors) == ["second", "third"] and order == ["first"]
        go.set()
        for t in [first, *waiters]:
            t.join(10)
        assert order == ["first", "fourth"]


class TestWhoMaySendFrames:
    def test_a_stranger_may_not_send_frames_a_player_may(self, tmp_path, make_table, sit):
        calls = []

        def factory(palette, faces, frames, symbols):
            return TableReader(palette, faces, frames, symbols=symbols,
                               reader=lambda image: calls.append(1) or _Nothing)

        app = create_app({"TESTING": True, "DATABASE": os.path.join(tmp_path, "w.sqlite"),
                          "READER_FACTORY": factory})
        host = app.test_client()
        code = make_table(host, players=("Ann", "Bob"))
        stranger = app.test_client()
        r = stranger.post(f"/api/tables/{code}/frame", data=_jpeg(), content_type="image/jpeg")
        assert r.status_code == 403
        assert r.json["error"] == "join the table to send it camera frames"
        r = stranger.post(f"/api/tables/{code}/camera")
        assert r.status_code == 403
        assert calls == [] and app.extensions["readers"].get(code) is None   # nothing read
        bob = app.test_client()
        assert sit(bob, host, code, 1).status_code == 200
        r = bob.post(f"/api/tables/{code}/frame", data=_jpeg(), content_type="image/jpeg")
        assert r.status_code == 200 and calls == [1]

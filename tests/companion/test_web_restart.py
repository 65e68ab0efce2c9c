"""Crash safety: the real server (waitress, a subprocess) killed with SIGKILL mid-game and
started again loses no acknowledged action, and the table's state is identical."""
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from engine.registry import load_game
from engine.simulate import random_game
from engine.table import action_to_json

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, db: Path, instance: Path) -> None:
        self.db, self.instance = db, instance
        self.port = free_port()
        self.proc = None

    def command(self) -> list[str]:
        # plain HTTP only: the HTTPS address would be the next port, which nothing reserved for
        # it (another program holding it stopped the server from starting, now and then)
        return [sys.executable, "-m", "companion.commands.serve", "--host", "127.0.0.1",
                "--port", str(self.port), "--no-https", "--db", str(self.db),
                "--instance", str(self.instance), "--no-qr", "--threads", "8"]

    def start(self) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.proc = subprocess.Popen(self.command(), cwd=ROOT, env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                self.call("GET", "/api/games")
                return
            except OSError:
                time.sleep(0.1)
        self.kill()
        raise RuntimeError("the server did not start: " + self.proc.stdout.read().decode())

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def call(self, method: str, path: str, body=None, token=None, timeout=10):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data,
                                     method=method)
        req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("X-Token", token)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return resp.status, json.loads(resp.read()), resp.headers
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read()), exc.headers


@pytest.fixture
def server(tmp_path):
    s = Server(tmp_path / "game.sqlite", tmp_path / "instance")
    s.start()
    yield s
    s.kill()


def _token(headers, code):
    cookie = headers["Set-Cookie"]
    assert cookie.startswith(f"dc_{code}=")
    return cookie.split("=", 1)[1].split(";", 1)[0]


def test_kill_9_mid_game_and_restart_state_identical(server):
    status, body, headers = server.call("POST", "/api/tables",
                                        {"game": "qwinto", "players": ["Ann", "Bob", "Cy"]})
    assert status == 201
    code = body["code"]
    token = _token(headers, code)
    table = random_game(load_game("qwinto"), 3, seed=11)
    actions = [action_to_json(a) for a in table.history]
    half = len(actions) // 2
    for a in actions[:half]:
        status, body, _ = server.call("POST", f"/api/tables/{code}/actions", a, token)
        assert status == 200, body
    _, before, _ = server.call("GET", f"/api/tables/{code}", token=token)
    _, log_before, _ = server.call("GET", f"/api/tables/{code}/log")

    server.kill()
    server.start()

    _, after, _ = server.call("GET", f"/api/tables/{code}", token=token)
    _, log_after, _ = server.call("GET", f"/api/tables/{code}/log")
    assert after == before
    assert log_after == log_before
    # and the game goes on where it stopped
    for a in actions[half:]:
        status, body, _ = server.call("POST", f"/api/tables/{code}/actions", a, token)
        assert status == 200, body
    assert body["is_over"] is True
    assert [s["total"] for s in body["standings"]] == [s.score.total for s in table.standings()]


def test_kill_9_under_load_loses_no_acknowledged_action(server):
    """Writers keep posting, each action with its idempotency key; SIGKILL lands while requests
    are in flight. After the restart every action that was answered 200 is in the log, in
    order; the action whose answer was lost, sent again with its key, is in the log once
    (committed before the kill or not); and SQLite's integrity check is ok."""
    import sqlite3
    tables = []
    for seed in range(6):
        status, body, headers = server.call("POST", "/api/tables",
                                            {"game": "knister", "players": ["A", "B"]})
        code = body["code"]
        game = random_game(load_game("knister"), 2, seed=seed)
        actions = [dict(action_to_json(a), key=f"{code}-{i:04d}-retry-key")
                   for i, a in enumerate(game.history)]
        tables.append((code, _token(headers, code), actions))
    acked = {code: 0 for code, _, _ in tables}
    stop = threading.Event()

    def writer(code, token, actions):
        for a in actions:
            if stop.is_set():
                return
            try:
                status, _, _ = server.call("POST", f"/api/tables/{code}/actions", a, token,
                                           timeout=5)
            except (OSError, http.client.HTTPException):  # killed mid-answer: not acknowledged
                return
            if status != 200:
                return
            acked[code] += 1

    threads = [threading.Thread(target=writer, args=t) for t in tables]
    for t in threads:
        t.start()
    time.sleep(0.8)
    server.kill()
    stop.set()
    for t in threads:
        t.join(10)
    assert all(n > 0 for n in acked.values()), acked
    db = sqlite3.connect(server.db)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()

    server.start()

    def logged(code):
        _, log, _ = server.call("GET", f"/api/tables/{code}/log")
        return [{k: v for k, v in a.items() if k not in ("seq", "by_seat", "at")}
                for a in log["actions"]]
    for code, token, actions in tables:
        plain = [{k: v for k, v in a.items() if k != "key"} for a in actions]
        got = logged(code)
        assert len(got) >= acked[code]
        assert got == plain[:len(got)]
        # the action in flight at the kill, sent again: done once, whether it was written or not
        n = acked[code]
        if n < len(actions):
            status, state, _ = server.call("POST", f"/api/tables/{code}/actions", actions[n],
                                           token)
            assert status == 200 and state["seq"] == n + 1
            assert logged(code) == plain[:n + 1]
        status, state, _ = server.call("GET", f"/api/tables/{code}", token=token)
        assert status == 200 and state["seq"] == len(logged(code))

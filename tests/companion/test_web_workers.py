"""Hosting many tables: several server processes on one PostgreSQL and one Redis.

User stories: a player whose page is connected to worker A sees at once an action that worker B
handled; a worker killed with SIGKILL, or Redis killed, loses no acknowledged action (the log
is in PostgreSQL; a page that missed events catches up from the log); the table view knows who
is connected; the README's gunicorn command serves the app from several workers.
Every server here is real and on 127.0.0.1 (`live_servers`)."""
import http.client
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time

import pytest

from companion.events import Broker
from engine.registry import load_game
from engine.simulate import random_game
from engine.table import action_to_json
from test_web_restart import ROOT, Server, _token

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")


class Worker(Server):
    """`dice-companion serve` on PostgreSQL and Redis: one worker process of the hosting mode."""

    def __init__(self, tmp_path, name, db_url, redis_url) -> None:
        super().__init__(db_url, tmp_path / name)
        self.redis_url = redis_url

    def command(self) -> list[str]:
        return [sys.executable, "-m", "companion.commands.serve", "--host", "127.0.0.1",
                "--port", str(self.port), "--no-https", "--db", self.db, "--redis",
                self.redis_url, "--instance", str(self.instance), "--no-qr", "--threads", "16"]


class Stream(threading.Thread):
    """A page's event stream: every event as (name, data) on `events`."""

    def __init__(self, port: int, code: str, token: str | None = None, limit: float = 30) -> None:
        super().__init__(daemon=True)
        self.port, self.code, self.token, self.limit = port, code, token, limit
        self.events: queue.Queue = queue.Queue()
        self.ended = threading.Event()
        self.start()

    def run(self) -> None:
        try:
            c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.limit + 10)
            headers = {"Cookie": f"dc_{self.code}={self.token}"} if self.token else {}
            c.request("GET", f"/api/tables/{self.code}/events?limit={self.limit}",
                      headers=headers)
            resp = c.getresponse()
            event = None
            while True:
                line = resp.fp.readline()
                if not line:
                    return
                line = line.decode().rstrip("\n")
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: "):
                    self.events.put((event, json.loads(line[6:])))
        except OSError:
            return
        finally:
            self.ended.set()

    def next(self, name: str, timeout: float = 10) -> dict:
        """The data of the next event called `name` (the others before it are skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            event, data = self.events.get(timeout=max(0.01, deadline - time.monotonic()))
            if event == name:
                return data


@pytest.fixture
def workers(tmp_path, postgres_url, redis_server):
    started = [Worker(tmp_path, name, postgres_url, redis_server.url) for name in "AB"]
    for w in started:
        w.start()
    yield started
    for w in started:
        w.kill()


def _new_table(worker, game="qwinto", players=("Ann", "Bob")):
    status, body, headers = worker.call("POST", "/api/tables",
                                        {"game": game, "players": list(players), "claim": 0})
    assert status == 201, body
    return body["code"], _token(headers, body["code"])


def _logged(worker, code):
    """The table's log as sent (without seq, writer, time)."""
    _, log, _ = worker.call("GET", f"/api/tables/{code}/log")
    return [{k: v for k, v in x.items() if k not in ("seq", "by_seat", "at")}
            for x in log["actions"]]


class TestTwoWorkers:
    def test_an_action_posted_to_one_worker_reaches_a_page_on_the_other(self, workers):
        a, b = workers
        code, token = _new_table(a)
        page = Stream(b.port, code)
        assert page.next("hello") == {"seq": 0, "connected": []}
        status, body, _ = a.call("POST", f"/api/tables/{code}/actions",
                                 {"type": "roll", "roll": "orange:3 yellow:5"}, token)
        assert status == 200
        assert page.next("action") == {"seq": 1, "action": "roll", "seat": None}
        # and worker B answers from the same log
        status, state, _ = b.call("GET", f"/api/tables/{code}", token=token)
        assert status == 200 and state["seq"] == 1

    def test_both_workers_write_one_table_in_turn(self, workers):
        a, b = workers
        code, token = _new_table(a, "knister", ("Ann",))
        game = random_game(load_game("knister"), 1, seed=5)
        actions = [action_to_json(x) for x in game.history]
        for i, action in enumerate(actions):
            status, body, _ = (a, b)[i % 2].call("POST", f"/api/tables/{code}/actions", action,
                                                 token)
            assert status == 200, body
        assert body["is_over"] is True
        assert _logged(a, code) == _logged(b, code) == actions

    def test_sigkill_of_a_worker_loses_no_acknowledged_action(self, workers):
        """Writers post to worker A, each action with its idempotency key; A is killed with
        SIGKILL while requests are in flight. Worker B's log holds every action answered 200,
        in order; the action in flight, sent again to B with its key, is in the log once."""
        a, b = workers
        tables = []
        for seed in range(4):
            code, token = _new_table(a, "knister", ("A", "B"))
            game = random_game(load_game("knister"), 2, seed=seed)
            tables.append((code, token, [dict(action_to_json(x), key=f"{code}-{i:04d}-retry")
                                         for i, x in enumerate(game.history)]))
        acked = {code: 0 for code, _, _ in tables}

        def writer(code, token, actions):
            for action in actions:
                try:
                    status, _, _ = a.call("POST", f"/api/tables/{code}/actions", action, token,
                                          timeout=5)
                except (OSError, http.client.HTTPException):   # killed: not acknowledged
                    return
                if status != 200:
                    return
                acked[code] += 1

        threads = [threading.Thread(target=writer, args=t) for t in tables]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 20
        while sum(acked.values()) < 40 and time.monotonic() < deadline:
            time.sleep(0.02)
        a.kill()
        for t in threads:
            t.join(10)
        assert all(n > 0 for n in acked.values()), acked

        for code, token, actions in tables:
            plain = [{k: v for k, v in x.items() if k != "key"} for x in actions]
            got = _logged(b, code)
            assert len(got) >= acked[code] and got == plain[:len(got)]
            n = acked[code]
            if n < len(actions):
                status, state, _ = b.call("POST", f"/api/tables/{code}/actions", actions[n],
                                          token)
                assert status == 200 and state["seq"] == n + 1
                assert _logged(b, code) == plain[:n + 1]

    def test_the_table_view_knows_who_is_connected_on_any_worker(self, workers):
        a, b = workers
        code, host = _new_table(a)
        table_view = Stream(a.port, code, host)
        assert table_view.next("hello")["connected"] == [0]
        assert table_view.next("presence") == {"connected": [0]}     # its own arrival
        _, state, _ = a.call("GET", f"/api/tables/{code}", token=host)
        status, _, headers = b.call("POST", f"/api/tables/{code}/join",
                                    {"seat": 1, "join": state["me"]["join"]})
        assert status == 200
        bob = _token(headers, code)
        phone = Stream(b.port, code, bob, limit=1)
        assert table_view.next("presence") == {"connected": [0, 1]}
        phone.ended.wait(10)                                  # Bob's page closed
        assert table_view.next("presence") == {"connected": [0]}

    def test_pages_catch_up_when_redis_comes_back(self, workers, redis_server):
        """Redis killed: an action is still written and answered (the log is the record);
        each worker ends its streams, and a page that reconnects is told the log's length."""
        a, b = workers
        code, token = _new_table(a)
        page = Stream(b.port, code)
        page.next("hello")
        redis_server.proc.kill()
        redis_server.proc.wait(5)
        status, body, _ = a.call("POST", f"/api/tables/{code}/actions",
                                 {"type": "roll", "roll": "orange:3"}, token)
        assert status == 200 and body["seq"] == 1
        assert page.ended.wait(15)                            # B ended its streams
        again = Stream(b.port, code)
        assert again.next("hello", timeout=15)["seq"] == 1    # the page fetches from seq 1


class TestBrokerPresence:
    """The in-process broker (one server process) keeps the same account of who is here."""

    def test_seated_streams_are_counted_and_announced(self):
        broker = Broker()
        watcher = iter(broker.subscribe("T", {"seq": 0}, heartbeat=0.05))
        assert b'"connected"' in next(watcher)                # retry line and hello
        ann = iter(broker.subscribe("T", {"seq": 0}, heartbeat=0.05, seat=0))
        ann2 = iter(broker.subscribe("T", {"seq": 0}, heartbeat=0.05, seat=0))
        next(ann), next(ann2)
        assert broker.connected("T") == [0]
        assert b'event: presence\ndata: {"connected":[0]}' in next(watcher)
        ann.close()
        assert broker.connected("T") == [0]                   # her second page is still open
        ann2.close()
        assert broker.connected("T") == [] and broker.listeners("T") == 1

    def test_end_streams_ends_every_stream(self):
        broker = Broker()
        stream = iter(broker.subscribe("T", {"seq": 3}, heartbeat=5))
        next(stream)
        assert broker.end_streams() == 1
        assert list(stream) == [] and broker.listeners("T") == 0

    def test_a_stream_never_read_is_unsubscribed_when_closed(self):
        """What a WSGI server does with a body it does not send (a HEAD request)."""
        broker = Broker()
        broker.subscribe("T", {"seq": 0}, seat=1).close()
        assert broker.listeners("T") == 0 and broker.connected("T") == []


@pytest.mark.skipif(shutil.which("gunicorn") is None and not os.path.exists(
    os.path.join(os.path.dirname(sys.executable), "gunicorn")), reason="gunicorn is not "
    "installed: pip install -e '.[server]'")
def test_the_readme_gunicorn_command_serves_from_two_workers(tmp_path, postgres_url,
                                                             redis_server):
    """The production start of docs/companion.md: gunicorn, two uvicorn workers, threads for
    the requests only. Four times more pages keep a stream open than each worker has threads,
    every request is answered meanwhile, every action reaches every page (on either worker),
    and gunicorn stops with the pages still open."""
    port = Server(tmp_path / "x", tmp_path).port
    env = dict(os.environ, PYTHONPATH=str(ROOT), DICE_COMPANION_DB=postgres_url,
               DICE_COMPANION_REDIS=redis_server.url, DICE_COMPANION_THREADS="4",
               DICE_COMPANION_INSTANCE=str(tmp_path / "instance"))
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-w", "2", "-k",
                             "companion.worker.Worker", "-b", f"127.0.0.1:{port}",
                             "companion.asgi:app"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    try:
        client = Server(tmp_path / "x", tmp_path)
        client.port = port
        deadline = time.monotonic() + 60
        while True:
            try:
                status, body, _ = client.call("GET", "/api/games")
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
                time.sleep(0.2)
        code, token = _new_table(client, "knister", ("Ann",))
        pages = [Stream(port, code, limit=120) for _ in range(32)]
        for page in pages:
            page.next("hello", timeout=30)
        actions = [action_to_json(x) for x in
                   random_game(load_game("knister"), 1, seed=2).history][:12]
        for action in actions:
            status, body, _ = client.call("POST", f"/api/tables/{code}/actions", action, token)
            assert status == 200, body
        assert body["seq"] == 12
        for page in pages:
            assert [page.next("action")["seq"] for _ in actions] == list(range(1, 13))
    finally:
        proc.terminate()
        proc.wait(20)
    assert all(page.ended.wait(10) for page in pages)


@pytest.mark.parametrize("flag, url", [
    ("--db", "postgresql://dice:s3cret@127.0.0.1:{port}/dice"),
    ("--redis", "redis://127.0.0.1:{port}/0"),
])
def test_a_server_that_cannot_be_reached_is_one_line_and_exit_2(tmp_path, capsys, flag, url):
    pytest.importorskip("psycopg", reason="psycopg is not installed: pip install -e '.[server]'")
    pytest.importorskip("redis", reason="redis is not installed: pip install -e '.[server]'")
    from companion.commands.serve import main
    from test_web_restart import free_port
    url = url.format(port=free_port())                  # nothing listens there
    args = ["--host", "127.0.0.1", "--port", str(free_port()), "--no-https", "--no-qr",
            "--instance", str(tmp_path), flag, url]
    if flag == "--redis":
        args += ["--db", str(tmp_path / "x.sqlite")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("dice-companion serve: cannot use the database or Redis server: ")
    assert err.count("\n") == 1 and "s3cret" not in err

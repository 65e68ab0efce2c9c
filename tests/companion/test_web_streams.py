"""Live streams must not starve the server (issue 20): every phone and table page holds an event
stream open, and the server's threads answer requests, not open pages.

User stories: a club with many tables open at once (far more pages than the server has
threads) still gets every request answered, and every page sees each action of its table; a
page closed is forgotten at once (its seat shows "page closed", nothing is kept for it).
Against the real server (`dice-companion serve`, or `companion.server.ServerThread` where the
test looks inside it), streams read by one selector loop (`sse_clients.Pages`)."""
import http.client
import json
import resource
import time

import pytest
from sse_clients import Pages
from test_web_restart import Server, _token

PAGES = 400         # the bench (bench/web_streams.py) measures 2,000
TABLES = 40


@pytest.fixture
def open_files():
    """Room for the pages' connections in this process (the server raises its own limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, 4096)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    if want < PAGES + 200:
        pytest.skip(f"this process may open {want} files, fewer than {PAGES} pages need")
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


class FewThreads(Server):
    """`dice-companion serve` answering with 4 threads."""

    def command(self) -> list[str]:
        return [arg if arg != "8" else "4" for arg in super().command()]


def _table(server, players=("Ann", "Bob")) -> tuple[str, str]:
    status, body, headers = server.call("POST", "/api/tables",
                                        {"game": "qwinto", "players": list(players), "claim": 0})
    assert status == 201, body
    return body["code"], _token(headers, body["code"])


def test_a_hundred_times_more_open_pages_than_threads_leave_requests_answered(tmp_path,
                                                                            open_files):
    """400 pages of 40 tables open at once on a server of 4 threads: the start page, a table's
    state and an action are answered while they are open, and each table's action reaches
    every one of its pages (and no other)."""
    server = FewThreads(tmp_path / "game.sqlite", tmp_path / "instance")
    server.start()
    pages = Pages()
    try:
        tables = [_table(server) for _ in range(TABLES)]
        where = []
        for i in range(PAGES):
            code, token = tables[i % TABLES]
            where.append(code)
            pages.open(server.port, code, token if i % 4 == 0 else None)
        assert pages.wait_for("hello", PAGES, timeout=120) == PAGES
        for path in ("/api/games", f"/api/tables/{tables[0][0]}"):
            status, _, _ = server.call("GET", path, token=tables[0][1], timeout=30)
            assert status == 200
        for code, token in tables:
            status, body, _ = server.call("POST", f"/api/tables/{code}/actions",
                                          {"type": "roll", "roll": "orange:3 yellow:5"}, token,
                                          timeout=30)
            assert status == 200 and body["seq"] == 1, body
        assert pages.wait_for("action", PAGES, timeout=60) == PAGES
        for i, got in enumerate(pages.events):
            actions = [d for name, d, _ in got if name == "action"]
            assert actions == [{"seq": 1, "action": "roll", "seat": None}], (where[i], actions)
        assert not pages.ended                  # no page was dropped meanwhile
        status, _, _ = server.call("GET", "/api/games", timeout=30)
        assert status == 200
    finally:
        pages.close()
        server.kill()


def test_a_closed_page_is_forgotten_at_once(tmp_path):
    """Pages of a seated player closed (their connections gone): the server drops their
    streams before any heartbeat (none is kept, nothing is sent to them), and the table view
    is told the seat's page is closed."""
    from companion.app import create_app
    from companion.server import ServerThread
    app = create_app({"DATABASE": str(tmp_path / "x.sqlite"), "SSE_HEARTBEAT": 60},
                     instance_path=str(tmp_path / "instance"))
    served = ServerThread(app, threads=2)
    broker = app.extensions["broker"]
    pages = Pages()
    try:
        host = Server(tmp_path / "x.sqlite", tmp_path)
        host.port = served.port
        code, token = _table(host)
        _, state, _ = host.call("GET", f"/api/tables/{code}", token=token)
        status, _, headers = host.call("POST", f"/api/tables/{code}/join",
                                       {"seat": 1, "join": state["me"]["join"]})
        assert status == 200
        bob = _token(headers, code)
        table_view = pages.open(served.port, code, token)
        phones = [pages.open(served.port, code, bob) for _ in range(20)]
        watchers = [pages.open(served.port, code) for _ in range(20)]
        assert pages.wait_for("hello", 41, timeout=30) == 41
        assert broker.listeners(code) == 41 and broker.connected(code) == [0, 1]
        for i in phones + watchers:
            pages.close_one(i)
        deadline = time.monotonic() + 10
        while broker.listeners(code) > 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert broker.listeners(code) == 1 and broker.connected(code) == [0]
        assert len(served.front.streams) == 1       # the table view's, nothing else kept
        # the table view is told (its stream is read by another thread: wait for the event)
        deadline = time.monotonic() + 10
        while True:
            last = [d for name, d, _ in pages.events[table_view] if name == "presence"][-1]
            if last == {"connected": [0]} or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert last == {"connected": [0]}
    finally:
        pages.close()
        served.stop()


def test_the_stream_route_keeps_its_checks_and_headers_when_served(tmp_path):
    """Served from the event loop, a stream is still the app's answer: its security headers,
    a bad `?limit=` or an unknown table answered by the app as before; a HEAD of it has no
    body and leaves nothing subscribed."""
    from companion.app import create_app
    from companion.server import ServerThread
    app = create_app({"DATABASE": str(tmp_path / "x.sqlite")},
                     instance_path=str(tmp_path / "instance"))
    served = ServerThread(app, threads=2)
    try:
        host = Server(tmp_path / "x.sqlite", tmp_path)
        host.port = served.port
        code, _ = _table(host)
        c = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
        c.request("GET", f"/api/tables/{code}/events?limit=nan")
        r = c.getresponse()
        assert r.status == 400 and "'limit'" in json.loads(r.read())["error"]
        c.request("GET", "/api/tables/ZZZZZ/events")
        r = c.getresponse()
        assert r.status == 404 and r.read()
        c.request("GET", f"/api/tables/{code}/events?limit=1")
        r = c.getresponse()
        assert r.status == 200 and r.getheader("Content-Type").startswith("text/event-stream")
        assert "frame-ancestors 'none'" in r.getheader("Content-Security-Policy")
        assert r.getheader("X-Content-Type-Options") == "nosniff"
        body = r.read()                 # ends after its limit
        assert body.startswith(b"retry: 2000\nevent: hello\ndata: ")
        c.request("HEAD", f"/api/tables/{code}/events")
        r = c.getresponse()
        assert r.status == 200 and r.read() == b""
        assert app.extensions["broker"].listeners(code) == 0
    finally:
        served.stop()


def test_table_cameras_shown_hold_no_thread(tmp_path):
    """Table views showing the table camera (its MJPEG stream; here the demo pictures), more
    than the server has threads: requests are still answered, each view gets its picture."""
    from companion.app import create_app
    from companion.frames import DirectorySource
    from companion.server import ServerThread
    from test_web_serve import ROOT
    app = create_app({"DATABASE": str(tmp_path / "x.sqlite"),
                      "FRAME_SOURCE": DirectorySource(ROOT / "sample_images")},
                     instance_path=str(tmp_path / "instance"))
    served = ServerThread(app, threads=2)
    views = []
    try:
        for _ in range(6):
            c = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
            c.request("GET", "/api/camera.mjpg?limit=60")
            r = c.getresponse()
            assert r.status == 200 and r.read(64).startswith(b"--frame\r\n")
            views.append((c, r))        # held open: the page stays
        host = Server(tmp_path / "x.sqlite", tmp_path)
        host.port = served.port
        status, games, _ = host.call("GET", "/api/games", timeout=10)
        assert status == 200 and games
        assert len(served.front.streams) == 6
    finally:
        for c, r in views:
            r.close()
            c.close()
        served.stop()

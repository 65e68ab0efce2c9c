"""The companion's HTTP server: uvicorn (one asyncio event loop, HTTP/1.1 by h11) serving the
Flask app through `front.Front`, on sockets the caller has bound.

`serve(app, sockets, threads)` runs until SIGINT or SIGTERM; when it stops it ends the open
event streams first (their pages reconnect), then waits for the requests in flight.
`ServerThread` runs the same server in a thread (tests, benchmarks).
"""
from __future__ import annotations

import asyncio
import gc
import socket
import threading

import uvicorn

from .front import BODY_LIMIT, Front

STOP_SECONDS = 5        # how long a stopping server waits for the requests in flight
# The garbage collector of a serving process: a collection holds the GIL, so every request of
# the process waits for it. With CPython's default (700, 10, 10) a worker of bench/web_scale.py
# (200 tables x 4 players, 2 workers) ran a full collection every ~5 s over its caches (the
# shared states, drawn sheets and replayed tables: ~110,000 objects) and the ~51,000 objects
# of its start (modules, the app), each 80-770 ms on the loaded 2-core machine; with what
# was built at start frozen and collections 14 times rarer, 4 full collections in 30 s of
# 23-24 ms at most (27 Nov 2026; docs/companion.md, "Hosting many tables").
GC_THRESHOLD = (10_000, 10, 10)


def front_for(app, threads: int, https_at=frozenset()) -> Front:
    """The Front of Flask app `app`: its request body limit is the app's upload limit."""
    limit = app.config.get("MAX_CONTENT_LENGTH") or BODY_LIMIT
    return Front(app, threads, https_at=https_at, body_limit=limit + 1)


def config(front: Front, **overrides) -> uvicorn.Config:
    """uvicorn as the companion runs it: h11 (pure Python), no logging of its own beyond
    warnings, no trust in X-Forwarded-* headers (phones talk to it directly), its own Server
    header."""
    settings = dict(http="h11", lifespan="on", log_config=None, log_level="warning",
                    access_log=False, proxy_headers=False, server_header=False,
                    headers=[("server", "dice-companion")], timeout_keep_alive=30,
                    timeout_graceful_shutdown=STOP_SECONDS)
    settings.update(overrides)
    return uvicorn.Config(front, **settings)


class Server(uvicorn.Server):
    """uvicorn's server that, when it stops, ends its event streams before it waits for the
    requests in flight (a stream would keep it waiting until the page is closed)."""

    def __init__(self, config: uvicorn.Config, front: Front) -> None:
        super().__init__(config)
        self.front = front

    async def shutdown(self, sockets=None) -> None:
        self.front.end_streams()
        await super().shutdown(sockets)


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on (host, port); OSError when it cannot be bound."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    return sock


def settle_gc() -> None:
    """Before a serving process takes requests: what it built at start (modules, the app, the
    camera's models) is frozen out of every later collection, and collections run at
    `GC_THRESHOLD`. For a process that serves and then ends (`serve`, a gunicorn worker); not
    for a server in a thread of a longer process (`ServerThread`: tests)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)


def serve(front: Front, sockets: list[socket.socket]) -> None:
    """Serve `front` on `sockets` until SIGINT or SIGTERM (in the main thread) or until the
    server is told to stop."""
    settle_gc()
    Server(config(front), front).run(sockets=sockets)


class ServerThread:
    """The server on 127.0.0.1 (a free port unless given) in a thread: `url`, `stop()`."""

    def __init__(self, app, threads: int = 16, port: int = 0) -> None:
        self.front = front_for(app, threads)
        self.socket = listen("127.0.0.1", port)
        self.port = self.socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = Server(config(self.front), self.front)
        self._thread = threading.Thread(target=self._run, name="companion-server", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        asyncio.run(self.server.serve(sockets=[self.socket]))

    def stop(self) -> None:
        self.server.should_exit = True
        self._thread.join(STOP_SECONDS + 5)

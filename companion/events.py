"""Live updates: an in-process broker that fans table events out to server-sent-event streams.

Each open page holds one stream (`subscribe`); every accepted action publishes a small
event (the table's new log length and what happened), and the page then fetches the state
it needs. A stream sends a comment line every `heartbeat` seconds so that proxies and the
browser keep it open, and ends when the client goes away (the WSGI server closes the
generator) or when the broker shuts down.
"""
from __future__ import annotations

import json
import queue
import threading
from typing import Iterator


class Broker:
    def __init__(self, max_queue: int = 100) -> None:
        self._subs: dict[str, set[queue.Queue]] = {}
        self._lock = threading.Lock()
        self._max_queue = max_queue
        self.closed = threading.Event()

    def publish(self, code: str, event: str, data: dict) -> int:
        """Queue an event for every stream of table `code`; returns how many got it."""
        payload = f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"
        with self._lock:
            subs = list(self._subs.get(code, ()))
        for q in subs:
            try:
                q.put_nowait(payload)
            except queue.Full:  # a stalled client: it refetches on reconnect anyway
                pass
        return len(subs)

    def listeners(self, code: str) -> int:
        with self._lock:
            return len(self._subs.get(code, ()))

    def subscribe(self, code: str, hello: dict, heartbeat: float = 15.0,
                  limit: float | None = None) -> Iterator[str]:
        """The text of one event stream; `limit` (seconds) ends it (tests, benchmarks)."""
        q: queue.Queue = queue.Queue(self._max_queue)
        with self._lock:
            self._subs.setdefault(code, set()).add(q)

        def stream() -> Iterator[str]:
            import time
            end = None if limit is None else time.monotonic() + limit
            try:
                yield "retry: 2000\n"
                yield f"event: hello\ndata: {json.dumps(hello)}\n\n"
                while not self.closed.is_set():
                    wait = heartbeat
                    if end is not None:
                        wait = min(wait, end - time.monotonic())
                        if wait <= 0:
                            return
                    try:
                        yield q.get(timeout=wait)
                    except queue.Empty:
                        yield ": keep-alive\n\n"
            finally:
                with self._lock:
                    subs = self._subs.get(code)
                    if subs is not None:
                        subs.discard(q)
                        if not subs:
                            del self._subs[code]

        return stream()

    def close(self) -> None:
        self.closed.set()

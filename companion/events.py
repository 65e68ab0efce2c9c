"""Live updates: a broker that fans table events out to server-sent-event streams.

Each open page holds one stream (`subscribe`); every accepted action publishes a small
event (the table's new log length and what happened), and the page then fetches the state
it needs. A stream sends a comment line every `heartbeat` seconds so that proxies and the
browser keep it open, and ends when the client goes away (the WSGI server closes the
generator), when the broker shuts down, or when the broker ends every stream (`end_streams`:
the pages reconnect, and their `hello` tells them the log length to catch up from).

The broker also knows who is connected: the seats with at least one open stream
(`connected`), sent in each stream's `hello` and, when a seated page opens or closes, as a
`presence` event to the table's pages.

`Broker` is in-process (one server process: the embedded default); `broker_redis.RedisBroker`
carries the same events between worker processes through Redis (`open_broker`).
"""
from __future__ import annotations

import itertools
import json
import queue
import threading
import time
from collections import Counter
from typing import Iterator

END = None      # put in a stream's queue: the stream ends


def sse(event: str, data: dict) -> str:
    """One server-sent event's text."""
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


class Broker:
    def __init__(self, max_queue: int = 100) -> None:
        self._subs: dict[str, set[queue.Queue]] = {}
        self._seats: dict[str, Counter] = {}        # code -> seat -> open streams
        self._lock = threading.Lock()
        self._max_queue = max_queue
        self._ids = itertools.count(1)
        self.closed = threading.Event()

    def publish(self, code: str, event: str, data: dict) -> int:
        """Queue an event for every stream of table `code`; returns how many got it."""
        return self.deliver(code, sse(event, data))

    def deliver(self, code: str, payload: str | None) -> int:
        """Queue `payload` (an event's text, or `END`) for this process's streams of `code`."""
        with self._lock:
            subs = list(self._subs.get(code, ()))
        for q in subs:
            try:
                q.put_nowait(payload)
            except queue.Full:  # a stalled client: it refetches on reconnect anyway
                pass
        return len(subs)

    def end_streams(self) -> int:
        """End every stream of this process (their pages reconnect and catch up from the
        log); returns how many."""
        with self._lock:
            subs = [q for group in self._subs.values() for q in group]
        for q in subs:
            try:
                q.put_nowait(END)
            except queue.Full:
                pass
        return len(subs)

    def listeners(self, code: str) -> int:
        with self._lock:
            return len(self._subs.get(code, ()))

    # -- who is connected ---------------------------------------------------------------------
    def connected(self, code: str) -> list[int]:
        """The seats of table `code` with at least one open stream, in order."""
        with self._lock:
            return sorted(s for s, n in self._seats.get(code, Counter()).items() if n > 0)

    def _arrive(self, code: str, seat: int, stream: int) -> None:
        with self._lock:
            self._seats.setdefault(code, Counter())[seat] += 1

    def _leave(self, code: str, seat: int, stream: int) -> None:
        with self._lock:
            seats = self._seats.get(code)
            if seats is not None:
                seats[seat] -= 1
                if seats[seat] <= 0:
                    del seats[seat]
                if not seats:
                    del self._seats[code]

    def _still_here(self, code: str, seat: int, stream: int) -> None:
        """Called about every heartbeat while a seated stream is open (`RedisBroker` keeps
        its entry alive)."""

    def _presence(self, code: str) -> None:
        self.publish(code, "presence", {"connected": self.connected(code)})

    # -- streams ------------------------------------------------------------------------------
    def subscribe(self, code: str, hello: dict, heartbeat: float = 15.0,
                  limit: float | None = None, seat: int | None = None) -> Iterator[str]:
        """The text of one event stream; `limit` (seconds) ends it (tests, benchmarks).
        `seat`: the viewer's seat (None: a watcher), counted as connected while it is open."""
        q: queue.Queue = queue.Queue(self._max_queue)
        stream_id = next(self._ids)
        with self._lock:
            self._subs.setdefault(code, set()).add(q)
        if seat is not None:
            self._arrive(code, seat, stream_id)
            self._presence(code)
        hello = dict(hello, connected=self.connected(code))

        def stream() -> Iterator[str]:
            end = None if limit is None else time.monotonic() + limit
            touched = time.monotonic()
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
                        item = q.get(timeout=wait)
                    except queue.Empty:
                        item = ": keep-alive\n\n"
                    if item is END:
                        return
                    if seat is not None and time.monotonic() - touched >= heartbeat:
                        touched = time.monotonic()
                        self._still_here(code, seat, stream_id)
                    yield item
            finally:
                with self._lock:
                    subs = self._subs.get(code)
                    if subs is not None:
                        subs.discard(q)
                        if not subs:
                            del self._subs[code]
                if seat is not None:
                    self._leave(code, seat, stream_id)
                    self._presence(code)

        return stream()

    def close(self) -> None:
        self.closed.set()


def open_broker(redis_url: str | None, heartbeat: float = 5.0) -> Broker:
    """The in-process broker, or with a redis:// URL the one shared by every worker."""
    if not redis_url:
        return Broker()
    from .broker_redis import RedisBroker
    return RedisBroker(redis_url, heartbeat=heartbeat)

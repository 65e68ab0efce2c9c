"""Live updates: a broker that fans table events out to server-sent-event streams.

Each open page holds one stream (`subscribe`); every accepted action publishes a small
event (the table's new log length and what happened), and the page then fetches the state
it needs. A stream sends a comment line every `heartbeat` seconds so that proxies and the
browser keep it open, and ends when the client goes away, when the broker shuts down, or when
the broker ends every stream (`end_streams`: the pages reconnect, and their `hello` tells them
the log length to catch up from).

A stream (`Stream`) is served either way: iterated by a thread of a WSGI server (which then
waits in it between events, as long as the page is open), or, by the companion's own server
(`companion.front`), as an asynchronous iterator on its event loop: no thread per open page,
each stream woken through `loop.call_soon_threadsafe` when the broker (any thread) gives it
an event.

The broker also knows who is connected: the seats with at least one open stream
(`connected`), sent in each stream's `hello` and, when a seated page opens or closes, as a
`presence` event to the table's pages.

`Broker` is in-process (one server process: the embedded default); `broker_redis.RedisBroker`
carries the same events between worker processes through Redis (`app.open_broker`).
"""
from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
from collections import Counter, deque
from typing import AsyncIterator, Iterator

END = None      # put in a stream's mailbox: the stream ends


def sse(event: str, data: dict) -> str:
    """One server-sent event's text."""
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


class Mailbox:
    """One stream's events waiting to be sent (at most `size`: a stalled client's further
    events are dropped, and it refetches on reconnect; `END` is always taken). Filled by the
    broker from any thread; emptied by its stream: a thread that waits (`get`), or a coroutine
    on an event loop (`bind`, then `aget`), woken with `loop.call_soon_threadsafe`."""

    def __init__(self, size: int) -> None:
        self._items: deque = deque()
        self._size = size
        self._ready = threading.Condition(threading.Lock())
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None

    def put(self, item: str | None) -> bool:
        """Queue `item`; False when the mailbox is full (the item is dropped)."""
        with self._ready:
            if item is not END and len(self._items) >= self._size:
                return False
            self._items.append(item)
            self._ready.notify()
            loop, wake = self._loop, self._wake
        if loop is not None:
            try:
                loop.call_soon_threadsafe(wake.set)
            except RuntimeError:        # the loop is closed: nobody is waiting
                pass
        return True

    def get(self, timeout: float) -> str | None | bool:
        """The next item, waiting at most `timeout` seconds (False: none came)."""
        with self._ready:
            if not self._items:
                self._ready.wait(timeout)
            return self._items.popleft() if self._items else False

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """From now on the stream waits on `loop` (`aget`)."""
        with self._ready:
            self._loop, self._wake = loop, asyncio.Event()

    async def aget(self, timeout: float) -> str | None | bool:
        """`get` on the bound event loop: waits without a thread."""
        self._wake.clear()
        with self._ready:
            if self._items:
                return self._items.popleft()
        try:
            async with asyncio.timeout(max(0.0, timeout)):
                await self._wake.wait()
        except TimeoutError:
            pass
        with self._ready:
            return self._items.popleft() if self._items else False


class Stream:
    """One page's event stream: `retry` and `hello`, then each event the broker gives it and a
    keep-alive comment every `heartbeat` seconds without one, as bytes. Iterate it in a thread
    (`iter`) or on an event loop (`async for`); `close` (also when it ends) unsubscribes it.
    `limit` (seconds) ends it (tests, benchmarks)."""

    def __init__(self, broker: "Broker", code: str, hello: dict, heartbeat: float,
                 limit: float | None, seat: int | None) -> None:
        self.broker, self.code, self.seat = broker, code, seat
        self.heartbeat, self.limit = heartbeat, limit
        self.mailbox = Mailbox(broker.max_queue)
        self.id = next(broker.ids)
        broker.add(code, self.mailbox)
        if seat is not None:
            broker.arrive(code, seat, self.id)
        self.opening = ("retry: 2000\n" + "event: hello\ndata: "
                        + json.dumps(dict(hello, connected=broker.connected(code))) + "\n\n"
                        ).encode()
        self._closed = False
        self._lock = threading.Lock()

    def _next_wait(self, end: float | None) -> float | None:
        """Seconds to wait for the next item; None: the stream is over."""
        if self.broker.closed.is_set():
            return None
        if end is None:
            return self.heartbeat
        left = end - time.monotonic()
        return None if left <= 0 else min(self.heartbeat, left)

    def _due(self, touched: float) -> bool:
        """Whether a seated stream should say it is still here (about every heartbeat)."""
        return self.seat is not None and time.monotonic() - touched >= self.heartbeat

    def __iter__(self) -> Iterator[bytes]:
        end = None if self.limit is None else time.monotonic() + self.limit
        touched = time.monotonic()
        try:
            yield self.opening
            while (wait := self._next_wait(end)) is not None:
                item = self.mailbox.get(wait)
                if item is END:
                    return
                if self._due(touched):
                    touched = time.monotonic()
                    self.broker.still_here(self.code, self.seat, self.id)
                yield (": keep-alive\n\n" if item is False else item).encode()
        finally:
            self.close()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        loop = asyncio.get_running_loop()
        self.mailbox.bind(loop)
        slow = self.broker.blocking_io       # its bookkeeping waits on a server (Redis)
        end = None if self.limit is None else time.monotonic() + self.limit
        touched = time.monotonic()
        try:
            yield self.opening
            while (wait := self._next_wait(end)) is not None:
                item = await self.mailbox.aget(wait)
                if item is END:
                    return
                if self._due(touched):
                    touched = time.monotonic()
                    if slow:
                        await loop.run_in_executor(None, self.broker.still_here, self.code,
                                                   self.seat, self.id)
                    else:
                        self.broker.still_here(self.code, self.seat, self.id)
                yield (": keep-alive\n\n" if item is False else item).encode()
        finally:
            if slow:
                await asyncio.shield(loop.run_in_executor(None, self.close))
            else:
                self.close()

    def close(self) -> None:
        """Unsubscribe (once): the stream gets no more events, its seat counts one page less."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self.broker.remove(self.code, self.mailbox)
        if self.seat is not None:
            self.broker.leave(self.code, self.seat, self.id)


class Broker:
    blocking_io = False     # whether its seat bookkeeping waits on a server (RedisBroker)

    def __init__(self, max_queue: int = 100) -> None:
        self._subs: dict[str, set[Mailbox]] = {}
        self._seats: dict[str, Counter] = {}        # code -> seat -> open streams
        self._lock = threading.Lock()
        self.max_queue = max_queue
        self.ids = itertools.count(1)
        self.closed = threading.Event()

    def publish(self, code: str, event: str, data: dict) -> int:
        """Queue an event for every stream of table `code`; returns how many got it."""
        return self.deliver(code, sse(event, data))

    def deliver(self, code: str, payload: str | None) -> int:
        """Queue `payload` (an event's text, or `END`) for this process's streams of `code`."""
        with self._lock:
            subs = list(self._subs.get(code, ()))
        for box in subs:
            box.put(payload)    # a full one is a stalled client: it refetches on reconnect
        return len(subs)

    def end_streams(self) -> int:
        """End every stream of this process (their pages reconnect and catch up from the
        log); returns how many."""
        with self._lock:
            subs = [box for group in self._subs.values() for box in group]
        for box in subs:
            box.put(END)
        return len(subs)

    def listeners(self, code: str) -> int:
        with self._lock:
            return len(self._subs.get(code, ()))

    def add(self, code: str, box: Mailbox) -> None:
        with self._lock:
            self._subs.setdefault(code, set()).add(box)

    def remove(self, code: str, box: Mailbox) -> None:
        with self._lock:
            subs = self._subs.get(code)
            if subs is not None:
                subs.discard(box)
                if not subs:
                    del self._subs[code]

    # -- who is connected ---------------------------------------------------------------------
    def connected(self, code: str) -> list[int]:
        """The seats of table `code` with at least one open stream, in order."""
        with self._lock:
            return sorted(s for s, n in self._seats.get(code, Counter()).items() if n > 0)

    def arrive(self, code: str, seat: int, stream: int) -> None:
        """A seated page opened its stream: counted, and announced to the table's pages."""
        self._arrive(code, seat, stream)
        self._presence(code)

    def leave(self, code: str, seat: int, stream: int) -> None:
        """A seated page's stream ended: counted, and announced to the table's pages."""
        self._leave(code, seat, stream)
        self._presence(code)

    def still_here(self, code: str, seat: int, stream: int) -> None:
        """Called about every heartbeat while a seated stream is open (`RedisBroker` keeps
        its entry alive)."""

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

    def _presence(self, code: str) -> None:
        self.publish(code, "presence", {"connected": self.connected(code)})

    # -- streams ------------------------------------------------------------------------------
    def subscribe(self, code: str, hello: dict, heartbeat: float = 15.0,
                  limit: float | None = None, seat: int | None = None) -> Stream:
        """One event stream of table `code`, subscribed now (see `Stream`). `seat`: the
        viewer's seat (None: a watcher), counted as connected while it is open."""
        return Stream(self, code, hello, heartbeat, limit, seat)

    def close(self) -> None:
        """Shut down: every stream ends."""
        self.closed.set()
        self.end_streams()

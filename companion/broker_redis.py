"""Live updates across worker processes: `events.Broker` with its events carried by Redis.

`publish` sends the event's text to the Redis channel `dice:t:<code>`; one thread per process
(`_listen`) is subscribed to every table's channel (a pattern) and hands each message to that
process's streams of the table, so a page connected to worker A sees an action that worker B
handled. Events are not stored: the log in the database is the record. When the connection to
Redis is lost, or comes back, the process ends its streams: the pages reconnect, get `hello`
with the log length, and catch up from the log. While Redis is away an event reaches the
streams of the process that published it.

Who is connected lives in Redis too: a sorted set per table (`dice:presence:<code>`) of the
open seated streams of every worker, each entry kept alive by its stream about every
heartbeat and gone `PRESENCE_TTL` heartbeats after its worker stopped (even by SIGKILL).
"""
from __future__ import annotations

import logging
import os
import threading
import time
import uuid

from .events import Broker

CHANNEL = "dice:t:"
PRESENCE = "dice:presence:"
PRESENCE_TTL = 3.0      # heartbeats (the app's SSE_HEARTBEAT) an entry outlives its last sign

log = logging.getLogger(__name__)


def _redis():
    try:
        import redis
    except ImportError:
        raise RuntimeError("--redis needs the redis package: "
                           "pip install 'dice-companion[server]'") from None
    return redis


class RedisBroker(Broker):
    blocking_io = True

    def __init__(self, url: str, max_queue: int = 100, heartbeat: float = 5.0) -> None:
        super().__init__(max_queue)
        redis = _redis()
        self.url = url
        self.errors = (redis.RedisError, OSError)
        self.redis = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5,
                                          health_check_interval=30)
        self.redis.ping()       # a wrong URL is an error at start, not a silent page
        self.worker = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.ttl = PRESENCE_TTL * heartbeat
        self.subscribed = threading.Event()     # set while the listener is subscribed
        self._listener = threading.Thread(target=self._listen, name="redis-events", daemon=True)
        self._listener.start()
        self.subscribed.wait(5)

    def publish(self, code: str, event: str, data: dict) -> int:
        """Send the event to every worker's streams of `code` (returns how many workers got
        it); without Redis, to this process's streams."""
        from .events import sse
        payload = sse(event, data)
        try:
            return int(self.redis.publish(CHANNEL + code, payload))
        except self.errors as exc:
            log.warning("redis unavailable (%s): event for %s sent to this worker only",
                        exc, code)
            return self.deliver(code, payload)

    def _listen(self) -> None:
        pause = 0.1
        while not self.closed.is_set():
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                pubsub.psubscribe(CHANNEL + "*")
                # (re)subscribed: what was missed while away is caught up from the log
                self.end_streams()
                self.subscribed.set()
                pause = 0.1
                while not self.closed.is_set():
                    msg = pubsub.get_message(timeout=1.0)
                    if msg is not None and msg["type"] == "pmessage":
                        code = msg["channel"].decode()[len(CHANNEL):]
                        self.deliver(code, msg["data"].decode())
            except self.errors as exc:
                if self.subscribed.is_set():
                    log.warning("redis connection lost (%s): pages reconnect", exc)
                    self.subscribed.clear()
                    self.end_streams()
                time.sleep(pause)
                pause = min(2.0, pause * 2)
            finally:
                try:
                    pubsub.close()
                except self.errors:
                    pass

    # -- who is connected: a sorted set per table in Redis --------------------------------------
    def _member(self, seat: int, stream: int) -> str:
        return f"{self.worker}:{stream}:{seat}"

    def _arrive(self, code: str, seat: int, stream: int) -> None:
        super()._arrive(code, seat, stream)
        self.still_here(code, seat, stream)

    def still_here(self, code: str, seat: int, stream: int) -> None:
        try:
            self.redis.zadd(PRESENCE + code, {self._member(seat, stream): time.time() + self.ttl})
            self.redis.expire(PRESENCE + code, int(self.ttl) + 1)
        except self.errors:
            pass

    def _leave(self, code: str, seat: int, stream: int) -> None:
        super()._leave(code, seat, stream)
        try:
            self.redis.zrem(PRESENCE + code, self._member(seat, stream))
        except self.errors:
            pass

    def connected(self, code: str) -> list[int]:
        """The seats with an open stream on any worker (this worker's alone without Redis)."""
        try:
            members = self.redis.zrangebyscore(PRESENCE + code, time.time(), "+inf")
        except self.errors:
            return super().connected(code)
        return sorted({int(m.rsplit(b":", 1)[1]) for m in members})

    def close(self) -> None:
        super().close()
        self._listener.join(3)
        self.redis.close()

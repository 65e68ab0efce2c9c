"""`Front`: the companion's WSGI app served by an asynchronous (ASGI) server, without a thread
per open stream.

Every request goes to the WSGI app (Flask: its routes, checks, headers and errors, unchanged)
on a bounded pool of threads, once its whole body has been read on the event loop (a slow or
half-sent request holds no thread). A thread holds a request only while the app answers it:
an ordinary answer is collected there and sent from the loop; an answer whose body is also an
asynchronous iterator (an event stream, `events.Stream`) gives its thread back at once, and
the loop sends that body, as long as the client stays, while the thread serves other
requests. So the open pages are bounded by open files, not by threads.

A stream ends when its body ends, when the client goes away (its body is closed at once), or
when the server stops (`end_streams`: the pages reconnect).
"""
from __future__ import annotations

import asyncio
import io
import logging
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

log = logging.getLogger(__name__)

BODY_LIMIT = 2 * 1024 * 1024 + 1    # bytes read of a request body; the app refuses more (413)


class Front:
    """An ASGI app serving the WSGI app `app` with `threads` threads. `https_at`: the local
    (host, port) addresses whose requests arrived as HTTPS (the loopback port behind
    `tls.TlsFront`); `body_limit`: the most bytes of a request body read (the app's own limit
    is lower: 413)."""

    def __init__(self, app: Callable, threads: int = 100,
                 https_at: frozenset[tuple[str, int]] = frozenset(),
                 body_limit: int = BODY_LIMIT) -> None:
        self.app, self.threads, self.https_at = app, threads, set(https_at)
        self.body_limit = body_limit
        self.pool = ThreadPoolExecutor(threads, thread_name_prefix="request")
        self.streams: set[asyncio.Task] = set()

    async def __call__(self, scope: dict, receive, send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self._http(scope, receive, send)

    def end_streams(self) -> int:
        """End every stream this front is sending (the server stops); returns how many."""
        tasks = list(self.streams)
        for task in tasks:
            task.cancel()
        return len(tasks)

    async def _lifespan(self, receive, send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.end_streams()
                self.pool.shutdown(wait=False)
                await send({"type": "lifespan.shutdown.complete"})
                return

    # -- one request ------------------------------------------------------------------------
    async def _http(self, scope: dict, receive, send) -> None:
        body = await self._read_body(scope, receive)
        if body is None:            # the client went away before it sent its request
            return
        environ = self.environ(scope, body)
        loop = asyncio.get_running_loop()
        try:
            status, headers, chunks = await loop.run_in_executor(self.pool, self._call, environ)
        except Exception:
            log.exception("the app failed on %s %s", scope["method"], scope["path"])
            status, headers, chunks = 500, [(b"content-type", b"text/plain")], [b"server error"]
        streamed = hasattr(chunks, "__aiter__")
        if streamed:        # its end closes the connection: a client sees it end (EOF)
            headers = [*headers, (b"connection", b"close")]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        if streamed:
            await self._stream(chunks, receive, send)
        else:
            await send({"type": "http.response.body", "body": b"".join(chunks)})

    def _call(self, environ: dict) -> tuple[int, list, Any]:
        """Run the app (on a pool thread): (status, headers, the body's chunks, or the body
        itself when it is an asynchronous iterator, for the loop to send)."""
        answer: list = []

        def start_response(status: str, headers: list, exc_info=None):
            if exc_info is not None and answer:
                raise exc_info[1].with_traceback(exc_info[2])
            answer[:] = [int(status.split(" ", 1)[0]),
                         [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]]
            return lambda data: chunks.append(data)   # WSGI's write(): little used

        chunks: list = []
        result = self.app(environ, start_response)
        if hasattr(result, "__aiter__"):
            return answer[0], answer[1], result
        try:
            for chunk in result:
                if chunk:
                    chunks.append(chunk)
        finally:
            if hasattr(result, "close"):
                result.close()
        return answer[0], answer[1], chunks

    async def _stream(self, body, receive, send) -> None:
        """Send an asynchronous body until it ends, its client goes away or the server
        stops."""
        async def pump() -> None:
            chunks = body.__aiter__()
            try:
                async for chunk in chunks:
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
            finally:
                await chunks.aclose()

        sending = asyncio.ensure_future(pump())
        gone = asyncio.ensure_future(self._disconnect(receive))
        self.streams.add(sending)
        try:
            await asyncio.wait({sending, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            self.streams.discard(sending)
            for task in (sending, gone):
                task.cancel()
            await asyncio.gather(sending, gone, return_exceptions=True)
            close = getattr(body, "close", None)
            if close is not None:
                close()
        if not gone.cancelled() and gone.done():
            return                  # nobody to end the response for
        try:
            await send({"type": "http.response.body", "body": b""})
        except OSError:
            pass

    @staticmethod
    async def _disconnect(receive) -> None:
        while (await receive())["type"] != "http.disconnect":
            pass

    async def _read_body(self, scope: dict, receive) -> bytes | None:
        """The request's body, up to `body_limit` bytes (the app answers 413 to a longer one,
        which it sees by its Content-Length, or by reading past the limit)."""
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.body_limit:
            return b""
        parts, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            parts.append(message.get("body", b""))
            size += len(parts[-1])
            if not message.get("more_body") or size > self.body_limit:
                return b"".join(parts)

    def environ(self, scope: dict, body: bytes) -> dict:
        """The WSGI environ of an ASGI HTTP request."""
        server = scope.get("server") or ("localhost", 80)
        client = scope.get("client") or ("", 0)
        https = tuple(server) in self.https_at or scope.get("scheme") == "https"
        environ = {
            "REQUEST_METHOD": scope["method"],
            "SCRIPT_NAME": "",
            "PATH_INFO": scope["path"].encode("utf-8").decode("latin-1"),
            "QUERY_STRING": scope["query_string"].decode("latin-1"),
            "SERVER_NAME": str(server[0]),
            "SERVER_PORT": str(server[1] or 0),
            "SERVER_PROTOCOL": f"HTTP/{scope['http_version']}",
            "REMOTE_ADDR": client[0],
            "REMOTE_PORT": str(client[1]),
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": "https" if https else "http",
            "wsgi.input": io.BytesIO(body),
            "wsgi.input_terminated": True,
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": False,
            "wsgi.run_once": False,
        }
        for name, value in scope["headers"]:
            key = name.decode("latin-1").upper().replace("-", "_")
            key = key if key in ("CONTENT_TYPE", "CONTENT_LENGTH") else "HTTP_" + key
            text = value.decode("latin-1")
            environ[key] = environ[key] + "," + text if key in environ else text
        return environ


"""Many pages' event streams at once, as a browser holds them (one connection each), read by one
selector loop in one thread: no thread per stream on this side either. Used by
`test_web_streams.py` and `bench/web_streams.py`."""
from __future__ import annotations

import json
import selectors
import socket
import ssl
import threading
import time


class Pages(threading.Thread):
    """`open(port, code, token)` opens a stream; `events[i]`: (name, data, perf_counter time)
    of every event stream i received; `ended`: the streams the server closed."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.sel = selectors.DefaultSelector()
        self.events: list[list[tuple[str, dict, float]]] = []
        self.ended: set[int] = set()
        self.socks: list[socket.socket] = []
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._wake_r, self._wake_w = socket.socketpair()
        self.sel.register(self._wake_r, selectors.EVENT_READ, None)
        self.start()

    def open(self, port: int, code: str, token: str | None = None, limit: float = 300,
             tls: ssl.SSLContext | None = None) -> int:
        """Open a page's stream of table `code` (`tls`: over HTTPS); returns its index."""
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        if tls is not None:
            s = tls.wrap_socket(s, server_hostname="127.0.0.1")
        cookie = f"Cookie: dc_{code}={token}\r\n" if token else ""
        s.sendall((f"GET /api/tables/{code}/events?limit={limit} HTTP/1.1\r\n"
                   f"Host: 127.0.0.1:{port}\r\n{cookie}\r\n").encode())
        s.setblocking(False)
        with self._lock:
            i = len(self.events)
            self.events.append([])
            self.socks.append(s)
            self.sel.register(s, selectors.EVENT_READ, [i, b"", None])
        self._wake_w.send(b"x")
        return i

    def close_one(self, i: int) -> None:
        """The page `i` goes away (its connection closed from this side)."""
        with self._lock:
            s = self.socks[i]
            try:
                self.sel.unregister(s)
            except (KeyError, ValueError):
                pass
            s.close()

    def count(self, name: str, match=lambda data: True) -> int:
        """How many streams have received an event `name` whose data `match`es."""
        with self._lock:
            return sum(any(n == name and match(d) for n, d, _ in got) for got in self.events)

    def wait_for(self, name: str, n: int, timeout: float, match=lambda data: True) -> int:
        """Wait until `n` streams have an event `name` (matching), at most `timeout` s;
        returns how many have."""
        deadline = time.monotonic() + timeout
        while (got := self.count(name, match)) < n and time.monotonic() < deadline:
            time.sleep(0.05)
        return got

    def run(self) -> None:
        while not self._done.is_set():
            for key, _ in self.sel.select(timeout=0.2):
                if key.data is None:
                    self._wake_r.recv(4096)
                    continue
                self._read(key)

    def _read(self, key) -> None:
        state = key.data
        try:
            chunk = key.fileobj.recv(65536)
            while isinstance(key.fileobj, ssl.SSLSocket) and chunk and key.fileobj.pending():
                chunk += key.fileobj.recv(65536)        # what TLS has decrypted already
        except (BlockingIOError, ssl.SSLWantReadError, ssl.SSLWantWriteError):
            return
        except OSError:
            chunk = b""
        with self._lock:
            # closed by close_one between the select and here: that page is gone, not ended by
            # the server (and a closed socket cannot be unregistered: it would end this thread)
            if key.fileobj.fileno() == -1:
                return
            if not chunk:
                self.ended.add(state[0])
                self.sel.unregister(key.fileobj)
                return
            now = time.perf_counter()
            state[1] += chunk
            *lines, state[1] = state[1].split(b"\n")
            for line in lines:
                if line.startswith(b"event: "):
                    state[2] = line[7:].strip().decode()
                elif line.startswith(b"data: ") and state[2]:
                    self.events[state[0]].append((state[2], json.loads(line[6:]), now))
                    state[2] = None

    def close(self) -> None:
        self._done.set()
        self._wake_w.send(b"x")
        self.join(5)
        for s in self.socks:
            s.close()
        self._wake_r.close()
        self._wake_w.close()

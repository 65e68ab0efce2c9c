"""`TlsFront`: HTTPS for the companion without a thread per handshake.

One thread with one selector accepts the HTTPS port's connections, does each TLS handshake
without blocking (a connection whose handshake is not done within `HANDSHAKE_SECONDS` is
closed), and then passes the decrypted bytes both ways between the client and a plain HTTP
server on 127.0.0.1 (a waitress whose `url_scheme` is https, so the app sees HTTPS). An idle
TCP connection or a half-sent ClientHello costs a socket until its deadline, never a serving
thread: the server's threads only ever see whole HTTP requests, as waitress hands them over.
"""
from __future__ import annotations

import selectors
import socket
import ssl
import threading
import time

HANDSHAKE_SECONDS = 10.0
CHUNK = 64 * 1024
HIGH_WATER = 256 * 1024     # bytes waiting for one side before the other is read no more


class _Link:
    """One client: its TLS socket, its connection to the backend, and the bytes waiting for
    each."""

    __slots__ = ("tls", "plain", "deadline", "ready", "to_client", "to_backend", "closing")

    def __init__(self, tls: ssl.SSLSocket, deadline: float) -> None:
        self.tls, self.plain, self.deadline, self.ready = tls, None, deadline, False
        self.to_client, self.to_backend = bytearray(), bytearray()
        self.closing = False


class TlsFront:
    def __init__(self, listener: socket.socket, context: ssl.SSLContext,
                 backend: tuple[str, int], handshake_seconds: float = HANDSHAKE_SECONDS) -> None:
        self.listener, self.context, self.backend = listener, context, backend
        self.handshake_seconds = handshake_seconds
        self._selector = selectors.DefaultSelector()
        self._links: dict[int, _Link] = {}     # fd of either socket -> its link
        self._handshaking: set[_Link] = set()  # the links whose handshake is not done
        self._stop = threading.Event()
        self._wake_r, self._wake_w = socket.socketpair()

    # -- the loop -------------------------------------------------------------------------
    def serve_forever(self) -> None:
        self.listener.setblocking(False)
        self._selector.register(self.listener, selectors.EVENT_READ, "accept")
        self._selector.register(self._wake_r, selectors.EVENT_READ, "wake")
        try:
            while not self._stop.is_set():
                for key, events in self._selector.select(timeout=1.0):
                    if key.data == "accept":
                        self._accept()
                    elif key.data != "wake":
                        self._service(key.data, key.fileobj, events)
                self._expire()
        finally:
            for link in set(self._links.values()):
                self._close(link)
            self._selector.close()
            self.listener.close()

    def close(self) -> None:
        self._stop.set()
        self._wake_w.send(b"x")

    def _accept(self) -> None:
        for _ in range(64):
            try:
                sock, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:     # out of descriptors, a client gone: the next one may do
                return
            sock.setblocking(False)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)   # no 40 ms Nagle waits
            try:
                tls = self.context.wrap_socket(sock, server_side=True,
                                               do_handshake_on_connect=False)
            except (ssl.SSLError, OSError):
                sock.close()
                continue
            link = _Link(tls, time.monotonic() + self.handshake_seconds)
            self._links[tls.fileno()] = link
            self._handshaking.add(link)
            self._selector.register(tls, selectors.EVENT_READ, link)

    def _expire(self) -> None:
        now = time.monotonic()
        for link in [lk for lk in self._handshaking if lk.deadline < now]:
            self._close(link)

    # -- one link -------------------------------------------------------------------------
    def _service(self, link: _Link, sock, events: int) -> None:
        if link.tls is None:        # closed by an earlier event of this round
            return
        try:
            if not link.ready:
                self._handshake(link)
            elif sock is link.tls:
                self._from_client(link, events)
            else:
                self._from_backend(link, events)
            if link.ready and link.tls is not None:
                self._interest(link)
        except (ssl.SSLError, OSError):
            self._close(link)

    def _handshake(self, link: _Link) -> None:
        try:
            link.tls.do_handshake()
        except ssl.SSLWantReadError:
            self._selector.modify(link.tls, selectors.EVENT_READ, link)
            return
        except ssl.SSLWantWriteError:
            self._selector.modify(link.tls, selectors.EVENT_WRITE, link)
            return
        plain = socket.create_connection(self.backend, timeout=5)
        plain.setblocking(False)
        plain.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        link.plain, link.ready = plain, True
        self._handshaking.discard(link)
        self._links[plain.fileno()] = link
        self._selector.register(plain, selectors.EVENT_READ, link)
        self._from_client(link, selectors.EVENT_READ)   # the request may have come with it

    def _from_client(self, link: _Link, events: int) -> None:
        if events & selectors.EVENT_READ and len(link.to_backend) < HIGH_WATER:
            while True:     # a TLS record may hold more than one read's worth
                try:
                    data = link.tls.recv(CHUNK)
                except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
                    break
                if not data:
                    link.closing = True
                    break
                link.to_backend += data
                if not link.tls.pending():
                    break
        self._flush(link)

    def _from_backend(self, link: _Link, events: int) -> None:
        if events & selectors.EVENT_READ and len(link.to_client) < HIGH_WATER:
            try:
                data = link.plain.recv(CHUNK)
            except BlockingIOError:
                data = None
            if data == b"":
                link.closing = True
            elif data:
                link.to_client += data
        self._flush(link)

    def _flush(self, link: _Link) -> None:
        if link.to_backend:
            try:
                sent = link.plain.send(link.to_backend)
                del link.to_backend[:sent]
            except BlockingIOError:
                pass
        if link.to_client:
            try:
                sent = link.tls.send(link.to_client[:CHUNK])
                del link.to_client[:sent]
            except (ssl.SSLWantWriteError, ssl.SSLWantReadError, BlockingIOError):
                pass
        if link.closing and not link.to_client and not link.to_backend:
            self._close(link)

    def _interest(self, link: _Link) -> None:
        """What to wait for on each socket: reading while the other side's buffer has room,
        writing while bytes wait for it."""
        client = (selectors.EVENT_READ if len(link.to_backend) < HIGH_WATER else 0) \
            | (selectors.EVENT_WRITE if link.to_client else 0)
        backend = (selectors.EVENT_READ if len(link.to_client) < HIGH_WATER else 0) \
            | (selectors.EVENT_WRITE if link.to_backend else 0)
        for sock, mask in ((link.tls, client), (link.plain, backend)):
            if sock is None:
                continue
            try:
                if mask:
                    self._selector.modify(sock, mask, link)
                else:
                    self._selector.unregister(sock)
            except KeyError:
                if mask:
                    self._selector.register(sock, mask, link)

    def _close(self, link: _Link) -> None:
        self._handshaking.discard(link)
        for sock in (link.tls, link.plain):
            if sock is None:
                continue
            self._links.pop(sock.fileno(), None)
            try:
                self._selector.unregister(sock)
            except (KeyError, ValueError):
                pass
            sock.close()
        link.tls = link.plain = None

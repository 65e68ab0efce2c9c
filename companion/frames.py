"""Frame sources the server owns: a webcam (OpenCV index or stream URL) or the demo that
shows each table the pictures of its game in `sample_images/` when no camera is attached.

A source keeps its latest frame as JPEG bytes (`latest()`); the table view shows it as an
MJPEG stream and the server reads dice from it the same way as from a phone's frames.
"""
from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path
from typing import AsyncIterator, Iterator

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


class FrameSource:
    name = "source"
    # True: each new frame is a photo on its own (a slideshow), not a fixed camera's view
    stills = False

    def latest(self, game: str | None = None, table: str | None = None) -> bytes | None:
        """The frame to show and read now; a slideshow shows each table (`table`, its code) the
        pictures of its game (`game`); a camera shows every table the same view."""
        raise NotImplementedError

    def advance(self, game: str | None = None, table: str | None = None) -> None:
        """Show the next picture (a slideshow; a camera has no next)."""

    def shown(self, game: str | None = None, table: str | None = None) -> tuple[int, int] | None:
        """(which picture, how many) a slideshow shows this table, 1-based; None for a camera."""
        return None

    def close(self) -> None:
        pass

    def describe(self, game: str | None = None) -> str:
        return self.name


class DirectorySource(FrameSource):
    """The demo: the pictures of a folder, each another photo of another table (`stills`: the
    reader takes a new picture as a new view at once, where a fixed camera's whole picture
    changing means a hand over it or a moved camera).

    A picture named after a game (`qwinto_2.jpg`, `kuh_vadis_1.png`) is that game's: a table is
    shown its game's pictures only (none when the folder has none of its game; every picture
    when no game is named).
    Each table keeps its picture until it asks for the next (`advance`), so a reading can be used
    before the picture changes."""

    stills = True

    def __init__(self, folder: str | os.PathLike) -> None:
        self.folder = Path(folder)
        self.files = sorted(p for p in self.folder.iterdir()
                            if p.suffix.lower() in IMAGE_SUFFIXES) if self.folder.is_dir() else []
        # what the server prints (the pages say it in their language from `shown`)
        self.name = f"demo: {len(self.files)} sample picture{'' if len(self.files) == 1 else 's'}"
        self._cache: dict[Path, bytes] = {}
        self._at: dict[str | None, int] = {}     # table code -> the index of its picture
        self._lock = threading.Lock()

    def __bool__(self) -> bool:
        return bool(self.files)

    def pictures(self, game: str | None = None) -> list[Path]:
        if game is None:
            return self.files
        return [p for p in self.files if p.stem.startswith(game + "_")]

    def shown(self, game: str | None = None, table: str | None = None) -> tuple[int, int] | None:
        pictures = self.pictures(game)
        if not pictures:
            return None
        with self._lock:
            return self._at.get(table, 0) % len(pictures) + 1, len(pictures)

    def advance(self, game: str | None = None, table: str | None = None) -> None:
        with self._lock:
            self._at[table] = self._at.get(table, 0) + 1

    def latest(self, game: str | None = None, table: str | None = None) -> bytes | None:
        at = self.shown(game, table)
        if at is None:
            return None
        path = self.pictures(game)[at[0] - 1]
        data = self._cache.get(path)
        if data is None:
            data = path.read_bytes()
            if path.suffix.lower() == ".png" or len(data) > 1_500_000:
                data = _to_jpeg(data)
            self._cache[path] = data
        return data

    def describe(self, game: str | None = None) -> str:
        if game is None:
            return self.name
        n = len(self.pictures(game))
        return f"demo: {n} sample picture{'' if n == 1 else 's'} of {game}"


class CameraSource(FrameSource):
    """A webcam by index (`0`) or a stream URL, read by a background thread."""

    def __init__(self, spec: str) -> None:
        import cv2
        self.spec = spec
        target = int(spec) if str(spec).isdigit() else spec
        self.cap = cv2.VideoCapture(target)
        if not self.cap.isOpened():
            raise OSError(f"cannot open camera {spec}")
        self.name = f"camera {spec}"
        self._frame: bytes | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        import cv2
        while not self._stop.is_set():
            ok, image = self.cap.read()
            if not ok:
                time.sleep(0.2)
                continue
            ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
            if ok:
                self._frame = jpeg.tobytes()
            time.sleep(0.05)

    def latest(self, game: str | None = None, table: str | None = None) -> bytes | None:
        return self._frame

    def close(self) -> None:
        self._stop.set()
        self.cap.release()


def _to_jpeg(data: bytes) -> bytes:
    import cv2
    import numpy as np
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        return data
    side = max(image.shape[:2])
    if side > 1280:
        f = 1280 / side
        image = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return jpeg.tobytes() if ok else data


class Mjpeg:
    """What table `table` (of `game`) is shown by `source`, as an MJPEG stream's body: a part
    for each new picture, looked at every `PAUSE` s; `limit` seconds end it. Iterated by a WSGI
    server's thread, or on an event loop (`companion.front`) without one, the source asked on
    the loop's default threads (a picture's first showing reads its file)."""

    PAUSE = 0.2
    HEAD = b"--frame\r\nContent-Type: image/jpeg\r\n\r\n"

    def __init__(self, source: FrameSource, game: str | None, table: str | None,
                 limit: float | None) -> None:
        self.source, self.game, self.table, self.limit = source, game, table, limit

    # each frame is followed at once by the boundary and the next part's headers: a browser
    # (Chromium) shows a part only once the next one has begun, so a boundary sent with the
    # next frame kept the page one picture behind (4 s with the demo pictures, whose boxes
    # were then drawn over the wrong picture)
    def __iter__(self) -> Iterator[bytes]:
        end = None if self.limit is None else time.monotonic() + self.limit
        last = None
        yield self.HEAD
        while end is None or time.monotonic() < end:
            data = self.source.latest(self.game, self.table)
            if data is not None and data is not last:
                last = data
                yield data + b"\r\n" + self.HEAD
            time.sleep(self.PAUSE)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        loop = asyncio.get_running_loop()
        end = None if self.limit is None else time.monotonic() + self.limit
        last = None
        yield self.HEAD
        while end is None or time.monotonic() < end:
            data = await loop.run_in_executor(None, self.source.latest, self.game, self.table)
            if data is not None and data is not last:
                last = data
                yield data + b"\r\n" + self.HEAD
            await asyncio.sleep(self.PAUSE)


def open_source(camera: str | None, demo_folder: str | os.PathLike | None) -> FrameSource | None:
    """The camera when one is named and opens, else the demo folder when it has pictures."""
    if camera is not None:
        return CameraSource(camera)
    if demo_folder is not None:
        demo = DirectorySource(demo_folder)
        if demo:
            return demo
    return None

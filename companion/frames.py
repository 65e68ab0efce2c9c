"""Frame sources the server owns: a webcam (OpenCV index or stream URL) or the demo that
plays the pictures in `sample_images/` when no camera is attached.

A source keeps its latest frame as JPEG bytes (`latest()`); the table view shows it as an
MJPEG stream and the server reads dice from it the same way as from a phone's frames.
"""
from __future__ import annotations

import os
import threading
import time
from pathlib import Path

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


class FrameSource:
    name = "source"
    stills = False  # True: each new frame is a photo on its own (a slideshow), not a fixed camera's view

    def latest(self) -> bytes | None:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def describe(self) -> str:
        return self.name


class DirectorySource(FrameSource):
    """Plays the images of a folder in name order, `seconds` each, round and round. Each picture
    is another photo of another table (`stills`): the reader takes it as a new view at once,
    where a fixed camera's whole picture changing means a hand over it or a moved camera."""

    stills = True

    def __init__(self, folder: str | os.PathLike, seconds: float = 4.0) -> None:
        self.folder = Path(folder)
        self.files = sorted(p for p in self.folder.iterdir()
                            if p.suffix.lower() in IMAGE_SUFFIXES) if self.folder.is_dir() else []
        self.seconds = seconds
        self.started = time.monotonic()
        # what the table page shows (not the server's folder: that is for the server's console)
        self.name = f"demo: {len(self.files)} sample picture{'' if len(self.files) == 1 else 's'}"
        self._cache: dict[Path, bytes] = {}

    def __bool__(self) -> bool:
        return bool(self.files)

    def latest(self) -> bytes | None:
        if not self.files:
            return None
        i = int((time.monotonic() - self.started) / self.seconds) % len(self.files)
        path = self.files[i]
        data = self._cache.get(path)
        if data is None:
            data = path.read_bytes()
            if path.suffix.lower() == ".png" or len(data) > 1_500_000:
                data = _to_jpeg(data)
            self._cache[path] = data
        return data


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

    def latest(self) -> bytes | None:
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


def open_source(camera: str | None, demo_folder: str | os.PathLike | None) -> FrameSource | None:
    """The camera when one is named and opens, else the demo folder when it has pictures."""
    if camera is not None:
        return CameraSource(camera)
    if demo_folder is not None:
        demo = DirectorySource(demo_folder)
        if demo:
            return demo
    return None

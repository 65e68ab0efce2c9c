"""How long the companion takes to answer "Photo of the dice" (`POST /api/tables/<code>/photo`):
photos shrunk as the page shrinks them (at most 1600 px a side, JPEG 90) and posted to the app
in this process (Flask's test client: the handler's time, decoding and the settled-roll reader
included, no network).

    python bench/web_photo.py [FOLDER ...] [--photos N] [--side PX] [--game GAME]

Default: the photos of ../shared/data/dice/epanemu_own and byler_d6_train (20 each), or the
sample images where ../shared is absent. Prints, per folder, the first answer (the readers
loaded) and the median, 90th percentile and longest of the others, in ms.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.app import create_app  # noqa: E402

SHARED = ROOT.parent / "shared" / "data" / "dice"
IMAGES = (".jpg", ".jpeg", ".png")


def shrunk_jpeg(path: Path, side: int) -> bytes:
    """The photo as the page sends it: at most `side` pixels a side, JPEG 90."""
    image = cv2.imread(str(path))
    k = min(1.0, side / max(image.shape[:2]))
    if k < 1.0:
        image = cv2.resize(image, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    return cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="*", type=Path)
    ap.add_argument("--photos", type=int, default=20, help="photos per folder (default 20)")
    ap.add_argument("--side", type=int, default=1600, help="the page's shrink (default 1600)")
    ap.add_argument("--game", default="knister")
    args = ap.parse_args(argv)
    folders = args.folders or ([SHARED / "epanemu_own", SHARED / "byler_d6_train"]
                               if SHARED.is_dir() else [ROOT / "sample_images"])
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"TESTING": True, "DATABASE": str(Path(tmp) / "bench.sqlite")})
        client = app.test_client()
        for folder in folders:
            photos = sorted(p for p in folder.rglob("*") if p.suffix.lower() in IMAGES)
            photos = photos[:args.photos]
            if len(photos) < 2:
                print(f"{folder}: fewer than 2 photos", file=sys.stderr)
                return 2
            # a new table per folder: its readers are made by the first photo
            code = client.post("/api/tables", json={"game": args.game,
                                                    "players": ["Ann", "Bob"]}).json["code"]
            times, dice = [], 0
            for path in photos:
                data = shrunk_jpeg(path, args.side)
                t0 = time.perf_counter()
                r = client.post(f"/api/tables/{code}/photo", data=data,
                                content_type="image/jpeg")
                times.append((time.perf_counter() - t0) * 1000)
                if r.status_code != 200:
                    print(f"{path}: {r.status_code} {r.json}", file=sys.stderr)
                    return 1
                dice += len(r.json["dice"])
            rest = sorted(times[1:])
            print(f"{folder.name}: {len(photos)} photos (at most {args.side} px), "
                  f"{dice / len(photos):.1f} dice a photo: first {times[0]:.0f} ms, then median "
                  f"{statistics.median(rest):.0f} ms, p90 {rest[int(0.9 * (len(rest) - 1))]:.0f} "
                  f"ms, longest {rest[-1]:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

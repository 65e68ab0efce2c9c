"""bench/vision_speed.py --photos: real labelled photos are timed as their camera took them."""
from __future__ import annotations

import csv
from pathlib import Path

import cv2
import numpy as np
import pytest


@pytest.fixture(scope="module")
def bench(bench_module):
    return bench_module("vision_speed")


def _folder(root: Path, name: str, size: tuple[int, int], n: int = 2) -> Path:
    folder = root / name
    (folder / "images").mkdir(parents=True)
    with open(folder / "labels.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["filename", "image_w", "image_h", "die", "value", "x_min", "y_min", "x_max",
                    "y_max", "orig_split"])
        for k in range(n):
            cv2.imwrite(str(folder / "images" / f"p{k}.jpg"), np.zeros((*size, 3), np.uint8))
            w.writerow([f"p{k}.jpg", size[1], size[0], 0, 3, 10, 10, 50, 50, "train"])
    return folder


def test_every_photo_of_each_folder_is_timed_as_its_camera_took_it(bench, tmp_path):
    # epanemu_own's export stretched its 4:3 phone photos to 640x640: timed back at 640x480
    stretched = _folder(tmp_path, "epanemu_own", (640, 640), 3)
    other = _folder(tmp_path, "byler_d6_train", (480, 640), 2)
    photos = bench.real_photos([str(stretched), str(other)])
    assert [p.shape[:2] for p in photos] == [(480, 640)] * 5


def test_every_box_times_the_same_reading_without_the_screen(bench, tmp_path, monkeypatch):
    """``--every-box`` times the settled tier with both readers reading every box
    (``screen_die=None``), the same dice found."""
    import vision.pipeline as P
    made = []
    real = P.DiceReader.__post_init__

    def record(self):
        made.append(self.screen_die)
        real(self)

    monkeypatch.setattr(P.DiceReader, "__post_init__", record)
    folder = _folder(tmp_path, "byler_d6_train", (480, 640), 2)
    screened = bench.child((0, 0), 1, 0, 0, None, photos=[str(folder)])
    every = bench.child((0, 0), 1, 0, 0, None, photos=[str(folder)], every_box=True)
    assert made == [P.SCREEN_DIE, None]
    assert screened["images"] == every["images"] == 2
    assert screened["mean_dice_found"] == every["mean_dice_found"]
    # the photos over the settled tier's 150 ms are counted, the longest given
    assert screened["max_ms"] >= screened["p90_ms"] >= screened["median_ms"]
    assert 0 <= screened["over_budget"] <= 2

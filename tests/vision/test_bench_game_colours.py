"""bench/vision_game_colours.py: how a game palette's naming is scored on renders of the game's
dice set (a miss, a wrong name, a hidden die, an extra box)."""
from __future__ import annotations

import csv
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest


@pytest.fixture(scope="module")
def bench(bench_module):
    return bench_module("vision_game_colours")


def _folder(tmp_path: Path, dice: list[tuple[tuple, str, float]]) -> Path:
    (tmp_path / "images").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "r31_000000.jpg"), np.zeros((240, 320, 3), np.uint8))
    with open(tmp_path / "labels.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["filename", "image_w", "image_h", "die", "value", "x_min", "y_min", "x_max",
                    "y_max", "orig_split", "box_kind", "colour", "top_hidden"])
        for k, (box, colour, hidden) in enumerate(dice):
            w.writerow(["r31_000000.jpg", 320, 240, k, 3, *box, "render", "die", colour, hidden])
    return tmp_path


def _reader(read):
    def reader(bgr):
        return SimpleNamespace(dice=[SimpleNamespace(box=b, colour=c) for b, c in read])
    return reader


def test_a_wrong_name_counts_against_and_a_hidden_die_neither_way(bench, tmp_path):
    folder = _folder(tmp_path, [((10, 10, 50, 50), "orange", 0.0),
                                ((100, 10, 140, 50), "yellow", 0.0),
                                ((200, 10, 240, 50), "purple", 0.8)])   # its top face hidden
    counts, scenes, right, extra = bench.evaluate(_reader([
        ((11, 11, 50, 50), "orange"), ((100, 12, 141, 50), "orange"),
        ((201, 10, 240, 50), "yellow"),                                    # the hidden die
        ((10, 150, 50, 190), "purple")]), folder)                          # nothing there
    assert counts == {("orange", "orange"): 1, ("yellow", "orange"): 1}
    assert (scenes, right, extra) == (1, 0, 1)


def test_a_scene_is_right_only_when_every_readable_die_is_found_and_named(bench, tmp_path):
    folder = _folder(tmp_path, [((10, 10, 50, 50), "orange", 0.0),
                                ((100, 10, 140, 50), "yellow", 0.0)])
    both = [((10, 10, 50, 50), "orange"), ((100, 10, 140, 50), "yellow")]
    assert bench.evaluate(_reader(both), folder)[1:] == (1, 1, 0)
    counts, _, right, _ = bench.evaluate(_reader(both[:1]), folder)
    assert counts == {("orange", "orange"): 1, ("yellow", bench.MISSED): 1} and right == 0


def test_a_folder_without_colours_is_refused(bench, tmp_path):
    folder = _folder(tmp_path, [((10, 10, 50, 50), "", 0.0)])   # a real set's labels: no colour
    with pytest.raises(SystemExit, match="names no die's colour"):
        bench.evaluate(_reader([]), folder)

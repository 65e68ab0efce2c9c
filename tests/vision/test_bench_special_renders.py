"""bench/vision_special_renders.py: a table's own special dice taught on some renders and read on
others; the counting rules (hidden dice, teaching picks) are checked here on a tiny folder."""
import csv
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.training.scene3d import LABEL_COLUMNS


@pytest.fixture
def bench(bench_module):
    return bench_module("vision_special_renders")


def _folder(tmp_path: Path, scenes) -> Path:
    """scenes: per image, (value, box, hidden, top_hidden) per die."""
    (tmp_path / "images").mkdir()
    with open(tmp_path / "labels.csv", "w", newline="") as lf, \
            open(tmp_path / "images.csv", "w", newline="") as imf:
        lw = csv.DictWriter(lf, LABEL_COLUMNS, restval="")
        iw = csv.DictWriter(imf, ["filename", "image_w", "image_h", "n_dice"])
        lw.writeheader()
        iw.writeheader()
        for k, dice in enumerate(scenes):
            name = f"r_{k}.jpg"
            cv2.imwrite(str(tmp_path / "images" / name), np.zeros((60, 80, 3), np.uint8))
            iw.writerow({"filename": name, "image_w": 80, "image_h": 60, "n_dice": len(dice)})
            for i, (value, box, hidden, top) in enumerate(dice):
                lw.writerow({"filename": name, "image_w": 80, "image_h": 60, "die": i,
                             "value": value, "x_min": box[0], "y_min": box[1],
                             "x_max": box[2], "y_max": box[3], "colour": "red",
                             "hidden": hidden, "top_hidden": top, "dice_kind": "kuh_vadis",
                             "design": "kv-plastic-pips-head"})
    return tmp_path


@dataclass
class _Die:
    box: tuple
    value: object
    colour: str = ""


class _Reader:
    """Reads the dice it is given, whatever the picture."""

    def __init__(self, dice):
        self.dice = dice

    def __call__(self, bgr):
        return type("Roll", (), {"dice": self.dice})()


def test_teaching_takes_each_face_up_to_its_count_and_no_hidden_die(bench, tmp_path):
    folder = _folder(tmp_path, [[(1, (0, 0, 20, 20), 0.0, 0.0), ("cow", (30, 0, 50, 20), 0.5, 0.0)],
                                [(1, (0, 0, 20, 20), 0.0, 0.0), (1, (30, 0, 50, 20), 0.0, 0.0)]])
    renders = bench.load_renders(folder)
    assert [d.value for _, ds in renders for d in ds] == [1, "cow", 1, 1]
    examples, count = bench.teaching_examples(renders, 2)
    assert count == {1: 2} and [e[2] for e in examples] == [1, 1]
    assert all(e[3] is None for e in examples)  # Kuh Vadis: no colours taught


def test_a_die_whose_top_is_hidden_is_neither_a_miss_nor_an_extra(bench, tmp_path):
    folder = _folder(tmp_path, [[(2, (0, 0, 20, 20), 0.0, 0.0), (3, (40, 0, 60, 20), 0.8, 0.9)]])
    renders = bench.load_renders(folder)
    # the hidden die read or not: the scene is right either way
    for read in ([_Die((0, 0, 20, 20), 2), _Die((40, 0, 60, 20), 5)], [_Die((1, 1, 20, 20), 2)]):
        r = bench.evaluate(_Reader(read), renders, colours=False)
        assert (r["recall"], r["precision"], r["scene_value"], r["scenes_right"]) == (1, 1, 1, 1)
    r = bench.evaluate(_Reader([_Die((0, 0, 20, 20), 4), _Die((60, 40, 80, 60), 1)]), renders,
                       colours=False)
    assert (r["recall"], r["precision"], r["scene_value"], r["scenes_right"]) == (1, 0.5, 0, 0)
    r = bench.evaluate(_Reader([]), renders, colours=False)
    assert (r["recall"], r["scenes_right"]) == (0, 0)


def test_teaching_skips_a_sample_the_page_would_refuse_and_takes_the_next_of_its_face(bench,
                                                                                     tmp_path):
    folder = _folder(tmp_path, [[(1, (0, 0, 20, 20), 0.0, 0.0), (2, (30, 0, 50, 20), 0.0, 0.0)],
                                [(1, (0, 0, 21, 21), 0.0, 0.0), (1, (30, 0, 50, 20), 0.0, 0.0)]])
    renders = bench.load_renders(folder)
    refused = []

    def refuse(bgr, box):   # the page refuses the first photo of a 1 (too small, say)
        if box == (0, 0, 20, 20):
            refused.append(box)
            return "the die is 20 px in the photo: come closer"
        return None

    examples, count = bench.teaching_examples(renders, 2, refuse)
    assert refused == [(0, 0, 20, 20)]
    assert count == {1: 2, 2: 1}
    assert [(e[2], e[1]) for e in examples] == [(2, (30, 0, 50, 20)), (1, (0, 0, 21, 21)),
                                                (1, (30, 0, 50, 20))]


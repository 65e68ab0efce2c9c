"""A settled reading marks the dice whose face it was unsure of, for the player to look at
before the roll is sent (`vision.dice.Die.check_face`): in the API's dice, the `read` command's
lines and the accuracy benchmark's figures."""
from dataclasses import replace

import cv2
import numpy as np
import pytest

from companion.reader import read_die_json
from vision.dice import CHECK_FACE_BELOW, Die, Roll

def die(value, value_confidence, box=(10, 10, 50, 50)):
    return Die(box, value, value_confidence, "red", 0.99)


def test_a_die_read_below_the_threshold_is_marked_and_one_at_it_is_not():
    assert die(3, CHECK_FACE_BELOW - 0.01).check_face
    assert not die(3, CHECK_FACE_BELOW).check_face
    assert not die("cow", 0.98).check_face


def test_the_mark_travels_with_the_die_to_the_page_and_to_json():
    unsure, sure = die(5, 0.41), die(2, 0.97)
    assert read_die_json(unsure)["check"] is True and read_die_json(sure)["check"] is False
    # the page's confidence stays the lower of face and colour, the mark is the face's alone
    assert read_die_json(replace(sure, colour_confidence=0.5)) == {
        "colour": "red", "face": 2, "box": [10, 10, 50, 50], "confidence": 0.5, "check": False}
    # a colour left to the player ("?") is no doubt about the face: the face's own confidence
    assert read_die_json(replace(sure, colour=None, colour_confidence=0.0))["confidence"] == 0.97
    assert unsure.to_dict()["check_face"] is True


def test_the_read_command_marks_an_unsure_die(tmp_path, capsys, monkeypatch):
    """`dice-companion read` prints "(check)" after each die whose face the reader was unsure
    of, and nothing after the others."""
    from companion import cli
    from companion.commands import read as read_cmd
    from vision import pipeline
    from vision.training.synth import render_scene

    sc = render_scene(np.random.default_rng(31), size=(480, 640), n_dice=4)
    photo = tmp_path / "table.jpg"
    cv2.imwrite(str(photo), sc.image)
    real = pipeline.DiceReader.__call__

    def first_unsure(self, image) -> Roll:
        roll = real(self, image)
        dice = list(roll.dice)
        dice[0] = replace(dice[0], value_confidence=0.3)
        dice[1:] = [replace(d, value_confidence=0.99) for d in dice[1:]]
        return replace(roll, dice=tuple(dice))

    monkeypatch.setattr(pipeline.DiceReader, "__call__", first_unsure)
    parser = cli._Parser(prog="dice-companion")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=cli._Parser)
    read_cmd.register(sub)
    args = parser.parse_args(["read", str(photo)])
    assert args.func(args) == 0
    line = capsys.readouterr().out.strip()
    listed = line.split(" dice: ", 1)[1].rsplit(" (", 1)[0].split(", ")
    assert len(listed) == 4 and listed[0].endswith("(check)")
    assert not any("check" in d for d in listed[1:])


@pytest.fixture
def bench(bench_module):
    return bench_module("vision_accuracy")


class _Reader:
    """Reads every photo as the dice given, whatever its pixels."""

    def __init__(self, dice):
        self.dice = dice

    def __call__(self, bgr):
        return Roll(bgr.shape[1], bgr.shape[0], tuple(self.dice))


def test_the_benchmark_counts_marked_dice_and_photos_right_once_checked(bench, tmp_path):
    """Two dice labelled 5 and 2; the reader reads the 5 as a 6. Marked, the photo is right
    once checked; unmarked, it is not."""
    (tmp_path / "images").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a.jpg"), np.full((100, 100, 3), 200, np.uint8))
    (tmp_path / "labels.csv").write_text(
        "filename,image_w,image_h,die,value,x_min,y_min,x_max,y_max\n"
        "a.jpg,100,100,0,5,10,10,40,40\na.jpg,100,100,1,2,60,60,90,90\n")
    marked = _Reader([die(6, 0.5, (10, 10, 40, 40)), die(2, 0.95, (60, 60, 90, 90))])
    r = bench.evaluate_folder(marked, tmp_path, "all")
    assert (r["misread_marked"], r["misread"], r["right_marked"], r["right"]) == (1, 1, 0, 1)
    assert r["images_right"] == 0.0 and r["images_right_once_checked"] == 1.0
    unmarked = _Reader([die(6, 0.9, (10, 10, 40, 40)), die(2, 0.5, (60, 60, 90, 90))])
    r = bench.evaluate_folder(unmarked, tmp_path, "all")
    assert (r["misread_marked"], r["right_marked"]) == (0, 1)
    assert r["images_right_once_checked"] == 0.0


def test_a_die_lying_on_a_hidden_die_is_found_not_missed(bench, tmp_path):
    """A render's die resting on another whose top face it hides: the box read on the die on
    top is that die's, not the hidden one's (the readable dice are matched first), and a box
    read on the hidden die alone counts neither way."""
    (tmp_path / "images").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a.jpg"), np.full((120, 120, 3), 200, np.uint8))
    (tmp_path / "labels.csv").write_text(
        "filename,image_w,image_h,die,value,x_min,y_min,x_max,y_max,top_hidden\n"
        "a.jpg,120,120,0,5,10,10,50,50,0.9\n"          # under the next one: unreadable
        "a.jpg,120,120,1,3,12,6,52,46,0.0\n"           # on top of it
        "a.jpg,120,120,2,2,70,70,100,100,0.8\n")       # hidden behind a rim
    on_top = _Reader([die(3, 0.95, (12, 7, 52, 46)), die(4, 0.9, (70, 70, 100, 100))])
    r = bench.evaluate_folder(on_top, tmp_path, "all")
    assert (r["recall"], r["precision"], r["face_accuracy"], r["images_right"]) == (1, 1, 1, 1)

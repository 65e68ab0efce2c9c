"""Renders of Kuh Vadis and The Choice dice, and reading them with a taught dice set."""
import json

import numpy as np
import pytest

from vision.dice_set import DiceSetReader
from vision.training.special_dice import (CHOICE_COLOURS, HELD_OUT_DESIGNS, KUH_VADIS_FACES,
                                          SEEN_DESIGNS, choice_faces, design_faces,
                                          render_special_scene)
from vision.teach import teach

ALL = SEEN_DESIGNS + HELD_OUT_DESIGNS


class TestRenders:
    @pytest.mark.parametrize("design", ALL, ids=lambda d: d.name)
    def test_labels(self, design):
        sc = render_special_scene(np.random.default_rng(1), design, n_dice=5, size=(240, 320))
        assert sc.image.shape == (240, 320, 3) and sc.image.dtype == np.uint8
        assert 1 <= len(sc.dice) <= 5
        for d in sc.dice:
            assert d.value in design_faces(design)
            x0, y0, x1, y1 = d.box
            assert 0 <= x0 < x1 <= 320 and 0 <= y0 < y1 <= 240
            if design.game == "the_choice":
                assert d.colour in CHOICE_COLOURS

    def test_same_seed_same_scene(self):
        a = render_special_scene(np.random.default_rng(3), SEEN_DESIGNS[0], n_dice=3,
                                 size=(200, 200))
        b = render_special_scene(np.random.default_rng(3), SEEN_DESIGNS[0], n_dice=3,
                                 size=(200, 200))
        assert np.array_equal(a.image, b.image) and a.dice == b.dice

    def test_faces_and_held_out_designs_differ_from_seen_ones(self):
        assert KUH_VADIS_FACES == (1, 2, 3, 4, 5, "cow")
        seen_bodies = {d.body for d in SEEN_DESIGNS}
        seen_symbols = {(d.symbols, d.cow) for d in SEEN_DESIGNS}
        for d in HELD_OUT_DESIGNS:
            assert d.body not in seen_bodies
            assert (d.symbols, d.cow) not in seen_symbols

    def test_choice_colours_do_not_follow_the_number(self):
        rng = np.random.default_rng(0)
        dice = [choice_faces(rng) for _ in range(30)]
        assert all(sorted(d.values()) == sorted(CHOICE_COLOURS) for d in dice)
        assert len({d[1] for d in dice}) == 6  # every colour occurs on the 1 of some die
        sc = render_special_scene(np.random.default_rng(2), SEEN_DESIGNS[4], n_dice=7, values=[3],
                                  colours=["red", "blue", "grey"])
        assert ({d.colour for d in sc.dice} == {"red", "blue", "grey"}
                and {d.value for d in sc.dice} == {3})

    def test_a_die_is_drawn_inside_its_box(self):
        design = SEEN_DESIGNS[0]
        sc = render_special_scene(np.random.default_rng(4), design, n_dice=1, size=(200, 200))
        (d,) = sc.dice
        x0, y0, x1, y1 = d.box
        inside = sc.image[y0:y1, x0:x1].astype(float)
        border = np.concatenate([sc.image[:10].reshape(-1, 3),
                                 sc.image[-10:].reshape(-1, 3)]).astype(float)
        assert (np.abs(inside.mean((0, 1)) - border.mean(0)).max() > 8
                or inside.std() > border.std() * 1.5)


@pytest.fixture(scope="module")
def kv_reader(bench_special):
    return DiceSetReader(teach(bench_special.teaching_examples(SEEN_DESIGNS[0], 3, seed=21)))


def test_kuh_vadis_cows_are_read_as_cow(kv_reader):
    rng = np.random.default_rng(31)
    cows = right = 0
    for _ in range(6):
        sc = render_special_scene(rng, SEEN_DESIGNS[0], n_dice=4, values=["cow", 1, "cow", 4])
        values = kv_reader.read_boxes(sc.image, [d.box for d in sc.dice])[0]
        for v, d in zip(values, sc.dice):
            cows += d.value == "cow"
            right += d.value == "cow" and v == "cow"
        roll = kv_reader(sc.image)
        json.dumps(roll.to_dict())  # "cow" is a JSON string value
    assert cows >= 10 and right / cows >= 0.9


def test_the_choice_number_and_colour_both_read(bench_special):
    design = SEEN_DESIGNS[4]  # numerals on coloured faces
    ds = teach(bench_special.teaching_examples(design, 3, seed=41))
    assert {n for n, _ in ds.colours} == set(CHOICE_COLOURS)
    assert ds.colour_source in ("face", "vivid")   # the face's median or most colourful pixels
    reader = DiceSetReader(ds)
    colour_ok = both = n = 0
    for sc in bench_special.test_scenes(design, 40, seed=43):
        roll = reader(sc.image)
        for d in sc.dice:  # match by box centre
            cx, cy = (d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2
            hit = [r for r in roll.dice if r.box[0] <= cx <= r.box[2]
                   and r.box[1] <= cy <= r.box[3]]
            n += 1
            if hit:
                colour_ok += hit[0].colour == d.colour
                both += hit[0].colour == d.colour and hit[0].value == d.value
    assert n >= 40
    # measured ~95 % of dice found and named right (bench/vision_special.py)
    assert colour_ok / n >= 0.85
    assert both / n >= 0.7


def test_the_taught_reader_finds_dice_with_the_learned_detector(kv_reader):
    """Teaching names faces; finding dice is the learned detector's job, as for pip dice: the
    taught reader finds cows and pip faces in its boxes at least as well as in the OpenCV
    finder's ~80 proposals a frame (bench/vision_special.py --find)."""
    from dataclasses import replace

    from vision.detect import DieDetector
    from vision.find import box_iou
    assert isinstance(kv_reader.finder, DieDetector)
    opencv = replace(kv_reader, find_with="opencv")
    rng = np.random.default_rng(37)
    found = {"detector": 0, "opencv": 0}
    extra = {"detector": 0, "opencv": 0}
    n = 0
    for _ in range(8):
        sc = render_special_scene(rng, SEEN_DESIGNS[0], n_dice=5)
        n += len(sc.dice)
        for name, reader in (("detector", kv_reader), ("opencv", opencv)):
            roll = reader(sc.image)
            hits = sum(any(box_iou(d.box, r.box) >= 0.3 for r in roll.dice) for d in sc.dice)
            found[name] += hits
            extra[name] += max(0, len(roll.dice) - hits)
    assert found["detector"] >= max(found["opencv"], 0.95 * n), (found, n)
    assert extra["detector"] <= extra["opencv"]


def test_an_unknown_finder_is_refused(kv_reader):
    from dataclasses import replace
    with pytest.raises(ValueError, match="find_with"):
        replace(kv_reader, find_with="hough")


def test_a_side_face_boxed_apart_is_not_a_second_die_nor_the_dies_box(kv_reader, monkeypatch):
    """At an oblique view the detector may box a die's side face apart, less surely, inside the
    die's box. The taught reader, as the pip reader, drops that weak box leaning on a surer die
    (`vision.detect.drop_side_faces`) before it chooses one box per die: one die, in its own
    box, not in the side face's."""
    from vision.find import FindResult
    sc = render_special_scene(np.random.default_rng(1), SEEN_DESIGNS[0], n_dice=1,
                              size=(240, 320))
    (d,) = sc.dice
    x0, y0, x1, y1 = d.box
    side = (x0, y1 - int(0.7 * (y1 - y0)), x1, y1)
    monkeypatch.setattr(kv_reader.finder, "detect", lambda bgr, work=None: (
        FindResult((tuple(d.box), side), 1.0, 0.0), np.array([0.9, 0.3], np.float32)))
    (die,) = kv_reader(sc.image).dice
    assert die.box == tuple(d.box) and die.value == d.value

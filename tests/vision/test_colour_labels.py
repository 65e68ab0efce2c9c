"""The hand labels of real dice by colour (bench/data/real_colours.csv) and how
bench/vision_colour.py reads and scores them."""
from __future__ import annotations

from collections import Counter

import pytest


@pytest.fixture(scope="module")
def bench_colour(bench_module):
    return bench_module("vision_colour")


def test_shipped_labels_are_well_formed(bench_colour):
    labels = bench_colour.load_colour_labels(bench_colour.LABELS)
    splits = Counter(split for dice in labels.values() for _, split in dice.values())
    assert splits == {"tune": 313, "report": 555, "check": 440, "confirm": 448}
    assert all(s == "byler_d6_train" for (s, _), dice in labels.items()
               if "tune" in {v[1] for v in dice.values()})


def test_shipped_labels_name_every_die_of_their_photos_and_keep_the_held_out_ones_for_reports(
        bench_colour, data_root):
    """Every die of a labelled photo is labelled, and a photo is in one split: byler's validation
    photos and epanemu's valid and test photos report, the others tune (byler only), check or
    confirm."""
    from vision.training.data import load_folder
    labels = bench_colour.load_colour_labels(bench_colour.LABELS)
    for set_name in {s for s, _ in labels}:
        photos = {im.path.name: im for im in load_folder(data_root / set_name)}
        for (s, name), dice in labels.items():
            if s != set_name:
                continue
            im = photos[name]
            assert sorted(dice) == list(range(len(im.dice))), name
            split = {split for _, split in dice.values()}
            assert len(split) == 1, name
            if set_name == "epanemu_own":  # its camera's own split: valid and test report
                if im.orig_split in ("valid", "test"):
                    assert split == {"report"}, name
                else:
                    assert split in ({"check"}, {"confirm"}), name
            else:
                assert (split == {"report"} if im.validation
                        else split <= {"tune", "check", "confirm"}), name


@pytest.mark.parametrize("row, message", [
    ("byler_d6_train,a.jpg,0,teal,tune", "colour 'teal' is not a general palette name"),
    ("byler_d6_train,a.jpg,0,red,train",
     "split 'train' is not one of tune, report, check, confirm"),
    ("byler_d6_train,a.jpg,x,red,tune", "die 'x' is not a whole number"),
])
def test_a_bad_label_row_is_refused_with_its_line(bench_colour, tmp_path, row, message):
    path = tmp_path / "labels.csv"
    path.write_text("set,filename,die,colour,split\n" + row + "\n")
    with pytest.raises(ValueError, match=f":2: {message}"):
        bench_colour.load_colour_labels(path)


def test_a_die_labelled_twice_is_refused(bench_colour, tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text("set,filename,die,colour,split\ns,a.jpg,0,red,tune\ns,a.jpg,0,blue,tune\n")
    with pytest.raises(ValueError, match=":3: die 0 of a.jpg is labelled twice"):
        bench_colour.load_colour_labels(path)


def test_scoring_leaves_out_unclear_dice_and_counts_missed_ones(bench_colour):
    truth = [((x, 0, x + 40, 40), "die") for x in (0, 100, 200, 300)]
    labels = {0: ("red", "tune"), 1: ("purple", "tune"), 2: ("unclear", "tune"),
              3: ("white", "tune")}
    read = [((101, 1, 141, 41), "black"), ((1, 0, 40, 41), "red"), ((200, 0, 240, 40), "blue")]
    rows = bench_colour.score_photo(labels, truth, read)
    assert rows == [("tune", "red", "red"), ("tune", "purple", "black"),
                    ("tune", "white", "missed")]
    s = bench_colour.summary(Counter((t, r) for _, t, r in rows))
    assert s == {"dice": 3, "found": 2, "right": 1, "accuracy": 0.5}


def test_renders_score_their_named_readable_dice(bench_colour, tmp_path):
    """``--renders``: a render's dice are scored by the body name its labels give; a die mostly
    hidden, or of a colour with no general-palette name, is left out."""
    import cv2
    import numpy as np
    from types import SimpleNamespace
    (tmp_path / "images").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "r.png"), np.zeros((100, 300, 3), np.uint8))
    head = "filename,image_w,image_h,die,value,x_min,y_min,x_max,y_max,box_kind,colour,top_hidden\n"
    rows = ["r.png,300,100,0,1,0,0,40,40,die,red,0",
            "r.png,300,100,1,2,100,0,140,40,die,blue,0",
            "r.png,300,100,2,3,200,0,240,40,die,green,0.9",   # mostly hidden
            "r.png,300,100,3,4,200,50,240,90,die,,0"]         # a colour with no name
    (tmp_path / "labels.csv").write_text(head + "\n".join(rows) + "\n")

    def reader(bgr):
        dice = [SimpleNamespace(box=(1, 1, 40, 40), colour="red"),
                SimpleNamespace(box=(200, 1, 240, 40), colour="green")]
        return SimpleNamespace(dice=dice)

    (counts,) = bench_colour.evaluate_renders(reader, [tmp_path]).values()
    assert counts == Counter({("red", "red"): 1, ("blue", "missed"): 1})

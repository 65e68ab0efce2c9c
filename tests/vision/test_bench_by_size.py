"""The accuracy benchmark says where the missed and misread dice are by their size."""
import pytest


@pytest.fixture(scope="module")
def bench(bench_module):
    return bench_module("vision_accuracy")


def test_each_die_counts_in_its_size_bin_and_faces_are_over_the_found(bench):
    dice = [(20, False, False), (24.9, True, True),       # under 25 px: one of two found
            (30, True, False), (30, True, True),          # 25-35 px
            (200, True, True)]                            # the open last bin
    rows = bench.by_size(dice, bins=(0, 25, 35, 80))
    assert [(r["from_px"], r["to_px"], r["dice"]) for r in rows] == [
        (0, 25, 2), (25, 35, 2), (80, None, 1)]          # no die of 35-80 px: no row
    assert rows[0]["recall"] == 0.5 and rows[0]["face_accuracy"] == 1.0
    assert rows[1]["recall"] == 1.0 and rows[1]["face_accuracy"] == 0.5


def test_a_bin_whose_dice_were_all_missed_has_no_face_figure(bench):
    (row,) = bench.by_size([(10, False, False)])
    assert row["recall"] == 0.0 and row["face_accuracy"] is None
    assert "0-25 px: 1 dice, found 0.0 %, read right n/a" in bench._size_text([row])

import numpy as np
import pytest

from vision.find import box_iou, nms_boxes, propose, to_bgr
from vision.training.synth import render_scene


class TestToBgr:
    def test_grey_becomes_three_channels(self):
        out = to_bgr(np.full((10, 12), 77, np.uint8))
        assert out.shape == (10, 12, 3) and (out == 77).all()

    def test_alpha_is_dropped(self):
        out = to_bgr(np.zeros((5, 5, 4), np.uint8))
        assert out.shape == (5, 5, 3)

    def test_float_in_unit_range_is_scaled(self):
        out = to_bgr(np.full((4, 4, 3), 0.5, np.float32))
        assert out.dtype == np.uint8 and out[0, 0, 0] in (127, 128)

    def test_bad_shape_is_refused(self):
        with pytest.raises(ValueError):
            to_bgr(np.zeros((4, 4, 2), np.uint8))


class TestBoxes:
    def test_iou(self):
        assert box_iou((0, 0, 10, 10), (0, 0, 10, 10)) == 1
        assert box_iou((0, 0, 10, 10), (20, 20, 30, 30)) == 0
        assert box_iou((0, 0, 10, 10), (5, 0, 15, 10)) == pytest.approx(50 / 150)

    def test_nms_keeps_best_of_overlapping(self):
        keep = nms_boxes([(0, 0, 10, 10), (1, 1, 11, 11), (50, 50, 60, 60)], [0.5, 0.9, 0.1], 0.3)
        assert keep == [1, 2]


class TestPropose:
    def test_tiny_and_blank_images(self):
        assert propose(np.zeros((8, 8, 3), np.uint8)).boxes == ()
        assert propose(np.full((300, 300, 3), 128, np.uint8)).boxes == ()

    def test_boxes_are_in_input_pixels_for_large_images(self):
        rng = np.random.default_rng(3)
        sc = render_scene(rng, size=(1080, 1920), n_dice=6)
        res = propose(sc.image)
        assert res.scale < 1
        for x0, y0, x1, y1 in res.boxes:
            assert 0 <= x0 < x1 <= 1920 and 0 <= y0 < y1 <= 1080
        found = sum(any(box_iou(d.box, b) >= 0.5 for b in res.boxes) for d in sc.dice)
        assert found >= len(sc.dice) - 1

    def test_recall_on_synthetic_scenes(self):
        rng = np.random.default_rng(11)
        total = hit = 0
        for _ in range(8):
            sc = render_scene(rng, size=(480, 640))
            boxes = propose(sc.image).boxes
            total += len(sc.dice)
            hit += sum(any(box_iou(d.box, b) >= 0.3 for b in boxes) for d in sc.dice)
        assert total > 20
        assert hit / total >= 0.9

    def test_deterministic(self):
        rng = np.random.default_rng(5)
        img = render_scene(rng, size=(400, 400), n_dice=5).image
        assert propose(img).boxes == propose(img.copy()).boxes

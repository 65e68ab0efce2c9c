"""The finder's pure pieces: pip grouping, ranking of proposals, table distance, rotated
rectangle."""
import cv2
import numpy as np
import pytest

from vision.find import box_iou, pip_groups, propose, rank_boxes, rotated_rect, table_distance
from vision.training.synth import render_scene


class TestPipGroups:
    def test_close_pips_of_similar_size_are_one_group(self):
        # a five (4 corners + centre, 6 px pips, 10 px apart) and a lone pip far away
        pts = np.array([[100, 100, 6], [120, 100, 6], [100, 120, 6], [120, 120, 6], [110, 110, 6],
                        [300, 300, 6]], np.float32)
        g = pip_groups(pts, 3.2)
        assert len(set(g[:5])) == 1 and g[5] != g[0]

    def test_chain_is_joined_transitively(self):
        pts = np.array([[0, 0, 5], [15, 0, 5], [30, 0, 5], [45, 0, 5]], np.float32)
        assert len(set(pip_groups(pts, 3.2))) == 1

    def test_different_sizes_are_not_joined(self):
        pts = np.array([[0, 0, 4], [10, 0, 9]], np.float32)
        g = pip_groups(pts, 3.2)
        assert g[0] != g[1]


class TestRankBoxes:
    def test_near_duplicates_keep_the_best_supported(self):
        boxes = [(0, 0, 40, 40), (1, 1, 41, 41), (0, 1, 40, 41), (100, 100, 130, 130),
                 (2, 0, 42, 40)]
        kept = rank_boxes(boxes, 200, 200, 0.8, 400, 0.5)
        assert len(kept) == 2
        assert (100, 100, 130, 130) in kept

    def test_limit_keeps_one_box_per_object_first(self):
        # three objects, each with variants that are not near-duplicates (IoU ~0.6-0.7)
        boxes = []
        for ox in (0, 100, 200):
            boxes += [(ox, 0, ox + 40, 40), (ox + 6, 0, ox + 46, 40), (ox, 6, ox + 40, 46)]
        kept = rank_boxes(boxes, 300, 100, 0.8, 3, 0.5)
        assert len(kept) == 3
        assert sorted(k[0] // 100 for k in kept) == [0, 1, 2]

    def test_clips_and_drops_slivers(self):
        kept = rank_boxes([(-10, -10, 20, 20), (5, 5, 7, 30)], 100, 100, 0.8, 10, 0.5)
        assert kept == [(0, 0, 20, 20)]

    def test_empty(self):
        assert rank_boxes([], 10, 10, 0.8, 10, 0.5) == []


class TestTableDistance:
    def test_die_is_far_table_is_near(self):
        img = np.full((320, 320, 3), (40, 120, 40), np.uint8)  # green felt
        img[100:124, 100:124] = (240, 240, 240)  # a die much smaller than the 5x5 median's reach
        lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB)
        for cell in (16, 8):
            dist, bg = table_distance(lab, cell)
            assert dist[112, 112] > 50 and dist[10, 10] < 3 and dist[200, 250] < 3


def _rotated_die(angle: float, side: float, size=(200, 200), body=(230, 230, 230),
                 table=(60, 90, 140)):
    img = np.full((size[0], size[1], 3), table, np.uint8)
    rect = ((size[1] / 2, size[0] / 2), (side, side), angle)
    pts = cv2.boxPoints(rect)
    cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], body, lineType=cv2.LINE_AA, shift=4)
    for dx, dy in ((-0.25, -0.25), (0.25, 0.25), (0, 0)):  # pips of a three
        c = np.array(rect[0]) + side * np.array([dx, dy])
        cv2.circle(img, (int(c[0]), int(c[1])), max(1, int(side * 0.08)), (20, 20, 20), -1)
    x, y, w, h = cv2.boundingRect(np.round(pts).astype(np.int32))
    return img, (x, y, x + w, y + h)


def _angle_error(a: float, b: float) -> float:
    e = abs(a - b) % 90.0
    return min(e, 90.0 - e)


class TestRotatedRect:
    @pytest.mark.parametrize("side", [30, 60, 140])
    @pytest.mark.parametrize("angle", [0, 10, 25, 40, 45, 55, 70, 85])
    def test_known_rotation(self, side, angle):
        img, box = _rotated_die(angle, side, size=(320, 320))
        (cx, cy), (w, h), a = rotated_rect(img, box)
        assert 0 <= a < 90
        assert _angle_error(a, angle) <= 3.0
        assert abs(cx - 160) <= 2 and abs(cy - 160) <= 2
        assert abs(min(w, h) - side) <= 0.12 * side + 2

    def test_pale_die_on_pale_table(self):
        img, box = _rotated_die(30, 50, body=(235, 235, 235), table=(200, 205, 210))
        assert _angle_error(rotated_rect(img, box)[2], 30) <= 3.0

    def test_falls_back_to_the_box(self):
        flat = np.full((100, 100, 3), 128, np.uint8)
        assert rotated_rect(flat, (20, 30, 60, 80)) == ((40.0, 55.0), (40.0, 50.0), 0.0)
        img = np.full((50, 50, 3), 128, np.uint8)
        assert rotated_rect(img, (0, 0, 50, 50))[2] == 0.0  # no table around the box
        assert rotated_rect(img, (10, 10, 12, 12)) == ((11.0, 11.0), (2.0, 2.0), 0.0)

    def test_synthetic_dice(self):
        """Dice of the renderer (rotation from the top face's edge), >= 30 px, seen nearly from
        above."""
        rng = np.random.default_rng(21)
        errors = []
        for _ in range(25):
            sc = render_scene(rng, size=(640, 640))
            for d in sc.dice:
                top = np.array(d.top, np.float64)
                edges = [np.linalg.norm(top[(i + 1) % 4] - top[i]) for i in range(4)]
                if (max(d.box[2] - d.box[0], d.box[3] - d.box[1]) < 30
                    or max(edges) > 1.15 * min(edges)):
                    continue
                e = top[1] - top[0]
                truth = np.degrees(np.arctan2(e[1], e[0])) % 90
                errors.append(_angle_error(rotated_rect(sc.image, d.box)[2], truth))
        assert len(errors) > 60
        assert np.median(errors) <= 3.0
        assert np.mean(np.array(errors) <= 8.0) >= 0.85


class TestProposeParts:
    def test_proposals_are_capped_and_inside(self):
        rng = np.random.default_rng(4)
        sc = render_scene(rng, size=(640, 640), n_dice=10)
        res = propose(sc.image)
        assert 0 < len(res.boxes) <= 400
        assert all(0 <= b[0] < b[2] <= 640 and 0 <= b[1] < b[3] <= 640 for b in res.boxes)
        assert (sum(any(box_iou(d.box, b) >= 0.5 for b in res.boxes) for d in sc.dice)
                >= len(sc.dice) - 1)

"""Upright face readers: oblique dice are read with the picture's top as up.

A die seen at an angle shows its top face and side faces; a reader shown such crops turned every
way cannot tell the top face from the front one. The training cuts the renders' oblique dice top
face up (``vision.training.upright``) and never turns them; an upright reader's second views are
mirrors, never quarter turns. The geometry is plain numpy; the augmentation test needs torch.
"""
from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.read import CONTEXT, crop_square, is_upright, mean_over_upright_views
from vision.training.scene3d import (FACE_NORMALS, CameraSpec, project, sample_scene,
                                      up_rotation)
from vision.training.upright import OBLIQUE, scene_for_labels, up_views


def _camera(tilt_deg: float, roll: float, lens: float = 120.0) -> CameraSpec:
    """A camera 0.5 m from the table's centre, ``tilt_deg`` from vertical, looking at it."""
    t = math.radians(tilt_deg)
    return CameraSpec(position=(0.0, -0.5 * math.sin(t), 0.5 * math.cos(t)),
                      target=(0.0, 0.0, 0.0), lens_mm=lens, width=320, height=240, fstop=0.0,
                      roll=roll)


def _scene_with_camera(cam: CameraSpec):
    """A sampled scene with one flat die at the table's centre, seen by ``cam``."""
    spec = sample_scene(11, 4, (cam.width, cam.height))
    die = spec.dice[0]
    flat = replace(die, position=(0.0, 0.0, die.size / 2),
                   rotation=tuple(map(tuple, up_rotation(3, 0.4))))
    return replace(spec, camera=cam, dice=(flat,))


def _normal_in_picture(spec, turn_deg: float) -> np.ndarray:
    """Where the die's top-face normal points in the picture after turning by ``turn_deg``."""
    die = spec.dice[0]
    c = np.array(die.position)
    n = np.array(die.rotation) @ np.array(FACE_NORMALS[die.up_face], float)
    p = project(spec.camera, np.stack([c, c + n * die.size / 2]))
    M = cv2.getRotationMatrix2D(tuple(map(float, p[0])), turn_deg, 1.0)
    q = np.c_[p, np.ones(2)] @ M.T
    return q[1] - q[0]


class TestUpViews:
    def test_a_level_camera_sees_the_top_face_up(self):
        spec = _scene_with_camera(_camera(40, 0.0))
        (angle, lean), = up_views(spec)
        assert abs(angle) < 1.0
        assert lean == pytest.approx(math.sin(math.radians(40)), abs=0.02)

    @pytest.mark.parametrize("roll", [0.4, -1.2, 2.8])
    def test_the_turn_undoes_the_cameras_roll(self, roll):
        spec = _scene_with_camera(_camera(35, roll))
        (angle, _), = up_views(spec)
        assert abs(abs(angle) - math.degrees(abs(roll))) < 1.5
        v = _normal_in_picture(spec, angle)
        assert v[1] < 0 and abs(v[0]) < 1e-6 * max(1.0, abs(v[1])) + 1e-3

    def test_straight_above_is_not_oblique(self):
        (_, lean), = up_views(_scene_with_camera(_camera(0, 0.3)))
        assert lean < OBLIQUE


class TestSceneForLabels:
    def test_a_render_is_drawn_again_from_its_seed_index_and_boxes(self):
        spec = sample_scene(5, 3, (320, 240), tilt=(45, 72))
        boxes = [box for box in _label_boxes(spec)]
        again = scene_for_labels(5, 3, (320, 240), boxes)
        assert again is not None and again.camera == spec.camera

    def test_a_render_of_mixed_dice_at_an_oblique_range_is_drawn_again(self):
        # `render3d --dice mixed --tilt 20,65`: a Kuh Vadis or The Choice scene drawn among pips
        specs = [sample_scene(6, k, (320, 240), "mixed", tilt=(20, 65)) for k in range(6)]
        assert {s.dice[0].kind for s in specs if s.dice} >= {"pips", "kuh_vadis"}
        for k, spec in enumerate(specs):
            again = scene_for_labels(6, k, (320, 240), _label_boxes(spec))
            assert again is not None and again.camera == spec.camera and again.dice == spec.dice

    def test_boxes_that_do_not_match_are_no_scene(self):
        spec = sample_scene(5, 3, (320, 240), tilt=(45, 72))
        boxes = [(x0 + 3, y0, x1 + 3, y1) for x0, y0, x1, y1 in _label_boxes(spec)]
        assert scene_for_labels(5, 3, (320, 240), boxes) is None


def _label_boxes(spec):
    from vision.training.scene3d import label_rows
    img = np.zeros((spec.camera.height, spec.camera.width, 3), np.uint8)
    rows = label_rows(spec, img, "x.jpg", [(0.0, 0.0)] * len(spec.dice))
    return [(r["x_min"], r["y_min"], r["x_max"], r["y_max"]) for r in rows]


class TestTurnedCrop:
    """``crop_square``'s ``angle``: the training's upright crops."""

    @pytest.mark.parametrize("side", [30, 400])  # read as it is; blurred first (a big box)
    def test_a_positive_turn_is_anticlockwise(self, side):
        bgr = np.zeros((1000, 1000, 3), np.uint8)
        c, r = 500, side * 0.4
        cv2.circle(bgr, (c, int(c - r)), max(2, side // 10), (255, 255, 255), -1)  # above centre
        box = (c - side / 2, c - side / 2, c + side / 2, c + side / 2)
        for angle, where in ((0.0, "top"), (90.0, "left"), (-90.0, "right"), (180.0, "bottom")):
            crop = crop_square(bgr, box, 32, 1.0, angle)
            ys, xs = np.nonzero(crop[:, :, 0] > 100)
            y, x = ys.mean() - 15.5, xs.mean() - 15.5
            assert {"top": y < -8, "left": x < -8, "right": x > 8, "bottom": y > 8}[where], \
                (angle, x, y)

    def test_no_turn_keeps_the_crop_the_reader_reads(self):
        rng = np.random.default_rng(0)
        bgr = rng.integers(0, 256, (120, 160, 3), np.uint8)
        box = (40, 30, 70, 58)
        s = 32 / (30 * CONTEXT)
        M = np.float32([[s, 0, 16 - s * 55], [0, s, 16 - s * 44]])
        np.testing.assert_array_equal(crop_square(bgr, box, 32, CONTEXT), cv2.warpAffine(
            bgr, M, (32, 32), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))


class TestTrainingCrops:
    def test_oblique_dice_are_cut_top_face_up_and_tagged_upright(self, tmp_path):
        from vision.training.data import LabelledDie, LabelledImage
        from vision.training.train import _task_samples
        spec = sample_scene(3, 7, (416, 416), tilt=(45, 72))
        boxes = _label_boxes(spec)
        path = tmp_path / "r3_000007.jpg"
        cv2.imwrite(str(path), np.full((416, 416, 3), 90, np.uint8))
        im = LabelledImage("renders", path, 416, 416,
                           tuple(LabelledDie(d.up_face, b, "die", 0.0)
                                 for d, b in zip([spec.dice[i] for i in range(len(spec.dice))
                                                  if _in_picture(spec, i)], boxes)),
                           "render", "", False)
        crops, ys, tags, _ = _task_samples(("render", 0, 1, (32,), im, "opencv", 0.0, True))
        leans = [lean for _, lean in up_views(spec)]
        assert len(tags) == len(ys) == len(crops[32])
        dice = [t for t, y in zip(tags, ys) if y > 0]  # one jittered box a die, in label order
        assert dice == ["upright" if lean > OBLIQUE else "render" for lean in leans]
        assert "upright" in dice
        assert all(t == "render" for t, y in zip(tags, ys) if y == 0)  # "not a die" stays free

    def test_without_upright_every_render_crop_is_a_render(self, tmp_path):
        from vision.training.data import LabelledDie, LabelledImage
        from vision.training.train import _task_samples
        path = tmp_path / "r3_000007.jpg"
        cv2.imwrite(str(path), np.full((100, 100, 3), 90, np.uint8))
        im = LabelledImage("renders", path, 100, 100, (LabelledDie(2, (40, 40, 60, 60), "die",
                                                                   0.0),), "render", "", False)
        _, ys, tag, _ = _task_samples(("render", 0, 1, (32,), im, "opencv"))
        assert tag == "render" and len(ys) == 1


def _in_picture(spec, i) -> bool:
    from vision.training.scene3d import die_box
    x0, y0, x1, y1 = die_box(spec.camera, spec.dice[i])
    w, h = spec.camera.width, spec.camera.height
    return min(w, x1) - max(0, x0) >= 2 and min(h, y1) - max(0, y0) >= 2


def test_the_augmentation_never_turns_upright_crops():
    torch = pytest.importorskip("torch", reason="the train extra (torch) is not installed")
    from vision.training.train import _augment
    x = torch.zeros(4, 3, 8, 8)
    x[:, :, 0, 3:5] = 255.0  # a bar along the top edge
    turnable = torch.tensor([False, False, True, True])
    turned_seen = False
    for seed in range(40):
        out = _augment(torch, x.clone(), torch.Generator().manual_seed(seed), turnable)
        dev = (out - out.median()).abs()
        for i in range(4):
            bar_on_top = int(dev[i].mean(0).mean(1).argmax()) == 0
            if i < 2:
                assert bar_on_top, f"an upright crop was turned (seed {seed})"
            turned_seen |= not bar_on_top
    assert turned_seen  # the other crops are turned


class _Meta:
    def __init__(self, upright: bool):
        self.custom_metadata_map = {"classes": '["not_die","1","2","3","4","5","6"]',
                                    "upright": "true" if upright else "false"}


def _upright_session(make_fake_session, upright=True, logits_for=None):
    s = make_fake_session(logits_for)
    s.get_modelmeta = lambda: _Meta(upright)
    return s


class TestUprightReader:
    def test_the_model_metadata_says_whether_a_reader_is_upright(self, make_fake_session):
        from vision.read import Vote
        up, plain = _upright_session(make_fake_session), _upright_session(make_fake_session,
                                                                           False)
        assert is_upright(up) and not is_upright(plain)
        assert not is_upright(make_fake_session())  # no metadata: a reader of any turn
        assert is_upright(Vote((plain, up))) and not is_upright(Vote((plain, plain)))

    def test_upright_views_are_the_mirror_and_small_turns_never_a_quarter(self):
        crops = np.zeros((2, 16, 16, 3), np.uint8)
        crops[0, 1:4, 2:6] = 255  # a mark top-left
        crops[1, 1:4, 10:14] = 255  # a mark top-right
        seen = []

        def read(batch):  # column 0: the mark is in the left half; it stays in the top half
            seen.append(batch.copy())
            ys, xs = np.nonzero(batch[..., 0] > 128)[1:]
            assert all(y < 8 for y in ys), "a view turned the top of a crop away"
            left = batch[:, :, :8, 0].max(axis=(1, 2)) > 128
            return np.stack([left, ~left], 1).astype(np.float32)

        mean = mean_over_upright_views(read(crops), crops, read)
        assert len(seen) == 2 and len(seen[1]) == 6  # three more views of each crop, one batch
        np.testing.assert_array_equal(seen[1][0], crops[0, :, ::-1])  # the first is the mirror
        np.testing.assert_allclose(mean, [[0.75, 0.25], [0.25, 0.75]])

    def test_an_upright_reader_reads_unsure_dice_mirrored_never_turned(self, make_fake_session):
        from vision.pipeline import DiceReader
        unsure = np.log(np.array([0.05, 0.4, 0.35, 0.05, 0.05, 0.05, 0.05], np.float32))
        session = _upright_session(make_fake_session,
                                   logits_for=lambda x: np.tile(unsure, (len(x), 1)))
        bgr = np.full((200, 200, 3), 40, np.uint8)
        cv2.rectangle(bgr, (80, 80), (120, 120), (230, 230, 230), -1)
        reader = DiceReader(session)
        assert reader.reader.upright
        reader.read_faces(bgr, [(80, 80, 120, 120)])
        first, second, ink = session.calls
        assert len(second) == 3  # three more views
        # the first of them is the mirror; a quarter turn would be first[..., ::-1].swapaxes
        np.testing.assert_allclose(second[:1], first[:, :, :, ::-1], atol=1e-5)
        # then the ink-contrast view, grey, and its mirror (vision.read.mean_with_view)
        assert len(ink) == 2
        np.testing.assert_allclose(ink[0, 0], ink[0, 1], atol=1e-5)
        np.testing.assert_allclose(ink[1], ink[0, :, :, ::-1], atol=1e-5)
        session.calls.clear()
        DiceReader(session, ink_views=False).read_faces(bgr, [(80, 80, 120, 120)])
        assert [len(c) for c in session.calls] == [1, 3]


def test_the_shipped_readers_are_upright_and_so_read_with_upright_views():
    from vision.pipeline import CAMERA_FRAME, DiceReader
    from vision.read import BIG_MODEL, DEFAULT_MODEL, load_session
    sessions = {path: load_session(path, threads=1) for path in (DEFAULT_MODEL, BIG_MODEL)}
    for path, session in sessions.items():
        assert is_upright(session), path.name
    assert DiceReader(threads=1).reader.upright  # the settled tier's vote
    assert DiceReader(sessions[DEFAULT_MODEL], **CAMERA_FRAME).reader.upright  # camera frames

"""The learned die detector's pure pre- and post-processing, its stage object with a fake
session, and its training targets (tests/vision/test_detect_model.py runs the shipped model)."""
from __future__ import annotations

import numpy as np
import pytest

from vision.detect import (ALIGN, STRIDE, DieDetector, closer_work, decode, drop_side_faces,
                           drop_specks, prepare)
from vision.pipeline import DiceReader
from vision.training.train_detect import augment_tile, die_boxes_from_pips, heat_targets



def _output(h, w, peaks):
    """A network output (1 x 5 x h x w) with a centre logit of 4 at each (row, col, w, h) peak."""
    out = np.zeros((1, 5, h, w), np.float32)
    out[0, 0] = -6.0
    for r, c, bw, bh in peaks:
        out[0, 0, r, c] = 4.0
        out[0, 1, r, c] = np.log(bw / STRIDE)
        out[0, 2, r, c] = np.log(bh / STRIDE)
        out[0, 3, r, c] = 0.5
        out[0, 4, r, c] = 0.5
    return out


class TestPrepare:
    def test_scaled_to_the_working_size_and_padded_to_the_alignment(self):
        x, scale = prepare(np.full((720, 1280, 3), 90, np.uint8), work=384)
        assert scale == pytest.approx(0.3)
        assert x.shape[0] == 1 and x.shape[1] == 3
        assert x.shape[2] % ALIGN == 0 and x.shape[3] % ALIGN == 0
        assert x.shape[3] == 384 and x.shape[2] >= 216

    def test_light_level_does_not_change_the_input(self):
        rng = np.random.default_rng(0)
        img = rng.integers(60, 120, (64, 64, 3)).astype(np.uint8)
        a, _ = prepare(img, 64)
        b, _ = prepare((img * 2).astype(np.uint8), 64)
        assert np.allclose(a, b, atol=1e-4)

    def test_small_images_are_not_enlarged(self):
        """The detector learnt from photos shrunk to its working size, never enlarged ones: a
        128-px view of a die in its cup, enlarged, had its big pips boxed as dice."""
        x, scale = prepare(np.zeros((128, 100, 3), np.uint8), 384)
        assert scale == 1.0 and x.shape == (1, 3, 128, 128)


class TestDecode:
    def test_peaks_become_boxes_in_input_pixels_best_first(self):
        out = _output(24, 32, [(5, 6, 20, 24), (15, 20, 40, 40)])
        out[0, 0, 15, 20] = 6.0  # the second die is the surer one
        boxes, scores = decode(out, scale=0.5, width=256, height=192)
        assert len(boxes) == 2 and scores[0] > scores[1]
        cx, cy = (20 + 0.5) * STRIDE / 0.5, (15 + 0.5) * STRIDE / 0.5
        assert boxes[0] == pytest.approx([cx - 40, cy - 40, cx + 40, cy + 40])
        cx, cy = (6 + 0.5) * STRIDE / 0.5, (5 + 0.5) * STRIDE / 0.5
        assert boxes[1] == pytest.approx([cx - 20, cy - 24, cx + 20, cy + 24])

    def test_a_peak_s_neighbours_are_not_more_dice(self):
        out = _output(16, 16, [(8, 8, 20, 20)])
        out[0, 0, 8, 9] = 3.0  # likely too, but below its neighbour
        boxes, _ = decode(out, 1.0, 64, 64)
        assert len(boxes) == 1

    def test_unlikely_cells_are_not_dice(self):
        out = _output(16, 16, [(8, 8, 20, 20)])
        out[0, 0, 8, 8] = -2.5  # likelihood 0.08
        assert len(decode(out, 1.0, 64, 64, min_score=0.15)[0]) == 0
        assert len(decode(out, 1.0, 64, 64, min_score=0.05)[0]) == 1

    def test_boxes_stay_inside_the_image(self):
        out = _output(8, 8, [(0, 0, 30, 30)])
        (box,), _ = decode(out, 1.0, 32, 32)
        assert box[0] == 0 and box[1] == 0 and box[2] <= 32 and box[3] <= 32


class FakeInput:
    name = "image"
    shape = [1, 3, "h", "w"]


class FakeDetectorSession:
    def __init__(self, peaks):
        self.peaks = peaks
        self.inputs = []

    def get_inputs(self):
        return [FakeInput()]

    def run(self, outputs, feeds):
        (x,) = feeds.values()
        self.inputs.append(x)
        return [_output(x.shape[2] // STRIDE, x.shape[3] // STRIDE, self.peaks)]


class TestDieDetector:
    def test_boxes_of_the_session_s_peaks_in_input_pixels(self):
        session = FakeDetectorSession([(10, 10, 24, 24)])
        found = DieDetector(session, work_size=384)(np.zeros((768, 768, 3), np.uint8))
        assert session.inputs[0].shape == (1, 3, 384, 384)
        (box,) = found.boxes
        c = (10 + 0.5) * STRIDE * 2
        assert box == (int(c - 24), int(c - 24), round(c + 24), round(c + 24))
        assert found.elapsed_ms > 0

    def test_a_tiny_image_has_no_dice_and_runs_no_model(self):
        session = FakeDetectorSession([(1, 1, 8, 8)])
        assert DieDetector(session)(np.zeros((4, 4, 3), np.uint8)).boxes == ()
        assert session.inputs == []

    def test_grey_images_are_accepted(self):
        session = FakeDetectorSession([(3, 3, 8, 8)])
        assert len(DieDetector(session)(np.zeros((64, 64), np.uint8)).boxes) == 1

    def test_the_reader_refuses_an_unknown_finder(self, fake_session):
        with pytest.raises(ValueError, match="find_with"):
            DiceReader(fake_session, find_with="magic")

    def test_the_reader_reads_the_detector_s_boxes(self, fake_session):
        reader = DiceReader(fake_session, find_with="detector",
                            detector_session=FakeDetectorSession([(10, 10, 24, 24),
                                                                  (20, 40, 24, 24)]))
        roll = reader(np.full((384, 384, 3), 128, np.uint8))
        assert len(roll.dice) == 2 and roll.candidates == 2
        assert roll.values == (1, 1)  # the fake face reader says "1" for every crop


class TestBoxesTheDetectorIsSureOf:
    """The reader doubts a die it sees poorly (the die probability under ``min_die``); where the
    detector is sure of the box, the two together keep it."""

    @staticmethod
    def doubting(make_fake_session, p_die):
        logit = float(np.log(p_die / (1 - p_die)))  # not a die 0, a one at this logit
        return make_fake_session(lambda x: np.tile(np.array([0, logit, -20, -20, -20, -20, -20],
                                                            np.float32), (len(x), 1)))

    def test_a_doubted_die_in_a_sure_box_is_kept(self, make_fake_session):
        bgr = np.full((384, 384, 3), 128, np.uint8)
        one = {"far_look": None, "second_look": None}
        for p_die, kept in ((0.7, 1), (0.4, 0)):
            session = FakeDetectorSession([(20, 20, 60, 60)])  # score sigmoid(4) = 0.98
            reader = DiceReader(self.doubting(make_fake_session, p_die), detector_session=session,
                                **one)
            assert len(reader(bgr).dice) == kept
        session = FakeDetectorSession([(20, 20, 60, 60)])
        alone = DiceReader(self.doubting(make_fake_session, 0.7), detector_session=session,
                           sure_box=None, **one)
        assert alone(bgr).dice == ()


class TestCloserLook:
    """Small dice in a big photo (a 1080p frame of 25-px dice: 5-7 px on the 384-px working copy)
    get a second look on a finer working copy; dice the first look sees well enough do not."""

    def test_dice_big_enough_need_no_second_look(self):
        assert closer_work([20.0, 24.0, 30.0], 384, 1920) is None
        assert closer_work([], 384, 1920) is None  # nothing found: nothing to size the look by

    def test_small_dice_are_looked_at_where_they_are_twenty_pixels(self):
        assert closer_work([6.0, 6.0, 7.0], 384, 1920) == 384 * 20 // 6

    def test_the_second_look_never_enlarges_the_photo_nor_exceeds_the_cap(self):
        assert closer_work([4.0], 384, 900) == 900
        assert closer_work([2.0], 384, 8000) == 2048
        assert closer_work([13.0], 384, 400) is None  # 400 px is barely more than the first look

    def test_the_detector_looks_again_at_the_finer_scale(self):
        # a peak of 4 x 4 working px (a tiny die) on a 1920 x 1080 photo
        session = FakeDetectorSession([(10, 10, 4, 4)])
        found = DieDetector(session)(np.zeros((1080, 1920, 3), np.uint8))
        # 384 * 20 / 4, at most the photo
        assert [x.shape[3] for x in session.inputs] == [384, 1920]
        assert len(found.boxes) == 1
        once = FakeDetectorSession([(10, 10, 4, 4)])
        DieDetector(once, look_closer=False)(np.zeros((1080, 1920, 3), np.uint8))
        assert len(once.inputs) == 1

    def test_weak_small_boxes_do_not_size_the_look(self):
        # one sure 24-px die and two weak 8-px boxes (a textured table): no second look
        session = FakeDetectorSession([(10, 10, 24, 24), (30, 30, 8, 8), (40, 40, 8, 8)])
        out = session.run(None, {"image": np.zeros((1, 3, 384, 384), np.float32)})[0]
        out[0, 0, 30, 30] = out[0, 0, 40, 40] = -1.0  # sigmoid(-1) = 0.27, under SIZE_FROM
        session.inputs.clear()
        session.run = lambda outputs, feeds: (session.inputs.append(feeds["image"]), [out])[1]
        found = DieDetector(session)(np.zeros((640, 640, 3), np.uint8))
        assert len(session.inputs) == 1 and len(found.boxes) == 3


class TestSideFaces:
    """An oblique die shows its top face and a side with pips: the detector may give the side a
    weak box of its own, leaning on the die's box. ``drop_side_faces`` drops it."""
    TOP = (100, 100, 160, 160)
    SIDE = (104, 150, 160, 190)  # below the top face, a quarter of it inside the die's box

    def test_a_weak_box_leaning_on_a_surer_die_is_dropped(self):
        assert drop_side_faces([self.TOP, self.SIDE], np.array([0.9, 0.2]), [0, 1]) == [0]

    def test_a_sure_box_is_kept_however_it_overlaps(self):
        # two real touching dice: both found surely
        assert drop_side_faces([self.TOP, self.SIDE], np.array([0.9, 0.6]), [0, 1]) == [0, 1]

    def test_a_weak_box_alone_or_barely_touching_is_kept(self):
        apart = (300, 300, 340, 340)
        touching = (158, 100, 218, 160)  # shares a 2-px strip with the die
        assert drop_side_faces([self.TOP, apart, touching], np.array([0.9, 0.2, 0.2]),
                               [0, 1, 2]) == [0, 1, 2]

    def test_only_the_dice_the_reader_kept_count(self):
        # the surer box was rejected by the reader: nothing for the weak one to lean on
        assert drop_side_faces([self.TOP, self.SIDE], np.array([0.9, 0.2]), [1]) == [1]

    def test_the_reader_drops_them_and_can_be_told_not_to(self, fake_session):
        # detector peaks at (row, col, w, h) in cells of the 384-px working copy
        # a die's box (51..112 px) and a side box below it, 18 of its 40 px rows inside the die's
        session = FakeDetectorSession([(20, 20, 60, 60), (28, 20, 56, 40)])
        bgr = np.full((384, 384, 3), 128, np.uint8)
        out = session.run(None, {"image": np.zeros((1, 3, 384, 384), np.float32)})[0]
        out[0, 0, 28, 20] = -1.0  # the second peak weak: sigmoid(-1) = 0.27
        session.run = lambda outputs, feeds: [out]
        # one look (the fake detector answers a 384-px copy only)
        one = {"far_look": None, "min_die": 0.0}
        assert len(DiceReader(fake_session, detector_session=session, **one)(bgr).dice) == 1
        keep_side_faces = DiceReader(fake_session, detector_session=session, side_faces=False,
                                     **one)
        assert len(keep_side_faces(bgr).dice) == 2


class TestSpecks:
    """Sensor noise and crumbs make boxes of a few pixels that the reader may take for a one: a
    kept die far smaller than the dice the detector is sure of is dropped."""
    DICE = [(100, 100, 160, 160), (200, 100, 252, 152), (300, 100, 366, 166)]  # sure, 52-66 px

    def test_a_speck_beside_sure_dice_is_dropped(self):
        boxes = self.DICE + [(50, 50, 60, 60)]
        assert drop_specks(boxes, np.array([0.9, 0.8, 0.9, 0.5]), [0, 1, 2, 3]) == [0, 1, 2]

    def test_a_far_die_of_half_the_size_is_kept(self):
        boxes = self.DICE + [(400, 40, 428, 68)]  # 28 px: a far die at a steep view
        assert drop_specks(boxes, np.array([0.9, 0.8, 0.9, 0.4]), [0, 1, 2, 3]) == [0, 1, 2, 3]

    def test_without_a_sure_die_nothing_is_dropped(self):
        boxes = [(100, 100, 160, 160), (50, 50, 60, 60)]
        assert drop_specks(boxes, np.array([0.2, 0.1]), [1, 0]) == [1, 0]

    def test_the_reader_drops_them_and_can_be_told_not_to(self, fake_session):
        # a die's box (cells 20, 20: 60 x 60 working px) and a 6 x 6 px one elsewhere
        session = FakeDetectorSession([(20, 20, 60, 60), (70, 70, 6, 6)])
        bgr = np.full((384, 384, 3), 128, np.uint8)
        one = {"far_look": None, "min_die": 0.0}     # one look, as above
        assert len(DiceReader(fake_session, detector_session=session, **one)(bgr).dice) == 1
        keep_specks = DiceReader(fake_session, detector_session=session, specks=False, **one)
        assert len(keep_specks(bgr).dice) == 2


class TestTargets:
    def test_a_die_s_centre_cell_peaks_at_one_with_its_size_and_offset(self):
        heat, reg, reg_mask, off_mask = heat_targets(np.array([[10, 20, 50, 44]]), [True], 16, 16)
        cx, cy = 30 / STRIDE, 32 / STRIDE
        iy, ix = int(cy), int(cx)
        assert heat[iy, ix] == 1.0 and heat.max() == 1.0
        assert (heat[iy, ix + 3] < 0.5) and heat[iy, ix + 1] > 0
        assert reg[:, iy, ix] == pytest.approx([np.log(40 / STRIDE), np.log(24 / STRIDE), cx - ix,
                                                cy - iy])
        assert reg_mask.sum() == 1 and off_mask.sum() == 1

    def test_an_unsized_die_trains_its_centre_and_offset_not_its_size(self):
        _, _, reg_mask, off_mask = heat_targets(np.array([[10, 20, 50, 44]]), [False], 16, 16)
        assert reg_mask.sum() == 0 and off_mask.sum() == 1

    def test_dice_outside_the_grid_are_left_out(self):
        heat, *_ = heat_targets(np.array([[-30, -30, -2, -2], [100, 100, 140, 140]]), [True, True],
                                16, 16)
        assert heat.max() == 0

    def test_die_boxes_around_pip_boxes(self):
        boxes = die_boxes_from_pips(np.array([[10, 10, 30, 30], [100, 100, 104, 104]]),
                                    np.array([6, 1]))
        assert boxes[0] == pytest.approx([4, 4, 36, 36])
        assert boxes[1][2] - boxes[1][0] == pytest.approx(32)  # the one takes the other die's size
        assert (boxes[1][0] + boxes[1][2]) / 2 == pytest.approx(102)


def test_augmented_boxes_follow_the_pixels():
    """Scaling, cropping, turning and mirroring move the boxes with the die they hold."""
    img = np.full((200, 300, 3), 40, np.uint8)
    img[60:100, 150:190] = 250
    box = np.array([[150, 60, 190, 100]], np.float32)
    for seed in range(30):
        rng = np.random.default_rng(seed)
        tile, b = augment_tile(rng, img, box, tile=256)
        x0, y0, x1, y1 = b[0]
        cx, cy = int((x0 + x1) / 2), int((y0 + y1) / 2)
        if 0 <= cx < 256 and 0 <= cy < 256:
            assert tile[cy, cx].mean() > tile.mean() + 20, seed
            assert x1 - x0 == pytest.approx(y1 - y0, rel=0.05)


def test_training_a_few_steps_exports_a_detector_the_reader_can_run(tmp_path):
    """The training loop and the export end to end (a few steps: it runs, not that it learns)."""
    pytest.importorskip("torch", reason="the train extra (torch) is not installed")
    pytest.importorskip("onnx", reason="the train extra (onnx) is not installed")
    from vision.read import load_session
    from vision.training.synth import render_scene
    from vision.training.train_detect import export_onnx, to_work, train

    rng = np.random.default_rng(3)
    pool = []
    for _ in range(2):
        scene = render_scene(rng, size=(240, 320), n_dice=3)
        img, boxes = to_work(scene.image, np.array([d.box for d in scene.dice], np.float32))
        pool.append((img, boxes, np.ones(len(boxes), bool)))
    net = train([pool], [1.0], steps=3, seed=1, batch_size=2, threads=1, progress=False)
    path = tmp_path / "det.onnx"
    export_onnx(net, path, {"steps": 3})
    found = DieDetector(load_session(path, threads=1))(np.full((200, 300, 3), 120, np.uint8))
    assert isinstance(found.boxes, tuple) and len(found.boxes) <= 100


def test_a_missing_detector_model_says_which_model_and_how_to_train_it(tmp_path):
    from vision.detect import load_detector
    with pytest.raises(FileNotFoundError,
                       match=r"die detector model not found: .*vision\.training\.train_detect"):
        load_detector(tmp_path / "absent.onnx")


def test_special_dice_scenes_are_detector_targets_of_seen_designs_only():
    """Cows and numbered faces are dice to find: the detector's training adds scenes of the
    special designs seen while writing the readers (never the held-out ones), seeded."""
    from vision.training.special_dice import HELD_OUT_DESIGNS
    from vision.training.train_detect import _render_special, special_samples
    a, b = special_samples(7, seed=3), special_samples(7, seed=3)
    assert all(np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1]) for x, y in zip(a, b))
    for img, boxes, sized in a:
        assert max(img.shape[:2]) == 384 and len(boxes) >= 1 and sized.all()
        assert (boxes[:, 2] > boxes[:, 0]).all() and (boxes[:, 3] > boxes[:, 1]).all()
    import vision.training.special_dice as S
    drawn = []
    real = S.render_special_scene
    S.render_special_scene = lambda rng, design, **k: (drawn.append(design),
                                                       real(rng, design, **k))[1]
    try:
        _render_special(5)
        _render_special(6)
    finally:
        S.render_special_scene = real
    assert drawn and not set(d.name for d in drawn) & {d.name for d in HELD_OUT_DESIGNS}


def test_the_detector_trains_on_the_sets_named_and_refuses_unknown_ones(tmp_path, capsys):
    """`--sets` names the real sets whose training photos the detector learns from; a set that
    is not there, or an `--exclude` outside them, stops the command before any training."""
    pytest.importorskip("torch", reason="the train extra (torch) is not installed")
    from vision.training.train_detect import main
    (tmp_path / "alpha").mkdir()
    with pytest.raises(SystemExit):
        main(["--data", str(tmp_path), "--sets", "alpha,betta", "--out", str(tmp_path / "d.onnx")])
    assert "--sets: no such set under" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--data", str(tmp_path), "--sets", "alpha", "--exclude", "matteop65",
              "--out", str(tmp_path / "d.onnx")])
    assert "not a set the detector trains on: matteop65 (it trains on alpha)" \
        in capsys.readouterr().err
    assert not (tmp_path / "d.onnx").exists()


def test_a_fine_tune_starts_from_the_shipped_detector_exactly():
    """``train_detect --init``: the exported detector loaded into the training network (its
    batch norms folded back into biases, its convolutions matched in call order) gives the
    exported model's output, so a fine-tune starts where the shipped detector is."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import onnxruntime as ort

    from vision.read import model_path
    from vision.training.train_detect import load_exported, make_net

    shipped = model_path("dice_detect.onnx")
    session = ort.InferenceSession(str(shipped))
    meta = session.get_modelmeta().custom_metadata_map
    net = make_net(head=int(meta["head"]), stem_extra=bool(int(meta["stem_extra"])))
    load_exported(net, shipped)
    net.eval()
    x = np.random.default_rng(0).normal(size=(1, 3, 96, 128)).astype(np.float32)
    want = session.run(None, {"image": x})[0]
    with torch.no_grad():
        got = net(torch.from_numpy(x)).numpy()
    assert np.abs(got - want).max() < 1e-4
    with pytest.raises(ValueError, match="convolution"):
        load_exported(make_net(head=8, stem_extra=False), shipped)

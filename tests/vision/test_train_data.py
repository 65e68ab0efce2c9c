"""The training data of the face reader: which crops become which class (no torch needed)."""
from pathlib import Path

import numpy as np
import pytest

from vision.training.train import _scene_samples, build_dataset, is_dev

ROOT = Path(__file__).resolve().parents[2]
DIE = ((100, 100, 140, 140), "die", 5)


class TestSceneSamples:
    def test_a_proposal_on_a_die_learns_its_value(self):
        out = _scene_samples(np.random.default_rng(0), [DIE], [(101, 99, 141, 139)], jitters=0)
        assert out == [((101, 99, 141, 139), 5)]

    def test_a_proposal_far_from_every_die_is_not_a_die(self):
        out = _scene_samples(np.random.default_rng(0), [DIE], [(300, 300, 340, 340)], neg_keep=1.0,
                             jitters=0)
        assert out == [((300, 300, 340, 340), 0)]

    def test_a_half_overlapping_proposal_is_neither(self):
        # IoU between 0.2 and 0.5: too far to learn the value, too close to be "not a die"
        out = _scene_samples(np.random.default_rng(0), [DIE], [(115, 100, 155, 140)], neg_keep=1.0,
                             jitters=0)
        assert out == []

    def test_jittered_copies_of_each_labelled_die(self):
        out = _scene_samples(np.random.default_rng(0), [DIE], [], jitters=3)
        assert [y for _, y in out] == [5, 5, 5]
        for box, _ in out:
            assert abs((box[0] + box[2]) / 2 - 120) < 0.15 * 40

    def test_a_box_around_two_neighbouring_dice_is_not_a_die(self):
        other = ((142, 100, 182, 140), "die", 2)
        out = _scene_samples(np.random.default_rng(0), [DIE, other], [], jitters=0)
        assert out == [((100, 100, 182, 140), 0)]

    def test_pip_box_labels_match_by_the_pip_rule(self):
        pips = ((110, 110, 130, 130), "pips", 3)
        out = _scene_samples(np.random.default_rng(0), [pips],
                             [(100, 100, 140, 140), (200, 200, 240, 240)], neg_keep=1.0, jitters=2)
        # no jitter of a pip box
        assert out == [((100, 100, 140, 140), 3), ((200, 200, 240, 240), 0)]


def test_the_dev_split_is_a_stable_sixth_of_the_photos():
    names = [f"IMG_{i:04d}.jpg" for i in range(3000)]
    share = sum(is_dev("byler_d6_train", n) for n in names) / len(names)
    assert 0.14 < share < 0.19
    assert [is_dev("byler_d6_train", n) for n in names[:50]] == [is_dev("byler_d6_train", n)
                                                                 for n in names[:50]]
    # the two crops of one source photo stay on the same side
    assert is_dev("skovy_crops", "a.jpg", "photo7") == is_dev("skovy_crops", "b.jpg", "photo7")


def test_crops_do_not_depend_on_the_number_of_workers(tmp_path):
    pytest.importorskip("tqdm", reason="the train extra (tqdm) is not installed")
    one = build_dataset(tmp_path, n_synth=3, seed=5, progress=False, sizes=(24, 32), workers=1)
    two = build_dataset(tmp_path, n_synth=3, seed=5, progress=False, sizes=(24, 32), workers=2)
    assert len(one[1]) > 0
    assert np.array_equal(one[1], two[1])
    for size in (24, 32):
        assert one[0][size].shape[1:] == (size, size, 3)
        assert np.array_equal(one[0][size], two[0][size])


def test_the_learning_rate_warms_up_then_decays():
    from vision.training.train import one_cycle

    assert one_cycle(0.0, 1.0) == pytest.approx(1 / 25)
    assert one_cycle(0.15, 1.0) == pytest.approx(1.0)
    assert one_cycle(1.0, 1.0) == pytest.approx(1e-4)
    rates = [one_cycle(f, 1.0) for f in np.linspace(0.15, 1.0, 50)]
    assert all(a >= b for a, b in zip(rates, rates[1:]))  # never rises again after the peak


class TestProposals:
    """The crops are cut from the boxes the reader is shown at run time (``--find``)."""

    def test_an_unknown_finder_is_refused(self):
        from vision.training.train import proposals

        with pytest.raises(ValueError, match="opencv, detector, both"):
            proposals(np.zeros((64, 64, 3), np.uint8), "sift")

    def test_both_is_the_opencv_proposals_and_the_detector_boxes(self):
        from vision.detect import DieDetector
        from vision.find import propose
        from vision.training.synth import render_scene
        from vision.training.train import proposals

        bgr = render_scene(np.random.default_rng(11), size=(480, 640), n_dice=6).image
        opencv = proposals(bgr, "opencv")
        detector = proposals(bgr, "detector")
        assert opencv == [tuple(b) for b in propose(bgr).boxes]
        assert detector == [tuple(b) for b in DieDetector(threads=1)(bgr).boxes]
        assert proposals(bgr, "both") == opencv + detector
        assert 0 < len(detector) < len(opencv)  # about one box per die against many proposals


def test_fine_tuning_starts_from_the_exported_model_exactly():
    """``--init``: the exported model's folded batch norms are unfolded so the torch net gives the
    shipped model's logits before the first step."""
    torch = pytest.importorskip("torch", reason="the train extra (torch) is not installed")
    pytest.importorskip("onnx", reason="the train extra (onnx) is not installed")
    from vision.read import DEFAULT_MODEL, load_session
    from vision.training.train import _make_net, load_exported

    net = _make_net("wide")
    load_exported(net, DEFAULT_MODEL)
    net.eval()
    x = np.random.default_rng(3).normal(size=(4, 3, 32, 32)).astype(np.float32)
    with torch.no_grad():
        ours = net(torch.from_numpy(x)).numpy()
    # the float file itself, which --init reads, not the 8-bit copy the reader runs as
    shipped = load_session(DEFAULT_MODEL, threads=1, eight_bit=False).run(None, {"crops": x})[0]
    assert np.abs(ours - shipped).max() < 1e-4
    with pytest.raises(ValueError, match="convolution of shape"):
        load_exported(_make_net("base"), DEFAULT_MODEL)


class TestRenderSamples:
    """Renders label how much of each die's top face is hidden; an unreadable die teaches
    nothing."""

    @staticmethod
    def _image(dice):
        from pathlib import Path

        from vision.training.data import LabelledDie, LabelledImage
        return LabelledImage("renders", Path("r.jpg"), 640, 480,
                             tuple(LabelledDie(v, box, "die", hid) for v, box, hid in dice),
                             "render", "", False)

    def test_a_hidden_top_face_is_neither_a_value_nor_not_a_die(self):
        from vision.training.train import _render_samples
        im = self._image([(5, (100, 100, 140, 140), 0.0), (3, (300, 300, 340, 340), 0.9)])
        out = _render_samples(np.random.default_rng(0), im,
                              [(101, 99, 141, 139), (301, 301, 341, 339), (500, 50, 540, 90)])
        classes = {box: y for box, y in out}
        assert classes[(101, 99, 141, 139)] == 5
        assert (301, 301, 341, 339) not in classes  # the hidden die: no sample either way
        assert all(y != 3 for y in classes.values())


class TestLeaveOneSetOut:
    def _root(self, tmp_path):
        for name in ("alpha", "beta"):
            (tmp_path / name).mkdir()
            (tmp_path / name / "labels.csv").write_text(
                "filename,image_w,image_h,die,value,x_min,y_min,x_max,y_max\n")
        (tmp_path / "not_a_set").mkdir()
        return tmp_path

    def test_an_excluded_set_is_not_trained_on(self, tmp_path):
        from vision.training.train import real_sets
        root = self._root(tmp_path)
        assert [p.name for p in real_sets(root)] == ["alpha", "beta"]
        assert [p.name for p in real_sets(root, ["beta"])] == ["alpha"]

    def test_a_misspelt_set_is_an_error_not_a_silent_no_op(self, tmp_path):
        from vision.training.train import real_sets
        with pytest.raises(ValueError, match="betta"):
            real_sets(self._root(tmp_path), ["betta"])


class TestCropsBuiltApart:
    """Render crops built by one run join the real and synthetic crops of another at training."""

    @staticmethod
    def _store(path, n, size, tag):
        np.savez(path, crops=np.full((n, size, size, 3), 7, np.uint8), ys=np.arange(n) % 7,
                 tags=np.array([tag] * n), dev=np.zeros(n, bool))

    def test_added_crops_are_appended_with_their_labels_and_sources(self, tmp_path):
        from vision.training.train import add_crops
        self._store(tmp_path / "r.npz", 5, 32, "render")
        built = (np.zeros((3, 32, 32, 3), np.uint8), np.array([1, 2, 3]), np.array(["synth"] * 3),
                 np.zeros(3, bool))
        crops, ys, tags, dev = add_crops(built, [tmp_path / "r.npz"])
        assert crops.shape == (8, 32, 32, 3) and crops[3:].min() == 7
        assert ys.tolist() == [1, 2, 3, 0, 1, 2, 3, 4]
        assert tags.tolist() == ["synth"] * 3 + ["render"] * 5
        assert len(dev) == 8

    def test_crops_of_another_size_are_refused(self, tmp_path):
        from vision.training.train import add_crops
        self._store(tmp_path / "r48.npz", 2, 48, "render")
        built = (np.zeros((1, 32, 32, 3), np.uint8), np.array([1]), np.array(["synth"]),
                 np.zeros(1, bool))
        with pytest.raises(ValueError, match="48 px"):
            add_crops(built, [tmp_path / "r48.npz"])

    def test_an_excluded_set_is_dropped_from_cached_crops_too(self):
        """One cache of every set serves each leave-one-setup-out run: --exclude drops that set's
        crops when they come from a cache, not only when they are built."""
        from vision.training.train import without_sets
        tags = np.array(["byler_d6_train", "matteop65", "synth", "matteop65", "render"])
        built = (np.arange(5)[:, None, None, None] * np.ones((5, 2, 2, 3), np.uint8), np.arange(5),
                 tags, np.zeros(5, bool))
        crops, ys, kept, dev = without_sets(built, ["matteop65"])
        assert kept.tolist() == ["byler_d6_train", "synth", "render"] and ys.tolist() == [0, 2, 4]
        assert crops[:, 0, 0, 0].tolist() == [0, 2, 4] and len(dev) == 3


class TestWhereTrainingFindsItsFiles:
    """The trainers write where the shipped reader loads from, and read the shared photos beside
    the checkout, wherever their modules lie."""

    def test_the_face_readers_default_output_is_the_shipped_model(self):
        from vision.read import DEFAULT_MODEL
        from vision.training.train import OUT
        assert OUT == DEFAULT_MODEL == ROOT / "models" / "dice_face.onnx"

    def test_the_embeddings_default_output_is_the_model_teaching_loads(self):
        from vision.embedding import EMBED_MODEL
        from vision.training.train_embed import OUT
        assert OUT == EMBED_MODEL == ROOT / "models" / "face_embed.onnx"

    def test_the_shared_photos_lie_beside_the_checkout(self):
        from vision.training.data import default_data_root
        assert default_data_root() == ROOT.parent / "shared" / "data" / "dice"


class TestSpecialDiceScenes:
    """``--special``: Kuh Vadis and The Choice dice train the face reader, a cow as the sixth face,
    and count as made crops, not as a real set."""

    def test_a_cow_is_the_sixth_face_and_numbers_their_value(self, monkeypatch):
        import vision.training.train as T
        from vision.training.special_dice import SEEN_DESIGNS
        drawn = []
        real_render = __import__("vision.training.special_dice",
                                 fromlist=["x"]).render_special_scene

        def spy(rng, design, **kw):
            scene = real_render(rng, design, **kw)
            drawn.append(scene)
            return scene
        monkeypatch.setattr("vision.training.special_dice.render_special_scene", spy)
        monkeypatch.setattr(T, "proposals", lambda bgr, find="opencv": [])   # jittered dice only
        for index in range(len(SEEN_DESIGNS)):
            crops, ys, tag, dev = T._task_samples(("special", 0, index, (32,), None, "opencv"))
            scene = drawn[-1]
            want = sorted(6 if d.value == "cow" else d.value for d in scene.dice)
            # each die once (one jittered box); 0: a box around two neighbouring dice
            assert tag == "special" and not dev and sorted(y for y in ys.tolist() if y) == want
            assert crops[32].shape == (len(ys), 32, 32, 3)
        assert any(d.value == "cow" for s in drawn for d in s.dice)

    def test_special_crops_are_capped_like_synthetic_ones_and_not_a_real_set(self):
        from vision.training.train import _cap
        ys = np.array([3] * 10 + [3] * 10)
        tags = np.array(["special"] * 10 + ["byler_d6_train"] * 10)
        kept = _cap(ys, tags, cap_not_die=100, cap_synth_class=4, seed=0)
        assert (tags[kept] == "special").sum() == 4 and (tags[kept] == "byler_d6_train").sum() == 10


def test_photographic_losses_touch_only_their_share_of_the_crops():
    """``--degrade P``: about P of the crops lose resolution or get noise; the others are left as
    they were."""
    torch = pytest.importorskip("torch", reason="the train extra (torch) is not installed")
    from vision.training.train import _degrade
    x = torch.zeros(400, 3, 32, 32)
    x[:, :, 12:20, 12:20] = 200.0  # a pip on a dark face
    x += 20.0
    assert torch.equal(_degrade(torch, x.clone(), torch.Generator().manual_seed(0), 0.0), x)
    out = _degrade(torch, x.clone(), torch.Generator().manual_seed(0), 0.3)
    changed = (out - x).abs().flatten(1).amax(1) > 1.0
    assert out.shape == x.shape
    assert 0.2 < float(changed.float().mean()) < 0.4
    every = _degrade(torch, x.clone(), torch.Generator().manual_seed(1), 1.0)
    assert bool(((every - x).abs().flatten(1).amax(1) > 1.0).all())

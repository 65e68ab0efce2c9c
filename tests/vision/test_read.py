import json

import numpy as np
import pytest

from vision.read import FaceReader, crop_square, crops_for_boxes, load_session, softmax, standardise


class TestCrop:
    def test_centre_of_box_lands_in_centre_of_crop(self):
        img = np.zeros((100, 200, 3), np.uint8)
        img[40:60, 140:160] = (0, 0, 255)
        crop = crop_square(img, (140, 40, 160, 60), 32, context=1.0)
        assert crop.shape == (32, 32, 3)
        assert (crop[8:24, 8:24] == (0, 0, 255)).all()

    def test_box_over_the_border_is_padded(self):
        img = np.full((50, 50, 3), 200, np.uint8)
        crop = crop_square(img, (-20, -20, 10, 10), 32)
        assert crop.shape == (32, 32, 3) and (crop == 200).all()

    def test_huge_box_is_smoothed_not_aliased(self):
        img = np.zeros((2000, 2000, 3), np.uint8)
        img[:, ::2] = 255  # stripes one pixel wide
        crop = crop_square(img, (0, 0, 2000, 2000), 32, context=1.0)
        assert 90 < crop[8:24, 8:24].mean() < 165

    def test_no_boxes(self):
        assert crops_for_boxes(np.zeros((10, 10, 3), np.uint8), [], 32).shape == (0, 32, 32, 3)


def test_standardise():
    crops = np.random.default_rng(0).integers(0, 255, (3, 32, 32, 3)).astype(np.uint8)
    x = standardise(crops)
    assert x.shape == (3, 3, 32, 32) and x.dtype == np.float32
    assert np.allclose(x.mean(axis=(1, 2, 3)), 0, atol=1e-4)
    flat = standardise(np.full((1, 32, 32, 3), 90, np.uint8))
    assert np.isfinite(flat).all() and np.allclose(flat, 0)


def test_softmax_rows_sum_to_one():
    p = softmax(np.array([[1.0, 2.0, 3.0], [1000.0, 0.0, -1000.0]], np.float32))
    assert np.allclose(p.sum(1), 1) and p[1, 0] == pytest.approx(1)


class TestFaceReader:
    def test_uses_session_input_name_and_size(self, make_fake_session):
        s = make_fake_session(size=24, name="images")
        r = FaceReader(s)
        res = r(np.zeros((100, 100, 3), np.uint8), [(10, 10, 40, 40), (50, 50, 90, 90)])
        assert s.calls[0].shape == (2, 3, 24, 24)
        assert res.probs.shape == (2, 7)
        assert res.best(0) == ("1", pytest.approx(res.probs[0, 1]))
        assert res.elapsed_ms >= 0

    def test_batches(self, fake_session):
        r = FaceReader(fake_session, batch=4)
        r(np.zeros((50, 50, 3), np.uint8), [(0, 0, 10, 10)] * 10)
        assert [len(c) for c in fake_session.calls] == [4, 4, 2]

    def test_no_boxes_no_call(self, fake_session):
        res = FaceReader(fake_session)(np.zeros((50, 50, 3), np.uint8), [])
        assert res.probs.shape == (0, 7) and fake_session.calls == []


def test_missing_model_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.onnx"):
        load_session(tmp_path / "nope.onnx")


def test_shipped_model_declares_its_classes(model_session):
    classes = json.loads(model_session.get_modelmeta().custom_metadata_map["classes"])
    assert classes == ["not_die", "1", "2", "3", "4", "5", "6"]
    assert FaceReader(model_session).size == 32


class TestVote:
    """The settled tier's face readers voted together: the mean of their log-probabilities."""

    def test_the_vote_is_the_geometric_mean_of_the_readers_probabilities(self, make_fake_session):
        from vision.read import Vote
        sure_two = np.log(np.array([[0.01, 0.01, 0.9, 0.02, 0.02, 0.02, 0.02]], np.float32))
        unsure = np.log(np.array([[0.05, 0.05, 0.3, 0.4, 0.1, 0.05, 0.05]], np.float32))
        vote = Vote((make_fake_session(lambda x: np.repeat(sure_two, len(x), 0)),
                     make_fake_session(lambda x: np.repeat(unsure, len(x), 0))))
        res = FaceReader(vote)(np.zeros((60, 60, 3), np.uint8), [(10, 10, 40, 40)])
        expected = np.sqrt(np.exp(sure_two) * np.exp(unsure))
        np.testing.assert_allclose(res.probs, expected / expected.sum(), rtol=1e-5)
        assert res.best(0)[0] == "2"        # the sure reader outvotes the unsure one

    def test_every_reader_reads_the_same_crops(self, make_fake_session):
        from vision.read import Vote
        one, two = make_fake_session(), make_fake_session()
        FaceReader(Vote((one, two)))(np.zeros((60, 60, 3), np.uint8), [(5, 5, 30, 30)] * 3)
        assert len(one.calls) == len(two.calls) == 1
        np.testing.assert_array_equal(one.calls[0], two.calls[0])

    def test_readers_of_two_input_sizes_vote_on_the_larger_crops_shrunk_for_the_smaller(
            self, make_fake_session):
        import cv2
        from vision.read import Vote, standardise
        small, large = make_fake_session(size=32), make_fake_session(size=48)
        vote = Vote((small, large))
        assert vote.get_inputs()[0].shape[-1] == 48     # the reader crops for the larger one
        rng = np.random.default_rng(3)
        bgr = rng.integers(0, 256, (90, 90, 3), dtype=np.uint8)
        reader = FaceReader(vote)
        assert reader.size == 48
        reader(bgr, [(10, 10, 70, 70), (20, 5, 80, 60)])
        assert large.calls[0].shape == (2, 3, 48, 48)
        assert small.calls[0].shape == (2, 3, 32, 32)
        # the small reader sees the large crops shrunk by area averaging, standardised again
        from vision.read import crops_for_boxes
        crops = crops_for_boxes(bgr, [(10, 10, 70, 70), (20, 5, 80, 60)], 48)
        shrunk = standardise(np.stack([cv2.resize(c, (32, 32), interpolation=cv2.INTER_AREA)
                                       for c in crops]))
        np.testing.assert_allclose(small.calls[0], shrunk, atol=0.03)

    def test_a_screened_crop_its_first_reader_calls_no_die_is_read_by_it_alone(
            self, make_fake_session):
        from vision.read import Vote, log_softmax
        no_die = np.log(np.array([0.9, 0.05, 0.01, 0.01, 0.01, 0.01, 0.01], np.float32))
        a_two = np.log(np.array([0.01, 0.01, 0.9, 0.02, 0.02, 0.02, 0.02], np.float32))
        first = make_fake_session(lambda x: np.stack([no_die, a_two, no_die][:len(x)]))
        second = make_fake_session(lambda x: np.tile(a_two, (len(x), 1)))
        vote = Vote((first, second))
        x = np.zeros((3, 3, 32, 32), np.float32)
        # crops 0 and 1 screened, crop 2 not: crop 0 is settled by the first reader alone
        out = vote.run_screened(x, np.array([True, True, False]), below=0.5)
        assert len(second.calls) == 1 and len(second.calls[0]) == 2
        np.testing.assert_allclose(out[0], log_softmax(no_die[None].astype(np.float64))[0],
                                   atol=1e-6)
        full = vote.run(None, {"crops": x})[0]
        np.testing.assert_allclose(out[1:], full[1:], atol=1e-6)
        # a reader alone, not a vote, reads every crop whatever the screen
        alone = make_fake_session()
        FaceReader(alone)(np.zeros((60, 60, 3), np.uint8), [(5, 5, 30, 30)] * 2, [True, True])
        assert len(alone.calls[0]) == 2

    def test_readers_of_other_classes_cannot_vote_together(self, make_fake_session):
        from vision.read import Vote

        class OtherClasses:
            def __init__(self, inner):
                self.inner = inner

            def get_inputs(self):
                return self.inner.get_inputs()

            def get_modelmeta(self):
                class Meta:
                    custom_metadata_map = {"classes": '["not_die", "cow"]'}
                return Meta()

        with pytest.raises(ValueError, match="share their classes"):
            Vote((make_fake_session(), OtherClasses(make_fake_session())))
        with pytest.raises(ValueError, match="at least one"):
            Vote(())

    def test_the_shipped_readers_vote_by_default_in_the_settled_tier(self, model_session):
        from vision.pipeline import CAMERA_FRAME, DiceReader
        from vision.read import BIG_MODEL, Vote
        settled = DiceReader(threads=1)
        assert isinstance(settled.session, Vote)
        assert [len(s.get_inputs()) for s in settled.session.sessions] == [1, 1]
        assert BIG_MODEL.is_file() and BIG_MODEL.stat().st_size < 4_000_000
        assert not isinstance(DiceReader(model_session, **CAMERA_FRAME).session, Vote)


def test_mean_over_turns_averages_the_four_quarter_turns():
    from vision.read import mean_over_turns
    crops = np.zeros((2, 8, 8, 3), np.uint8)
    crops[0, 0, 0] = 255  # a mark in the top-left corner: each turn moves it to another corner
    crops[1, 7, 7] = 255
    seen = []

    def read(batch):  # (m, 2): 1.0 in column 0 when the mark is top-left, else in column 1
        seen.append(len(batch))
        top_left = batch[:, 0, 0, 0] == 255
        return np.stack([top_left, ~top_left], 1).astype(np.float32)

    first = read(crops)
    mean = mean_over_turns(first, crops, read)
    assert seen == [2, 6]  # one batch for the three turns of both crops
    assert mean.shape == (2, 2) and np.allclose(mean.sum(1), 1.0)
    assert np.allclose(mean[0], [0.25, 0.75]) and np.allclose(mean[1], [0.25, 0.75])


class TestInkViews:
    """An unsure die is also read in its ink-contrast view: its pips' colour distance from the
    face, so that red pips on a smoky die or yellow pips on an orange one stand out."""

    @staticmethod
    def _faint_die() -> np.ndarray:
        """A 32-px crop: a smoky grey die on a pale table, dark red pips (grey levels 60 / 72)."""
        import cv2
        crop = np.full((32, 32, 3), (200, 200, 200), np.uint8)
        cv2.rectangle(crop, (4, 4), (27, 27), (60, 60, 60), -1)
        for x, y in ((10, 10), (21, 21)):
            cv2.circle(crop, (x, y), 3, (40, 40, 150), -1)
        return crop

    def test_the_view_shows_the_pips_in_strong_contrast(self):
        from vision.face_colour import ink_contrast_view
        crop = self._faint_die()
        grey = crop.astype(float) @ [0.114, 0.587, 0.299]
        view = ink_contrast_view(crop)
        assert view.dtype == np.uint8 and view.shape == crop.shape
        assert (view[..., 0] == view[..., 2]).all()  # grey
        # in the photo's brightness the pips hardly differ from the face; in the view they do
        assert abs(grey[10, 10] - grey[16, 13]) < 15
        assert view[16, 13, 0] - view[10, 10, 0] > 150

    def test_each_ink_view_weighs_as_one_view(self):
        from vision.face_colour import ink_contrast_view
        from vision.read import mean_with_view
        crops = np.stack([self._faint_die(), self._faint_die()[:, ::-1]])
        seen = []

        def read(batch):  # column 0 for grey crops (the ink views), column 1 for the others
            seen.append(batch.copy())
            grey = (batch[..., 0] == batch[..., 2]).all(axis=(1, 2))
            return np.stack([grey, ~grey], 1).astype(np.float32)

        mean4 = np.array([[0.0, 1.0], [0.25, 0.75]])
        mean = mean_with_view(mean4, 4, crops, read, ink_contrast_view)
        assert len(seen) == 1 and len(seen[0]) == 4  # both views of both crops, one batch
        np.testing.assert_array_equal(seen[0][2], seen[0][0][:, ::-1])  # the mirror
        np.testing.assert_allclose(mean, [[2 / 6, 4 / 6], [3 / 6, 3 / 6]])
        assert mean_with_view(np.zeros((0, 2)), 4, crops[:0], read,
                              ink_contrast_view).shape == (0, 2)

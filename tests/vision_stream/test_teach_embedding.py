"""The learned face embedding (ONNX, no torch), dice sets (build, classify, store, refuse) and
colour read from the face."""
import json

import numpy as np
import pytest

from vision.dice_set import FORMAT, DiceSet, DiceSetReader, StaleDiceSet, colour_vectors, reader_for
from vision.training.special_dice import SEEN_DESIGNS, Design, render_special_scene
from vision.embedding import (EMBED_MODEL, FaceEmbedder, default_embedder,
                              quarter_turns, view_embedder)
from vision.read import eight_bit_path
from vision.face_colour import crops_of, face_features, ink_contrast_view
from vision.teach import teach

PIPS = SEEN_DESIGNS[0]  # Kuh Vadis, plastic body, pips and a printed cow head


def one_die(design, value, seed, colour=None, side=(60, 70)):
    sc = render_special_scene(np.random.default_rng(seed), design, n_dice=1, size=(200, 200),
                              values=[value], side_range=side, colours=[colour] if colour else None)
    return sc.image, sc.dice[0]


class FakeSession:
    """An embedding 'model' for the pure tests: the mean of each channel, as a 3-d unit vector."""

    class _Io:
        def __init__(self, name, shape):
            self.name, self.shape = name, shape

    class _Meta:
        custom_metadata_map = {"model_id": "fake-1", "size": "48"}

    def get_inputs(self):
        return [self._Io("crops", ["n", 3, 48, 48])]

    def get_outputs(self):
        return [self._Io("embedding", ["n", 3])]

    def get_modelmeta(self):
        return self._Meta()

    def run(self, _, feeds):
        x = feeds["crops"]
        return [x.mean(axis=(2, 3)) + 1e-3]


class TestEmbedder:
    def test_the_shipped_model_and_its_metadata(self):
        assert EMBED_MODEL.is_file() and EMBED_MODEL.stat().st_size < 3_000_000  # a few MB at most
        e = default_embedder()
        assert e.size == 48 and e.model_id.startswith("face-embed-") and e.not_die is not None
        out = e(np.random.default_rng(0).integers(0, 255, (5, 48, 48, 3), dtype=np.uint8))
        assert out.shape == (5, e.dims) and np.allclose(np.linalg.norm(out, axis=1), 1, atol=1e-4)

    def test_a_die_is_closer_to_its_own_face_than_to_other_faces(self):
        e = default_embedder()
        a, da = one_die(PIPS, 3, seed=10)
        b, db = one_die(PIPS, 3, seed=99)  # another render, turned, other colours and light
        others = [one_die(PIPS, v, seed=20 + k) for k, v in enumerate((1, 2, 4, 5, "cow"))]
        ea = e(e.crops(a, [da.box]))[0]
        same = float(e(e.crops(b, [db.box]))[0] @ ea)
        diff = [float(e(e.crops(img, [d.box]))[0] @ ea) for img, d in others]
        assert same > max(diff)

    def test_quarter_turns(self):
        c = np.zeros((2, 48, 48, 3), np.uint8)
        c[0, :5, :5] = 255
        q = quarter_turns(c)
        assert q.shape == (8, 48, 48, 3)
        assert (np.array_equal(q[0], c[0]) and np.array_equal(q[1], np.rot90(c[0]))
                and np.array_equal(q[4], c[1]))

    def test_missing_model_says_how_to_train_it(self, tmp_path):
        with pytest.raises(FileNotFoundError, match="vision.training.train_embed"):
            FaceEmbedder(tmp_path / "none.onnx")


class TestEightBitViews:
    """The taught reader's further views of unsure dice are embedded by an 8-bit copy of the
    shipped weights (about three times faster on one core): it must read as the float model."""

    def test_the_copy_ships_and_is_made_from_the_shipped_weights(self, taught):
        copy_file = eight_bit_path(EMBED_MODEL)
        assert copy_file.is_file() and copy_file.stat().st_size < 2_000_000
        float_model = default_embedder()
        copy = view_embedder(float_model)
        assert copy is not float_model and copy.quantized_from == float_model.model_id
        assert copy.size == float_model.size and copy.dims == float_model.dims
        reader = DiceSetReader(taught)
        assert reader.views is copy and reader.embedder is float_model

    def test_another_model_reads_its_views_itself(self):
        fake = FaceEmbedder(session=FakeSession())
        assert view_embedder(fake) is fake

    def test_the_quantizer_writes_a_copy_named_after_its_weights(self, tmp_path):
        pytest.importorskip("onnx", reason="onnx is in the train extra")
        from vision.training.quantize import calibration_crops, quantize_embedding
        float_model = default_embedder()
        crops = calibration_crops(float_model, scenes=1, seed=3)
        quantize_embedding(float_model, tmp_path / "q.onnx", crops)
        copy = FaceEmbedder(tmp_path / "q.onnx")
        assert copy.quantized_from == float_model.model_id != copy.model_id
        cos = (float_model(crops) * copy(crops)).sum(1)
        assert np.median(cos) > 0.99

    def test_the_copy_names_faces_as_the_float_model_does(self, bench_special):
        """Dice of every seen design, each crop in its quarter turns and ink-contrast view (the
        further views): classified against a set taught with the float model, the copy's
        embeddings name the same face as the float model's for nearly every crop."""
        float_model = default_embedder()
        copy = view_embedder(float_model)
        same = total = 0
        for k, design in enumerate(SEEN_DESIGNS):
            ds = teach(bench_special.teaching_examples(design, 3, seed=500 + k))
            crops = np.concatenate([float_model.crops(sc.image, [d.box for d in sc.dice])
                                    for sc in bench_special.test_scenes(design, 20,
                                                                        seed=600 + k)])
            views = np.concatenate([quarter_turns(crops),
                                    np.stack([ink_contrast_view(c) for c in crops])])
            a = ds.classify(float_model(views))[0].argmax(1)
            b = ds.classify(copy(views))[0].argmax(1)
            same, total = same + int((a == b).sum()), total + len(views)
        assert total >= 7 * 20 * 5 and same / total >= 0.98


class TestFaceFeatures:
    def test_face_and_ink_colours_are_measured(self):
        design = Design("t", "the_choice", "plastic", "numeral", colour_on="face")
        image, die = one_die(design, 4, seed=3, colour="blue")
        f = face_features(crops_of(image, [die.box])[0])
        L, a, b = f.face_lab
        assert b < -20  # a blue face
        assert f.ink_lab[0] > 80 or f.ink_lab[0] < 20  # white or black numeral

    def test_the_ink_colour_is_the_symbol_not_a_dark_edge_of_the_die(self):
        import cv2
        # a wooden face filling the crop with a dark shaded bevel along its top edge, and a faint
        # blue-grey numeral stroke in the middle: the bevel is farther from the face colour than
        # the ink, but the symbol's colour is the stroke's
        crop = np.zeros((64, 64, 3), np.uint8)
        crop[:] = (120, 165, 205)  # BGR: light wood
        crop[5:9, 10:54] = (35, 45, 60)  # the shaded bevel, inside the face's outline
        crop[22:42, 29:34] = (175, 160, 150)  # a blue-grey stroke
        f = face_features(crop)
        L, a, b = f.ink_lab
        stroke = cv2.cvtColor(np.float32([[[175, 160, 150]]]) / 255, cv2.COLOR_BGR2LAB)[0, 0]
        # the stroke's, not the bevel's dark brown
        assert abs(L - stroke[0]) < 8 and b < 0, (f.ink_lab, stroke)

    def test_a_faint_coloured_symbol_is_stretched_to_full_contrast(self):
        import cv2
        # a green bar on olive wood of the same lightness: hardly any brightness contrast
        lab = np.zeros((48, 48, 3), np.float32)
        lab[:] = (55, 5, 35)
        lab[14:34, 21:27] = (55, -30, 20)
        crop = (np.clip(cv2.cvtColor(lab, cv2.COLOR_LAB2BGR), 0, 1) * 255).astype(np.uint8)
        grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(int)
        assert abs(grey[24, 24] - grey[8, 8]) < 30  # faint to a colour-blind reader
        view = ink_contrast_view(crop)
        assert view.shape == crop.shape and view.dtype == np.uint8
        assert view[24, 24, 0] < 40 and view[8, 8, 0] > 220  # the ink black, the face white
        assert (view[..., 0] == view[..., 2]).all()  # a grey image

    def test_colour_vectors_separate_blue_and_purple(self):
        import cv2
        def lab(h):  # a saturated colour of hue h (degrees)
            hsv = np.array([[[h / 2, 230, 180]]], np.uint8)
            return cv2.cvtColor(cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR).astype(np.float32) / 255,
                                cv2.COLOR_BGR2LAB)[0, 0]
        v = colour_vectors([lab(215), lab(230), lab(275), lab(0)])

        def d(i, j):
            return float(np.linalg.norm(v[i] - v[j]))

        assert d(0, 1) < d(1, 2) and d(0, 1) < d(0, 3)


class TestPrototypes:
    """Nearest-prototype classification with a fake embedding (pure, no model)."""

    def make(self):
        emb = np.array([[1, 0, 0], [0.9, 0.1, 0], [0, 1, 0], [0, 0, 1]], np.float32)
        emb /= np.linalg.norm(emb, axis=1, keepdims=True)
        return DiceSet.build(emb, [1, 1, 2, "cow"], [0, 1, 2, 3],
                             np.array([[-1, 0, 0]], np.float32), np.zeros((4, 3)), np.zeros((4, 3)),
                             [None] * 4, model_id="fake-1")

    def test_nearest_prototype_wins(self):
        ds = self.make()
        assert ds.labels == (1, 2, "cow")
        p, best, neg = ds.classify(np.array([[0.1, 0.95, 0.05], [0.05, 0.05, 1.0]], np.float32))
        assert [ds.labels[j] for j in p.argmax(1)] == [2, "cow"]
        assert np.allclose(p.sum(1), 1) and best[0] > 0.9 and neg[0] < 0

    def test_threshold_comes_from_the_other_examples_of_a_face(self):
        ds = self.make()  # 1's two examples: cosine 0.99 -> threshold = factor x 0.99, clipped
        assert 0.3 <= ds.die_threshold <= 0.8

    def test_file_round_trip_and_refusal_of_another_model(self, tmp_path):
        ds = self.make().with_info(note="x")
        path = tmp_path / "set.npz"
        ds.save(path)
        back = DiceSet.load(path, model_id="fake-1")
        assert back.values == ds.values and back.groups == ds.groups and back.model_id == "fake-1"
        assert np.allclose(back.embeddings, ds.embeddings, atol=2e-3) and back.info["note"] == "x"
        assert back.die_threshold == pytest.approx(ds.die_threshold)
        with pytest.raises(StaleDiceSet, match="teach these dice again"):
            DiceSet.load(path, model_id="face-embed-other")
        with pytest.raises(ValueError, match="fake-1"):
            reader_for(path)  # the shipped model has another id
        with pytest.raises(StaleDiceSet):
            DiceSetReader(ds)

    def test_a_coloured_symbol_is_named_by_its_shift_from_the_face_it_is_printed_on(self):
        """Grey and yellow ink taught on a beige face; then one measured ink colour, half-way
        between them: on a much yellower face it is the grey ink (a thin symbol's colour mixes
        with the face), on a grey face the yellow ink."""
        face = np.array([[65, 8, 28]] * 4, float)
        ink = np.array([[45, 3, 10], [47, 3, 12], [75, 4, 55], [73, 4, 52]], float)
        ds = DiceSet.build(np.eye(4, 8, dtype=np.float32), [1, 2, 3, 4], [0, 1, 2, 3],
                           np.zeros((0, 8)), face, ink, ["grey", "grey", "yellow", "yellow"],
                           model_id="t")
        assert ds.colour_source == "ink"
        names, _ = ds.name_colours(np.array([[70, 8, 55], [60, 5, 10]], float),
                                   np.array([[58, 5, 30]] * 2, float))
        assert names == ["grey", "yellow"]

    def faces_set(self):
        """A 3 taught on purple dice, a 5 on grey ones (colours measured on the face)."""
        face = np.array([[45, 30, -35], [53, 17, -21], [60, 0, 0], [57, 5, -6]], float)
        return DiceSet.build(np.eye(4, 8, dtype=np.float32), [3, 3, 5, 5], [0, 1, 2, 3],
                             np.zeros((0, 8)), face, face, ["purple", "purple", "grey", "grey"],
                             model_id="t", example_values=[3, 3, 5, 5])

    def test_value_and_colour_are_named_together_among_the_taught_faces(self):
        ds = self.faces_set()
        assert ds.faces == ((3, "purple"), (5, "grey"))
        # a washed-out purple nearer grey, on a die read a 3: named alone, grey; together with
        # its value, purple (no 3 was taught grey)
        washed = np.array([[55, 12, -15]], float)
        assert ds.name_colours(washed, washed)[0] == ["grey"]
        p = np.array([[0.95, 0.05]])   # over ds.labels, (3, 5)
        values, vconf, names, cconf = ds.name_faces(p, washed, washed)
        assert (values, names) == ([3], ["purple"]) and 0.5 < vconf[0] <= 1 and cconf[0] > 0.5

    def test_a_clearly_seen_untaught_face_is_still_named(self):
        """The faces taught are a prior, not a table: a 3 clearly grey is a grey 3 (a face the
        player did not photograph), and a value decided elsewhere keeps its colour's reading."""
        ds = self.faces_set()
        grey = np.array([[60, 0, 0]], float)
        values, _, names, _ = ds.name_faces(np.array([[0.999, 0.001]]), grey, grey)
        assert (values, names) == ([3], ["grey"])
        values, _, names, _ = ds.name_faces(np.array([[0.3, 0.7]]), grey, grey, values=[3])
        assert (values, names) == ([3], ["grey"])

    def test_colours_hard_to_tell_apart_are_named_with_less_confidence(self):
        """The colours' spread is fitted on the examples, each left out in turn: examples of
        one colour that scatter as far as the other colour lies give a wide spread, so a
        measurement between the two is named with little confidence (and weighs less beside
        the value in ``name_faces``)."""
        def taught(face):
            return DiceSet.build(np.eye(6, 8, dtype=np.float32), [1, 1, 1, 2, 2, 2], range(6),
                                 np.zeros((0, 8)), face, face, ["red"] * 3 + ["orange"] * 3,
                                 model_id="t", example_values=[1, 1, 1, 2, 2, 2])
        tight = taught(np.array([[50, 60, 40], [51, 61, 41], [50, 59, 39],
                                 [65, 35, 60], [66, 36, 61], [64, 34, 59]], float))
        scattered = taught(np.array([[50, 60, 40], [58, 48, 52], [44, 66, 30],
                                     [65, 35, 60], [56, 50, 46], [72, 28, 70]], float))
        assert scattered.colour_sigma > tight.colour_sigma
        between = np.array([[57, 48, 50]], float)
        assert (max(scattered.colour_probabilities(between, between)[0])
                < max(tight.colour_probabilities(between, between)[0]))

    def test_how_much_an_untaught_face_weighs_follows_the_examples(self):
        """Each of 18 faces photographed once says nothing of faces not yet photographed (no
        preference); the same faces each photographed twice say the set is complete (the
        floor); a few faces once among repeated ones, in between."""
        from vision.dice_set import UNTAUGHT_FACE, untaught_weight
        faces = [(v, c) for v in range(1, 7) for c in ("red", "blue", "green")]
        assert untaught_weight(faces, 6, 6) == 1.0
        assert untaught_weight(faces * 2, 6, 6) == UNTAUGHT_FACE
        some = faces * 2 + [(1, "grey"), (2, "grey"), (3, "grey")]
        assert UNTAUGHT_FACE < untaught_weight(some, 6, 6) < 1.0
        assert untaught_weight([(v, "red") for v in range(1, 7)] * 2, 6, 1) == 1.0  # all taught

    def test_a_value_taught_in_as_many_colours_as_there_are_dice_has_no_other_face(self):
        """The Choice rolls three dice: a 3 photographed in three colours, once each, is every
        3 there is, though each face was seen only once (``untaught_weight`` 1)."""
        face = np.array([[45, 30, -35], [50, 0, 50], [50, 50, 30], [60, 0, 0]], float)
        def taught(dice):
            return DiceSet.build(np.eye(4, 8, dtype=np.float32), [3, 3, 3, 5], range(4),
                                 np.zeros((0, 8)), face, face, ["purple", "yellow", "red", "grey"],
                                 model_id="t", example_values=[3, 3, 3, 5], dice=dice)
        grey = np.array([[60, 0, 0]], float)
        p = np.array([[0.9, 0.1]])    # a 3, rather surely; its colour plainly grey
        assert taught(None).untaught == 1.0
        assert taught(None).name_faces(p, grey, grey)[:3:2] == ([3], ["grey"])
        assert taught(3).name_faces(p, grey, grey)[:3:2] == ([5], ["grey"])

    def test_the_taught_faces_are_kept_in_the_file(self, tmp_path):
        ds = self.faces_set()
        ds.save(tmp_path / "set.npz")
        back = DiceSet.load(tmp_path / "set.npz")
        assert back.faces == ((3, "purple"), (5, "grey"))
        assert back.colour_sigma == ds.colour_sigma

    def test_bad_and_old_files_are_refused_with_a_reason(self, tmp_path):
        junk = tmp_path / "junk.npz"
        junk.write_bytes(b"not a zip")
        with pytest.raises(ValueError, match="not a dice-set file"):
            DiceSet.load(junk)
        other = tmp_path / "other.npz"
        np.savez(other, meta=np.frombuffer(b'{"format": "x"}', np.uint8))
        with pytest.raises(ValueError, match=FORMAT):
            DiceSet.load(other)
        for fmt in ("dice-set/1", "dice-set/2"):
            old = tmp_path / "old.npz"
            np.savez(old, meta=np.frombuffer(json.dumps({"format": fmt}).encode(), np.uint8))
            with pytest.raises(StaleDiceSet, match="older version.*teach these dice again"):
                DiceSet.load(old)
        with pytest.raises(FileNotFoundError):
            DiceSet.load(tmp_path / "missing.npz")

    def test_teach_with_an_injected_embedder(self):
        fake = FaceEmbedder(session=FakeSession())
        image, die = one_die(PIPS, 2, seed=1)
        ds = teach([(image, die.box, 2, None), (image, die.box, 2, None)], embedder=fake)
        assert ds.model_id == "fake-1" and set(ds.values) == {2}
        assert len(ds.embeddings) == 2 * 5 * 4  # examples x (box + 4 jitters) x quarter turns
        assert ds.example_crops.shape == (2, 48, 48, 3)


@pytest.fixture(scope="module")
def taught(bench_special):
    return teach(bench_special.teaching_examples(PIPS, 3, seed=7))


class TestDiceSet:

    def test_labels_threshold_and_speed(self, taught):
        assert set(taught.labels) == {1, 2, 3, 4, 5, "cow"}
        assert 0.3 <= taught.die_threshold <= 0.8
        assert taught.info["teach_ms"] < 30_000  # seconds, not minutes (a loaded 2-core machine)
        assert taught.colour_source is None and taught.colours == ()
        assert taught.model_id == default_embedder().model_id

    def test_reads_other_renders_of_the_taught_design(self, taught, bench_special):
        reader = DiceSetReader(taught)
        right = total = 0
        for sc in bench_special.test_scenes(PIPS, 60, seed=123):
            values = reader.read_boxes(sc.image, [d.box for d in sc.dice])[0]
            right += sum(v == d.value for v, d in zip(values, sc.dice))
            total += len(sc.dice)
        assert total >= 60
        assert right / total >= 0.95  # see bench/vision_special.py for the measured figure

    def test_save_and_load_give_the_same_reader(self, taught, tmp_path):
        path = tmp_path / "set.npz"
        taught.save(path)
        assert path.stat().st_size < 400_000
        back = reader_for(path).dice_set
        image, die = one_die(PIPS, 4, seed=77)
        e = default_embedder()
        x = e(e.crops(image, [die.box]))
        p1, b1, _ = taught.classify(x)
        p2, b2, _ = back.classify(x)
        assert np.allclose(b1, b2, atol=0.01) and p1.argmax() == p2.argmax()

    def test_no_examples(self):
        with pytest.raises(ValueError):
            teach([])


class TestColourFromTheFace:
    """The Choice: the colour is read from the face, never looked up from the number."""

    def teach_one_mapping(self, design):
        # every number taught with ONE colour (die A of the
        # RECON mapping), each colour once per number set
        mapping_a = {1: "blue", 2: "purple", 3: "grey", 4: "red", 5: "yellow", 6: "green"}
        ex = []
        for j in range(3):
            for v, c in mapping_a.items():
                image, die = one_die(design, v, seed=100 * j + v, colour=c)
                ex.append((image, die.box, v, c))
        return teach(ex)

    @pytest.mark.parametrize("colour_on,sources", [("face", ("face", "vivid")),
                                                   ("symbol", ("ink",))])
    def test_unseen_number_colour_pairs(self, colour_on, sources):
        design = Design("t", "the_choice", "plastic", "numeral", colour_on=colour_on)
        ds = self.teach_one_mapping(design)
        assert ds.colour_source in sources   # the face's median or its most colourful pixels
        reader = DiceSetReader(ds)
        # no pair was taught
        mapping_c = {1: "red", 2: "yellow", 3: "green", 4: "blue", 5: "purple", 6: "grey"}
        right = together = 0
        for v, c in mapping_c.items():
            image, die = one_die(design, v, seed=500 + v, colour=c)
            _, _, _, _, face, ink = reader.read_boxes(image, [die.box])
            names, conf = ds.name_colours(face, ink)
            right += names[0] == c
            # as a roll names them: value and colour together, the taught faces a prior only
            together += reader.name_boxes(image, [die.box])[2][0] == c
        assert right >= 5  # the number would have predicted none of them
        assert together >= 5


CHOICE_A = {1: "blue", 2: "purple", 3: "grey", 4: "red", 5: "yellow", 6: "green"}


@pytest.fixture(scope="module")
def taught_set():
    """The Choice's numerals on coloured squares of a white die, each face taught twice."""
    design = SEEN_DESIGNS[4]   # tc-plastic-numeral-face
    ex = []
    for j in range(2):
        for v, c in CHOICE_A.items():
            image, die = one_die(design, v, seed=100 * j + v, colour=c)
            ex.append((image, die.box, v, c))
    return design, teach(ex)


class TestColoursOnThePhotosWhite:
    """A taught set measures its colours on each photo's white (``scene_white``), taught and
    read alike, so that a face under a tinted lamp measures as it did when taught."""

    MAPPING = CHOICE_A

    def test_a_tinted_lamp_shifts_the_measured_colours_less(self, taught_set):
        from dataclasses import replace

        from vision.colour import Calibration
        design, ds = taught_set
        assert ds.white
        shift = {}
        for white in (True, False):   # False: a set's file from before, read as it was
            reader = DiceSetReader(replace(ds, white=white))
            d = []
            for gains in ((0.8, 0.9, 1.0), (1.0, 0.9, 0.8), (0.8, 1.0, 0.8)):
                for v, c in self.MAPPING.items():
                    image, die = one_die(design, v, seed=900 + v, colour=c)
                    daylight = reader.read_boxes(image, [die.box])[4][0]
                    lamp = reader.read_boxes(Calibration(gains).apply_u8(image), [die.box])[4][0]
                    d.append(np.linalg.norm(lamp - daylight))
            shift[white] = float(np.mean(d))
        assert shift[True] < 0.75 * shift[False]

    def test_the_file_says_how_its_colours_were_measured(self, taught_set, tmp_path):
        from dataclasses import replace
        _, ds = taught_set
        ds.save(tmp_path / "set.npz")
        assert DiceSet.load(tmp_path / "set.npz").white
        replace(ds, white=False).save(tmp_path / "old.npz")
        assert not DiceSet.load(tmp_path / "old.npz").white


def _square_face(colour, value_seed, glare=0.0, square=0.46):
    """A 64-px crop of a white die seen at an angle: a coloured square with a white numeral-like
    bar in the middle of the top face, white body around it, a shaded side face below it and a
    glare patch of ``glare`` strength."""
    import cv2
    rng = np.random.default_rng(value_seed)
    crop = np.full((64, 64, 3), (70, 90, 80), np.uint8)  # table
    cv2.rectangle(crop, (6, 4), (58, 60), (235, 235, 235), -1)  # white body
    cv2.rectangle(crop, (6, 44), (58, 60), (150, 150, 150), -1)  # the side face in shade
    half = int(32 * square)
    cv2.rectangle(crop, (32 - half, 26 - half), (32 + half, 26 + half), colour, -1)
    cv2.rectangle(crop, (30, 18), (34, 34), (245, 245, 245), -1)  # the numeral
    if glare:
        crop[10:30, 36:56] = (crop[10:30, 36:56] * (1 - glare) + 255 * glare).astype(np.uint8)
    noise = rng.normal(0, 4, crop.shape)
    return np.clip(crop + noise, 0, 255).astype(np.uint8)


def _pip_face(body, pip, value, seed):
    import cv2
    rng = np.random.default_rng(seed)
    crop = np.full((64, 64, 3), (90, 110, 90), np.uint8)
    cv2.rectangle(crop, (5, 5), (58, 58), body, -1)
    spots = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
             4: [(-1, -1), (1, -1), (-1, 1), (1, 1)]}[value]
    for dx, dy in spots:
        cv2.circle(crop, (32 + 14 * dx, 32 + 14 * dy), 8 if value == 1 else 5, pip, -1)
    return np.clip(crop + rng.normal(0, 3, crop.shape), 0, 255).astype(np.uint8)


def _taught(crops, colours):
    feats = [face_features(c) for c in crops]
    n = len(crops)
    return DiceSet.build(np.eye(n, n + 1, dtype=np.float32), list(range(n)), list(range(n)),
                         np.zeros((0, n + 1)), np.array([f.face_lab for f in feats]),
                         np.array([f.ink_lab for f in feats]), colours, model_id="t",
                         vivid_labs=np.array([f.vivid_lab for f in feats]))


class TestFaceColourSource:
    COLOURS = {"red": (40, 40, 200), "blue": (190, 90, 30), "green": (60, 160, 50),
               "yellow": (40, 210, 230)}

    def test_a_coloured_square_on_a_white_die_is_named_by_its_most_colourful_pixels(self):
        """At an angle, white body and a shaded side face fill much of the face's ring and wash
        its median out; the faces' most colourful pixels tell the taught colours apart better,
        so the set names by them, also under glare it was not taught with. (On photoreal renders
        of The Choice dice this took colour 29.5 -> 56.6 % and 45.8 -> 64.8 %:
        docs/vision-special.md.)"""
        names = list(self.COLOURS)
        crops = [_square_face(self.COLOURS[c], seed) for seed in range(3) for c in names]
        ds = _taught(crops, [c for _ in range(3) for c in names])
        assert ds.colour_source == "vivid"
        reader_face = [face_features(_square_face(self.COLOURS[c], 50 + k, glare=0.5))
                       for k, c in enumerate(names)]
        got, _ = ds.name_colours(np.array([f.vivid_lab for f in reader_face]),
                                 np.array([f.ink_lab for f in reader_face]))
        assert got == names

    def test_a_big_coloured_pip_does_not_turn_a_white_die_red(self):
        """White dice with red pips (a big one on the 1) beside red dice with white pips: the
        most colourful pixels of a white 1 are its pip, so the set keeps the face's median."""
        white, red = (235, 235, 235), (40, 40, 200)
        crops, colours = [], []
        for v in (1, 2, 3, 4):
            crops += [_pip_face(white, red, v, v), _pip_face(red, white, v, 10 + v)]
            colours += ["white", "red"]
        ds = _taught(crops, colours)
        assert ds.colour_source == "face"
        one = face_features(_pip_face(white, red, 1, 99))
        assert ds.name_colours(np.array([one.face_lab]), np.array([one.ink_lab]))[0] == ["white"]

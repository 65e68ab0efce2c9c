import struct
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.colour import PALETTES
from vision.training.metrics import greedy_match
from vision.detect import DieDetector
from vision.read import FaceReader
from vision.pipeline import (CAMERA_FRAME, BadImage, DiceReader, Roll, add_sure_dice,
                             boxed_again, decode_image, header_size, may_be_added,
                             read_image_file, select_dice)
from vision.training.synth import render_scene


def _jpeg(img, q=90):
    return cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])[1].tobytes()


def _scene(seed, **kw):
    return render_scene(np.random.default_rng(seed), **kw)


class TestBadInput:
    def test_zero_bytes(self, tmp_path):
        p = tmp_path / "empty.jpg"
        p.write_bytes(b"")
        with pytest.raises(BadImage, match="empty"):
            read_image_file(p)

    def test_not_an_image(self):
        with pytest.raises(BadImage, match="not an image"):
            decode_image(b"hello, this is a text file\n" * 20)

    def test_header_claiming_30000_square_is_refused_before_decoding(self):
        data = bytearray(_jpeg(np.zeros((16, 16, 3), np.uint8)))
        i = data.index(b"\xff\xc0")
        data[i + 5:i + 9] = struct.pack(">HH", 30000, 30000)
        assert header_size(bytes(data)) == (30000, 30000)
        t0 = time.perf_counter()
        with pytest.raises(BadImage, match="30000x30000"):
            decode_image(bytes(data))
        assert time.perf_counter() - t0 < 0.5

    @pytest.mark.parametrize("brand,said", [(b"heic", "a HEIC photo.*Settings > Camera"),
                                            (b"mif1", "a HEIF photo.*Settings > Camera"),
                                            (b"avif", "an AVIF picture.*gallery app")])
    def test_an_iphone_photo_in_heic_is_refused_with_what_to_send_instead(self, brand, said):
        data = b"\x00\x00\x00\x18ftyp" + brand + b"\x00\x00\x00\x00mif1heic" + bytes(200)
        with pytest.raises(BadImage, match=said):
            decode_image(data)

    @pytest.mark.parametrize("order", ["<", ">"])
    def test_a_small_tiff_claiming_16000_square_is_refused_before_decoding(self, order):
        """A 1.3 MB compressed TIFF may hold 16000 x 16000 pixels (1.6 GB, 10 s decoded): its
        size is read from its first image directory, as a JPEG's from its frame header."""
        magic = b"II*\x00" if order == "<" else b"MM\x00*"
        entries = b"".join(struct.pack(order + "HHII", tag, 4, 1, 16000) for tag in (256, 257))
        data = magic + struct.pack(order + "I", 8) + struct.pack(order + "H", 2) + entries \
            + bytes(4) + bytes(1000)
        assert header_size(data) == (16000, 16000)
        with pytest.raises(BadImage, match="16000x16000.*16384 pixels a side"):
            decode_image(data)

    def test_tiff_and_pnm_are_read_with_their_sizes(self):
        img = np.full((48, 64, 3), 90, np.uint8)
        for data in (cv2.imencode(".tiff", img)[1].tobytes(),
                     cv2.imencode(".pgm", img[..., 0])[1].tobytes()):
            assert header_size(data) == (64, 48)
            assert decode_image(data).shape == (48, 64, 3)
        with pytest.raises(BadImage, match="too large"):
            decode_image(b"P5\n# a comment\n20000 20000\n255\n" + bytes(100))

    def test_a_format_whose_size_is_not_read_is_refused_with_what_to_send(self):
        """JPEG 2000, OpenEXR, HDR: OpenCV decodes them, but their size is not checked first."""
        for data in (b"\x00\x00\x00\x0cjP  \r\n\x87\n" + bytes(100),
                     b"#?RADIANCE\n" + bytes(50)):
            with pytest.raises(BadImage, match="send it as JPEG, PNG"):
                decode_image(data)

    def test_a_header_cut_short_is_corrupt_not_unknown(self):
        for data in (_jpeg(np.zeros((16, 16, 3), np.uint8))[:10],
                     cv2.imencode(".tiff", np.zeros((16, 16, 3), np.uint8))[1].tobytes()[:6]):
            with pytest.raises(BadImage, match="corrupt or truncated"):
                decode_image(data)

    def test_png_header_claiming_30000_square(self):
        data = bytearray(cv2.imencode(".png", np.zeros((8, 8), np.uint8))[1].tobytes())
        data[16:24] = struct.pack(">II", 30000, 30000)
        with pytest.raises(BadImage, match="too large"):
            decode_image(bytes(data))

    def test_truncated_jpeg_gives_result_or_clear_error(self, dice_reader):
        data = _jpeg(_scene(1, size=(480, 640), n_dice=5).image)
        for cut in (10, 200, len(data) // 2, len(data) - 10):
            try:
                img = decode_image(data[:cut])
            except BadImage as exc:
                assert str(exc)
                continue
            assert isinstance(dice_reader(img), Roll)

    def test_grey_and_rgba_images(self, dice_reader):
        sc = _scene(4, size=(480, 640), n_dice=6)
        grey = cv2.cvtColor(sc.image, cv2.COLOR_BGR2GRAY)
        rgba = cv2.cvtColor(sc.image, cv2.COLOR_BGR2BGRA)
        for data in (cv2.imencode(".png", grey)[1].tobytes(),
                     cv2.imencode(".png", rgba)[1].tobytes()):
            img = decode_image(data)
            assert img.shape == (480, 640, 3)
        for arr in (grey, rgba, grey[..., None]):
            roll = dice_reader(arr)
            assert roll.width == 640 and roll.height == 480
        rgba_roll = dice_reader(cv2.imencode(".png", rgba)[1].tobytes())
        assert len(rgba_roll.dice) == len(dice_reader(sc.image).dice)

    def test_sixteen_bit_png(self):
        img16 = (np.arange(64 * 64 * 3).reshape(64, 64, 3) % 65535).astype(np.uint16)
        out = decode_image(cv2.imencode(".png", img16)[1].tobytes())
        assert out.dtype == np.uint8 and out.shape == (64, 64, 3)

    def test_directory(self, tmp_path):
        with pytest.raises(BadImage):
            read_image_file(tmp_path)


class TestSelectDice:
    def test_drops_not_dice_and_overlaps(self):
        boxes = [(0, 0, 10, 10), (1, 1, 11, 11), (50, 50, 60, 60), (100, 100, 110, 110)]
        probs = np.array([
            [0.1, 0.0, 0.0, 0.9, 0.0, 0.0, 0.0],   # a 3
            [0.3, 0.7, 0.0, 0.0, 0.0, 0.0, 0.0],   # same die, less sure: dropped
            [0.9, 0.1, 0.0, 0.0, 0.0, 0.0, 0.0],   # not a die
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.2, 0.8],   # a 6
        ])
        out = select_dice(boxes, probs)
        assert [(i, v) for i, v, _, _ in out] == [(0, 3), (3, 6)]
        assert out[0][3] == pytest.approx(0.9)

    def test_allowed_faces(self):
        probs = np.array([[0.0, 0.0, 0.0, 0.0, 0.0, 0.4, 0.6]])
        assert select_dice([(0, 0, 9, 9)], probs, faces=(1, 2, 3, 4, 5))[0][1] == 5

    def test_nested_box_is_one_die(self):
        boxes = [(0, 0, 40, 40), (10, 10, 25, 25)]
        probs = np.array([[0.0, 1, 0, 0, 0, 0, 0], [0.05, 0, 1, 0, 0, 0, 0]], float)
        assert len(select_dice(boxes, probs)) == 1

    def test_empty(self):
        assert select_dice([], np.zeros((0, 7))) == []

    def test_a_box_the_detector_is_sure_of_needs_less_of_the_reader(self):
        """A die the reader doubts (0.7) is kept when the detector is sure of its box, and only
        then; a box the reader calls no die stays out however sure the detector is."""
        boxes = [(0, 0, 10, 10), (50, 50, 60, 60), (100, 100, 110, 110)]
        probs = np.array([[0.3, 0, 0, 0.7, 0, 0, 0],    # a doubted 3, surely boxed
                          [0.3, 0, 0, 0, 0.7, 0, 0],    # a doubted 4, weakly boxed
                          [0.6, 0, 0.4, 0, 0, 0, 0]],   # not a die, surely boxed
                         float)
        scores = [0.8, 0.4, 0.9]
        assert select_dice(boxes, probs, min_die=0.9) == []
        out = select_dice(boxes, probs, min_die=0.9, scores=scores, sure_box=0.65,
                          sure_box_die=0.5)
        assert [(i, v) for i, v, _, _ in out] == [(0, 3)]
        assert out[0][3] == pytest.approx(0.7)


class TestSecondLook:
    """The settled tier looks at a photo twice, at two scales; the second look only adds dice
    it is sure of."""

    FIRST = [((10, 10, 30, 30), 3, 0.95, 0.99)]

    def test_only_sure_dice_that_are_new_are_added(self):
        more = [((12, 11, 31, 30), 5, 0.99, 1.0),     # the first look's die again: not twice
                ((60, 5, 80, 25), 2, 0.95, 0.995),     # new and sure: added, above the first
                ((60, 60, 80, 80), 4, 0.95, 0.95),     # not sure it is a die
                ((90, 60, 110, 80), 6, 0.6, 1.0)]      # not sure of its value
        out = add_sure_dice(self.FIRST, more, 0.99, 0.9)
        assert out == [((60, 5, 80, 25), 2, 0.95, 0.995), self.FIRST[0]]

    def test_it_takes_no_die_away_but_a_group_of_its_dice(self):
        assert add_sure_dice(self.FIRST, [], 0.99, 0.9) == self.FIRST
        assert add_sure_dice([], self.FIRST, 0.99, 0.9) == self.FIRST
        # one sure die inside a first-look die is that die seen again, not a group
        one = [((14, 14, 24, 24), 2, 0.95, 1.0)]
        assert add_sure_dice(self.FIRST, one, 0.99, 0.9) == self.FIRST

    def test_a_first_look_die_holding_two_sure_dice_is_a_tray_seen_whole(self):
        """From afar a dice tray with its dice is one die with pips to the detector and the
        reader; the closer look's sure dice in it replace it (docs/vision.md, "Trays seen
        whole")."""
        tray = ((100, 100, 300, 300), 3, 0.6, 0.97)
        other = ((400, 100, 430, 130), 5, 0.99, 1.0)
        inside = [((150, 150, 180, 180), 4, 0.98, 1.0), ((220, 200, 250, 232), 6, 0.97, 0.999)]
        out = add_sure_dice([tray, other], inside + [((401, 101, 431, 131), 5, 0.99, 1.0)],
                            0.99, 0.9)
        assert out == [other, inside[0], inside[1]]
        # the dice in it must be sure dice, small beside it and inside it
        unsure = [inside[0], ((220, 200, 250, 232), 6, 0.5, 1.0)]
        assert add_sure_dice([tray], unsure, 0.99, 0.9) == [tray]
        big = [inside[0], ((120, 120, 230, 230), 1, 0.99, 1.0)]
        assert tray in add_sure_dice([tray], big, 0.99, 0.9)
        across = [inside[0], ((280, 150, 340, 180), 2, 0.99, 1.0)]
        assert tray in add_sure_dice([tray], across, 0.99, 0.9)

    @pytest.mark.parametrize("size, sides, frames, looks", [
        ((480, 640), (20, 40), False, [None, 640]),    # a settled roll or a photo: closer too
        ((480, 640), (20, 40), True, [None]),          # a camera frame: one look
        ((300, 400), (20, 40), False, [None]),         # no pixels for a closer look
        ((1080, 1920), (30, 50), False, [None, 640]),
        ((640, 640), (160, 240), False, [None, 640, 192]),   # big dice: farther too
        ((640, 640), (160, 240), True, [None])])
    def test_which_readers_look_again(self, model_session, monkeypatch, size, sides, frames,
                                      looks):
        seen = []
        real = DieDetector.detect

        def spy(self, bgr, work=None):
            seen.append(work)
            return real(self, bgr, work)

        monkeypatch.setattr(DieDetector, "detect", spy)
        sc = _scene(7, size=size, n_dice=3, side_range=sides)
        DiceReader(model_session, **(CAMERA_FRAME if frames else {}))(sc.image)
        assert seen == looks

    def test_which_dice_of_a_further_look_are_worth_their_further_views(self):
        """Only a die that ``add_sure_dice`` might take once sure of its value: a new die, a
        die small inside a kept one (two such make it a tray seen whole), or the same die as a
        kept one that may be such a tray. A kept die found again is left out however sure."""
        kept = [((10, 10, 30, 30), 3, 0.95, 0.99)]
        again = (12, 11, 31, 30)
        new = (60, 5, 80, 25)
        assert not may_be_added(again, kept, [(again,)])
        assert may_be_added(new, kept, [(again,), (new,)])
        tray = [((100, 100, 300, 300), 3, 0.6, 0.97)]
        inside = [(120, 120, 160, 160), (200, 200, 240, 240)]
        assert may_be_added(inside[0], tray, [(inside[0],)])   # may make it a tray with another
        # a box nearly as big as the tray is the tray found again, unless it holds two dice
        big = (105, 105, 295, 295)
        assert not may_be_added(big, tray, [(big,), (inside[0],)])
        assert may_be_added(big, tray, [(big,)] + [(b,) for b in inside])

    def test_a_further_look_views_only_the_dice_it_may_add(self, monkeypatch):
        """The same rolls as with every die of a further look read in more views, with fewer
        views (docs/vision.md, "Two tiers")."""
        import vision.pipeline as P
        reader = DiceReader()
        viewed = []
        real_views = FaceReader.mean_over_views

        def count(self, first, crops, view=None):
            viewed[-1] += len(crops)
            return real_views(self, first, crops, view)

        monkeypatch.setattr(FaceReader, "mean_over_views", count)
        spared = 0
        samples = Path(__file__).resolve().parents[2] / "sample_images"
        for name in ("qwinto_2.jpg", "twenty_one_1.jpg"):
            photo = read_image_file(samples / name)
            viewed.append(0)
            fast = reader(photo)
            with monkeypatch.context() as m:
                m.setattr(P, "may_be_added", lambda *a: True)
                viewed.append(0)
                every = reader(photo)
            assert fast.dice == every.dice
            spared += viewed[-1] - viewed[-2]
        assert spared > 0

    def test_a_kept_die_boxed_again_apart_from_new_boxes_is_not_read_again(self):
        kept = [(10, 10, 40, 40), (100, 10, 130, 40)]
        boxes = [(11, 11, 41, 41),      # the first die again, alone: its reading is known
                 (98, 9, 131, 42),      # the second die again...
                 (120, 20, 150, 50),    # ...overlapping a new box: both must be read
                 (200, 200, 230, 230),  # a new box apart
                 (9, 12, 39, 41)]       # the first die again, overlapping only its other box
        assert boxed_again(boxes, kept) == {0: 0, 4: 0}
        assert boxed_again(boxes, []) == {} and boxed_again([], kept) == {}
        # a chain of overlaps links a die boxed again to a new box through another box
        chain = [(14, 10, 44, 40), (36, 10, 66, 40), (58, 10, 88, 40)]
        assert boxed_again(chain, [(10, 10, 40, 40), (35, 10, 65, 40)]) == {}
        assert boxed_again(chain[:2], [(10, 10, 40, 40), (35, 10, 65, 40)]) == {0: 0, 1: 1}

    def test_a_kept_box_that_may_be_a_tray_seen_whole_is_read_again(self):
        """Two of the look's boxes small inside a kept box may make it a group of dice that
        ``add_sure_dice`` takes away; then its box boxed again may be what the look adds."""
        tray = [(0, 0, 200, 200)]
        again, one, other = (0, 0, 150, 150), (160, 160, 190, 190), (160, 10, 190, 40)
        assert boxed_again([again, one], tray) == {0: 0}
        assert boxed_again([again, one, other], tray) == {}

    def test_a_further_look_reads_the_same_dice_with_fewer_readings(self, monkeypatch):
        """The settled tier's closer look boxes most kept dice again; those it does not read
        again leave the roll as it is with every box read (docs/vision.md, "Two tiers")."""
        import vision.pipeline as P
        reader = DiceReader()  # the settled tier: both readers, every further look
        counts = []
        real = FaceReader.read_crops

        def count(self, crops, *screened):
            counts[-1] += len(crops)
            return real(self, crops, *screened)

        monkeypatch.setattr(FaceReader, "read_crops", count)
        skipped = 0
        for seed in range(4):
            sc = _scene(40 + seed, size=(480, 640), n_dice=12, side_range=(22, 40))
            counts.append(0)
            fast = reader(sc.image)
            with monkeypatch.context() as m:
                m.setattr(P, "boxed_again", lambda *a, **k: {})
                counts.append(0)
                every = reader(sc.image)
            assert fast.dice == every.dice
            skipped += counts[-1] - counts[-2]
        assert skipped > 0

    def test_boxes_the_first_reader_calls_no_die_cost_the_vote_no_second_reading(self):
        """A box the detector is under ``sure_box`` sure of counts as a die only at
        ``min_die``; where the vote's first reader gives it under ``screen_die`` the larger
        reader does not read it, and the roll is the one every box read by both gives
        (docs/vision.md, "Two tiers")."""
        screened = DiceReader()
        every = DiceReader(screened.session, screen_die=None)
        big = screened.session.sessions[1]
        counted = []

        class Counting:
            def get_inputs(self):
                return big.get_inputs()

            def run(self, outputs, feed):
                counted[-1] += len(next(iter(feed.values())))
                return big.run(outputs, feed)

        screened.session.sessions = (screened.session.sessions[0], Counting())
        spared = 0
        samples = Path(__file__).resolve().parents[2] / "sample_images"
        for name in ("kuh_vadis_1.jpg", "twenty_one_1.jpg", "qwinto_2.jpg"):
            photo = read_image_file(samples / name)
            counted.append(0)
            fast = screened(photo)
            counted.append(0)
            slow = every(photo)
            assert fast.dice == slow.dice
            spared += counted[-1] - counted[-2]
        assert spared > 0

    def test_big_dice_in_a_small_photo_are_found_by_the_far_look(self, model_session):
        found = {True: 0, False: 0}
        dice = 0
        for seed in range(12):
            sc = _scene(100 + seed, size=(640, 640), n_dice=2, side_range=(170, 230))
            dice += len(sc.dice)
            for far in (True, False):
                roll = DiceReader(model_session, far_look=192 if far else None)(sc.image)
                pairs = greedy_match([(d.box, "die") for d in sc.dice], [d.box for d in roll.dice])
                found[far] += len(pairs)
        # 11 of 15 against 6 of 15 (27 Nov 2026); bench/vision_scales.py's row: 22 of 23
        assert found[True] >= 0.7 * dice and found[True] >= found[False] + 3


class TestWholeRead:
    def test_fake_session_pipeline(self, fake_session):
        reader = DiceReader(fake_session)
        sc = _scene(2, size=(480, 640), n_dice=4)
        roll = reader(sc.image)
        assert all(d.value == 1 for d in roll.dice)
        assert roll.find_ms >= 0 and roll.read_ms >= 0 and roll.elapsed_ms >= roll.find_ms
        d = roll.to_dict()
        assert set(d) == {"width", "height", "dice", "elapsed_ms", "stage_ms"}

    def test_empty_table(self, dice_reader):
        rng = np.random.default_rng(9)
        false = sum(len(dice_reader(render_scene(rng, size=(480, 640), n_dice=0).image).dice)
                    for _ in range(5))
        assert false <= 1
        assert dice_reader(np.full((480, 640, 3), 180, np.uint8)).dice == ()

    def test_forty_dice(self, dice_reader):
        sc = _scene(40, size=(1080, 1440), n_dice=40, side_range=(45, 55))
        assert len(sc.dice) >= 35
        t0 = time.perf_counter()
        roll = dice_reader(sc.image)
        assert time.perf_counter() - t0 < 10
        pairs = greedy_match([(d.box, "die") for d in sc.dice], [d.box for d in roll.dice])
        assert len(pairs) >= 0.85 * len(sc.dice)
        right = sum(sc.dice[i].value == roll.dice[j].value for i, j in pairs)
        assert right >= 0.85 * len(pairs)

    def test_reads_synthetic_scenes(self, dice_reader):
        rng = np.random.default_rng(123)
        total = found = right = 0
        for _ in range(12):
            sc = render_scene(rng, size=(480, 640), n_dice=int(rng.integers(1, 9)))
            roll = dice_reader(sc.image)
            pairs = greedy_match([(d.box, "die") for d in sc.dice], [d.box for d in roll.dice])
            total += len(sc.dice)
            found += len(pairs)
            right += sum(sc.dice[i].value == roll.dice[j].value for i, j in pairs)
        # a guard against a broken pipeline; the measured figures come from bench/vision_accuracy.py
        assert found / total >= 0.85
        assert right / found >= 0.9

    def test_game_palette_colours(self, model_session):
        reader = DiceReader(model_session, palette=PALETTES["qwinto"])
        rng = np.random.default_rng(77)
        n = ok = 0
        for _ in range(6):
            sc = render_scene(rng, size=(480, 640), n_dice=6,
                              colours=["orange", "yellow", "purple"])
            roll = reader(sc.image)
            for i, j in greedy_match([(d.box, "die") for d in sc.dice], [d.box for d in roll.dice]):
                n += 1
                ok += sc.dice[i].colour == roll.dice[j].colour
        assert n > 20 and ok / n >= 0.95

    def test_a_reader_for_dice_without_colours_names_none_and_reads_the_same_dice(
            self, dice_reader):
        """A Knister or Kuh Vadis table's dice do not differ by colour: its reader skips
        the colour stage, and finds and reads the same dice as a reader that names them."""
        sc = _scene(12, size=(480, 640), n_dice=6)
        named = dice_reader(sc.image)
        plain = replace(dice_reader, name_colours=False)(sc.image)
        assert len(named.dice) >= 4
        assert [(d.box, d.value) for d in plain.dice] == [(d.box, d.value) for d in named.dice]
        assert all(d.colour is None and d.colour_confidence == 1.0 and d.colour_bgr is None
                   for d in plain.dice)
        assert plain.colour_ms == 0.0 < named.colour_ms
        assert plain.to_dict()["dice"][0]["colour"] is None
        with pytest.raises(ValueError, match="names no colours"):
            replace(dice_reader, name_colours=False).calibrate(sc.image)

    def test_encoded_bytes_and_draw(self, dice_reader):
        sc = _scene(5, size=(480, 640), n_dice=3)
        roll = dice_reader(_jpeg(sc.image))
        drawn = roll.draw(sc.image)
        assert (drawn.shape == sc.image.shape and not np.array_equal(drawn, sc.image)
                or not roll.dice)

    def test_calibration_from_photo(self, dice_reader):
        sc = _scene(8, size=(480, 640), n_dice=8)
        cal = dice_reader.calibrate(sc.image)
        assert all(0.5 <= g <= 2 for g in cal.gains)
        with pytest.raises(ValueError):
            dice_reader.calibrate(np.full((100, 100, 3), 128, np.uint8))


class TestQuarterTurns:
    """Each chosen die is read in its four quarter turns; the value comes from the mean."""

    @staticmethod
    def _image_with_one_die():
        img = np.full((120, 120, 3), (60, 120, 60), np.uint8)
        img[40:80, 40:80] = 235
        return img

    def test_the_mean_of_four_turns_decides(self, make_fake_session):
        # the first reading says 3 (weakly), the three turned readings say 5: the mean says 5
        calls = []

        def logits(x):
            calls.append(len(x))
            row = [-4, 0, 0, 2.0, 0, 0, 0] if len(calls) == 1 else [-4, 0, 0, 0, 0, 3.0, 0]
            return np.tile(np.array(row, np.float32), (len(x), 1))

        session = make_fake_session(logits)
        # the ink views (tested in test_read.py, test_upright.py) left out
        roll = DiceReader(session, turns=True, ink_views=False)(self._image_with_one_die())
        assert roll.values and set(roll.values) == {5}
        assert calls[-1] == 3 * len(roll.dice)  # one batch of the three turns of the chosen dice
        weak_three = np.array([-4, 0, 0, 2.0, 0, 0, 0], np.float32)
        once = DiceReader(make_fake_session(lambda x: np.tile(weak_three, (len(x), 1))),
                          turns=False)
        assert set(once(self._image_with_one_die()).values) == {3}

    def test_turned_crops_are_the_quarter_turns(self, make_fake_session):
        seen = []

        def logits(x):
            seen.append(x.copy())  # a "1", 80 % sure: under turn_below, so it is turned
            return np.tile(np.array([-4, 3, 0, 0, 0, 0, 0], np.float32), (len(x), 1))

        img = self._image_with_one_die()
        img[45:50, 45:50] = 0  # a mark in one corner tells the turns apart
        DiceReader(make_fake_session(logits), turns=True, ink_views=False)(img)
        turned = seen[-1]
        n = len(turned) // 3
        assert n >= 1 and len(turned) == 3 * n
        # the batch holds the turns by 1, 2 and 3 quarters:
        # each is the previous one turned once more
        assert not np.allclose(turned[0], turned[n], atol=1e-3)
        assert np.allclose(np.rot90(turned[0], 1, axes=(1, 2)), turned[n], atol=1e-5)
        assert np.allclose(np.rot90(turned[0], 2, axes=(1, 2)), turned[2 * n], atol=1e-5)


def test_a_die_has_its_rotated_rectangle(dice_reader):
    sc = _scene(11, size=(480, 640), n_dice=4)
    roll = dice_reader(sc.image)
    assert roll.dice
    for d in roll.dice:
        (cx, cy), (w, h), angle = d.rotated
        x0, y0, x1, y1 = d.box
        assert x0 - 2 <= cx <= x1 + 2 and y0 - 2 <= cy <= y1 + 2
        assert 0 <= angle < 90 and w > 0 and h > 0
        rb = d.to_dict()["rotated_box"]
        assert set(rb) == {"centre", "size", "angle"}


def test_without_outlines_the_dice_are_the_same_but_have_no_rotated_rectangle(dice_reader):
    """Camera frames skip the outlines (companion/reader.py): nothing else may change."""
    from dataclasses import replace

    sc = _scene(11, size=(480, 640), n_dice=4)
    full, bare = dice_reader(sc.image), replace(dice_reader, outlines=False)(sc.image)
    assert bare.dice and all(d.rotated is None for d in bare.dice)
    assert "rotated_box" not in bare.dice[0].to_dict()
    assert [replace(d, rotated=None) for d in full.dice] == list(bare.dice)


def test_read_faces_of_known_boxes(dice_reader):
    sc = _scene(5, size=(480, 640), n_dice=5)
    read = dice_reader.read_faces(sc.image, [d.box for d in sc.dice])
    assert len(read) == len(sc.dice)
    assert sum(v == d.value for (v, _), d in zip(read, sc.dice)) >= len(sc.dice) - 1
    assert all(0 <= c <= 1 for _, c in read)
    assert dice_reader.read_faces(sc.image, []) == []


def test_a_sure_first_reading_is_not_read_again(make_fake_session):
    calls = []

    def logits(x):
        calls.append(len(x))
        return np.tile(np.array([-9, 0, 0, 0, 0, 12.0, 0], np.float32), (len(x), 1))  # a sure 5

    img = TestQuarterTurns._image_with_one_die()
    roll = DiceReader(make_fake_session(logits), turns=True)(img)
    assert roll.dice and set(roll.values) == {5}
    assert len(calls) == 1  # the candidates once, no quarter turns


class TestSkipSureDuplicates:
    """``skip_sure_duplicates`` (camera frames): the boxes around a die read surely are not read
    again."""

    @staticmethod
    def _rows(make_fake_session, row):
        calls = []

        def logits(x):
            calls.append(len(x))
            return np.tile(np.array(row, np.float32), (len(x), 1))
        return calls, make_fake_session(logits)

    def test_a_sure_die_s_other_boxes_are_not_read(self, make_fake_session):
        img = TestQuarterTurns._image_with_one_die()
        calls, session = self._rows(make_fake_session, [-9, 0, 0, 0, 0, 12.0, 0])  # a sure 5
        reader = DiceReader(session, turns=False, skip_sure_duplicates=True, find_with="opencv")
        boxes = reader.finder(img).boxes
        assert len(boxes) >= 2  # the OpenCV finder proposes several boxes around a die
        roll = reader(img)
        assert set(roll.values) == {5} and len(roll.dice) == 1
        assert sum(calls) < len(boxes)

    def test_an_unsure_die_s_other_boxes_are_read(self, make_fake_session):
        img = TestQuarterTurns._image_with_one_die()
        calls, session = self._rows(make_fake_session, [-4, 0, 0, 2.0, 0, 1.5, 0])  # a die, 3 or 5
        reader = DiceReader(session, turns=False, skip_sure_duplicates=True, find_with="opencv")
        boxes = reader.finder(img).boxes
        reader(img)
        assert sum(calls) == len(boxes)

    def test_a_scene_is_read_right_with_fewer_readings(self, dice_reader):
        counted = []

        class Counting:
            def __init__(self, session):
                self.session = session

            def get_inputs(self):
                return self.session.get_inputs()

            def run(self, outputs, feeds):
                counted.append(len(next(iter(feeds.values()))))
                return self.session.run(outputs, feeds)

        reader = DiceReader(Counting(dice_reader.session), turns=False, skip_sure_duplicates=True)
        right = total = candidates = 0
        for seed in (31, 32, 33):
            sc = _scene(seed, size=(480, 640), n_dice=6)
            roll = reader(sc.image)
            candidates += roll.candidates
            right += sorted(roll.values) == sorted(d.value for d in sc.dice)
            total += 1
        assert right >= total - 1
        assert sum(counted) < candidates


class TestLargePhotos:
    """A large JPEG is decoded at a reduced size when its dice stay readable there."""

    def test_a_large_jpeg_decodes_at_half_size_and_a_small_one_whole(self):
        from vision.pipeline import decode_reduced
        big = np.zeros((2000, 3400, 3), np.uint8)
        img, factor = decode_reduced(_jpeg(big))
        assert factor == 2 and img.shape == (1000, 1700, 3)
        img, factor = decode_reduced(_jpeg(np.zeros((480, 640, 3), np.uint8)))
        assert factor == 1 and img.shape == (480, 640, 3)
        png = cv2.imencode(".png", big)[1].tobytes()
        assert decode_reduced(png)[1] == 1

    def test_reduced_decoding_refuses_what_decoding_refuses(self):
        from vision.pipeline import decode_reduced
        with pytest.raises(BadImage):
            decode_reduced(b"")
        with pytest.raises(BadImage):
            decode_reduced(_jpeg(np.zeros((2000, 3400, 3), np.uint8))[:600])

    def test_big_dice_are_read_on_the_reduced_photo_in_the_photo_s_coordinates(self, dice_reader):
        sc = _scene(31, size=(1800, 3400), n_dice=5, side_range=(150, 220))
        data = _jpeg(sc.image)
        roll = dice_reader(data)
        whole = dice_reader(decode_image(data))
        assert (roll.width, roll.height) == (3400, 1800)
        assert sorted(roll.values) == sorted(whole.values) == sorted(d.value for d in sc.dice)
        pairs = greedy_match([(d.box, "die") for d in sc.dice], [d.box for d in roll.dice])
        assert len(pairs) == len(sc.dice)

    def test_small_dice_in_a_large_photo_are_read_on_the_whole_photo(self, dice_reader,
                                                                      monkeypatch):
        sc = _scene(32, size=(1800, 3400), n_dice=6, side_range=(20, 26))
        data = _jpeg(sc.image)
        read_sizes = []
        real = DiceReader._read_candidates

        def spy(self, bgr, boxes, *scores):
            read_sizes.append(bgr.shape[:2])
            return real(self, bgr, boxes, *scores)

        monkeypatch.setattr(DiceReader, "_read_candidates", spy)
        roll = dice_reader(data)
        # found on the reduced copy, read on the whole photo (the second look's boxes too)
        assert read_sizes and set(read_sizes) == {(1800, 3400)}
        whole = dice_reader(decode_image(data))
        pairs = greedy_match([(d.box, "die") for d in whole.dice], [d.box for d in roll.dice])
        assert len(whole.dice) >= 4 and len(pairs) == len(whole.dice) == len(roll.dice)
        # the same dice read alike; a die of 20 px that either reading is unsure of may differ,
        # as its box found on the reduced copy is not quite the whole photo's box
        for i, j in pairs:
            a, b = whole.dice[i], roll.dice[j]
            assert a.value == b.value or min(a.value_confidence, b.value_confidence) < 0.5


def _with_exif_orientation(jpeg: bytes, orientation: int, big_endian: bool = False) -> bytes:
    """``jpeg`` with an EXIF segment that holds only the orientation tag, as a phone writes it."""
    e = ">" if big_endian else "<"
    tiff = ((b"MM" if big_endian else b"II") + struct.pack(e + "HI", 42, 8)
            + struct.pack(e + "H", 1) + struct.pack(e + "HHIHH", 0x0112, 3, 1, orientation, 0)
            + struct.pack(e + "I", 0))
    app1 = b"Exif\x00\x00" + tiff
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + jpeg[2:]


class TestExifOrientation:
    """A phone stores a portrait photo as its sensor reads it, on its side, and writes in its EXIF
    how to turn it. The reader reads the photo as it is seen, and gives boxes in its pixels."""

    @pytest.mark.parametrize("big_endian", [False, True])
    def test_each_orientation_is_turned_as_opencv_turns_it_for_display(self, big_endian):
        from vision.pipeline import exif_orientation
        rng = np.random.default_rng(3)
        img = cv2.resize((rng.random((6, 10, 3)) * 255).astype(np.uint8), (100, 60),
                         interpolation=cv2.INTER_NEAREST)
        plain = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 100])[1].tobytes()
        assert exif_orientation(plain) == 1
        for o in range(1, 9):
            data = _with_exif_orientation(plain, o, big_endian)
            assert exif_orientation(data) == o
            seen = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
            assert np.array_equal(decode_image(data), seen), o

    def test_a_broken_exif_segment_reads_as_stored(self):
        from vision.pipeline import exif_orientation
        plain = _jpeg(np.zeros((40, 60, 3), np.uint8))
        broken = _with_exif_orientation(plain, 6)
        at = broken.index(b"Exif") + 6
        broken = broken[:at] + b"XX" + broken[at + 2:]  # no TIFF byte order
        assert exif_orientation(broken) == 1
        assert decode_image(broken).shape == (40, 60, 3)

    @pytest.mark.parametrize("size", [(480, 640), (1800, 3400)])
    def test_a_photo_stored_on_its_side_reads_as_the_upright_photo(self, dice_reader, size):
        sc = _scene(33, size=size, n_dice=5, side_range=(40, 60) if size[0] < 1000 else (150, 220))
        upright = dice_reader(_jpeg(sc.image))
        # orientation 6: the stored pixels are seen turned a quarter clockwise
        stored = _with_exif_orientation(_jpeg(np.ascontiguousarray(np.rot90(sc.image, 1))), 6)
        roll = dice_reader(stored)
        assert (roll.width, roll.height) == (size[1], size[0])
        assert sorted(roll.values) == sorted(upright.values) == sorted(d.value for d in sc.dice)
        pairs = greedy_match([(d.box, "die") for d in sc.dice], [d.box for d in roll.dice])
        assert len(pairs) == len(sc.dice)

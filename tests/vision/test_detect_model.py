"""The shipped detector (models/dice_detect.onnx): about one box per die, on synthetic scenes
and on real validation photos; and how its say combines with the face reader's.

The full figures come from bench/vision_finder.py --detector and bench/vision_accuracy.py
(docs/vision.md); the thresholds here sit below them and catch a broken model or pipeline."""
from __future__ import annotations

import numpy as np
import pytest

from vision.detect import DieDetector, load_detector
from vision.training.metrics import greedy_match
from vision.pipeline import DiceReader, read_image_file
from vision.training.synth import render_scene


@pytest.fixture(scope="module")
def detector():
    return DieDetector(load_detector(threads=1))


def test_every_die_of_synthetic_scenes_gets_one_box(detector):
    rng = np.random.default_rng(4242)
    dice = found = boxes = 0
    for _ in range(12):
        scene = render_scene(rng, size=(480, 640), n_dice=int(rng.integers(1, 12)))
        result = detector(scene.image)
        pairs = greedy_match([(d.box, "die") for d in scene.dice], list(result.boxes))
        dice += len(scene.dice)
        found += len(pairs)
        boxes += len(result.boxes)
    assert found / dice >= 0.95
    # about a proposal per die (1.4 and 1.7 a die on these scenes for the detectors of 6ea7c57 and
    # of the renders), not ten (the OpenCV finder's ~90 per photo)
    assert boxes <= 2 * dice


def test_small_dice_in_a_4k_photo_are_found(detector):
    """40-60 px dice in a 3840 x 2160 photo are 4-6 px on the 384-px working copy: without the
    closer look a third of them were missed (bench/vision_scales.py)."""
    rng = np.random.default_rng(808)
    dice = found = 0
    for _ in range(3):
        scene = render_scene(rng, size=(2160, 3840), n_dice=6, side_range=(40, 60))
        pairs = greedy_match([(d.box, "die") for d in scene.dice],
                             list(detector(scene.image).boxes))
        dice += len(scene.dice)
        found += len(pairs)
    assert found >= dice - 1


def test_an_empty_table_has_no_confident_die(detector):
    rng = np.random.default_rng(5)
    scene = render_scene(rng, size=(480, 640), n_dice=0)
    _, scores = detector.detect(scene.image)
    assert (scores < 0.5).all()


@pytest.mark.parametrize("set_name", ["byler_d6_train", "matteop65"])
def test_real_validation_photos(set_name, data_root, detector):
    from vision.training.data import load_folder
    images = [im for im in load_folder(data_root / set_name) if im.validation][:20]
    total = found = 0
    for im in images:
        result = detector(read_image_file(im.path))
        found += len(greedy_match([(d.box, d.box_kind) for d in im.dice], list(result.boxes)))
        total += len(im.dice)
    assert found / total >= 0.95


def test_both_finders_read_a_scene(model_session):
    rng = np.random.default_rng(31)
    scene = render_scene(rng, size=(480, 640), n_dice=5)
    for find_with in ("detector", "opencv"):
        roll = DiceReader(model_session, find_with=find_with)(scene.image)
        pairs = greedy_match([(d.box, "die") for d in scene.dice], [d.box for d in roll.dice])
        assert len(pairs) >= 4, find_with
        assert sum(scene.dice[i].value == roll.dice[j].value for i, j in pairs) >= len(pairs) - 1

import numpy as np

from vision.training.synth import PIP_LAYOUT, SYNTH_COLOURS, render_scene


def test_same_seed_same_scene():
    a = render_scene(np.random.default_rng(42), size=(200, 300), n_dice=4)
    b = render_scene(np.random.default_rng(42), size=(200, 300), n_dice=4)
    assert np.array_equal(a.image, b.image) and a.dice == b.dice


def test_labels_are_sane():
    rng = np.random.default_rng(1)
    for _ in range(5):
        sc = render_scene(rng, size=(240, 320))
        assert sc.image.shape == (240, 320, 3) and sc.image.dtype == np.uint8
        for d in sc.dice:
            assert 1 <= d.value <= 6
            assert d.colour in SYNTH_COLOURS
            x0, y0, x1, y1 = d.box
            assert 0 <= x0 < x1 <= 320 and 0 <= y0 < y1 <= 240
            assert len(d.top) == 4


def test_colour_restriction_and_empty_table():
    sc = render_scene(np.random.default_rng(2), size=(200, 200), n_dice=5, colours=["orange"])
    assert all(d.colour == "orange" for d in sc.dice)
    assert render_scene(np.random.default_rng(2), size=(200, 200), n_dice=0).dice == ()


def test_pip_layouts():
    assert [len(PIP_LAYOUT[v]) for v in range(1, 7)] == [1, 2, 3, 4, 5, 6]


def test_a_second_photo_under_the_same_light():
    """Calibration is learned from one photo and used for the next: a scene can be rendered under
    another scene's colour cast, and asking for a scene's own light changes nothing in it."""
    first = render_scene(np.random.default_rng(5), size=(240, 320), n_dice=3)
    gains, gamma = first.light
    assert len(gains) == 3 and all(0.8 <= g <= 1.2 for g in gains) and 0.7 <= gamma <= 1.4
    again = render_scene(np.random.default_rng(5), size=(240, 320), n_dice=3, light=first.light)
    assert np.array_equal(again.image, first.image) and again.light == first.light
    other = render_scene(np.random.default_rng(6), size=(240, 320), n_dice=3, light=first.light)
    assert other.light == first.light
    assert render_scene(np.random.default_rng(6), size=(240, 320), n_dice=3).light != first.light

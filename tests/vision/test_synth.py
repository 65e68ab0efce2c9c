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


def test_compact_pips_sit_nearer_the_centre():
    """``compact_pips``: dice whose pips are nearer the centre than the corners (a black die of
    tomitomi3_crops has such a 2); off, the scenes are the same draw for draw."""
    from vision.training.synth import _draw_die

    def reach(value, compact, seed):  # how far the pips' red reaches from the die's centre
        img = np.full((200, 200, 3), 120, np.float32)
        _draw_die(np.random.default_rng(seed), img, 100.0, 100.0, 120.0, value,
                  np.array([240, 240, 240], np.float32), np.array([0, 0, 255], np.float32),
                  "plain", np.zeros(2, np.float32), compact)
        ys, xs = np.nonzero((img[..., 2] > 200) & (img[..., 1] < 60))
        return np.hypot(xs - 100, ys - 100).max()

    for value in (2, 3, 4, 5):
        for seed in range(5):
            assert reach(value, 1.0, seed) < reach(value, 0.0, seed)
    a = render_scene(np.random.default_rng(3), size=(200, 300), n_dice=4)
    b = render_scene(np.random.default_rng(3), size=(200, 300), n_dice=4, compact_pips=0.0)
    assert np.array_equal(a.image, b.image)


def test_hue_pips_differ_by_hue_not_lightness():
    """``hue_contrast_pip``: pips near the body's lightness and far from it in colour (yellow on
    orange, red on smoky black), which the other pip colours never are; off, the scenes are the
    same draw for draw."""
    from vision.colour import bgr_to_lab as lab
    from vision.training.synth import hue_contrast_pip

    rng = np.random.default_rng(0)
    found = 0
    for body in ([0, 120, 240], [20, 20, 35], [200, 230, 240], [150, 60, 90], [40, 140, 40]):
        for _ in range(20):
            pip = hue_contrast_pip(rng, np.array(body, np.float32))
            a, b = lab(body), lab(pip)
            if abs(a[0] - b[0]) <= 15.5:
                found += 1
                assert abs(a[0] - b[0]) >= 2.5 and np.linalg.norm(a - b) >= 29.5
            else:  # no colourful pip near this lightness: white or black, as any other die
                assert tuple(pip) in ((255.0,) * 3, (0.0,) * 3)
    assert found >= 80
    a = render_scene(np.random.default_rng(3), size=(200, 300), n_dice=4)
    b = render_scene(np.random.default_rng(3), size=(200, 300), n_dice=4, hue_pips=0.0)
    c = render_scene(np.random.default_rng(3), size=(200, 300), n_dice=4, hue_pips=1.0)
    assert np.array_equal(a.image, b.image) and not np.array_equal(a.image, c.image)


def test_see_through_dice_show_their_hidden_faces_pips_faintly():
    """``see_through``: a translucent die shows its hidden faces' pips through the top face,
    the bottom face's always, fainter than its own pips and only inside the top face; off, the
    scenes are the same draw for draw."""
    from vision.training.synth import PIP_LAYOUT, _see_through_pips

    half = 60.0
    top = np.array([[40, 40], [160, 40], [160, 160], [40, 160]], np.float32)
    face, pip = np.array([60, 60, 60], np.float32), np.array([0, 0, 255], np.float32)
    for value in range(1, 7):
        for seed in range(3):
            img = np.full((200, 200, 3), 200, np.float32)
            img[40:160, 40:160] = face
            before = img.copy()
            _see_through_pips(np.random.default_rng(seed), img, top, top,
                              np.eye(2, dtype=np.float32), 100.0, 100.0, half, 2 * half, value,
                              pip, face, np.zeros(2, np.float32))
            redder = img[..., 2] - before[..., 2]
            assert np.all(redder[:38] < 1) and np.all(redder[:, :38] < 1)  # inside the face
            assert 10 < redder.max() < 0.6 * (255 - 60)  # seen, but fainter than a pip
            # the bottom face's pips: a faint spot at each (mirrored, any quarter turn, shifted)
            spots = int(((redder > 0.5 * redder.max()).sum()))
            assert spots > 0.3 * len(PIP_LAYOUT[7 - value]) * np.pi * (0.07 * 2 * half) ** 2
    a = render_scene(np.random.default_rng(3), size=(200, 300), n_dice=4)
    b = render_scene(np.random.default_rng(3), size=(200, 300), n_dice=4, see_through=0.0)
    c = render_scene(np.random.default_rng(3), size=(200, 300), n_dice=4, see_through=1.0)
    assert np.array_equal(a.image, b.image) and not np.array_equal(a.image, c.image)



def test_logo_ones_print_one_centred_emblem_instead_of_the_pip():
    """``logo_ones``: a die showing 1 carries a printed emblem (a spiral, letters, a star) in
    place of its pip, as many makers' dice do: centred, at most two pieces, larger than a pip
    and clear of the face's edge; only ones get it; off, the scenes are the same draw for
    draw."""
    import cv2

    from vision.training.synth import _emblem_mask

    n = 64
    for seed in range(60):
        m = _emblem_mask(np.random.default_rng(seed), n) > 0.5
        ys, xs = np.nonzero(m)
        assert len(xs) > np.pi * (0.1 * n) ** 2          # more ink than a pip of a tenth
        assert np.hypot(xs.mean() - n / 2, ys.mean() - n / 2) < 0.15 * n   # centred
        assert np.hypot(xs - n / 2, ys - n / 2).max() < 0.5 * n          # clear of the edge
        count, _, stats, _ = cv2.connectedComponentsWithStats(m.astype(np.uint8))
        # at most two pieces of any size (two letters; a ring and its disc): one emblem, not
        # a face of spread pips
        assert sum(stats[1:, cv2.CC_STAT_AREA] > 0.1 * len(xs)) <= 2
    a = render_scene(np.random.default_rng(3), size=(200, 300), n_dice=6)
    b = render_scene(np.random.default_rng(3), size=(200, 300), n_dice=6, logo_ones=0.0)
    assert np.array_equal(a.image, b.image)
    changed = 0
    for seed in range(30):
        c = render_scene(np.random.default_rng(seed), size=(200, 300), n_dice=3)
        d = render_scene(np.random.default_rng(seed), size=(200, 300), n_dice=3, logo_ones=1.0)
        if all(x.value != 1 for x in c.dice):   # no one: nothing to print
            assert np.array_equal(c.image, d.image)
        elif c.dice[0].value == 1:   # the first die a one: the scene differs from there
            changed += 1
            assert not np.array_equal(c.image, d.image)
            assert d.dice[0].value == 1
    assert changed > 0

"""The photoreal renderer's labels: up faces, boxes, the camera, scene sampling.

The geometry and sampling are plain numpy and tested here always; the tiny render at the end
needs Blender's Python module (``bpy==5.0.1``, which pins numpy<2 and so lives in its own
environment): it runs in-process when ``bpy`` imports, else with the interpreter named by
``DICE_RENDER_PYTHON``, else it is skipped with that reason.
"""
from __future__ import annotations

import csv
import importlib.util
import math
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from vision.training.scene3d import (FACE_NORMALS, CameraSpec, PostSpec, die_box,
                                      die_surface_points, finish, label_rows, project,
                                      sample_scene, squares_overlap, top_face_corners,
                                      up_rotation, up_value, _square)

ROOT = Path(__file__).resolve().parents[2]


class TestUpFace:
    @pytest.mark.parametrize("value", range(1, 7))
    @pytest.mark.parametrize("yaw", [0.0, 0.7, 2.0, 4.5])
    def test_the_face_turned_up_is_the_label(self, value, yaw):
        assert up_value(up_rotation(value, yaw)) == value

    def test_opposite_faces_sum_to_seven(self):
        for v, n in FACE_NORMALS.items():
            opposite = next(u for u, m in FACE_NORMALS.items()
                            if np.allclose(np.array(m), -np.array(n)))
            assert v + opposite == 7

    def test_a_die_turned_by_a_quarter_shows_another_face(self):
        rot = up_rotation(1, 0.0)
        quarter = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]], float)  # a quarter turn about x
        assert up_value(quarter @ rot) != 1


def _top_down(width=320, height=240, height_m=0.3, lens=30.0) -> CameraSpec:
    return CameraSpec(position=(0.0, 0.0, height_m), target=(0.0, 0.0, 0.0), lens_mm=lens,
                      width=width, height=height, fstop=0.0, roll=0.0)


class TestCamera:
    def test_the_target_is_the_picture_centre(self):
        cam = CameraSpec(position=(0.2, -0.1, 0.35), target=(0.01, 0.02, 0.0), lens_mm=26,
                         width=640, height=480, fstop=0, roll=0.3)
        x, y = project(cam, np.array([cam.target]))[0]
        assert abs(x - 320) < 1e-6 and abs(y - 240) < 1e-6

    def test_pinhole_scale(self):
        cam = _top_down(lens=36.0)  # focal length in pixels = width
        x, _ = project(cam, np.array([(0.03, 0.0, 0.0)]))[0]
        assert x - 160 == pytest.approx(320 * 0.03 / 0.3)

    def test_a_die_seen_from_above_has_its_size_in_pixels(self):
        spec = sample_scene(0, 0, (320, 240))
        die = replace(spec.dice[0], position=(0.0, 0.0, spec.dice[0].size / 2),
                      rotation=tuple(map(tuple, up_rotation(3, 0.0))))
        cam = _top_down(lens=36.0)
        x0, y0, x1, y1 = die_box(cam, die)
        top_side = 320 * die.size / (0.3 - die.size)  # the top face, nearest the camera
        assert x1 - x0 == pytest.approx(top_side, rel=0.02)
        assert (x0 + x1) / 2 == pytest.approx(160, abs=0.01)

    def test_the_box_holds_the_top_face(self):
        spec = sample_scene(3, 7, (640, 480))
        for die in spec.dice:
            x0, y0, x1, y1 = die_box(spec.camera, die)
            corners = top_face_corners(die)  # the face's square; the rounding cuts its corners
            centre = corners.mean(0)
            top = project(spec.camera, centre + (corners - centre) * (1 - 2 * die.radius))
            assert (top[:, 0] >= x0 - 1e-6).all() and (top[:, 0] <= x1 + 1e-6).all()
            assert (top[:, 1] >= y0 - 1e-6).all() and (top[:, 1] <= y1 + 1e-6).all()


class TestSampling:
    def test_the_same_seed_and_index_give_the_same_scene(self):
        assert sample_scene(4, 11) == sample_scene(4, 11)
        assert sample_scene(4, 11) != sample_scene(4, 12)

    def test_a_tilt_range_moves_the_camera_and_nothing_else(self):
        """``--tilt 50,72``: steeper phone views of the same scenes; the default draws stay."""
        assert sample_scene(4, 11, tilt=None) == sample_scene(4, 11)
        for index in range(10):
            spec = sample_scene(4, index, tilt=(50, 72))
            cam = spec.camera
            back = np.subtract(cam.position, cam.target)
            tilt = np.degrees(np.arccos(back[2] / np.linalg.norm(back)))
            assert 50 - 1e-6 <= tilt <= 72 + 1e-6
            assert spec.dice == sample_scene(4, index).dice

    def test_a_die_size_range_sets_the_dice_size_in_the_picture(self):
        """``--die-px 0.025,0.05``: scenes seen from farther, so that their dice are 2.5-5 % of
        the picture's longer side (a tray seen whole); without it the scenes are as before."""
        assert sample_scene(4, 11, die_px=None) == sample_scene(4, 11)
        for index in range(10):
            spec = sample_scene(4, index, die_px=(0.025, 0.05))
            cam = spec.camera
            sides = [max(b[2] - b[0], b[3] - b[1]) for b in (die_box(cam, d) for d in spec.dice)]
            # the die_px draw sizes the scene's typical die seen from above; a tilted camera
            # sees the near dice larger and the far ones smaller, each die's size varies
            assert 0.6 * 0.025 * 640 <= float(np.median(sides)) <= 1.6 * 0.05 * 640

    def test_a_surface_list_sets_the_table_and_nothing_else(self):
        """``--surfaces tray_hex,felt``: only those tables, the scene's other draws the same;
        an unknown table is an error."""
        kinds = set()
        for index in range(30):
            spec, usual = sample_scene(4, index, surfaces=("tray_hex", "felt")), \
                sample_scene(4, index)
            kinds.add(spec.surface.kind)
            assert spec.dice == usual.dice and spec.camera == usual.camera
        assert kinds == {"tray_hex", "felt"}
        with pytest.raises(ValueError, match="surfaces"):
            sample_scene(4, 0, surfaces=("lava",))

    def test_dice_and_table_of_chosen_colours(self):
        """``--colours green,white --table-colour red``: the issue's hard case, green and
        white dice on red felt; the table's other draws stay; unknown names are errors."""
        for index in range(10):
            spec = sample_scene(4, index, colours=("green", "white"), table_colour="red")
            assert [d.colour for d in spec.dice] == ["green", "white"] * (len(spec.dice) // 2) \
                + ["green"] * (len(spec.dice) % 2)
            assert all(d.material == "opaque" for d in spec.dice)
            b, g, r = spec.surface.colour_bgr
            assert r > 1.5 * max(b, g)
            red, usual = sample_scene(4, index, table_colour="red"), sample_scene(4, index)
            assert red.dice == usual.dice and red.camera == usual.camera
            assert replace(red.surface, colour_bgr=usual.surface.colour_bgr) == usual.surface
        with pytest.raises(ValueError, match="colours"):
            sample_scene(4, 0, colours=("mauve",))
        with pytest.raises(ValueError, match="table_colour"):
            sample_scene(4, 0, table_colour="mauve")
        with pytest.raises(ValueError, match="colours"):
            sample_scene(4, 0, dice_kind="kuh_vadis", colours=("green",))

    @pytest.mark.parametrize("index", range(40))
    def test_dice_rest_on_the_table_or_on_a_die_and_never_overlap(self, index):
        spec = sample_scene(9, index, (480, 360), n_dice=(2, 40))
        assert 1 <= len(spec.dice) <= 40
        on_table = []
        for d in spec.dice:
            assert 0.012 <= d.size <= 0.022
            bottom = float(die_surface_points(d)[:, 2].min())
            assert bottom == pytest.approx(0.0, abs=1e-4) or any(
                bottom == pytest.approx(o.position[2] + o.size / 2, abs=1e-4) for o in spec.dice)
            if bottom < 1e-4:
                rot = np.array(d.rotation)
                yaw = math.atan2(rot[1, 0], rot[0, 0])
                on_table.append(_square(d.position[0], d.position[1], d.size, yaw))
        for i in range(len(on_table)):
            for j in range(i + 1, len(on_table)):
                assert not squares_overlap(on_table[i] * 0.999, on_table[j] * 0.999) or \
                    np.allclose(on_table[i], on_table[j])

    def test_special_dice_carry_their_faces(self):
        kv = sample_scene(2, 0, dice_kind="kuh_vadis")
        assert all(sorted(map(str, d.faces)) == ["1", "2", "3", "4", "5", "cow"] for d in kv.dice)
        tc = sample_scene(2, 0, dice_kind="the_choice")
        assert all(len(d.face_colours) == 6 for d in tc.dice)

    @pytest.mark.parametrize("game", ["qwinto", "twenty_one"])
    def test_a_game_set_is_one_opaque_pip_die_of_each_of_its_palettes_colours(self, game):
        """``--dice-set``: a roll of the game's own dice, so that the game palette's naming is
        measured on renders (bench/vision_game_colours.py)."""
        from vision.colour import PALETTES, name_colour
        from vision.training.render3d import GAME_SETS
        assert GAME_SETS[game] == PALETTES[game].names
        for index in range(12):
            spec = sample_scene(31, index, dice_set=GAME_SETS[game])
            assert sorted(d.colour for d in spec.dice) == sorted(PALETTES[game].names)
            assert all(d.material == "opaque" and d.kind == "pips" for d in spec.dice)
            # each body is made in its name's colour range: the palette names it so unlit
            for d in spec.dice:
                assert name_colour([d.body_bgr], PALETTES["general"],
                                   estimate_light=False)[0][0] == d.colour, d
            img = np.zeros((spec.camera.height, spec.camera.width, 3), np.uint8)
            rows = label_rows(spec, img, "x.jpg", [(0.0, 0.0)] * len(spec.dice))
            assert sorted(r["colour"] for r in rows) == sorted(PALETTES[game].names)

    def test_a_game_set_names_only_colours_the_renderer_has(self):
        with pytest.raises(ValueError, match="no named colour teal"):
            sample_scene(31, 0, dice_set=("orange", "teal"))
        with pytest.raises(ValueError, match="pip dice, not kuh_vadis"):
            sample_scene(31, 0, dice_kind="kuh_vadis", dice_set=("orange",))

    @pytest.mark.parametrize("kind", ["kuh_vadis", "the_choice"])
    def test_one_set_is_the_same_dice_in_every_scene(self, kind):
        """``--one-set S``: a table's own dice, taught on some renders and read on others
        (bench/vision_special_renders.py); without it each die is drawn apart."""
        def looks(spec):
            return {(d.design, d.faces, d.face_colours, d.body_bgr, d.ink_bgr, d.material)
                    for d in spec.dice}
        same = set()
        for seed, index in ((101, 0), (102, 3), (7, 11)):
            spec = sample_scene(seed, index, dice_kind=kind, n_dice=(3, 8), one_set=4)
            assert all(d.kind == kind for d in spec.dice)
            same |= looks(spec)
        assert len(same) == 1
        assert looks(sample_scene(101, 0, dice_kind=kind, n_dice=(3, 8), one_set=5)) != same
        assert len(looks(sample_scene(101, 0, dice_kind=kind, n_dice=(8, 8)))) > 1
        with pytest.raises(ValueError, match="special dice"):
            sample_scene(101, 0, one_set=4)

    def test_a_set_of_the_choice_holds_dice_whose_faces_differ_in_colour(self):
        """``--set-dice 3``: The Choice's three dice are one design whose faces carry other
        colours (a 1 blue on one die, green on another); every scene draws its dice from those
        three, and the scene is otherwise the one drawn without the option."""
        def faces(spec):
            return {tuple(zip(d.faces, d.face_colours)) for d in spec.dice}
        seen = set()
        for seed, index in ((111, 0), (112, 3), (7, 11), (9, 2)):
            spec = sample_scene(seed, index, dice_kind="the_choice", n_dice=(6, 8), one_set=3,
                                set_dice=3)
            alike = sample_scene(seed, index, dice_kind="the_choice", n_dice=(6, 8), one_set=3)
            assert [d.position for d in spec.dice] == [d.position for d in alike.dice]
            assert spec.camera == alike.camera and spec.surface == alike.surface
            assert {(d.design, d.body_bgr) for d in spec.dice} == {(d.design, d.body_bgr)
                                                                  for d in alike.dice}
            seen |= faces(spec)
        assert len(seen) == 3
        assert faces(alike) <= seen     # the set's first die is the one drawn without the option
        for kind, one_set in (("the_choice", None), ("kuh_vadis", 3), ("pips", None)):
            with pytest.raises(ValueError, match="set_dice"):
                sample_scene(1, 0, dice_kind=kind, one_set=one_set, set_dice=3)

    def test_pips_are_told_from_the_body(self):
        from vision.training.scene3d import _lum
        for i in range(30):
            for d in sample_scene(5, i).dice:
                assert (abs(_lum(d.ink_bgr) - _lum(d.body_bgr)) >= 70
                        or 100 <= _lum(d.body_bgr) <= 156)


def test_overlap_of_squares():
    a = _square(0, 0, 1.0, 0.0)
    assert squares_overlap(a, _square(0.9, 0, 1.0, 0.0))
    assert not squares_overlap(a, _square(1.1, 0, 1.0, 0.0))
    assert squares_overlap(a, _square(1.1, 0, 1.0, math.pi / 4))  # a turned square reaches further


def test_finish_exposes_and_keeps_the_size():
    lin = np.full((30, 40, 3), 0.1)
    lin[:3, :3] = 2.0
    out = finish(lin,
                 PostSpec(white_balance=1.0, exposure_pct=50.0, noise=0.0, motion_px=0.0,
                          motion_angle=0.0, jpeg_quality=90), np.random.default_rng(0))
    assert out.shape == (30, 40, 3) and out.dtype == np.uint8
    assert abs(int(out[20, 20, 0]) - round(255 * (1.055 * 0.95 ** (1 / 2.4) - 0.055))) <= 1


def test_labels_leave_out_dice_outside_the_picture_and_clip_the_rest():
    spec = sample_scene(0, 1, (320, 240))
    d = spec.dice[0]
    inside = replace(d, position=(0.0, 0.0, d.position[2]))
    outside = replace(d, position=(5.0, 5.0, d.position[2]))
    cam = _top_down()
    scene = replace(spec, dice=(inside, outside), camera=cam)
    rows = label_rows(scene, np.zeros((240, 320, 3), np.uint8), "x.jpg", [(0.0, 0.0), (0.0, 0.0)])
    assert len(rows) == 1 and rows[0]["value"] == inside.label
    assert 0 <= rows[0]["x_min"] < rows[0]["x_max"] <= 320


# ---- the tiny render --------------------------------------------------------------------------

def _render_python() -> str | None:
    if importlib.util.find_spec("bpy") is not None:
        return sys.executable
    return os.environ.get("DICE_RENDER_PYTHON") or None


@pytest.mark.skipif(_render_python() is None,
                    reason="Blender's Python module (bpy==5.0.1) is not installed; set "
                           "DICE_RENDER_PYTHON to a Python that has it (docs/render3d.md)")
def test_a_tiny_render_matches_its_labels(tmp_path):
    out = tmp_path / "r"
    cmd = [_render_python(), "-m", "vision.training.render3d", "--out", str(out), "--scenes", "2",
           "--seed", "12", "--size", "160x120", "--samples", "4", "--max-dice", "3"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    import cv2
    rows = list(csv.DictReader(open(out / "labels.csv")))
    images = list(csv.DictReader(open(out / "images.csv")))
    assert len(images) == 2 and rows
    for k, im in enumerate(images):
        spec = sample_scene(12, k, (160, 120), n_dice=(2, 3))
        pic = cv2.imread(str(out / "images" / im["filename"]))
        assert pic.shape == (120, 160, 3)
        mine = [r for r in rows if r["filename"] == im["filename"]]
        assert [str(r["value"]) for r in mine] == [str(d.label) for d in spec.dice
                                                   if _in_picture(spec.camera, d)][:len(mine)]
        for r in mine:
            assert 0 <= float(r["hidden"]) <= 1 and 0 <= float(r["top_hidden"]) <= 1
            x0, y0, x1, y1 = (int(float(r[c])) for c in ("x_min", "y_min", "x_max", "y_max"))
            if float(r["top_hidden"]) < 0.05:  # the top face's centre is the die's own colour
                seen = np.array([float(r["seen_b"]), float(r["seen_g"]), float(r["seen_r"])])
                cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
                patch = pic[max(0, cy - 12):cy + 12,
                            max(0, cx - 12):cx + 12].reshape(-1, 3).astype(float)
                assert np.min(np.abs(patch - seen).sum(1)) < 60


def _in_picture(cam, die) -> bool:
    x0, y0, x1, y1 = die_box(cam, die)
    return min(x1, cam.width) - max(x0, 0) >= 2 and min(y1, cam.height) - max(y0, 0) >= 2

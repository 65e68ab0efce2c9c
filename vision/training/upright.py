"""Which way is up on a rendered die, so that the face reader can learn "the top face is the
upper one" on oblique views.

A die seen at an angle shows its top face and one or two side faces. Turned by a quarter, such
a view is ambiguous: at 45 degrees from vertical the top and the front face are foreshortened
alike, and a reader trained on crops turned every way must guess which is which. On a table
the camera is held level, so the top face is the one towards the picture's top. This module
gives, for every labelled die of a render, the angle that turns its crop so that its top face's
normal points up in the picture, and how oblique the view of it is; the training then keeps
oblique crops upright (mirrored, never turned) and turns only the near top-down ones
(``vision.training.train``, tag ``upright``).

The renders' ``images.csv`` holds each scene's seed and index but not the render command's
``--tilt`` range or ``--dice`` kind, so the scene is drawn again under each range and kind the
model cards' commands use and kept where its dice land exactly on the labelled boxes
(``scene_for_labels``).
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from .scene3d import FACE_NORMALS, SceneSpec, camera_matrix, die_box, project, sample_scene

__all__ = ["TILT_RANGES", "DICE_KINDS", "OBLIQUE", "scene_for_labels", "up_views"]

# the render commands' --tilt ranges and --dice kinds (models/README.md)
TILT_RANGES = (None, (45.0, 72.0), (20.0, 65.0))
DICE_KINDS = ("pips", "mixed")
# the sine of the angle between the view and the top face's normal above which a crop is kept
# upright: 0.2 is about 12 degrees, where the side faces begin to show
OBLIQUE = 0.2


def _labelled_boxes(spec: SceneSpec) -> list[tuple[int, tuple]]:
    """(die index, clipped box) of each die ``label_rows`` writes a row for, in its order."""
    cam, out = spec.camera, []
    for i, die in enumerate(spec.dice):
        x0, y0, x1, y1 = die_box(cam, die)
        cx0, cy0 = max(0.0, x0), max(0.0, y0)
        cx1, cy1 = min(float(cam.width), x1), min(float(cam.height), y1)
        if cx1 - cx0 >= 2 and cy1 - cy0 >= 2:
            out.append((i, (cx0, cy0, cx1, cy1)))
    return out


def scene_for_labels(seed: int, index: int, size: tuple[int, int], boxes, kinds=DICE_KINDS,
                     tilts=TILT_RANGES, tolerance: float = 0.6) -> SceneSpec | None:
    """The scene of render ``(seed, index)`` whose labelled dice fall on ``boxes`` (the rows of
    its ``labels.csv`` in order), or None when no dice kind and tilt range reproduce them."""
    for kind, tilt in itertools.product(kinds, tilts):
        spec = sample_scene(seed, index, size, kind, tilt=tilt)
        drawn = _labelled_boxes(spec)
        if len(drawn) == len(boxes) and all(
                max(abs(a - float(b)) for a, b in zip(d, box)) <= tolerance
                for (_, d), box in zip(drawn, boxes)):
            return spec
    return None


def up_views(spec: SceneSpec) -> list[tuple[float, float]]:
    """Per labelled die (``labels.csv``'s rows in order): ``(angle, lean)``. ``angle``, in
    degrees, turns the die's crop (``vision.read.crop_square``'s ``angle``) so that its top
    face's normal points to the picture's top; ``lean`` is the sine of the angle between the
    line of sight and that normal (0 straight above, 1 seen edge-on)."""
    cam = spec.camera
    m = camera_matrix(cam)
    out = []
    for i, _ in _labelled_boxes(spec):
        die = spec.dice[i]
        rot = np.array(die.rotation)
        normal = rot @ np.array(FACE_NORMALS[die.up_face], float)
        centre = np.array(die.position, float)
        p0, p1 = project(cam, np.stack([centre, centre + normal * die.size / 2]))
        v = p1 - p0
        sight = centre - m[:3, 3]
        sight /= np.linalg.norm(sight)
        lean = math.sqrt(max(0.0, 1.0 - float(np.dot(-sight, normal)) ** 2))
        # picture y grows downwards: up is (0, -1); the turn that takes v there
        angle = math.degrees(math.atan2(v[0], -v[1])) if np.hypot(*v) > 1e-6 else 0.0
        out.append((angle, lean))
    return out

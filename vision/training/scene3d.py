"""The photoreal scenes' model, plain numpy (tested without Blender): a scene *sampled* from a
generator seeded by ``(seed, index)`` (``sample_scene``: a frozen ``SceneSpec`` of plain numbers),
the die geometry (``up_rotation``, ``up_value``, ``die_surface_points``, ``top_face_corners``), the
pinhole camera Blender renders with (``camera_matrix``, ``project``, ``die_box``), the camera-like
*finish* (``finish``) and the label rows (``label_rows``). ``render3d_bpy`` builds and renders a
``SceneSpec`` in Blender; ``render3d`` is the command (docs/render3d.md).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["DieSpec", "SurfaceSpec", "LightSpec", "CameraSpec", "PostSpec", "SceneSpec",
           "FACE_NORMALS", "up_rotation", "up_value", "sample_scene", "die_surface_points",
           "project", "camera_matrix", "finish", "LABEL_COLUMNS"]

# Face value -> outward normal in the die's own frame; opposite faces sum to 7.
FACE_NORMALS: dict[int, tuple[float, float, float]] = {
    1: (0, 0, 1), 6: (0, 0, -1), 2: (1, 0, 0), 5: (-1, 0, 0), 3: (0, 1, 0), 4: (0, -1, 0),
}
# Each face's "up" direction on its texture (any vector in the face's plane), so that a face
# image is painted upright when looked at from outside with this direction at the top.
FACE_UPS: dict[int, tuple[float, float, float]] = {
    1: (0, 1, 0), 6: (0, -1, 0), 2: (0, 0, 1), 5: (0, 0, 1), 3: (0, 0, 1), 4: (0, 0, 1),
}
SENSOR_MM = 36.0  # horizontal sensor width of the Blender camera (sensor fit: horizontal)

MATERIALS = ("opaque", "translucent", "marbled", "pearl", "wood", "metal")
MATERIAL_SHARES = (0.5, 0.14, 0.14, 0.08, 0.07, 0.07)
SURFACES = ("felt", "tray_hex", "tray_round", "wood", "cloth", "carpet", "paper", "glass")
SURFACE_SHARES = (0.16, 0.12, 0.1, 0.18, 0.14, 0.1, 0.12, 0.08)
PIP_COLOURS = {"white": (245, 245, 245), "black": (20, 20, 20), "red": (40, 30, 200),
               "gold": (60, 175, 215), "blue": (160, 70, 20), "green": (60, 140, 30)}


@dataclass(frozen=True)
class DieSpec:
    """One die as placed: ``faces`` maps each face (1..6 by geometry) to what is printed on it."""
    # 6 printed values, index k is geometric face k+1 (pips: 1..6; Kuh Vadis: 1..5, "cow")
    faces: tuple
    face_colours: tuple  # The Choice: each face's colour name; else ()
    rotation: tuple  # 3x3 rows, die frame -> world
    position: tuple  # centre (x, y, z) in metres
    size: float  # edge length in metres
    radius: float  # corner rounding as a share of the edge (0.05..0.22)
    material: str
    body_bgr: tuple  # sRGB 0..255
    body2_bgr: tuple  # marbling's second colour
    ink_bgr: tuple  # pips / symbols
    colour: str  # body colour name ("" when not one of the named ranges)
    kind: str  # "pips", "kuh_vadis", "the_choice"
    design: str  # special dice: the vision.training.special_dice design; pips: ""
    roughness: float

    @property
    def up_face(self) -> int:
        return up_value(np.array(self.rotation))

    @property
    def label(self):
        return self.faces[self.up_face - 1]


@dataclass(frozen=True)
class SurfaceSpec:
    kind: str
    colour_bgr: tuple
    colour2_bgr: tuple
    scale: float  # pattern scale
    rim_bgr: tuple = ()  # trays
    tray_radius: float = 0.0


@dataclass(frozen=True)
class LightSpec:
    world_strength: float
    world_kelvin: float
    area_power: float
    area_size: float
    area_position: tuple
    area_kelvin: float
    lamp_power: float  # a small, hard lamp (0: none)
    lamp_position: tuple
    lamp_kelvin: float


@dataclass(frozen=True)
class CameraSpec:
    position: tuple
    target: tuple
    lens_mm: float
    width: int
    height: int
    fstop: float  # 0: no depth of field
    roll: float  # radians about the viewing axis


@dataclass(frozen=True)
class PostSpec:
    white_balance: float  # share of a grey-world correction applied (cameras balance partly)
    exposure_pct: float  # the luminance percentile mapped to 0.95
    noise: float  # sensor noise, standard deviation on 0..255
    motion_px: float  # length of a linear motion blur
    motion_angle: float
    jpeg_quality: int


@dataclass(frozen=True)
class ClutterSpec:
    kind: str  # cup, pencil, card, hand
    position: tuple
    size: tuple
    yaw: float
    colour_bgr: tuple


@dataclass(frozen=True)
class SceneSpec:
    index: int
    seed: int
    dice: tuple[DieSpec, ...]
    surface: SurfaceSpec
    light: LightSpec
    camera: CameraSpec
    post: PostSpec
    clutter: tuple[ClutterSpec, ...] = field(default=())
    samples: int = 32


# ---- geometry ---------------------------------------------------------------------------------

def _rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], float)


def _rot_axis(axis, a: float) -> np.ndarray:
    x, y, z = np.asarray(axis, float) / np.linalg.norm(axis)
    c, s, t = math.cos(a), math.sin(a), 1 - math.cos(a)
    return np.array([[t * x * x + c, t * x * y - s * z, t * x * z + s * y],
                     [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
                     [t * x * z - s * y, t * y * z + s * x, t * z * z + c]])


def up_rotation(value: int, yaw: float) -> np.ndarray:
    """The rotation (die frame -> world) that turns face ``value`` to face +Z, then by ``yaw``."""
    n = np.array(FACE_NORMALS[value], float)
    z = np.array([0.0, 0.0, 1.0])
    if np.allclose(n, z):
        base = np.eye(3)
    elif np.allclose(n, -z):
        base = _rot_axis((1, 0, 0), math.pi)
    else:
        base = _rot_axis(np.cross(n, z), math.acos(float(n @ z)))
    return _rot_z(yaw) @ base


def up_value(rotation: np.ndarray) -> int:
    """The face whose normal points most nearly up (+Z) under ``rotation``."""
    return max(FACE_NORMALS, key=lambda v: float((rotation @ np.array(FACE_NORMALS[v], float))[2]))


def tilt_degrees(rotation: np.ndarray) -> float:
    n = rotation @ np.array(FACE_NORMALS[up_value(rotation)], float)
    return math.degrees(math.acos(max(-1.0, min(1.0, float(n[2])))))


def _sphere_dirs(n_ring: int = 8) -> np.ndarray:
    """Unit directions covering a sphere (poles, rings): for the silhouette of rounded corners."""
    dirs = [(0, 0, 1), (0, 0, -1)]
    for el in np.linspace(-math.pi / 2, math.pi / 2, 7)[1:-1]:
        for az in np.linspace(0, 2 * math.pi, n_ring, endpoint=False):
            dirs.append((math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)))
    return np.array(dirs, float)


_DIRS = _sphere_dirs(12)
_CORNERS = np.array([(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)


def die_surface_points(die: DieSpec) -> np.ndarray:
    """World points on a rounded cube's outer surface whose projections bound its silhouette: a
    rounded cube is a smaller cube swept by a sphere of the rounding radius, so its outline is
    the outline of the eight corner spheres."""
    r = die.radius * die.size
    inner = _CORNERS * (die.size / 2 - r)
    pts = (inner[:, None, :] + _DIRS[None, :, :] * r).reshape(-1, 3)
    return pts @ np.array(die.rotation).T + np.array(die.position)


def top_face_corners(die: DieSpec) -> np.ndarray:
    """The up face's four corners (world), in order around the face."""
    rot = np.array(die.rotation)
    v = up_value(rot)
    n = np.array(FACE_NORMALS[v], float)
    u = np.array(FACE_UPS[v], float)
    w = np.cross(u, n)
    h = die.size / 2
    local = [n * h + (a * w + b * u) * h for a, b in ((-1, 1), (1, 1), (1, -1), (-1, -1))]
    return np.array(local) @ rot.T + np.array(die.position)


def camera_matrix(cam: CameraSpec) -> np.ndarray:
    """4x4 camera-to-world matrix of a Blender camera at ``position`` looking at ``target``
    (the camera looks along its -Z, +Y is up in the picture), turned by ``roll``."""
    pos, tgt = np.array(cam.position, float), np.array(cam.target, float)
    back = pos - tgt
    back /= np.linalg.norm(back)
    world_up = np.array([0.0, 1.0, 0.0]) if abs(back[2]) > 0.999 else np.array([0.0, 0.0, 1.0])
    right = np.cross(world_up, back)
    right /= np.linalg.norm(right)
    up = np.cross(back, right)
    c, s = math.cos(cam.roll), math.sin(cam.roll)
    right, up = c * right + s * up, -s * right + c * up
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2], m[:3, 3] = right, up, back, pos
    return m


def project(cam: CameraSpec, points: np.ndarray) -> np.ndarray:
    """Pixel coordinates (x right, y down, origin at the image's top-left corner) of world points,
    as Blender renders them (horizontal sensor fit, square pixels, no shift)."""
    m = camera_matrix(cam)
    local = (np.asarray(points, float) - m[:3, 3]) @ m[:3, :3]  # world -> camera axes
    depth = -local[:, 2]
    f_px = cam.lens_mm / SENSOR_MM * cam.width
    x = cam.width / 2 + f_px * local[:, 0] / depth
    y = cam.height / 2 - f_px * local[:, 1] / depth
    return np.stack([x, y], 1)


def die_box(cam: CameraSpec, die: DieSpec) -> tuple[float, float, float, float]:
    """The die's axis-aligned box in pixels, unclipped."""
    p = project(cam, die_surface_points(die))
    return float(p[:, 0].min()), float(p[:, 1].min()), float(p[:, 0].max()), float(p[:, 1].max())


# ---- sampling ---------------------------------------------------------------------------------

def _hsv_bgr(h: float, s: float, v: float) -> tuple:
    import colorsys
    r, g, b = colorsys.hsv_to_rgb((h % 360) / 360, s, v)
    return (round(b * 255, 1), round(g * 255, 1), round(r * 255, 1))


def _synth_colours() -> dict:
    """The 2-D renderer's named colour ranges (imported when first needed)."""
    from .synth import SYNTH_COLOURS
    return SYNTH_COLOURS


def _named_colour(rng, name: str) -> tuple:
    (h0, h1), (s0, s1), (v0, v1) = _synth_colours()[name]
    return _hsv_bgr(rng.uniform(h0, h1), rng.uniform(s0, s1), rng.uniform(v0, v1))


def _body_colour(rng, material: str) -> tuple[tuple, str]:
    if material == "wood":
        return _hsv_bgr(rng.uniform(22, 38), rng.uniform(0.3, 0.65),
                        rng.uniform(0.45, 0.85)), "brown"
    if material == "metal":
        name = str(rng.choice(["gold", "silver", "copper"]))
        return {"gold": (40, 160, 212), "silver": (200, 200, 200),
                "copper": (60, 110, 190)}[name], ""
    if rng.random() < 0.12:  # any hue and value: pastels, dark shades, between the named ranges
        return _hsv_bgr(rng.uniform(0, 360), rng.uniform(0, 1), rng.uniform(0.1, 1)), ""
    name = str(rng.choice(sorted(_synth_colours())))
    return _named_colour(rng, name), name


def _lum(bgr) -> float:
    return 0.114 * bgr[0] + 0.587 * bgr[1] + 0.299 * bgr[2]


def _ink_for(rng, body_bgr: tuple) -> tuple:
    """Pip colour: any of ``PIP_COLOURS`` that a person can tell from the body (a luminance
    difference of at least 70 of 255), mostly white on dark bodies and black on light ones."""
    lum = _lum(body_bgr)
    readable = [n for n, c in sorted(PIP_COLOURS.items()) if abs(_lum(c) - lum) >= 70]
    usual = [n for n in (["white"] if lum < 120 else ["black", "black", "red", "blue"])
             if n in readable]
    if not readable:  # a mid-grey body: the farther of black and white
        return PIP_COLOURS["white"] if lum < 128 else PIP_COLOURS["black"]
    name = str(rng.choice(readable if rng.random() < 0.2 or not usual else usual))
    return tuple(float(c) for c in PIP_COLOURS[name])


def _kelvin(rng) -> float:
    return float(rng.choice([rng.uniform(2600, 3500), rng.uniform(3500, 5000),
                             rng.uniform(5000, 7500)]))


def _special_faces(rng, kind: str):
    """(design name, the six printed values, the face colours, body, ink, colour name)."""
    from .special_dice import SEEN_DESIGNS, _colours_for, choice_faces, design_faces
    designs = [d for d in SEEN_DESIGNS if d.game == kind]
    design = designs[int(rng.integers(len(designs)))]
    faces = list(design_faces(design))
    rng.shuffle(faces)
    if kind == "the_choice":
        cols = choice_faces(rng)
        face_cols = tuple(cols[v] for v in faces)
        body, ink, _ = _colours_for(rng, design, face_cols[0])
        return design.name, tuple(faces), face_cols, body, ink, ""
    body, ink, name = _colours_for(rng, design,
                                   str(rng.choice(["white", "red", "yellow", "blue", "green",
                                                   "black"])))
    return design.name, tuple(faces), (), body, ink, name


def _recoloured(one: tuple, rng) -> tuple:
    """Another die of ``one``'s set (``_special_faces``'s tuple): its faces' colours drawn
    again."""
    from .special_dice import choice_faces
    design, faces, _, body, ink, colour = one
    cols = choice_faces(rng)
    return design, faces, tuple(cols[v] for v in faces), body, ink, colour


def _square(x: float, y: float, side: float, yaw: float) -> np.ndarray:
    c, s_ = math.cos(yaw) * side / 2, math.sin(yaw) * side / 2
    return np.array([(x + c * a - s_ * b, y + s_ * a + c * b)
                     for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))])


def squares_overlap(p: np.ndarray, q: np.ndarray) -> bool:
    """Whether two convex footprints (corners in order) overlap: no separating axis among their
    edges' normals."""
    for poly in (p, q):
        for i in range(len(poly)):
            e = poly[(i + 1) % len(poly)] - poly[i]
            axis = np.array([-e[1], e[0]])
            a, b = p @ axis, q @ axis
            if a.max() <= b.min() or b.max() <= a.min():
                return False
    return True


def _place(rng, n: int, sizes: np.ndarray,
           spread: float) -> list[tuple[float, float, float, float]]:
    """(x, y, z of the die's bottom, yaw) per die: footprints on the table never overlap; about a
    third are put against an earlier die (touching, up to a few millimetres apart), and a few are
    stacked on top of an earlier die of about their size."""
    out: list[tuple[float, float, float, float]] = []
    feet: list[np.ndarray] = []
    for i in range(n):
        for _ in range(200):
            yaw = float(rng.uniform(0, 2 * math.pi))
            if out and rng.random() < 0.04:  # stacked
                j = int(rng.integers(len(out)))
                if out[j][2] > 0 or sizes[i] > sizes[j] * 1.05:
                    continue
                off = rng.uniform(-0.15, 0.15, 2) * sizes[j]
                out.append((out[j][0] + off[0], out[j][1] + off[1], out[j][2] + float(sizes[j]),
                            yaw))
                feet.append(np.zeros((0, 2)))
                break
            if out and rng.random() < 0.35:
                j = int(rng.integers(len(out)))
                a = rng.uniform(0, 2 * math.pi)
                d = (sizes[i] + sizes[j]) / 2 * rng.uniform(1.0, 1.3)
                x, y = out[j][0] + d * math.cos(a), out[j][1] + d * math.sin(a)
            else:
                x, y = rng.uniform(-spread, spread, 2)
            foot = _square(x, y, float(sizes[i]) * 1.01, yaw)
            if not any(len(f) and squares_overlap(foot, f) for f in feet):
                out.append((float(x), float(y), 0.0, yaw))
                feet.append(foot)
                break
        else:
            break
    return out


def _reach(kind: str) -> float:
    """How far a clutter object reaches from its centre on the table (metres)."""
    return {"cup": 0.02, "pencil": 0.09, "card": 0.055, "hand": 0.08}[kind]


def sample_scene(seed: int, index: int, size: tuple[int, int] = (640, 480), dice_kind: str = "pips",
                 n_dice: tuple[int, int] = (2, 40), samples: int = 32,
                 tilt: tuple[float, float] | None = None,
                 dice_set: tuple[str, ...] | None = None,
                 one_set: int | None = None,
                 die_px: tuple[float, float] | None = None,
                 surfaces: tuple[str, ...] | None = None,
                 colours: tuple[str, ...] | None = None,
                 table_colour: str | None = None,
                 set_dice: int = 1) -> SceneSpec:
    """Everything about one scene, drawn from a generator seeded by ``(seed, index)``: the same
    scene for the same pair whatever else is rendered. ``size`` is (width, height). ``tilt``:
    the camera's angle from vertical, in degrees, drawn from this range instead of the default
    (three scenes in four 0-60, the others 0-15); the scene's other draws are the same.
    ``dice_set``: a game's roll instead of ``n_dice`` random pip dice, one opaque pip die of each
    named colour (``vision.training.synth.SYNTH_COLOURS`` names; e.g. Qwinto's orange, yellow and
    purple die), so that a game palette's colour naming is measured on renders; scenes without
    it are drawn as before. ``one_set``: special dice (``dice_kind`` kuh_vadis or the_choice)
    that are all one physical set, as a table's dice are: every die has the design, the faces'
    order and the colours drawn from a generator seeded by ``one_set`` alone, so that scenes of
    other seeds and indices with the same ``one_set`` show the same dice (a set taught on some
    of them is read on the others); without it each die is drawn apart. ``die_px``: a die's
    side in the picture, as a share of its longer side, drawn from this range instead of
    3-11 % (the camera farther or nearer, and the dice spread over what it sees);
    ``surfaces``: the table drawn from these of ``SURFACES`` only (each equally likely), the
    scene's other draws the same; ``colours``: pip dice of opaque plastic whose bodies take
    these named colours in turn (two green and white dice, say), the pips' colour drawn as
    usual; ``table_colour``: the table (felt, a tray's floor, cloth, ...) of this named colour,
    its other draws the same. ``set_dice``: with ``one_set`` of The Choice, the set holds this
    many dice of one design whose faces carry other colours (the game's three dice differ: a 1
    is blue on one, green on another), each die of a scene one of them; 1 (the default): every
    die alike. With none of these five, every scene is drawn as before, draw for draw."""
    if surfaces is not None and (not surfaces or set(surfaces) - set(SURFACES)):
        raise ValueError(f"surfaces: some of {', '.join(SURFACES)}, not {surfaces!r}")
    named = sorted(_synth_colours())
    if colours is not None and (not colours or set(colours) - set(named) or dice_kind != "pips"
                                or dice_set):
        raise ValueError(f"colours: some of {', '.join(named)}, for pip dice without a game's "
                         f"set, not {colours!r}")
    if table_colour is not None and table_colour not in named:
        raise ValueError(f"table_colour: one of {', '.join(named)}, not {table_colour!r}")
    rng = np.random.default_rng([seed, index])
    w, h = size
    kind = str(rng.choice(["pips", "kuh_vadis", "the_choice"], p=[0.5, 0.25, 0.25])) \
        if dice_kind == "mixed" else dice_kind
    # fewer dice more often: most rolls are of 2-6 dice
    lo, hi = n_dice
    n = (int(min(hi, lo + rng.geometric(0.12) - 1)) if rng.random() < 0.8
         else int(rng.integers(lo, hi + 1)))
    if dice_set:
        if kind != "pips":
            raise ValueError(f"dice_set: a game's set is pip dice, not {kind} dice")
        unknown = sorted(set(dice_set) - set(_synth_colours()))
        if unknown:
            raise ValueError(f"dice_set: no named colour {', '.join(unknown)} (the named colours: "
                             f"{', '.join(sorted(_synth_colours()))})")
        n = len(dice_set)
    if set_dice < 1 or (set_dice > 1 and (one_set is None or dice_kind != "the_choice")):
        raise ValueError(f"set_dice: 1, or more with one_set of the_choice dice, not {set_dice!r}")
    one = None
    if one_set is not None:
        if kind not in ("kuh_vadis", "the_choice"):
            raise ValueError(f"one_set: a set of special dice (kuh_vadis, the_choice), not {kind}")
        one = _special_faces(np.random.default_rng([one_set, 5]), kind)
    # the set's other dice: the same design, values and body, their own faces' colours
    set_faces = [one] + [_recoloured(one, np.random.default_rng([one_set, 5, k]))
                         for k in range(1, set_dice)]
    which = np.random.default_rng([seed, index, 6])  # a stream of its own: other draws stay
    base = rng.uniform(0.012, 0.022)
    sizes = np.clip(base * rng.uniform(0.92, 1.08, n) if rng.random() < 0.7
                    else rng.uniform(0.012, 0.022, n), 0.012, 0.022)
    # the camera first: phone (~26 mm) or webcam (~30-48 mm) lenses, a die's side in pixels drawn
    # from 3-11 % of the picture's longer side (19-70 px at 640), top-down to 60 degrees
    lens = float(rng.uniform(22, 30) if rng.random() < 0.6 else rng.uniform(30, 48))
    f_px = lens / SENSOR_MM * w
    die_px = rng.uniform(*(die_px or (0.03, 0.11))) * max(w, h)
    cam_dist = max(0.06, f_px * base / die_px)
    # half the shorter side, on the table
    half_view = cam_dist * (SENSOR_MM / 2) / lens * min(1.0, h / w)
    # the dice within the view, and not so spread that an oblique camera sees the near ones
    # more than about twice the size of the far ones
    spread = min(max(0.03, 0.018 * math.sqrt(n) * rng.uniform(1.2, 2.2)),
                 half_view * rng.uniform(0.7, 1.0), 0.3 * cam_dist)
    centres = _place(rng, n, sizes, spread)
    dice = []
    material_set = None
    if rng.random() < 0.4:  # a set of alike dice (one material and look)
        material_set = str(rng.choice(MATERIALS, p=MATERIAL_SHARES))
    for i, (x, y, z0, yaw) in enumerate(centres):
        s = float(sizes[i])
        up = int(rng.integers(1, 7))
        rot = up_rotation(up, yaw)
        z = z0 + s / 2
        material = material_set or str(rng.choice(MATERIALS, p=MATERIAL_SHARES))
        face_cols: tuple = ()
        design = ""
        if dice_set:  # a game's set: opaque plastic of its named colours
            material = "opaque"
            body, colour = _named_colour(rng, dice_set[i]), dice_set[i]
            ink = _ink_for(rng, body)
            faces = (1, 2, 3, 4, 5, 6)
        elif colours:  # dice of these colours in turn: opaque plastic
            material = "opaque"
            colour = colours[i % len(colours)]
            body = _named_colour(rng, colour)
            ink = _ink_for(rng, body)
            faces = (1, 2, 3, 4, 5, 6)
        elif kind == "pips":
            body, colour = _body_colour(rng, material)
            ink = _ink_for(rng, body)
            faces = (1, 2, 3, 4, 5, 6)
        else:
            material = "opaque" if material in ("translucent", "metal", "marbled") or one \
                else material
            mine = set_faces[int(which.integers(set_dice))] if set_dice > 1 else one
            design, faces, face_cols, body, ink, colour = mine or _special_faces(rng, kind)
            body = tuple(float(c) for c in body)
            ink = tuple(float(c) for c in ink)
            if "wood" in design:
                material = "wood"
        body2 = _hsv_bgr(rng.uniform(0, 360), rng.uniform(0, 0.6), rng.uniform(0.3, 1.0)) \
            if material == "marbled" else body
        dice.append(DieSpec(faces=tuple(faces), face_colours=tuple(face_cols),
                            rotation=tuple(map(tuple, rot)), position=(x, y, z), size=s,
                            radius=float(rng.uniform(0.06, 0.2)), material=material,
                            body_bgr=tuple(body), body2_bgr=tuple(body2), ink_bgr=tuple(ink),
                            colour=colour, kind=kind, design=design,
                            roughness=float(rng.uniform(0.08, 0.5))))
    skind = str(rng.choice(SURFACES, p=SURFACE_SHARES))
    if surfaces is not None:  # from a stream of its own: the scene's other draws stay
        skind = str(np.random.default_rng([seed, index, 4]).choice(sorted(surfaces)))
    if skind in ("felt", "tray_hex", "tray_round"):
        c1 = _hsv_bgr(rng.uniform(0, 360), rng.uniform(0.2, 0.95), rng.uniform(0.12, 0.75))
    elif skind == "wood":
        c1 = _hsv_bgr(rng.uniform(18, 42), rng.uniform(0.2, 0.7), rng.uniform(0.3, 0.95))
    elif skind == "paper":
        c1 = _hsv_bgr(rng.uniform(30, 60), rng.uniform(0, 0.08), rng.uniform(0.85, 1.0))
    elif skind == "glass":
        c1 = _hsv_bgr(rng.uniform(0, 360), rng.uniform(0, 0.3), rng.uniform(0.02, 0.25))
    else:
        c1 = _hsv_bgr(rng.uniform(0, 360), rng.uniform(0, 0.9), rng.uniform(0.1, 0.95))
    c2 = _hsv_bgr(rng.uniform(0, 360), rng.uniform(0, 0.9), rng.uniform(0.1, 0.95))
    if table_colour is not None:  # from a stream of its own: the scene's other draws stay
        c1 = _named_colour(np.random.default_rng([seed, index, 5]), table_colour)
    extent = spread + 0.03
    surface = SurfaceSpec(skind, c1, c2, float(rng.uniform(0.5, 2.0)),
                          _hsv_bgr(rng.uniform(0, 360), rng.uniform(0, 0.6),
                                   rng.uniform(0.05, 0.5)),
                          float(extent * rng.uniform(1.15, 1.6)))

    dim = rng.random() < 0.2
    area_kelvin = _kelvin(rng)
    az, el = rng.uniform(0, 2 * math.pi), rng.uniform(math.radians(35), math.radians(85))
    dist = rng.uniform(0.5, 1.5)
    lamp = rng.random() < 0.35
    laz, lel = rng.uniform(0, 2 * math.pi), rng.uniform(math.radians(30), math.radians(75))
    light = LightSpec(
        world_strength=float(rng.uniform(0.05, 0.3) if dim else rng.uniform(0.2, 1.0)),
        world_kelvin=_kelvin(rng),
        area_power=float((rng.uniform(10, 40) if dim else rng.uniform(40, 200)) * dist ** 2),
        area_size=float(rng.uniform(0.2, 1.2)),
        area_position=(dist * math.cos(el) * math.cos(az), dist * math.cos(el) * math.sin(az),
                       dist * math.sin(el)),
        area_kelvin=area_kelvin,
        lamp_power=float(rng.uniform(15, 60) if lamp else 0.0),
        lamp_position=(0.8 * math.cos(lel) * math.cos(laz), 0.8 * math.cos(lel) * math.sin(laz),
                       0.8 * math.sin(lel)),
        lamp_kelvin=_kelvin(rng))

    usual = (0, 60) if rng.random() < 0.75 else (0, 15)   # drawn either way: the rest stays
    tilt = math.radians(rng.uniform(*(tilt or usual)))
    cam_az = rng.uniform(0, 2 * math.pi)
    target = (float(rng.normal(0, spread * 0.1)), float(rng.normal(0, spread * 0.1)), 0.0)
    position = (target[0] + cam_dist * math.sin(tilt) * math.cos(cam_az),
                target[1] + cam_dist * math.sin(tilt) * math.sin(cam_az), cam_dist * math.cos(tilt))
    camera = CameraSpec(position=tuple(float(v) for v in position), target=target, lens_mm=lens,
                        width=w, height=h,
                        fstop=float(rng.uniform(1.8, 5.6) if rng.random() < 0.25 else 0.0),
                        roll=float(rng.uniform(-0.15, 0.15) if rng.random() < 0.5
                                   else rng.uniform(-math.pi, math.pi)))
    post = PostSpec(white_balance=float(rng.uniform(0.3, 1.0)),
                    exposure_pct=float(rng.uniform(99.3, 99.95)),
                    noise=float(rng.uniform(3, 9) if dim else rng.uniform(0, 3)),
                    motion_px=float(rng.uniform(1.5, 5) if rng.random() < 0.1 else 0.0),
                    motion_angle=float(rng.uniform(0, 180)), jpeg_quality=int(rng.integers(45, 96)))
    clutter = []
    for _ in range(int(rng.integers(0, 4)) if rng.random() < 0.5 else 0):
        ck = str(rng.choice(["cup", "pencil", "card", "hand"], p=[0.3, 0.3, 0.25, 0.15]))
        a = rng.uniform(0, 2 * math.pi)
        outside = surface.tray_radius + 0.02 if skind.startswith("tray") else extent
        r = outside * rng.uniform(1.05, 1.5) + _reach(ck)
        sz = {"cup": (0.04, 0.04, 0.09), "pencil": (0.18, 0.008, 0.008),
              "card": (0.09, 0.06, 0.001), "hand": (0.16, 0.08, 0.04)}[ck]
        clutter.append(ClutterSpec(ck, (r * math.cos(a), r * math.sin(a), 0.0), sz,
                                   float(rng.uniform(0, math.pi)),
                                   _hsv_bgr(rng.uniform(0, 360), rng.uniform(0, 0.9),
                                            rng.uniform(0.15, 0.95))
                                   if ck != "hand"
                                   else _hsv_bgr(rng.uniform(15, 30), rng.uniform(0.25, 0.55),
                                                 rng.uniform(0.35, 0.95))))
    return SceneSpec(index=index, seed=seed, dice=tuple(dice), surface=surface, light=light,
                     camera=camera, post=post, clutter=tuple(clutter), samples=samples)


# ---- finishing and labels ---------------------------------------------------------------------

def _to_linear(srgb: np.ndarray) -> np.ndarray:
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def _to_srgb(lin: np.ndarray) -> np.ndarray:
    lin = np.clip(lin, 0, 1)
    return np.where(lin <= 0.0031308, lin * 12.92, 1.055 * lin ** (1 / 2.4) - 0.055)


def finish(linear_bgr: np.ndarray, post: PostSpec, rng: np.random.Generator) -> np.ndarray:
    """A camera's processing of the scene's linear light: auto exposure (``exposure_pct`` of the
    luminance to 0.95), a partial grey-world white balance, motion blur, sensor noise, sRGB
    8-bit. JPEG compression is applied when the picture is written."""
    img = np.asarray(linear_bgr, np.float64)
    means = img.reshape(-1, 3).mean(0) + 1e-6
    gains = (means.mean() / means) ** post.white_balance
    img = img * gains
    lum = img @ np.array([0.0722, 0.7152, 0.2126])
    ref = float(np.percentile(lum, post.exposure_pct))
    img = img * (0.95 / max(ref, 1e-6))
    out = _to_srgb(img) * 255.0
    if post.motion_px > 0:
        import cv2
        k = max(3, int(round(post.motion_px)) | 1)
        kern = np.zeros((k, k), np.float32)
        kern[k // 2, :] = 1.0 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), post.motion_angle, 1.0)
        kern = cv2.warpAffine(kern, rot, (k, k))
        kern /= max(kern.sum(), 1e-6)
        out = cv2.filter2D(out.astype(np.float32), -1, kern)
    if post.noise > 0:
        out = out + rng.normal(0, post.noise, out.shape)
    return np.clip(np.round(out), 0, 255).astype(np.uint8)


def seen_colour(img: np.ndarray, cam: CameraSpec, die: DieSpec) -> tuple:
    """Median colour of a disc (radius 0.3 of the box's shorter side) at the top face's centre,
    as ``vision.colour`` measures a die's body; () when the centre is outside the picture."""
    c = project(cam, top_face_corners(die)).mean(0)
    x0, y0, x1, y1 = die_box(cam, die)
    r = 0.3 * min(x1 - x0, y1 - y0) / 2
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    m = (xx - c[0]) ** 2 + (yy - c[1]) ** 2 <= max(r, 1.0) ** 2
    if not m.any():
        return ()
    return tuple(float(v) for v in np.median(img[m], axis=0))


LABEL_COLUMNS = ["filename", "image_w", "image_h", "die", "value", "x_min", "y_min", "x_max",
                 "y_max", "orig_split", "box_kind", "colour", "body_b", "body_g", "body_r",
                 "seen_b", "seen_g", "seen_r", "hidden", "top_hidden", "tilt", "material",
                 "dice_kind", "design"]


def label_rows(spec: SceneSpec, img: np.ndarray, filename: str,
               hidden: list[tuple[float, float]]) -> list[dict]:
    """One ``labels.csv`` row per die at least partly in the picture. ``hidden``: per die, the
    shares of the whole die and of its top face that are hidden (other objects, the frame)."""
    cam = spec.camera
    rows = []
    for i, die in enumerate(spec.dice):
        x0, y0, x1, y1 = die_box(cam, die)
        cx0, cy0, cx1, cy1 = (max(0.0, x0), max(0.0, y0), min(float(cam.width), x1),
                              min(float(cam.height), y1))
        if cx1 - cx0 < 2 or cy1 - cy0 < 2:
            continue
        face = die.up_face
        seen = seen_colour(img, cam, die) or (float("nan"),) * 3
        colour = die.face_colours[face - 1] if die.face_colours else die.colour
        rows.append({"filename": filename, "image_w": cam.width, "image_h": cam.height,
                     "die": len(rows), "value": die.label, "x_min": round(cx0, 1),
                     "y_min": round(cy0, 1), "x_max": round(cx1, 1), "y_max": round(cy1, 1),
                     "orig_split": "render", "box_kind": "die", "colour": colour,
                     "body_b": round(die.body_bgr[0], 1), "body_g": round(die.body_bgr[1], 1),
                     "body_r": round(die.body_bgr[2], 1), "seen_b": round(seen[0], 1),
                     "seen_g": round(seen[1], 1), "seen_r": round(seen[2], 1),
                     "hidden": round(hidden[i][0], 3), "top_hidden": round(hidden[i][1], 3),
                     "tilt": round(tilt_degrees(np.array(die.rotation)), 1),
                     "material": die.material, "dice_kind": die.kind, "design": die.design})
    return rows


def frame_share(cam: CameraSpec, points: np.ndarray) -> float:
    """Share of the points that project inside the picture."""
    p = project(cam, points)
    inside = (p[:, 0] >= 0) & (p[:, 0] < cam.width) & (p[:, 1] >= 0) & (p[:, 1] < cam.height)
    return float(inside.mean()) if len(p) else 0.0

"""Builds a sampled scene (``vision.training.scene3d.SceneSpec``) in Blender and renders it with
Cycles.

Only this module imports ``bpy``. A die is one mesh: a cube whose six faces are mapped to the
six cells of a texture strip (the printed faces: pips, a cow, a number on a coloured square),
rounded by a bevel modifier whose new faces take a body-only material, so the corners never
sample a neighbouring cell. The print is recessed (a bump from its mask) and opaque; the body
is opaque plastic, translucent (the other faces' pips show through), marbled (noise between
two colours), pearlescent (a coat and sheen), wood (bands) or metal.
"""
from __future__ import annotations

import math
import os
import tempfile
from dataclasses import replace
from pathlib import Path

import bpy
import cv2
import numpy as np
from mathutils import Matrix, Vector

from .scene3d import FACE_NORMALS, FACE_UPS, CameraSpec, DieSpec, SceneSpec, camera_matrix, \
    finish, frame_share, top_face_corners, _to_linear

__all__ = ["render", "write_jpeg", "face_strip"]

CELL = 128  # pixels of one face in the texture strip


# ---- colour helpers ---------------------------------------------------------------------------

def _lin_rgba(bgr, alpha: float = 1.0) -> tuple:
    b, g, r = (float(v) / 255.0 for v in bgr)
    lin = _to_linear(np.array([r, g, b]))
    return (float(lin[0]), float(lin[1]), float(lin[2]), alpha)


def _kelvin_rgb(k: float) -> tuple:
    """Approximate colour of a black body at ``k`` kelvin, normalised to its largest channel."""
    t = k / 100.0
    r = 255.0 if t <= 66 else 329.7 * (t - 60) ** -0.1332
    g = 99.47 * math.log(t) - 161.1 if t <= 66 else 288.1 * (t - 60) ** -0.0755
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5 * math.log(t - 10) - 305.0)
    rgb = np.clip(np.array([r, g, b]), 1, 255) / 255.0
    lin = _to_linear(rgb)
    return tuple(float(v) for v in lin / lin.max())


# ---- the face strip ---------------------------------------------------------------------------

def face_strip(die: DieSpec, rng: np.random.Generator) -> np.ndarray:
    """RGBA float strip (CELL x 6*CELL) of the six printed faces, cell k = geometric face k+1,
    each drawn upright. RGB is the print's colour, A where it is printed (pip dice: the pips;
    special dice: the whole face, drawn by ``vision.training.special_dice.render_face``)."""
    strip = np.zeros((CELL, 6 * CELL, 4), np.float32)
    if die.kind == "pips":
        from .special_dice import _pip_mask
        for k in range(6):
            m = cv2.resize(_pip_mask(die.faces[k]), (CELL, CELL),
                           interpolation=cv2.INTER_AREA).astype(np.float32) / 255
            strip[:, k * CELL:(k + 1) * CELL, :3] = np.array(die.ink_bgr, np.float32)[::-1] / 255.0
            strip[:, k * CELL:(k + 1) * CELL, 3] = m
        return strip
    from .special_dice import SEEN_DESIGNS, _colours_for, render_face
    design = next(d for d in SEEN_DESIGNS if d.name == die.design)
    for k in range(6):
        body, ink = np.array(die.body_bgr, np.float32), np.array(die.ink_bgr, np.float32)
        if die.face_colours:
            body, ink, _ = _colours_for(rng, design, die.face_colours[k])
        face = render_face(rng, design, die.faces[k], body, ink)
        face = cv2.resize(np.clip(face, 0, 255), (CELL, CELL), interpolation=cv2.INTER_LINEAR)
        strip[:, k * CELL:(k + 1) * CELL, :3] = face[..., ::-1] / 255.0
        strip[:, k * CELL:(k + 1) * CELL, 3] = 1.0
    return strip


def _symbol_strip(die: DieSpec, rng: np.random.Generator) -> np.ndarray:
    """Grey strip of where each face's symbol is (the recess), for the bump."""
    from .special_dice import SEEN_DESIGNS, _pip_mask, _symbol_mask
    out = np.zeros((CELL, 6 * CELL), np.float32)
    design = next((d for d in SEEN_DESIGNS if d.name == die.design), None)
    for k in range(6):
        m = _pip_mask(die.faces[k]) if design is None else _symbol_mask(rng, design, die.faces[k])
        out[:, k * CELL:(k + 1) * CELL] = cv2.resize(m, (CELL, CELL),
                                                     interpolation=cv2.INTER_AREA) / 255.0
    return out


def _image(name: str, pixels: np.ndarray, colour: bool = True):
    h, w = pixels.shape[:2]
    img = bpy.data.images.new(name, width=w, height=h, alpha=True, float_buffer=True)
    if pixels.ndim == 2:
        pixels = np.dstack([pixels, pixels, pixels, np.ones_like(pixels)])
    # the colour space first: changing it regenerates a generated image's (blank) buffer
    img.colorspace_settings.name = "Linear Rec.709" if colour else "Non-Color"
    # Blender: bottom row first
    img.pixels.foreach_set(np.ascontiguousarray(pixels[::-1]).ravel().astype(np.float32))
    return img  # kept in memory for this render (packing a float image loses its pixels)


# ---- node helpers -----------------------------------------------------------------------------

def _new_material(name: str):
    mat = bpy.data.materials.new(name)
    if hasattr(mat, "use_nodes") and not mat.use_nodes:
        mat.use_nodes = True
    nodes = mat.node_tree.nodes
    bsdf = next(n for n in nodes if n.type == "BSDF_PRINCIPLED")
    return mat, nodes, mat.node_tree.links, bsdf


def _mix_colour(nodes, links, fac_socket, a, b):
    """A colour mix node: ``fac`` between colour sockets/values ``a`` and ``b``; returns its
    output."""
    mix = nodes.new("ShaderNodeMix")
    mix.data_type = "RGBA"
    ins = [s for s in mix.inputs if s.enabled]
    fac, ca, cb = ins[0], ins[1], ins[2]
    links.new(fac_socket, fac)
    for sock, v in ((ca, a), (cb, b)):
        if isinstance(v, tuple):
            sock.default_value = v
        else:
            links.new(v, sock)
    return next(s for s in mix.outputs if s.enabled)


def _body_colour_socket(die: DieSpec, nodes, links):
    """The body's base colour: a value, or a node output (marbled, wood)."""
    c1 = _lin_rgba(die.body_bgr)
    if die.material == "marbled":
        coord = nodes.new("ShaderNodeTexCoord")
        noise = nodes.new("ShaderNodeTexNoise")
        noise.inputs["Scale"].default_value = 60.0 / max(die.size * 100, 1.0)
        noise.inputs["Detail"].default_value = 8.0
        noise.inputs["Distortion"].default_value = 2.5
        links.new(coord.outputs["Object"], noise.inputs["Vector"])
        ramp = nodes.new("ShaderNodeValToRGB")
        ramp.color_ramp.elements[0].position = 0.45
        ramp.color_ramp.elements[1].position = 0.6
        links.new(noise.outputs["Fac"], ramp.inputs["Fac"])
        return _mix_colour(nodes, links, ramp.outputs["Color"], c1, _lin_rgba(die.body2_bgr))
    if die.material == "wood":
        coord = nodes.new("ShaderNodeTexCoord")
        wave = nodes.new("ShaderNodeTexWave")
        wave.inputs["Scale"].default_value = 3.0
        wave.inputs["Distortion"].default_value = 6.0
        links.new(coord.outputs["Object"], wave.inputs["Vector"])
        dark = tuple(v * 0.6 for v in c1[:3]) + (1.0,)
        return _mix_colour(nodes, links, wave.outputs["Fac"], c1, dark)
    return c1


def _set_body(die: DieSpec, bsdf) -> None:
    bsdf.inputs["Roughness"].default_value = die.roughness
    if die.material == "translucent":
        bsdf.inputs["Transmission Weight"].default_value = 0.85
        bsdf.inputs["Roughness"].default_value = min(die.roughness, 0.25)
        bsdf.inputs["IOR"].default_value = 1.49
    elif die.material == "pearl":
        bsdf.inputs["Coat Weight"].default_value = 0.8
        bsdf.inputs["Sheen Weight"].default_value = 0.6
    elif die.material == "metal":
        bsdf.inputs["Metallic"].default_value = 1.0
        bsdf.inputs["Roughness"].default_value = 0.25
    elif die.material == "wood":
        bsdf.inputs["Roughness"].default_value = 0.7


def _die_materials(die: DieSpec, strip: np.ndarray, symbols: np.ndarray, key: str):
    """(face material, body-only material) of one die."""
    face, nodes, links, bsdf = _new_material(f"face{key}")
    _set_body(die, bsdf)
    body_socket = _body_colour_socket(die, nodes, links)
    tex = nodes.new("ShaderNodeTexImage")
    tex.image = _image(f"strip{key}", strip)
    tex.interpolation = "Linear"
    tex.extension = "EXTEND"
    # where the print is (an image's own alpha is not kept here)
    mask = nodes.new("ShaderNodeTexImage")
    mask.image = _image(f"mask{key}", np.ascontiguousarray(strip[..., 3]), colour=False)
    mask.interpolation = "Linear"
    mask.extension = "EXTEND"
    printed = mask.outputs["Color"]
    colour = _mix_colour(nodes, links, printed, body_socket, tex.outputs["Color"])
    links.new(colour, bsdf.inputs["Base Color"])
    if die.material == "translucent":  # the print is opaque paint on a clear body
        inv = nodes.new("ShaderNodeMath")
        inv.operation = "SUBTRACT"
        inv.inputs[0].default_value = 0.85
        links.new(printed, inv.inputs[1])
        clamp = nodes.new("ShaderNodeClamp")
        links.new(inv.outputs[0], clamp.inputs["Value"])
        links.new(clamp.outputs[0], bsdf.inputs["Transmission Weight"])
    sym = nodes.new("ShaderNodeTexImage")
    sym.image = _image(f"sym{key}", symbols, colour=False)
    sym.interpolation = "Linear"
    bump = nodes.new("ShaderNodeBump")
    bump.invert = True  # recessed
    bump.inputs["Strength"].default_value = 0.8
    bump.inputs["Distance"].default_value = die.size * 0.04
    links.new(sym.outputs["Color"], bump.inputs["Height"])
    links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
    body, bnodes, blinks, bbsdf = _new_material(f"body{key}")
    _set_body(die, bbsdf)
    edge = die.body_bgr
    if die.face_colours:  # faces of many colours: neutral edges
        edge = (235, 235, 235) if "face" in die.design else die.body_bgr
    sock = _body_colour_socket(replace(die, body_bgr=edge), bnodes, blinks)
    if isinstance(sock, tuple):
        bbsdf.inputs["Base Color"].default_value = sock
    else:
        blinks.new(sock, bbsdf.inputs["Base Color"])
    return face, body


# ---- objects ----------------------------------------------------------------------------------

def _cube_mesh(name: str):
    """A unit cube (edge 1) with UVs: face k+1 on cell k of the strip, upright (``FACE_UPS``)."""
    import bmesh
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0)
    uv = bm.loops.layers.uv.new("UVMap")
    for f in bm.faces:
        n = f.normal
        value = max(FACE_NORMALS, key=lambda v: n.dot(Vector(FACE_NORMALS[v])))
        up = Vector(FACE_UPS[value])
        right = up.cross(Vector(FACE_NORMALS[value]))
        k = value - 1
        for loop in f.loops:
            p = loop.vert.co
            u = (p.dot(right) + 0.5)
            v = (p.dot(up) + 0.5)
            loop[uv].uv = ((k + u) / 6.0, v)
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    return mesh


def _add_die(die: DieSpec, i: int, rng: np.random.Generator):
    obj = bpy.data.objects.new(f"die{i}", _cube_mesh(f"diemesh{i}"))
    bpy.context.scene.collection.objects.link(obj)
    face, body = _die_materials(die, face_strip(die, rng), _symbol_strip(die, rng), str(i))
    obj.data.materials.append(face)
    obj.data.materials.append(body)
    bev = obj.modifiers.new("round", "BEVEL")
    bev.width = die.radius
    bev.segments = 4
    bev.limit_method = "NONE"
    bev.material = 1
    bev.harden_normals = False
    obj.data.shade_smooth()
    m = Matrix([list(r) for r in die.rotation]).to_4x4()
    m.translation = Vector(die.position)
    obj.matrix_world = m @ Matrix.Scale(die.size, 4)
    return obj


def _surface(spec: SceneSpec):
    s = spec.surface
    bpy.ops.mesh.primitive_plane_add(size=4.0, location=(0, 0, 0))
    plane = bpy.context.active_object
    mat, nodes, links, bsdf = _new_material("table")
    c1, c2 = _lin_rgba(s.colour_bgr), _lin_rgba(s.colour2_bgr)
    coord = nodes.new("ShaderNodeTexCoord")
    bump_src = None
    if s.kind in ("felt", "carpet", "tray_hex", "tray_round"):
        noise = nodes.new("ShaderNodeTexNoise")
        noise.inputs["Scale"].default_value = (900.0 if s.kind != "carpet" else 300.0) * s.scale
        noise.inputs["Detail"].default_value = 6.0
        links.new(coord.outputs["Object"], noise.inputs["Vector"])
        dark = tuple(v * 0.75 for v in c1[:3]) + (1.0,)
        links.new(_mix_colour(nodes, links, noise.outputs["Fac"], dark, c1),
                  bsdf.inputs["Base Color"])
        bsdf.inputs["Roughness"].default_value = 1.0
        bump_src = noise.outputs["Fac"]
    elif s.kind == "wood":
        wave = nodes.new("ShaderNodeTexWave")
        wave.inputs["Scale"].default_value = 4.0 * s.scale
        wave.inputs["Distortion"].default_value = 8.0
        wave.inputs["Detail"].default_value = 4.0
        links.new(coord.outputs["Object"], wave.inputs["Vector"])
        dark = tuple(v * 0.65 for v in c1[:3]) + (1.0,)
        links.new(_mix_colour(nodes, links, wave.outputs["Fac"], c1, dark),
                  bsdf.inputs["Base Color"])
        bsdf.inputs["Roughness"].default_value = 0.45
    elif s.kind == "cloth":
        tex = nodes.new(str(np.random.default_rng([spec.seed, spec.index, 3]).choice(
            ["ShaderNodeTexChecker", "ShaderNodeTexBrick", "ShaderNodeTexWave"])))
        if "Scale" in tex.inputs:
            tex.inputs["Scale"].default_value = 20.0 * s.scale
        if "Color1" in tex.inputs:
            tex.inputs["Color1"].default_value = c1
            tex.inputs["Color2"].default_value = c2
            links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
        else:
            links.new(_mix_colour(nodes, links, tex.outputs["Fac"], c1, c2),
                      bsdf.inputs["Base Color"])
        links.new(coord.outputs["Object"], tex.inputs["Vector"])
        bsdf.inputs["Roughness"].default_value = 0.9
    elif s.kind == "paper":
        brick = nodes.new("ShaderNodeTexBrick")  # a score sheet's grid of thin lines
        brick.inputs["Scale"].default_value = 40.0 * s.scale
        brick.inputs["Mortar Size"].default_value = 0.02
        brick.offset = 0.0
        brick.inputs["Color1"].default_value = c1
        brick.inputs["Color2"].default_value = c1
        brick.inputs["Mortar"].default_value = tuple(v * 0.4 for v in c2[:3]) + (1.0,)
        links.new(coord.outputs["Object"], brick.inputs["Vector"])
        links.new(brick.outputs["Color"], bsdf.inputs["Base Color"])
        bsdf.inputs["Roughness"].default_value = 0.8
    else:  # glass over a dark floor: a glossy, dark surface
        bsdf.inputs["Base Color"].default_value = c1
        bsdf.inputs["Roughness"].default_value = 0.03
        bsdf.inputs["Coat Weight"].default_value = 1.0
    if bump_src is not None:
        bump = nodes.new("ShaderNodeBump")
        bump.inputs["Strength"].default_value = 0.4
        links.new(bump_src, bump.inputs["Height"])
        links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
    plane.data.materials.append(mat)
    if s.kind.startswith("tray"):
        verts = 6 if s.kind == "tray_hex" else 64
        bpy.ops.mesh.primitive_cylinder_add(vertices=verts, radius=s.tray_radius, depth=0.03,
                                            end_fill_type="NOTHING", location=(0, 0, 0.015))
        rim = bpy.context.active_object
        sol = rim.modifiers.new("wall", "SOLIDIFY")
        sol.thickness = 0.015
        rmat, _, _, rbsdf = _new_material("rim")
        rbsdf.inputs["Base Color"].default_value = _lin_rgba(s.rim_bgr)
        rbsdf.inputs["Roughness"].default_value = 0.55
        rim.data.materials.append(rmat)
        # outside the tray: a wooden or plain table
        bpy.ops.mesh.primitive_plane_add(size=4.0, location=(0, 0, -0.004))
        floor = bpy.context.active_object
        fmat, _, _, fbsdf = _new_material("floor")
        fbsdf.inputs["Base Color"].default_value = _lin_rgba(s.colour2_bgr)
        floor.data.materials.append(fmat)
        # the felt floor has the tray's shape (a square
        # plane would show its corners outside the rim)
        bpy.data.objects.remove(plane)
        bpy.ops.mesh.primitive_circle_add(vertices=verts, radius=s.tray_radius, fill_type="NGON",
                                          location=(0, 0, 0))
        bpy.context.active_object.data.materials.append(mat)


def _clutter(spec: SceneSpec) -> None:
    for i, c in enumerate(spec.clutter):
        if c.kind == "cup":
            bpy.ops.mesh.primitive_cylinder_add(radius=c.size[0] / 2, depth=c.size[2],
                                                location=(*c.position[:2], c.size[2] / 2))
        elif c.kind == "pencil":
            bpy.ops.mesh.primitive_cylinder_add(vertices=6, radius=c.size[1] / 2, depth=c.size[0],
                                                location=(*c.position[:2], c.size[1] / 2),
                                                rotation=(0, math.pi / 2, c.yaw))
        elif c.kind == "card":
            bpy.ops.mesh.primitive_cube_add(size=1.0, location=(*c.position[:2], c.size[2] / 2),
                                            rotation=(0, 0, c.yaw))
            bpy.context.active_object.scale = c.size
        else:  # a hand entering: a flattened ellipsoid
            bpy.ops.mesh.primitive_uv_sphere_add(radius=1.0,
                                                 location=(*c.position[:2], c.size[2] / 2),
                                                 rotation=(0, 0, c.yaw))
            bpy.context.active_object.scale = (c.size[0] / 2, c.size[1] / 2, c.size[2] / 2)
        obj = bpy.context.active_object
        obj.name = f"clutter{i}"
        mat, _, _, bsdf = _new_material(f"clutter{i}")
        bsdf.inputs["Base Color"].default_value = _lin_rgba(c.colour_bgr)
        bsdf.inputs["Roughness"].default_value = 0.5
        if c.kind == "hand":
            bsdf.inputs["Subsurface Weight"].default_value = 0.3
        obj.data.materials.append(mat)


def _lights(spec: SceneSpec) -> None:
    lt = spec.light
    world = bpy.data.worlds.new("world")
    bpy.context.scene.world = world
    if hasattr(world, "use_nodes") and not world.use_nodes:
        world.use_nodes = True
    bg = next(n for n in world.node_tree.nodes if n.type == "BACKGROUND")
    bg.inputs["Color"].default_value = _kelvin_rgb(lt.world_kelvin) + (1.0,)
    bg.inputs["Strength"].default_value = lt.world_strength
    area = bpy.data.lights.new("area", "AREA")
    area.energy = lt.area_power
    area.size = lt.area_size
    area.color = _kelvin_rgb(lt.area_kelvin)
    obj = bpy.data.objects.new("area", area)
    obj.location = lt.area_position
    to_centre = Vector((0, 0, 0)) - Vector(lt.area_position)
    obj.rotation_euler = to_centre.to_track_quat("-Z", "Y").to_euler()
    bpy.context.scene.collection.objects.link(obj)
    if lt.lamp_power > 0:  # a small, hard lamp: sharp shadows
        lamp = bpy.data.lights.new("lamp", "POINT")
        lamp.energy = lt.lamp_power
        lamp.shadow_soft_size = 0.005
        lamp.color = _kelvin_rgb(lt.lamp_kelvin)
        lobj = bpy.data.objects.new("lamp", lamp)
        lobj.location = lt.lamp_position
        bpy.context.scene.collection.objects.link(lobj)


def _camera(cam: CameraSpec):
    data = bpy.data.cameras.new("cam")
    data.lens = cam.lens_mm
    data.sensor_fit = "HORIZONTAL"
    data.sensor_width = 36.0
    data.clip_start = 0.005
    if cam.fstop > 0:
        data.dof.use_dof = True
        data.dof.aperture_fstop = cam.fstop
        data.dof.focus_distance = float(np.linalg.norm(np.array(cam.position)
                                                       - np.array(cam.target)))
    obj = bpy.data.objects.new("cam", data)
    obj.matrix_world = Matrix(camera_matrix(cam).tolist())
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.scene.camera = obj
    return obj


# ---- render -----------------------------------------------------------------------------------

def gpu_backend() -> str | None:
    """The first of OptiX, CUDA, HIP, oneAPI, Metal whose devices Cycles can use here, or None."""
    prefs = bpy.context.preferences.addons["cycles"].preferences
    for backend in ("OPTIX", "CUDA", "HIP", "ONEAPI", "METAL"):
        try:
            prefs.compute_device_type = backend
        except TypeError:  # not built into this Blender
            continue
        prefs.get_devices()
        gpus = [d for d in prefs.devices if d.type == backend]
        if gpus:
            for d in prefs.devices:
                d.use = d.type == backend
            return backend
    return None


def _setup(spec: SceneSpec, threads: int, device: str = "cpu") -> None:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    sc = bpy.context.scene
    sc.render.engine = "CYCLES"
    sc.cycles.device = "CPU"
    if device == "gpu":
        if gpu_backend() is None:
            raise RuntimeError("no GPU that Cycles can use (OptiX, CUDA, HIP, oneAPI, Metal): "
                               "render with --device cpu")
        sc.cycles.device = "GPU"
    sc.cycles.samples = spec.samples
    sc.cycles.use_denoising = True
    sc.cycles.seed = spec.index
    sc.cycles.max_bounces = 6
    sc.cycles.transmission_bounces = 6
    sc.cycles.caustics_reflective = False
    sc.cycles.caustics_refractive = False
    sc.render.resolution_x, sc.render.resolution_y = spec.camera.width, spec.camera.height
    sc.render.resolution_percentage = 100
    if threads:
        sc.render.threads_mode = "FIXED"
        sc.render.threads = threads
    sc.view_settings.view_transform = "Standard"
    sc.view_settings.look = "None"
    sc.render.image_settings.file_format = "OPEN_EXR"
    sc.render.image_settings.color_depth = "32"


def _hidden(spec: SceneSpec, objects: list) -> list[tuple[float, float]]:
    """Per die: the share of its camera-facing surface and of its top face that other objects
    hide or the frame cuts, from rays cast from the camera."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    scene = bpy.context.scene
    eye = Vector(spec.camera.position)
    out = []
    for die, obj in zip(spec.dice, objects):
        ev = obj.evaluated_get(depsgraph)
        mesh = ev.to_mesh()
        mw = ev.matrix_world
        pts, weights = [], []
        for p in mesh.polygons:
            c = mw @ p.center
            n = (mw.to_3x3() @ p.normal).normalized()
            if n.dot(eye - c) > 0:
                pts.append(c)
                weights.append(p.area)
        ev.to_mesh_clear()
        corners = top_face_corners(die)
        top = [Vector(tuple(corners[0] + (corners[1] - corners[0]) * a + (corners[3] - corners[0])
                            * b))
               for a in np.linspace(0.15, 0.85, 5) for b in np.linspace(0.15, 0.85, 5)]

        def visible(points):
            vis = []
            share_in = (frame_share(spec.camera, np.array([tuple(p) for p in points])) if points
                        else 0.0)
            for p in points:
                d = p - eye
                dist = d.length
                hit, loc, _n, _i, hobj, _m = scene.ray_cast(depsgraph, eye, d.normalized(),
                                                            distance=dist * 1.01)
                vis.append(bool(hit)
                           and (hobj.name == obj.name
                                or (loc - eye).length >= dist - die.size * 0.02))
            return np.array(vis, float), share_in

        v_all, in_all = visible(pts)
        v_top, in_top = visible(top)
        w = np.array(weights, float)
        seen_all = float((v_all * w).sum() / w.sum()) * in_all if len(w) else 0.0
        seen_top = float(v_top.mean()) * in_top if len(v_top) else 0.0
        out.append((1.0 - seen_all, 1.0 - seen_top))
    return out


def render(spec: SceneSpec, threads: int = 0,
           device: str = "cpu") -> tuple[np.ndarray, list[tuple[float, float]]]:
    """(8-bit BGR picture as a camera gives it, per die (hidden share, top face hidden share)).
    ``device``: ``cpu`` or ``gpu`` (Cycles' GPU backends; a RuntimeError when there is none)."""
    _setup(spec, threads, device)
    rng = np.random.default_rng([spec.seed, spec.index, 2])
    objects = [_add_die(d, i, rng) for i, d in enumerate(spec.dice)]
    _surface(spec)
    _clutter(spec)
    _lights(spec)
    _camera(spec.camera)
    hidden = _hidden(spec, objects)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "render.exr")
        bpy.context.scene.render.filepath = path
        bpy.ops.render.render(write_still=True)
        os.environ.setdefault("OPENCV_IO_ENABLE_OPENEXR", "1")
        linear = _read_exr(path)
    return finish(linear, spec.post, rng), hidden


def _read_exr(path: str) -> np.ndarray:
    img = bpy.data.images.load(path)
    w, h = img.size
    px = np.empty(w * h * 4, np.float32)
    img.pixels.foreach_get(px)
    bpy.data.images.remove(img)
    rgb = px.reshape(h, w, 4)[::-1, :, :3]
    return np.ascontiguousarray(rgb[..., ::-1])  # BGR, linear


def write_jpeg(path: Path, img: np.ndarray, quality: int) -> None:
    if not cv2.imwrite(str(path), img, [cv2.IMWRITE_JPEG_QUALITY, int(quality)]):
        raise OSError(f"{path}: could not write the picture")

"""Teaching a table its own dice from the web page: labels, progress, the die in a photo, the
taught reader.

The guided step of issue 5 (`docs/companion.md`, "Teach your dice"): a player photographs one die at
a time, close up and in the middle of the picture, and taps the face it shows. Each photo is one
entry of the table's teaching log (`Store.teach_append`, append-only: a mistaken photo is withdrawn
by a later entry, never deleted), so nothing taught is lost when the server stops. Once every face
has `PER_FACE` examples (and, for dice whose faces carry colours, every colour `PER_COLOUR`), the
table may switch to the taught reader: `vision.teach.teach` builds a dice set from the examples in a
second or two, and the table's camera frames are read with it (`vision.dice_set.DiceSetReader`)
instead of the shipped pip reader.

The same page calibrates the **body colours** of games whose dice differ by colour (Qwinto,
twenty one): one photo of the table's own dice under the table's light; the page shows each die
found with the colour the reader gave it, the player corrects a wrong one by a tap and confirms.
From then on the table's frames name colours by those dice as they looked
(`vision.colour.calibrate_dice`). The photo and the confirmed names are entries of the same log.

Everything here is pure except `locate_die`, `build_calibration`, `thumbnail` and
`build_reader`, which call vision, and `read_colour_photo`, which calls the reader it is given.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Sequence

PER_FACE = 3      # examples per face before the taught reader may be used (issue: 3-5)
PER_COLOUR = 2    # examples per colour, for faces that carry a colour
LOOSE_DIE = 0.5   # how sure of a die a candidate completing a colour photo is (reader: 0.9)


class TeachError(ValueError):
    """A teaching request that cannot be done (the message says why); nothing was stored."""


@dataclass(frozen=True)
class TeachLabels:
    faces: tuple            # the faces to teach: 1..6, or 1..5 and "cow"
    colours: tuple | None   # the colours taught with the faces, or None (body colours)
    dice: int | None = None  # dice rolled, where the faces carry colours (The Choice: 3)


@dataclass(frozen=True)
class Example:
    seq: int
    face: Any               # int or "cow"
    colour: str | None
    box: tuple | None


@dataclass(frozen=True)
class ColourPhoto:
    seq: int
    boxes: tuple[tuple[int, int, int, int], ...]   # the dice the reader found in it
    names: tuple[str | None, ...]                  # the colour of each: as read, or as confirmed


@dataclass(frozen=True)
class TeachState:
    examples: tuple[Example, ...]   # in the order they were taught, withdrawn ones left out
    in_use: bool                    # the table reads its frames with the taught dice
    colour_photo: ColourPhoto | None = None   # the last photo of the table's dice for their colours
    colours: ColourPhoto | None = None        # the confirmed one the table's colours are named by
    colour_photos: tuple[ColourPhoto, ...] = ()   # every colour photo, as read


def labels_for(dice_spec: dict) -> TeachLabels:
    """What a table teaches, from its game's dice (`companion.games.dice_spec`): every face,
    and the colours with the faces where the game prints its colours on the faces
    (`colours_on_faces`, The Choice); else a die's colour is its body's, named against the
    game's palette as the shipped reader does."""
    faces: list = []
    for c in dice_spec["colours"]:
        for f in c["faces"]:
            if f not in faces:
                faces.append(f)
    faces.sort(key=lambda f: (isinstance(f, str), f if isinstance(f, int) else 0, str(f)))
    colours, dice = None, None
    if dice_spec["colours_on_faces"]:
        colours = tuple(sorted(c["colour"] for c in dice_spec["colours"] if c["colour"]))
        dice = dice_spec.get("max_dice")
    return TeachLabels(tuple(faces), colours, dice)


def body_colours(dice_spec: dict) -> tuple[str, ...] | None:
    """The body colours a table calibrates on its teaching page: the game's dice colours when
    its dice differ by body colour (Qwinto, twenty one); None for games whose colours are on
    the faces (The Choice: taught with the faces) or do not matter."""
    if dice_spec["colours_on_faces"]:
        return None
    named = [c["colour"] for c in dice_spec["colours"] if c["colour"]]
    return tuple(named) if len(set(named)) >= 2 else None


def parse_colour_names(names: Any, photo: ColourPhoto | None,
                       colours: Sequence[str]) -> tuple[str | None, ...]:
    """The confirmed colour of each die of the colour photo (None: not one of the table's dice),
    checked (`TeachError`): one entry per die found, names of the table's colours, at least one
    die named, and each colour at most once (a game has one die of each colour)."""
    if photo is None:
        raise TeachError("take a photo of your dice first")
    if not isinstance(names, list) or len(names) != len(photo.boxes):
        raise TeachError(f"send one colour (or null) for each of the {len(photo.boxes)} dice found")
    out: list[str | None] = []
    for n in names:
        if n in (None, ""):
            out.append(None)
            continue
        if not isinstance(n, str) or n.strip().lower() not in colours:
            raise TeachError(f"{n!r} is not a colour of these dice (colours: {', '.join(colours)})")
        out.append(n.strip().lower())
    named = [n for n in out if n]
    if not named:
        raise TeachError("name the colour of at least one die")
    twice = sorted({n for n in named if named.count(n) > 1})
    if twice:
        raise TeachError(f"{', '.join(twice)}: named on two dice, but the game has one die of each "
                         "colour")
    return tuple(out)


def parse_example(face: Any, colour: Any, labels: TeachLabels) -> tuple[Any, str | None]:
    """The face and colour of an upload, checked against the table's labels (`TeachError`)."""
    text = str(face if face is not None else "").strip().lower()
    if not text:
        raise TeachError("say which face the die shows (the field 'face')")
    value: Any = int(text) if text.isdigit() else text
    if value not in labels.faces:
        raise TeachError(f"'{text}' is not a face of these dice (faces: "
                         f"{', '.join(str(f) for f in labels.faces)})")
    col = str(colour).strip().lower() if colour not in (None, "") else None
    if labels.colours is None:
        if col is not None:
            raise TeachError("these dice take their colour from the body: teach the face only")
        return value, None
    if col is None:
        raise TeachError("say which colour the face shows (the field 'colour')")
    if col not in labels.colours:
        raise TeachError(f"'{col}' is not a colour of these dice (colours: "
                         f"{', '.join(labels.colours)})")
    return value, col


def _colour_photo(row: dict) -> ColourPhoto:
    """A `colour_photo` entry of the log: the dice found in it and the colours read."""
    boxes = tuple(tuple(int(v) for v in b) for b in (row["box"] or []))
    return ColourPhoto(row["seq"], boxes, tuple(json.loads(row["colour"] or "[]")))


def fold(log: Sequence[dict]) -> TeachState:
    """The teaching log (`Store.teach_log`) -> the examples that count and whether they are used."""
    examples: dict[int, Example] = {}
    in_use = False
    photos: dict[int, ColourPhoto] = {}
    last_photo: ColourPhoto | None = None
    colours: ColourPhoto | None = None
    for row in log:
        kind = row["kind"]
        if kind == "colour_photo":
            last_photo = photos[row["seq"]] = _colour_photo(row)
        elif kind == "colours":
            photo = photos[row["ref"]]
            colours = last_photo = ColourPhoto(photo.seq, photo.boxes,
                                               tuple(json.loads(row["colour"])))
        elif kind == "colours_stop":
            colours = None
        if kind == "example":
            face = row["face"]
            value = int(face) if str(face).isdigit() else face
            examples[row["seq"]] = Example(row["seq"], value, row["colour"],
                                           None if row["box"] is None else tuple(row["box"]))
        elif kind == "withdraw":
            examples.pop(row["ref"], None)
        elif kind == "use":
            in_use = True
        elif kind == "stop":
            in_use = False
    return TeachState(tuple(examples[k] for k in sorted(examples)), in_use, last_photo, colours,
                      tuple(photos[k] for k in sorted(photos)))


def progress(state: TeachState, labels: TeachLabels) -> dict:
    """How far teaching is: examples per face (and colour), what is missing, ready or not."""
    faces = {str(f): 0 for f in labels.faces}
    for e in state.examples:
        faces[str(e.face)] = faces.get(str(e.face), 0) + 1
    missing = [f"{PER_FACE - n} more of face {f}" for f, n in faces.items() if n < PER_FACE]
    out: dict = {"counts": faces, "per_face": PER_FACE, "in_use": state.in_use}
    if labels.colours is not None:
        colours = {c: 0 for c in labels.colours}
        for e in state.examples:
            if e.colour in colours:
                colours[e.colour] += 1
        out["colour_counts"] = colours
        out["per_colour"] = PER_COLOUR
        # the faces (number and colour) taught: the reader names a die's number and colour
        # together among them, so every face of each die should be photographed once
        # (vision.dice_set.DiceSet.name_faces)
        out["faces_taught"] = len({(str(e.face), e.colour) for e in state.examples if e.colour})
        missing += [f"{PER_COLOUR - n} more in {c}" for c, n in colours.items() if n < PER_COLOUR]
    out["missing"] = missing
    out["ready"] = not missing
    return out


def locate_die(bgr) -> tuple[int, int, int, int]:
    """The die in a teaching photo: the player holds the camera close over one die, in the
    middle. Of the finder's candidates that cover the centre of the picture and look like one
    die (its face fills the box, a symbol on it), the one whose centre lies nearest the picture's
    centre; the whole picture when none does (a crop of the die). On close-up renders of the
    nine special designs this finds the die (IoU >= 0.5) in 78 of 90 photos; the page shows the
    box it took, so a wrong one is withdrawn and photographed again."""
    import numpy as np

    from vision.dice_set import MAX_DIE_SIDE, MIN_DIE_SIDE
    from vision.find import DieFinder
    from vision.read import CONTEXT, crop_square
    from vision.face_colour import CROP, MIN_INK, face_features

    h, w = bgr.shape[:2]
    cx, cy = w / 2, h / 2
    best = None
    for b in DieFinder()(bgr).boxes:
        if not (b[0] <= cx <= b[2] and b[1] <= cy <= b[3]):
            continue
        side = max(b[2] - b[0], b[3] - b[1])
        if side < 0.15 * min(w, h):
            continue
        f = face_features(crop_square(bgr, b, CROP, CONTEXT))
        if not (MIN_DIE_SIDE <= f.die_side <= MAX_DIE_SIDE and f.ink_fraction >= MIN_INK):
            continue
        off = float(np.hypot((b[0] + b[2]) / 2 - cx, (b[1] + b[3]) / 2 - cy)) / side
        if best is None or off < best[0]:
            best = (off, tuple(int(v) for v in b))
    return best[1] if best else (0, 0, int(w), int(h))


SHARP = 20.0        # the variance of the Laplacian of the die's crop (at most 96 px)
MIN_SIDE = 40       # px: the die's side in the photo
MIN_SHARE = 0.15    # a die the detector finds, as a share of the photo's shorter side


def crop_problem(bgr, box, detector=None) -> str | None:
    """Why the crop `box` of a teaching photo is no sample of a die (None: it is one): no die in
    the middle of the photo (`locate_die` found none, and `detector`, vision's die detector,
    finds no die of at least 15 % of the photo's shorter side over its centre either: a photo
    of the table with a big die away from its middle is no close-up; None: none is asked), a
    die under 40 px, or a blurred crop (the variance of the Laplacian of the die's crop, at most
    96 px, under 20). Measured on renders of the nine special designs, 8 photos each:
    `python bench/web_teach_crops.py`."""
    import cv2

    from vision.read import CONTEXT, crop_square
    h, w = bgr.shape[:2]
    if tuple(box) == (0, 0, w, h) and detector:
        # the whole photo stands for the die only where the detector sees one die there, big
        # and in the middle: a photo of the table with one big die at its edge is no close-up
        big = [b for b in detector(bgr).boxes
               if max(b[2] - b[0], b[3] - b[1]) >= MIN_SHARE * min(h, w)]
        if not any(b[0] <= w / 2 <= b[2] and b[1] <= h / 2 <= b[3] for b in big):
            return ("no die in the middle of the photo: hold the phone close over one die, "
                    "with the die in the middle")
    side = max(box[2] - box[0], box[3] - box[1])
    if side < MIN_SIDE:
        return f"the die is {side} px in the photo: come closer (at least {MIN_SIDE} px)"
    # at the photo's own scale (at most 96 px): a small die enlarged would look blurred
    grey = cv2.cvtColor(crop_square(bgr, box, int(min(96, side * CONTEXT)), CONTEXT),
                        cv2.COLOR_BGR2GRAY)
    if cv2.Laplacian(grey, cv2.CV_64F).var() < SHARP:
        return "the photo is blurred: hold the phone still and let it focus on the die"
    return None


def thumbnail(bgr, box, side: int = 96) -> bytes:
    """A small JPEG of what was taught (the reader's square crop of the box)."""
    import cv2

    from vision.read import CONTEXT, crop_square
    ok, jpeg = cv2.imencode(".jpg", crop_square(bgr, box, side, CONTEXT),
                            [cv2.IMWRITE_JPEG_QUALITY, 80])
    return jpeg.tobytes() if ok else b""


PIP_FACES = (1, 2, 3, 4, 5, 6)


def build_reader(examples: Sequence[tuple], labels: TeachLabels, palette, pip_session=None):
    """The taught reader: `examples` are (BGR image, box, face, colour); `palette` names body
    colours when the faces carry none. Returns (DiceSetReader, DiceSet). `pip_session`: the
    shipped face reader's session; for dice of pip faces 1-6 with no colours on them, a value it
    is sure of stands (`vision.dice_set.DiceSetReader.pip_reader`): teaching pip dice must not
    read them worse than the shipped reader."""
    from vision.dice_set import DiceSetReader
    from vision.embedding import default_embedder
    from vision.read import FaceReader
    from vision.teach import teach

    embedder = default_embedder()
    ds = teach(list(examples), colour_names=labels.colours, embedder=embedder, dice=labels.dice)
    pips = pip_session is not None and tuple(labels.faces) == PIP_FACES and not labels.colours
    return DiceSetReader(ds, palette, None, embedder=embedder,
                         pip_reader=FaceReader(pip_session) if pips else None), ds


def shipped_names(dice_spec: dict, labels: TeachLabels) -> dict[int, Any] | None:
    """The face each of the shipped reader's values 1-6 names on this game's dice: itself, or a
    picture face on its side (`symbol_sides`: Kuh Vadis' cow on the sixth); None when it names
    no face of these dice (colours printed on the faces, or faces that are not 1-6 and pictures
    on known sides)."""
    if labels.colours:
        return None
    from companion.reader import game_face, symbol_faces
    symbol_at = symbol_faces(dice_spec.get("symbol_sides"))
    names = {k: game_face(k, symbol_at) for k in PIP_FACES}
    return names if set(map(str, names.values())) == set(map(str, labels.faces)) else None


def worsens_the_set(dice_set, new: int, example: tuple, names: dict[int, Any] | None,
                    pip_session) -> str | None:
    """Why example `new` of `dice_set` (the set taught with it) would make the set read worse, or
    None: the other photos of its face read it as another face (`vision.dice_set
    .teaching_problem`), unless the shipped reader (`pip_session`, naming faces by `names`)
    reads it as the face the player chose. Then the player did not tap a wrong face: the photo
    shows where the taught set is weak, and refusing it would hide that weakness from
    `shipped_check`, which judges the set on the photos it was taught with. Photoreal renders of
    one Kuh Vadis set taken as the page takes photos (`python bench/vision_special_renders.py
    --teach work_data/kv4_teach --test work_data/kv4_test --untaught`): without the exception
    the page refuses 21 photos, the 28 it keeps read one another better than the shipped reader
    reads them (as taken and shrunk, 49 against 47 of 56 readings), and the table switches to
    taught dice that read its test scenes at 77.8 % instead of 92.8 %; with it, 34 photos are
    taken and the check keeps the built-in reader."""
    from vision.dice_set import teaching_problem
    problem = teaching_problem(dice_set, new)
    if problem is None or names is None or pip_session is None:
        return problem
    from vision.read import FaceReader
    bgr, box, face, _ = example
    seen = _shipped_face(FaceReader(pip_session), names, bgr, _die_box(bgr, box))
    return None if str(seen) == str(face) else problem


SHIPPED_SURE = 0.95   # the built-in reader's share at which it refuses a photo's face


def shipped_disagrees(example: tuple, names: dict[int, Any] | None, pip_session) -> str | None:
    """Why a photo of a pip face looks like another face to the built-in reader, or None: it
    reads the die as another of its pip faces with at least `SHIPPED_SURE` of its share. This
    judges every photo, the first of a face too, which `worsens_the_set` cannot: with no other
    photo of the face to compare, a wrong face tapped was taken. Only pip faces are judged (a
    face the built-in reader names itself: not Kuh Vadis' cow, whose photo it reads as pips,
    and not faces with colours printed on them, `names` None)."""
    if names is None or pip_session is None:
        return None
    import numpy as np

    from vision.read import FaceReader
    bgr, box, face, _ = example
    if not isinstance(face, int) or str(names.get(face)) != str(face):
        return None
    probs = np.asarray(FaceReader(pip_session)(bgr, [_die_box(bgr, box)]).probs)[0, 1:]
    value = int(probs.argmax()) + 1
    seen = names[value]
    if str(seen) == str(face) or str(seen) != str(value) or probs[value - 1] < SHIPPED_SURE:
        return None
    return (f"this photo looks like {seen}, not {face}: check the face you chose, or take the "
            f"photo again")   # companion.reasons: app.teach_looks_like_builtin


def _die_box(bgr, box) -> tuple:
    """An example's box (None: the whole photo is the die)."""
    return tuple(box) if box is not None else (0, 0, bgr.shape[1], bgr.shape[0])


def _shipped_face(reader, names: dict[int, Any], bgr, box):
    """The face the shipped reader (a `vision.read.FaceReader`) reads the die in `box` as,
    named by `names` (its value 1-6 -> this game's face)."""
    import numpy as np
    return names[int(np.asarray(reader(bgr, [box]).probs)[0, 1:].argmax()) + 1]


TABLE_DIE = 32   # px: the side a table's camera sees a die at, for judging taught dice


def _as_seen_at_the_table(bgr, box):
    """(image, box): the photo shrunk so that the die's side is `TABLE_DIE` px (a die already
    smaller stays as it is)."""
    import cv2
    f = min(1.0, TABLE_DIE / max(box[2] - box[0], box[3] - box[1], 1))
    if f >= 1.0:
        return bgr, tuple(box)
    small = cv2.resize(bgr, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    return small, tuple(int(round(v * f)) for v in box)


def shipped_check(examples: Sequence[tuple], dice_set, names: dict[int, Any] | None,
                  pip_session, embedder=None) -> str | None:
    """Why the table should keep the shipped reader instead of its taught dice, or None: the
    shipped reader (`pip_session`, naming faces by `names`) reads the taught photos clearly
    better than the taught set reads them with each left out (`vision.dice_set
    .shipped_reads_better`), each photo judged as taken and shrunk to a die of `TABLE_DIE` px.
    Teaching must not make the table read worse than it does untaught. `embedder`: the face
    embedding the set was taught with (default: the shipped one).

    Why shrunk too: teaching photos are close-ups (the page refuses a die under 40 px or a
    blurred one), and a set may read its close-ups nearly as well as the shipped reader does and
    the table's smaller dice far worse. Photoreal renders of one Kuh Vadis set taught with the
    photos the page takes (`python bench/vision_special_renders.py --teach work_data/kv4_teach
    --test work_data/kv4_test --untaught`): as taken, the shipped reader reads 26 and the set
    19 of 34, not clearly better, and the table would read its test scenes at 81.7 % instead
    of the shipped reader's 92.8 %; shrunk too, 53 against 40 of 68 readings: kept on the
    shipped reader. The sets the taught reader reads well are not refused either way (2-D
    renders of the five Kuh Vadis designs and the real pip sets taught with 3 or 5 photos a
    face; docs/vision-special.md, "The teaching page's refusals")."""
    if names is None or pip_session is None or not examples:
        return None
    import numpy as np

    from vision.dice_set import shipped_reads_better
    from vision.embedding import default_embedder
    from vision.read import FaceReader, crop_square
    reader = FaceReader(pip_session)
    embedder = embedder or default_embedder()   # the one the set was taught with
    shipped, small_shipped, small_crops = {}, {}, []
    for g, (bgr, box, _, _) in enumerate(examples):
        box = _die_box(bgr, box)
        shipped[g] = _shipped_face(reader, names, bgr, box)
        small, small_box = _as_seen_at_the_table(bgr, box)
        small_shipped[g] = _shipped_face(reader, names, small, small_box)
        small_crops.append(crop_square(small, small_box, embedder.size, embedder.context))
    small_taught = {g: dice_set.read_left_out(g, e)
                    for g, e in enumerate(embedder(np.stack(small_crops)))}
    better = shipped_reads_better(dice_set, shipped, (small_shipped, small_taught))
    if better is None:
        return None
    right_shipped, right_taught, judged = better
    # companion.reasons: "app.teach_builtin_better"
    return (f"the built-in reader reads your photos better than the taught dice do "
            f"({right_shipped} of {judged} readings against {right_taught}, each photo as taken "
            f"and as small as the table's camera sees a die, read by the others): the table "
            f"keeps the built-in reader; photos taken at the table, in its light, teach better")


def read_colour_photo(bgr, reader, dice: int | None = None
                      ) -> tuple[tuple[tuple[int, int, int, int], ...], tuple[str, ...]]:
    """The dice in a photo of the table's dice and the colour `reader` (the table's uncalibrated
    shipped reader: the per-photo light estimate and one die per colour) names each by: (boxes,
    names), dice in reading order.

    `dice`: how many dice the photo holds (the game's, one of each colour). When the reader finds
    fewer, the photo is read again taking every candidate at least `LOOSE_DIE` sure to be a die,
    and that reading is kept if it finds more dice, but no more than `dice`: the player was asked
    for all the dice, so a die the reader doubted (a low-contrast face under a coloured lamp) is
    more likely there than not, and the player checks every die found before it is used."""
    roll = reader(bgr)
    if dice is not None and len(roll.dice) < dice:
        loose = replace(reader, min_die=LOOSE_DIE)(bgr)
        if len(roll.dice) < len(loose.dice) <= dice:
            roll = loose
    return (tuple(tuple(int(v) for v in d.box) for d in roll.dice),
            tuple(str(d.colour) for d in roll.dice))


def build_calibration(bgr, photo: ColourPhoto, palette):
    """The table's colour calibration from its confirmed colour photo: each named die's colour as
    measured in the photo (`vision.colour.calibrate_dice`)."""
    from vision.colour import calibrate_dice, measure_body

    named = [(b, n) for b, n in zip(photo.boxes, photo.names) if n]
    return calibrate_dice([measure_body(bgr, b, palette.everyday) for b, _ in named],
                          [n for _, n in named], palette)

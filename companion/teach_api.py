"""The JSON API of teaching a table its dice (routes on `api_base.bp`, under `/api`):

- `GET  /tables/<code>/teach`          progress: examples per face (and colour), what is missing
- `POST /tables/<code>/teach`          one photo of one die (multipart `photo`, fields `face` and,
                                       for faces that carry colours, `colour`) -> the box found
                                       and a thumbnail of what was taught
- `GET  /tables/<code>/teach/<seq>.jpg` what the reader took of a taught photo
- `POST /tables/<code>/teach/withdraw` take back an example (`{"seq": N}`, default the last)
- `POST /tables/<code>/teach/use`      `{"use": true}`: read this table's frames with the taught
                                       dice (every face taught first; refused when the shipped
                                       reader reads the taught photos clearly better,
                                       `teaching.shipped_check`); `false`: the shipped reader
- `GET  /tables/<code>/dice-set.npz`   the taught dice as a dice-set file, for
                                       `dice-companion read --dice-set` and `watch --dice-set`
- `POST /tables/<code>/teach/colours`  Qwinto, twenty one: one photo of the table's dice
                                       (multipart `photo`) -> the dice found and the colour read
                                       for each, to be confirmed
- `POST /tables/<code>/teach/colours/use` `{"photo": SEQ, "names": [...]}`: name this table's
                                       colours by these dice (one name or null per die found);
                                       `{"photo": null}`: by the standard colours again
- `GET  /tables/<code>/teach/<seq>/<i>.jpg` die i of a colour photo

Only the table's players and its creator may teach. Every accepted entry is committed before the
answer; a refused one (bad photo, unknown face, not ready) changes nothing.
"""
from __future__ import annotations

import base64
import json

from flask import Response, current_app, jsonify, request

from . import games as G
from . import teaching as T
from .api_base import ApiError, body_json, bp, viewer
from .bounded import Bounded
from .db import get_store
from .reader import BadFrame, ReaderUnavailable, declared_palette, decode_frame
from .store import AlreadyWithdrawn, TableRecord


def _labels(rec: TableRecord) -> T.TeachLabels:
    return T.labels_for(G.dice_spec(rec.game))


def _state(rec: TableRecord) -> T.TeachState:
    return T.fold(get_store().teach_log(rec))


def _answer(rec: TableRecord, status: int = 200, **extra):
    labels = _labels(rec)
    state = _state(rec)
    body = {"faces": list(labels.faces),
            "colours": list(labels.colours) if labels.colours else None,
            **T.progress(state, labels),
            "examples": [{"seq": e.seq, "face": e.face, "colour": e.colour, "box": e.box}
                         for e in state.examples],
            "body_colours": _body_colours(rec),
            "colour_photo": _photo_json(state.colour_photo, state.colours),
            "colours_in_use": state.colours is not None,
            "may_teach": _allowed(rec),  # the page says "join the table" before a photo is taken
            **extra}
    return jsonify(body), status


def _body_colours(rec: TableRecord):
    named = T.body_colours(G.dice_spec(rec.game))
    return list(named) if named else None


def _photo_json(photo: T.ColourPhoto | None, in_use: T.ColourPhoto | None):
    """The last colour photo: its dice, the colour of each (as read, or as confirmed), and whether
    the table's colours are named by it."""
    if photo is None:
        return None
    return {"seq": photo.seq, "in_use": photo == in_use,
            "dice": [{"box": list(b), "colour": n} for b, n in zip(photo.boxes, photo.names)]}


def _palette(rec: TableRecord):
    return declared_palette(G.dice_spec(rec.game))


def _allowed(rec: TableRecord) -> bool:
    seat, creator = viewer(rec)
    return seat is not None or creator


def _may_teach(rec: TableRecord) -> None:
    if not _allowed(rec):
        raise ApiError(403, "join the table to teach its dice")


def _forget_reader(code: str) -> None:
    """The table's frame reader is rebuilt on its next frame (the taught dice changed)."""
    current_app.extensions["readers"].pop(code, None)


@bp.get("/tables/<code>/teach")
def teach_progress(code: str):
    return _answer(get_store().table_record(code))


def _detector():
    """The app's die detector (None without a model: the photo's crop is judged without it)."""
    try:
        return current_app.extensions["vision"].detector()
    except ReaderUnavailable:
        return None


@bp.post("/tables/<code>/teach")
def teach_example(code: str):
    store = get_store()
    rec = store.table_record(code)
    _may_teach(rec)
    upload = request.files.get("photo")
    data = upload.read() if upload else b""
    try:
        face, colour = T.parse_example(request.form.get("face"), request.form.get("colour"),
                                       _labels(rec))
        image = decode_frame(data, "photo")
    except (T.TeachError, BadFrame) as exc:
        raise ApiError(400, str(exc)) from None
    box = T.locate_die(image)
    problem = T.crop_problem(image, box, _detector())
    if problem is not None:     # a photo of the table, a tiny or a blurred die: nothing written
        raise ApiError(422, problem)
    state = _state(rec)
    example = (image, box, face, colour)
    built = _taught_with(rec, state, example)
    keep = request.form.get("keep") in ("1", "true")
    problem = (None if keep else
               T.shipped_disagrees(example, T.shipped_names(G.dice_spec(rec.game), _labels(rec)),
                                   _pip_session())
               or _worsens_the_set(rec, built, len(state.examples), example))
    if problem is not None:     # read as another face by the photos taught so far: nothing written
        # `keep`: the player may send it again with keep=1 (the page's "keep it" button)
        raise ApiError(422, problem, keep=True)
    seq = store.teach_append(rec, "example", face=str(face), colour=colour, box=box, image=data)
    if built is not None:       # the set just taught is the table's taught set from now on
        _keep_built("taught", rec, tuple(e.seq for e in state.examples) + (seq,), built)
    _forget_reader(rec.code)
    thumb = base64.b64encode(T.thumbnail(image, box)).decode()
    return _answer(rec, 201, taught={"seq": seq, "face": face, "colour": colour, "box": list(box),
                                     "width": image.shape[1], "height": image.shape[0],
                                     "thumbnail": "data:image/jpeg;base64," + thumb})


@bp.get("/tables/<code>/teach/<int:seq>.jpg")
def teach_thumbnail(code: str, seq: int):
    """What the reader took of a taught photo (the square crop of its box), 96 px."""
    store = get_store()
    rec = store.table_record(code)
    examples = {e.seq: e for e in _state(rec).examples}
    if seq not in examples:
        raise ApiError(404, f"there is no taught example {seq}")
    image = decode_frame(store.teach_image(rec, seq))
    return Response(T.thumbnail(image, examples[seq].box), mimetype="image/jpeg",
                    headers={"Cache-Control": "max-age=86400"})


@bp.post("/tables/<code>/teach/withdraw")
def teach_withdraw(code: str):
    store = get_store()
    rec = store.table_record(code)
    _may_teach(rec)
    body = body_json() if request.content_length else {}
    state = _state(rec)
    if not state.examples:
        raise ApiError(409, "nothing has been taught yet")
    seq = body.get("seq", state.examples[-1].seq) if isinstance(body, dict) else None
    # (true is an int to Python: it withdrew example 1)
    if isinstance(seq, bool) or not isinstance(seq, int) \
            or seq not in {e.seq for e in state.examples}:
        raise ApiError(400, f"there is no taught example {seq!r} to withdraw")
    try:
        store.teach_append(rec, "withdraw", ref=seq)
    except AlreadyWithdrawn:    # another device's withdrawal of it came first
        raise ApiError(400, f"there is no taught example {seq!r} to withdraw") from None
    _forget_reader(rec.code)
    return _answer(rec, withdrawn=seq)


@bp.post("/tables/<code>/teach/use")
def teach_use(code: str):
    store = get_store()
    rec = store.table_record(code)
    _may_teach(rec)
    body = body_json()
    if not isinstance(body, dict) or not isinstance(body.get("use"), bool):
        raise ApiError(400, "send 'use': true or false")
    if body["use"]:
        state = _state(rec)
        prog = T.progress(state, _labels(rec))
        if not prog["ready"]:
            raise ApiError(409, "teach every face first: " + "; ".join(prog["missing"]),
                           missing=prog["missing"])
        worse = _shipped_check(rec, state)
        if worse is not None:   # teaching would read worse than the shipped reader: not used
            raise ApiError(409, worse)
    store.teach_append(rec, "use" if body["use"] else "stop")
    _forget_reader(rec.code)
    return _answer(rec)


@bp.post("/tables/<code>/teach/colours")
def teach_colour_photo(code: str):
    """One photo of the table's dice: stored, read with the shipped reader (uncalibrated), and
    answered with the dice found and the colour read for each, for the player to confirm."""
    store = get_store()
    rec = store.table_record(code)
    _may_teach(rec)
    colours = _body_colours(rec)
    if not colours:
        raise ApiError(409,
                       "the dice of this game do not differ by body colour: there are no colours "
                       "to calibrate")
    upload = request.files.get("photo")
    data = upload.read() if upload else b""
    try:
        image = decode_frame(data, "photo")
    except BadFrame as exc:
        raise ApiError(400, str(exc)) from None
    spec = G.dice_spec(rec.game)
    faces = sorted({f for c in spec["colours"] for f in c["faces"] if isinstance(f, int)})
    try:
        boxes, names = T.read_colour_photo(image, current_app.extensions["vision"].reader(
            colours, faces, settled=True), dice=spec["max_dice"])
    except ReaderUnavailable as exc:
        raise ApiError(503, str(exc)) from None
    if not boxes:
        raise ApiError(422,
                       "no dice found in the photo: put the dice on the table and take the photo "
                       "from above")
    seq = store.teach_append(rec, "colour_photo", colour=json.dumps(list(names)),
                             box=[list(b) for b in boxes], image=data)
    return _answer(rec, 201, photo=seq)


@bp.get("/tables/<code>/teach/<int:seq>/<int:die>.jpg")
def teach_colour_die(code: str, seq: int, die: int):
    """Die `die` of a colour photo, as the reader took it."""
    store = get_store()
    rec = store.table_record(code)
    photo = _colour_photos(_state(rec)).get(seq)
    if photo is None or not 0 <= die < len(photo.boxes):
        raise ApiError(404, f"there is no die {die} in a colour photo {seq}")
    image = decode_frame(store.teach_image(rec, seq))
    return Response(T.thumbnail(image, photo.boxes[die]), mimetype="image/jpeg",
                    headers={"Cache-Control": "max-age=86400"})


@bp.post("/tables/<code>/teach/colours/use")
def teach_colours_use(code: str):
    """Name the table's colours by its own dice (the confirmed names of a colour photo), or by
    the standard colours again (`{"photo": null}`)."""
    store = get_store()
    rec = store.table_record(code)
    _may_teach(rec)
    colours = _body_colours(rec)
    body = body_json()
    if not colours:
        raise ApiError(409,
                       "the dice of this game do not differ by body colour: there are no colours "
                       "to calibrate")
    if not isinstance(body, dict) or "photo" not in body:
        raise ApiError(400, "send 'photo': its number and 'names': a list, or 'photo': null")
    state = _state(rec)
    if body["photo"] is None:
        if state.colours is not None:
            store.teach_append(rec, "colours_stop")
            _forget_reader(rec.code)
        return _answer(rec)
    photo = _colour_photos(state).get(body["photo"]) if isinstance(body["photo"], int) else None
    if photo is None:
        raise ApiError(400, f"there is no colour photo {body['photo']!r}")
    try:
        names = T.parse_colour_names(body.get("names"), photo, colours)
    except T.TeachError as exc:
        raise ApiError(400, str(exc)) from None
    confirmed = T.ColourPhoto(photo.seq, photo.boxes, names)
    _calibration(rec, confirmed)   # made now, so a problem shows here and not on the next frame
    store.teach_append(rec, "colours", colour=json.dumps(list(names)), ref=photo.seq)
    _forget_reader(rec.code)
    return _answer(rec)


def _colour_photos(state: T.TeachState) -> dict[int, T.ColourPhoto]:
    return {p.seq: p for p in state.colour_photos}


BUILT_KEPT = 32   # tables whose taught reader and colour calibration are kept built


def _built_once(kind: str, rec: TableRecord, key, make):
    """`make()`, kept per table while `key` (what it was made from) stays the same: the taught
    reader and the colour calibration are made from stored photos, not on every request."""
    hit = _built(kind).get(rec.code)
    if hit is None or hit[0] != key:
        hit = _keep_built(kind, rec, key, make())
    return hit[1]


def _built(kind: str) -> Bounded:
    return current_app.extensions.setdefault(kind, Bounded(BUILT_KEPT))


def _keep_built(kind: str, rec: TableRecord, key, value) -> tuple:
    """Keep `value`, made from `key`, as the table's built `kind` (see `_built_once`)."""
    _built(kind)[rec.code] = (key, value)
    return key, value


def _calibration(rec: TableRecord, photo: T.ColourPhoto):
    """The table's colour calibration from a confirmed colour photo, made once per photo and
    names."""
    def make():
        try:
            return T.build_calibration(decode_frame(get_store().teach_image(rec, photo.seq)), photo,
                                       _palette(rec))
        except ValueError as exc:
            raise ApiError(400, f"these colours cannot be used: {exc}") from None
    return _built_once("calibrations", rec, (photo.seq, photo.names), make)


def calibration_if_used(rec: TableRecord, state: T.TeachState | None = None):
    """The table's colour calibration when it names colours by its own dice, else None."""
    state = state or _state(rec)
    return _calibration(rec, state.colours) if state.colours is not None else None


@bp.get("/tables/<code>/dice-set.npz")
def teach_download(code: str):
    rec = get_store().table_record(code)
    state = _state(rec)
    if not T.progress(state, _labels(rec))["ready"]:
        raise ApiError(409, "teach every face first")
    _, ds = _taught_reader(rec, state)
    return Response(ds.to_bytes(), mimetype="application/octet-stream",
                    headers={"Content-Disposition": f'attachment; filename="dice-{rec.code}.npz"'})


def _examples(rec: TableRecord, state: T.TeachState) -> list[tuple]:
    """The table's taught examples as (BGR image, box, face, colour), in teaching order."""
    images = {row["seq"]: row["image"] for row in get_store().teach_log(rec, images=True)
              if row["kind"] == "example"}
    return [(decode_frame(images[e.seq]), e.box, e.face, e.colour) for e in state.examples]


def _taught_with(rec: TableRecord, state: T.TeachState, example: tuple):
    """(DiceSetReader, DiceSet) taught from the table's examples and a new one, or None when
    there is nothing to judge it by (no example yet) or no taught reader can be built here."""
    if not state.examples:
        return None
    try:
        return T.build_reader(_examples(rec, state) + [example], _labels(rec), _palette(rec),
                              _pip_session())
    except (FileNotFoundError, OSError, ValueError):
        return None


def _worsens_the_set(rec: TableRecord, built, new: int, example: tuple) -> str | None:
    """Why example `new` of the set `built` (`_taught_with`) would make the taught set read
    worse, or None (`teaching.worsens_the_set`: the other photos of its face read it as another
    face, and the shipped reader does not read it as the face chosen). The first photo of a face
    cannot be judged and is taken."""
    if built is None:
        return None
    return T.worsens_the_set(built[1], new, example,
                             T.shipped_names(G.dice_spec(rec.game), _labels(rec)), _pip_session())


def _pip_session():
    """The shipped face reader's session, which keeps reading the pip faces it is sure of on a
    taught table (`teaching.build_reader`); None where camera reading is unavailable."""
    try:
        return current_app.extensions["vision"].load()[0]
    except ReaderUnavailable:
        return None


def _taught_reader(rec: TableRecord, state: T.TeachState):
    """(DiceSetReader, DiceSet) of the table's examples (`state`), built once per set of
    examples."""
    def make():
        examples = _examples(rec, state)
        try:
            return T.build_reader(examples, _labels(rec), _palette(rec), _pip_session())
        except (FileNotFoundError, OSError, ValueError) as exc:
            raise ApiError(503, f"the taught reader cannot be built: {exc}") from None
    # switching on and off changes no example
    return _built_once("taught", rec, tuple(e.seq for e in state.examples), make)


def _shipped_check(rec: TableRecord, state: T.TeachState) -> str | None:
    """Why the table keeps the shipped reader instead of its taught dice, or None
    (`teaching.shipped_check`). Builds the taught reader now, so a problem shows here and not on
    the next frame; judged once per set of examples: it reads every stored photo again."""
    def make():
        _, dice_set = _taught_reader(rec, state)
        return T.shipped_check(_examples(rec, state), dice_set,
                               T.shipped_names(G.dice_spec(rec.game), _labels(rec)),
                               _pip_session())
    return _built_once("shipped_checks", rec, tuple(e.seq for e in state.examples), make)


def taught_reader_if_used(rec: TableRecord, state: T.TeachState | None = None):
    """The table's taught DiceSetReader when the table uses its taught dice, else None."""
    state = state or _state(rec)
    return _taught_reader(rec, state)[0] if state.in_use else None


def table_reading(rec: TableRecord):
    """(the taught reader or None, the colour calibration or None) of a table: one log read."""
    state = _state(rec)
    return taught_reader_if_used(rec, state), calibration_if_used(rec, state)

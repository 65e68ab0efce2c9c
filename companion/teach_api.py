"""The JSON API of teaching a table its dice (routes on `api.bp`, under `/api`):

- `GET  /tables/<code>/teach`          progress: examples per face (and colour), what is missing
- `POST /tables/<code>/teach`          one photo of one die (multipart `photo`, fields `face` and,
                                       for faces that carry colours, `colour`) -> the box found
                                       and a thumbnail of what was taught
- `GET  /tables/<code>/teach/<seq>.jpg` what the reader took of a taught photo
- `POST /tables/<code>/teach/withdraw` take back an example (`{"seq": N}`, default the last)
- `POST /tables/<code>/teach/use`      `{"use": true}`: read this table's frames with the taught
                                       dice (every face taught first); `false`: the shipped reader
- `GET  /tables/<code>/dice-set.npz`   the taught dice as a dice-set file, for
                                       `dice-companion read --dice-set` and `watch --dice-set`

Only the table's players and its creator may teach. Every accepted entry is committed before the
answer; a refused one (bad photo, unknown face, not ready) changes nothing.
"""
from __future__ import annotations

import base64

from flask import Response, current_app, jsonify, request

from . import games as G
from . import teaching as T
from .api import ApiError, bp, body_json, viewer
from .db import get_store
from .reader import BadFrame, decode_frame, game_palette
from .store import TableRecord


def _labels(rec: TableRecord) -> T.TeachLabels:
    return T.labels_for(rec.game, G.dice_spec(rec.game))


def _state(rec: TableRecord) -> T.TeachState:
    return T.fold(get_store().teach_log(rec))


def _answer(rec: TableRecord, status: int = 200, **extra):
    labels = _labels(rec)
    state = _state(rec)
    body = {"faces": list(labels.faces), "colours": list(labels.colours) if labels.colours else None,
            **T.progress(state, labels),
            "examples": [{"seq": e.seq, "face": e.face, "colour": e.colour, "box": e.box} for e in state.examples],
            **extra}
    return jsonify(body), status


def _may_teach(rec: TableRecord) -> None:
    seat, creator = viewer(rec)
    if seat is None and not creator:
        raise ApiError(403, "join the table to teach its dice")


def _forget_reader(code: str) -> None:
    """The table's frame reader is rebuilt on its next frame (the taught dice changed)."""
    current_app.extensions["readers"].pop(code, None)


@bp.get("/tables/<code>/teach")
def teach_progress(code: str):
    return _answer(get_store().table_record(code))


@bp.post("/tables/<code>/teach")
def teach_example(code: str):
    store = get_store()
    rec = store.table_record(code)
    _may_teach(rec)
    upload = request.files.get("photo")
    data = upload.read() if upload else b""
    try:
        face, colour = T.parse_example(request.form.get("face"), request.form.get("colour"), _labels(rec))
        image = decode_frame(data)
    except (T.TeachError, BadFrame) as exc:
        raise ApiError(400, str(exc)) from None
    box = T.locate_die(image)
    seq = store.teach_append(rec, "example", face=str(face), colour=colour, box=box, image=data)
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
    body = body_json() if request.get_data() else {}
    state = _state(rec)
    if not state.examples:
        raise ApiError(409, "nothing has been taught yet")
    seq = body.get("seq", state.examples[-1].seq) if isinstance(body, dict) else None
    if not isinstance(seq, int) or seq not in {e.seq for e in state.examples}:
        raise ApiError(400, f"there is no taught example {seq!r} to withdraw")
    store.teach_append(rec, "withdraw", ref=seq)
    _forget_reader(rec.code)
    return _answer(rec, withdrawn=seq)


@bp.post("/tables/<code>/teach/use")
def teach_use(code: str):
    store = get_store()
    rec = store.table_record(code)
    _may_teach(rec)
    body = body_json()
    if not isinstance(body, dict) or not isinstance(body.get("use"), bool):
        raise ApiError(400, "send {\"use\": true} or {\"use\": false}")
    if body["use"]:
        state = _state(rec)
        prog = T.progress(state, _labels(rec))
        if not prog["ready"]:
            raise ApiError(409, "teach every face first: " + "; ".join(prog["missing"]),
                           missing=prog["missing"])
        _taught_reader(rec, state)   # built now, so a problem shows here and not on the next frame
    store.teach_append(rec, "use" if body["use"] else "stop")
    _forget_reader(rec.code)
    return _answer(rec)


@bp.get("/tables/<code>/dice-set.npz")
def teach_download(code: str):
    rec = get_store().table_record(code)
    state = _state(rec)
    if not T.progress(state, _labels(rec))["ready"]:
        raise ApiError(409, "teach every face first")
    _, ds = _taught_reader(rec, state)
    return Response(ds.to_bytes(), mimetype="application/octet-stream",
                    headers={"Content-Disposition": f'attachment; filename="dice-{rec.code}.npz"'})


def _taught_reader(rec: TableRecord, state: T.TeachState):
    """(DiceSetReader, DiceSet) of the table's examples (`state`), built once per set of examples."""
    cache = current_app.extensions.setdefault("taught", {})
    taught = tuple(e.seq for e in state.examples)   # switching on and off changes no example
    hit = cache.get(rec.code)
    if hit is not None and hit[0] == taught:
        return hit[1]
    images = {row["seq"]: row["image"] for row in get_store().teach_log(rec, images=True) if row["kind"] == "example"}
    examples = [(decode_frame(images[e.seq]), e.box, e.face, e.colour) for e in state.examples]
    labels = _labels(rec)
    spec = G.dice_spec(rec.game)
    try:
        built = T.build_reader(examples, labels, game_palette([c["colour"] for c in spec["colours"]]))
    except (FileNotFoundError, OSError, ValueError) as exc:
        raise ApiError(503, f"the taught reader cannot be built: {exc}") from None
    cache[rec.code] = (taught, built)
    return built


def taught_reader_if_used(rec: TableRecord):
    """The table's taught DiceSetReader when the table uses its taught dice, else None."""
    state = _state(rec)
    return _taught_reader(rec, state)[0] if state.in_use else None

"""The HTTP API described in OpenAPI 3.1, served at `/api/openapi.json`.

`describe()` builds the document: every route under `/api` with its parameters, request body,
and each status it may answer with the shape of that answer. It is kept true two ways: a test
checks that every `/api` route of the app is described (and nothing more), and `.ci/fuzz_api.py`
runs schemathesis against a live server, failing on a 5xx or on an answer the document does
not describe. The pages (`/`, `/t/<code>`, ...) are HTML for people and are not described here.
"""
from __future__ import annotations

from typing import Any

from engine.advice.types import FIGURES
from engine.registry import GAMES

from .api_base import LAYOUT_BODY, MAX_STREAM_SECONDS, SMALL_BODY

JSON = "application/json"


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _obj(required: tuple[str, ...] = (), **props: Any) -> dict:
    """An object with these properties (more are allowed: answers may grow)."""
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = list(required)
    return out


def _nullable(schema: dict) -> dict:
    return {"anyOf": [schema, {"type": "null"}]}


STR, INT, BOOL, NUM = {"type": "string"}, {"type": "integer"}, {"type": "boolean"}, \
    {"type": "number"}
ANY_OBJ = {"type": "object"}
FACE = {"anyOf": [INT, STR]}

SCHEMAS: dict[str, dict] = {
    "Error": _obj(("error",), error=STR, code=STR),
    "Die": _obj(("face",), colour=_nullable(STR), face=FACE),
    "Score": _obj(("total", "lines"), total=INT, lines={"type": "array", "items": _obj(
        ("label", "points"), label=STR, points=INT, detail=_nullable(STR))}),
    "Game": _obj(("name", "title", "min_players", "max_players", "layouts", "dice"),
                 name=STR, title=STR, min_players=INT, max_players=INT, max_attempts=INT,
                 default_layout=STR, seat_layouts=BOOL, dice=ANY_OBJ, first_drawn=STR,
                 layouts={"type": "array", "items": _obj(
                     ("name", "confidence"), name=STR, confidence=STR, recon=BOOL, note=STR)}),
    "Mark": _obj(("text", "row", "col", "value", "dice"), text=STR, row=STR, col=INT,
                 value=FACE, dice={"type": "array", "items": INT}),
    "Placement": _obj(("text", "kind", "ordered", "marks"), text=STR, kind=STR, ordered=BOOL,
                      marks={"type": "array", "items": _ref("Mark")}),
    "Player": _obj(("seat", "name", "claimed", "sheet", "score"),
                   seat=INT, name=STR, claimed=BOOL, layout=ANY_OBJ, sheet=ANY_OBJ,
                   view=_nullable(ANY_OBJ), score=_ref("Score"), answered=BOOL,
                   answer=_nullable(STR), answer_parts=_nullable(_ref("Placement")),
                   role=_nullable(STR), mark=_nullable(STR)),
    "TableState": _obj(
        ("code", "seq", "game", "players", "me"),
        code=STR, seq=INT, game=ANY_OBJ,
        players={"type": "array", "items": _ref("Player")},
        roller=_nullable(INT), next_roller=_nullable(INT), turns=INT,
        attempts={"type": "array"}, roll=_nullable({"type": "array", "items": _ref("Die")}),
        pending={"type": "array"}, may_reroll=BOOL, still_rolling=BOOL, turn_complete=BOOL,
        is_over=BOOL, standings={"type": "array", "items": ANY_OBJ},
        ended_by={"type": "array", "items": ANY_OBJ},
        me=_obj(("seat", "creator", "can_roll", "writes_for", "seats"),
                seat=_nullable(INT), creator=BOOL, can_roll=BOOL,
                writes_for={"type": "array", "items": INT}, stand_in=_nullable(INT),
                seats=ANY_OBJ,
                # the join link's secret: for the creator and the seated players, else null
                join=_nullable(STR))),
    # a frame superseded by a newer one of its table (`superseded`) is not read: no size
    "Reading": _obj(("dice", "settled", "state"),
                    dice={"type": "array", "items": _obj(
                        ("face", "box", "confidence"), colour=_nullable(STR), face=FACE,
                        box={"type": "array", "items": NUM}, confidence=NUM,
                        check=BOOL)},
                    settled=BOOL, state=STR, width=INT, height=INT, elapsed_ms=NUM,
                    superseded=BOOL,
                    roll=STR, problem=_nullable(STR), legal={"type": "array", "items": STR},
                    timing=ANY_OBJ, colourless=BOOL),
    "Camera": _obj(("source",), source=_nullable(STR), demo=BOOL, picture=INT, pictures=INT),
    "Teaching": _obj(("faces", "counts", "missing", "ready", "examples", "may_teach"),
                     faces={"type": "array", "items": FACE},
                     colours=_nullable({"type": "array"}), counts=ANY_OBJ,
                     per_face=INT, in_use=BOOL, missing={"type": "array", "items": STR},
                     ready=BOOL, examples={"type": "array", "items": ANY_OBJ},
                     body_colours=_nullable({"type": "array"}),
                     colour_photo=_nullable(ANY_OBJ), colours_in_use=BOOL, may_teach=BOOL),
    "Check": _obj(("problems", "ok", "score", "finished", "sheet"),
                  problems={"type": "array", "items": STR}, ok=BOOL, score=_ref("Score"),
                  finished=BOOL, sheet=ANY_OBJ, view=_nullable(ANY_OBJ)),
    "Advice": _obj(("seat", "seq", "options", "dice", "best", "figure"), seat=INT, seq=INT,
                   options={"type": "array", "items": _obj(
                       ("placement", "expected", "marks", "parts"), placement=STR,
                       expected=NUM, reason=STR, marks={"type": "array", "items": STR},
                       parts=_ref("Placement"))},
                   dice={"type": "array", "items": ANY_OBJ}, best=_nullable(STR),
                   figure={"type": "string", "enum": list(FIGURES)}),
}

# what each status means, for the answers that are errors
ERRORS = {
    400: "bad input: malformed JSON, a missing or wrong field, a corrupt image",
    403: "not this viewer's to do (another player's sheet, a seat without the table's join "
         "link), or a request from a page of another site",
    404: "no such table (or no camera, no such example)",
    409: "refused by the rules, or the table changed meanwhile (an action overtaken since the "
         "log position it names comes with the current `state`); the message says why",
    413: "the body is over this route's limit",
    415: "a JSON body not sent as application/json",
    422: "a photo that cannot be used for teaching (no die in the middle, too small, blurred)",
    503: "camera reading unavailable on this server (tap the dice in)",
}


def _answer(schema: dict | None, what: str, media: str = JSON) -> dict:
    if schema is None:
        return {"description": what}
    return {"description": what, "content": {media: {"schema": schema}}}


def _op(summary: str, ok: tuple[int, dict | None, str] | None, errors: tuple[int, ...],
        body: dict | None = None, params: list | None = None, media: str = JSON,
        limit: int | None = None) -> dict:
    """One operation: its answer when it works (`ok`: status, schema, media type), the error
    statuses it may answer with, and its body (a JSON schema, or a multipart one)."""
    responses: dict[str, Any] = {}
    if ok is not None:
        status, schema, ok_media = ok
        responses[str(status)] = _answer(schema, "done", ok_media)
    for status in errors:
        responses[str(status)] = _answer(_ref("Error"), ERRORS[status])
    op: dict[str, Any] = {"summary": summary, "responses": responses}
    if params:
        op["parameters"] = params
    if body is not None:
        op["requestBody"] = {"required": True, "content": {media: {"schema": body}}}
        if limit is not None:
            op["requestBody"]["description"] = f"at most {limit // 1024} KB"
    return op


def _path(name: str, schema: dict, where: str = "path", required: bool = True) -> dict:
    return {"name": name, "in": where, "required": required, "schema": schema}


CODE = _path("code", {"type": "string", "minLength": 1, "maxLength": 12})
SEAT_Q = _path("seat", INT, "query", False)
LIMIT_Q = _path("limit", {"type": "number", "minimum": 0, "maximum": MAX_STREAM_SECONDS},
                "query", False)
TABLE_Q = _path("table", STR, "query", False)
STAND_IN_Q = _path("stand_in", INT, "query", False)

GAME = {"enum": sorted(GAMES)}
SEAT = {"type": "integer", "minimum": 0, "maximum": 11}
NAME = {"type": "string", "minLength": 1, "maxLength": 40, "pattern": "\\S"}
# an idempotency key: the same on a retry, which is answered as the first request
KEY = {"type": "string", "pattern": "^[A-Za-z0-9_-]{16,64}$"}

ACTION = {"type": "object", "required": ["type"], "examples": [
    {"type": "roll", "roll": "orange:3 yellow:4"}, {"type": "keep"},
    {"type": "place", "seat": 0, "placement": "O7@2"}, {"type": "undo", "seat": 0},
    {"type": "place", "seat": 1, "placement": "pass"}], "properties": {
    "type": {"enum": ["begin", "roll", "correct", "keep", "place", "undo", "end_side", "side",
                      "erase"]},
    "roll": {"anyOf": [STR, {"type": "array", "items": _ref("Die")}]},
    "seat": SEAT, "placement": STR, "side": STR, "field": STR, "stand_in": BOOL,
    "key": KEY, "seq": {"type": "integer", "minimum": 0}}}
NEW_TABLE = {"type": "object", "required": ["game", "players"], "examples": [
    {"game": "qwinto", "players": ["Ann", "Bob"], "claim": 0},
    {"game": "twenty_one", "players": ["Ann", "Bob", "Cy"], "first": "random"},
    {"game": "knister", "players": ["Ann"]}], "properties": {
    "game": GAME, "players": {"type": "array", "items": NAME, "minItems": 1, "maxItems": 12,
                              "uniqueItems": True},
    "layout": {"anyOf": [STR, ANY_OBJ]}, "layouts": {"type": "array"},
    "uploaded": ANY_OBJ, "claim": SEAT, "first": {"anyOf": [SEAT, {"const": "random"}]},
    "key": KEY}}
CHECK = {"type": "object", "required": ["game"], "examples": [
    {"game": "qwinto", "cells": {"O@1": 5, "Y@0": 2}},
    {"game": "knister", "cells": {"A@0": 7}, "final": False}], "properties": {
    "game": GAME, "layout": {"anyOf": [STR, ANY_OBJ]}, "uploaded": ANY_OBJ, "sheet": ANY_OBJ,
    "cells": {"type": "object", "additionalProperties": {"anyOf": [INT, STR, {"type": "null"}]}},
    "extras": ANY_OBJ, "final": BOOL}}
PHOTO = {"type": "object", "properties": {"photo": {"type": "string",
                                                    "contentMediaType": "image/jpeg"},
                                          "face": STR, "colour": STR,
                                          "keep": {"type": "string", "enum": ["1", "true"]}}}
IMAGE = {"type": "string", "contentMediaType": "image/jpeg"}
MULTIPART = "multipart/form-data"
ALL = (400, 403, 404, 409, 413, 415)    # what a state-changing JSON route may answer


def describe() -> dict:
    """The OpenAPI document of the API."""
    state = (200, _ref("TableState"), JSON)
    teaching = (200, _ref("Teaching"), JSON)
    paths: dict[str, dict] = {
        "/openapi.json": {"get": _op("this description", (200, ANY_OBJ, JSON), ())},
        "/games": {"get": _op("every game with its layouts and dice", (200, _obj(
            ("games",), games={"type": "array", "items": _ref("Game")}), JSON), ())},
        "/games/{name}": {"get": _op("one game", (200, _ref("Game"), JSON), (400,),
                                     params=[_path("name", STR)])},
        "/tables": {"post": _op(
            "create a table; the creator's token comes as the cookie dc_<CODE>; `join_url` is "
            "the table's join link (what its QR code opens: a free seat is taken with it)",
            (201, _obj(("code", "url", "join_url", "state"), code=STR, url=STR, join_url=STR,
                       state=_ref("TableState")), JSON),
            (400, 403, 413, 415), NEW_TABLE, limit=LAYOUT_BODY)},
        "/tables/{code}": {"get": _op("the table as this viewer sees it", state, (400, 404),
                                      params=[CODE, STAND_IN_Q])},
        "/tables/{code}/log": {"get": _op("the table's actions in order", (200, _obj(
            ("code", "actions"), code=STR, actions={"type": "array", "items": ANY_OBJ}), JSON),
            (404,), params=[CODE])},
        "/tables/{code}/join": {"post": _op(
            "sit down at an unclaimed seat with the table's join secret (`join`: from its join "
            "link, `me.join` of its creator and players); the creator needs none; without it, "
            "or with a wrong one, 403 and nothing changes", state, ALL,
            _obj(("seat",), seat=SEAT, join=STR), params=[CODE], limit=SMALL_BODY)},
        "/tables/{code}/rejoin": {"post": _op(
            "take a joined seat back on this device with the host's rejoin code", state, ALL,
            _obj(("seat", "key"), seat=SEAT, key=STR), params=[CODE], limit=SMALL_BODY)},
        "/tables/{code}/seats/{seat}/rejoin": {"get": _op(
            "a seat's rejoin code (the creator only)",
            (200, _obj(("seat", "name", "key", "url"), seat=INT, name=STR, key=STR, url=STR),
             JSON), (400, 403, 404, 409), params=[CODE, _path("seat", INT)])},
        "/tables/{code}/actions": {"post": _op(
            "one action (roll, correct, keep, place, undo, begin), checked by the rules "
            "and stored before the answer", state, ALL, ACTION, params=[CODE],
            limit=SMALL_BODY)},
        "/tables/{code}/why": {"post": _op(
            "why a placement is not allowed for a seat now",
            (200, _obj(("legal", "reason", "code"), legal=BOOL, reason=_nullable(STR),
                       code=_nullable(STR)), JSON),
            ALL, dict(_obj(("seat", "placement"), seat=SEAT, placement=STR),
                      examples=[{"seat": 0, "placement": "O3@0"},
                                {"seat": 1, "placement": "pass"}]),
            params=[CODE],
            limit=SMALL_BODY)},
        "/tables/{code}/advice": {"get": _op(
            "the advisor's ranked placements for the viewer's own seat",
            (200, _ref("Advice"), JSON), (400, 403, 404), params=[CODE, SEAT_Q])},
        "/tables/{code}/frame": {"post": _op(
            "one camera frame (JPEG or PNG, at most 4096 px a side) -> the dice read",
            (200, _ref("Reading"), JSON), (400, 403, 404, 413, 503), IMAGE,
            params=[CODE], media="image/jpeg")},
        "/tables/{code}/photo": {"post": _op(
            "a photo of the rolled dice (JPEG or PNG, at most 4096 px a side) -> the dice read "
            "at once by the settled-roll reader",
            (200, _ref("Reading"), JSON), (400, 403, 404, 413, 503), IMAGE,
            params=[CODE], media="image/jpeg")},
        "/tables/{code}/camera": {"post": _op(
            "read the server camera's (or the demo's) latest picture",
            (200, _ref("Reading"), JSON), (400, 403, 404, 503), params=[CODE])},
        "/tables/{code}/camera/next": {"post": _op(
            "the demo's next picture for this table", (200, _ref("Camera"), JSON),
            (403, 404, 409), params=[CODE])},
        "/camera": {"get": _op("the server's camera", (200, _ref("Camera"), JSON), (404,),
                               params=[TABLE_Q])},
        "/camera.mjpg": {"get": _op(
            "the server's camera as an MJPEG stream; `limit` seconds end it",
            (200, {"type": "string"}, "multipart/x-mixed-replace"), (400, 404),
            params=[LIMIT_Q, TABLE_Q])},
        "/tables/{code}/events": {"get": _op(
            "server-sent events of the table (hello, action, joined, reading); `limit` "
            "seconds end the stream", (200, {"type": "string"}, "text/event-stream"),
            (400, 404), params=[CODE, LIMIT_Q])},
        "/check": {"post": _op(
            "check a sheet typed in from paper: every rule problem, and the score",
            (200, _ref("Check"), JSON), (400, 403, 413, 415), CHECK, limit=LAYOUT_BODY)},
        "/tables/{code}/teach": {
            "get": _op("how far teaching the table's dice is", teaching, (404,),
                       params=[CODE]),
            "post": _op("one photo of one die and its face", (201, _ref("Teaching"), JSON),
                        (400, 403, 404, 413, 422), PHOTO, params=[CODE], media=MULTIPART)},
        "/tables/{code}/teach/{seq}.jpg": {"get": _op(
            "what the reader took of a taught photo", (200, IMAGE, "image/jpeg"), (404,),
            params=[CODE, _path("seq", INT)])},
        "/tables/{code}/teach/{seq}/{die}.jpg": {"get": _op(
            "one die of a colour photo", (200, IMAGE, "image/jpeg"), (404,),
            params=[CODE, _path("seq", INT), _path("die", INT)])},
        "/tables/{code}/teach/withdraw": {"post": _op(
            "take back a taught example (the last without a body)", teaching, ALL,
            _obj(seq=INT), params=[CODE], limit=SMALL_BODY)},
        "/tables/{code}/teach/use": {"post": _op(
            "read the table's frames with its taught dice, or not", teaching,
            ALL + (503,), _obj(("use",), use=BOOL), params=[CODE], limit=SMALL_BODY)},
        "/tables/{code}/teach/colours": {"post": _op(
            "one photo of the table's dice, to name its colours",
            (201, _ref("Teaching"), JSON), (400, 403, 404, 409, 413, 422, 503), PHOTO,
            params=[CODE], media=MULTIPART)},
        "/tables/{code}/teach/colours/use": {"post": _op(
            "name the table's colours by a confirmed colour photo, or by the standard ones",
            teaching, ALL, _obj(("photo",), photo=_nullable(INT),
                                names={"type": "array", "items": _nullable(STR)}),
            params=[CODE], limit=SMALL_BODY)},
        "/tables/{code}/dice-set.npz": {"get": _op(
            "the taught dice as a dice-set file", (200, {"type": "string"},
                                                    "application/octet-stream"),
            (404, 409, 503), params=[CODE])},
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "dice companion", "version": "1",
                 "description": "The JSON API of the dice companion's pages. A player is "
                                "known by the token of their seat: the cookie dc_<CODE> or "
                                "the X-Token header. State-changing requests from a page of "
                                "another site are refused (403)."},
        "servers": [{"url": "/api"}],
        "paths": paths,
        "components": {"schemas": SCHEMAS},
    }

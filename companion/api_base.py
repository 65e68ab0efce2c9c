"""What every route under /api shares: the blueprint they hang on, `ApiError` and the error
handlers (JSON `{"error", "code"}` in the request's language), the request's body (`body_json`),
its `?limit=`, its token and seat (`viewer`), and a table's state (`load`). The route modules
(`api`, `teach_api`, `advice_api`) import it; it imports none of them.
"""
from __future__ import annotations

import re
import secrets
from typing import Any

from flask import Blueprint, Response, current_app, g, jsonify, request
from werkzeug.exceptions import HTTPException

from engine.errors import IllegalPlacement, InvalidInput
from engine.table import Table

from .bodies import BadJson, parse_json
from .db import get_store
from .reasons import explain, translate
from .store import TableRecord, UnknownTable

bp = Blueprint("api", __name__, url_prefix="/api")

COOKIE_PREFIX = "dc_"


class ApiError(Exception):
    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra


def lang() -> str:
    """The language of this request's pages (see `pages._language`)."""
    return g.get("lang", "en")


def error_body(message: str, **extra: Any) -> dict:
    """`{"error": message in the request's language, "code": its catalogue code}`; the
    code (see `reasons`) is there when the message is one the catalogue knows."""
    found = explain(message)
    body = {"error": translate(message, lang())}
    if found is not None:
        body["code"] = found[0]
    return {**body, **extra}


@bp.errorhandler(ApiError)
def _api_error(exc: ApiError):
    return jsonify(error_body(exc.message, **exc.extra)), exc.status


@bp.errorhandler(HTTPException)
def _http_error(exc: HTTPException):
    message = {413: "the upload is too large"}.get(exc.code, exc.description)
    return jsonify(error_body(message)), exc.code


@bp.errorhandler(UnknownTable)
def _unknown(exc):
    return jsonify(error_body(str(exc))), 404


@bp.errorhandler(IllegalPlacement)
def _illegal(exc):
    return jsonify(error_body(str(exc))), 409


@bp.errorhandler(InvalidInput)
def _invalid(exc):
    return jsonify(error_body(str(exc))), 400


# -- helpers ------------------------------------------------------------------------------
SMALL_BODY = 16 * 1024      # an action, a seat, a teaching switch
LAYOUT_BODY = 64 * 1024     # a new table or a sheet to check, with uploaded layouts


def whole_body(limit: int, cache: bool = False) -> bytes:
    """The request's body, 413 when over `limit` bytes. A body sent with a Content-Length is
    refused before it is read; one sent in chunks (no Content-Length) is read up to the limit,
    where werkzeug stops without a word: one that reaches it is refused too (it was read cut
    short, as "malformed JSON" or "the photo is corrupt")."""
    request.max_content_length = limit
    raw = request.get_data(cache=cache)   # 413 when its Content-Length is over the limit
    if request.content_length is None and len(raw) >= limit:
        raise ApiError(413, "the upload is too large")
    return raw


def body_json(limit: int = SMALL_BODY) -> Any:
    """The request's JSON body, decoded and checked by `bodies.parse_json`; 400 "malformed
    JSON: why" when refused, 413 when over `limit` bytes (the routes that take layouts pass
    `LAYOUT_BODY`), 415 when not sent as `application/json` (a page of another site cannot
    send that type without asking: see `security`)."""
    if request.mimetype != "application/json":
        raise ApiError(415, "send the body as JSON (Content-Type: application/json)")
    raw = whole_body(min(limit, current_app.config["MAX_CONTENT_LENGTH"] or limit), cache=True)
    try:
        return parse_json(raw)
    except BadJson as exc:
        raise ApiError(400, f"malformed JSON: {exc}") from None


MAX_STREAM_SECONDS = 3600


def limit_arg() -> float | None:
    """`?limit=` seconds that end a stream (tests, benchmarks): None when absent, else a number
    0-`MAX_STREAM_SECONDS`; anything else (nan, abc, inf) is a 400, not a stream without end."""
    text = request.args.get("limit")
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 <= value <= MAX_STREAM_SECONDS:     # NaN compares false
        raise ApiError(400, f"'limit' must be a number of seconds 0-{MAX_STREAM_SECONDS}")
    return value


def is_seat_number(value: Any) -> bool:
    """A seat in a request is a JSON whole number (`true` and `1.9` are not seat 1)."""
    return isinstance(value, int) and not isinstance(value, bool)


_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")


def token_for(code: str) -> str | None:
    """The request's token for table `code` (header `X-Token`, else the table's cookie); one
    that is no token the server makes (URL-safe ASCII, at most 64 characters) is none."""
    return a_token(request.headers.get("X-Token") or request.cookies.get(COOKIE_PREFIX + code))


def a_token(text: Any) -> str | None:
    """`text` if it may be a token the server makes (URL-safe ASCII, at most 64 characters,
    so that `secrets.compare_digest` takes it), else None."""
    return text if isinstance(text, str) and _TOKEN.fullmatch(text) else None


def set_token(resp: Response, code: str, token: str) -> Response:
    resp.set_cookie(COOKIE_PREFIX + code, token, max_age=60 * 60 * 24 * 30,
                    httponly=True, samesite="Lax", secure=request.is_secure)
    return resp


def viewer(rec: TableRecord) -> tuple[int | None, bool]:
    """(the request's seat at the table or None, whether it is the table's creator)."""
    return holder(rec, token_for(rec.code))


def holder(rec: TableRecord, token: str | None) -> tuple[int | None, bool]:
    """(the seat `token` opens at the table or None, whether it is the creator's token)."""
    return (get_store().seat_of(rec, token),
            bool(token) and secrets.compare_digest(token, rec.creator_token))


def may_join(rec: TableRecord, secret: Any) -> bool:
    """Whether `secret` is the table's join secret (what its join link carries)."""
    secret = a_token(secret)
    return secret is not None and secrets.compare_digest(secret, rec.join_key)


def load(code: str) -> tuple[TableRecord, int, Table]:
    store = get_store()
    rec = store.table_record(code)
    seq, table = store.state(rec)
    return rec, seq, table

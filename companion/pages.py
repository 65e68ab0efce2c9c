"""The pages: server-rendered shells (Jinja) that the local `static/app.js` fills from the
JSON API and keeps live through server-sent events. No CDN: every asset is served here.

- `/`                 start: create a table (game, layout incl. RECON defaults and uploads,
                      players) or join one by code; recent tables
- `/t/<code>`         table view: roll entry (tap or camera), every sheet in small, ranking
- `/t/<code>/sheet`   my sheet (`?seat=N` for the creator writing for a seat nobody joined)
- `/t/<code>/teach`   teach the table its own dice: a photo per die, a tap for its face
- `/t/<code>/qr.svg`  the QR code that opens the table
- `/check`            check my paper
"""
from __future__ import annotations

import io
import json
import re

from flask import (Blueprint, Response, current_app, g, redirect,
                   render_template, request, url_for)

from . import games as G
from .db import get_store
from .i18n import pick_language, strings
from .reasons import translate
from .store import UnknownTable

bp = Blueprint("pages", __name__)


@bp.before_app_request
def set_language() -> None:
    """The request's language (`g.lang`) and the pages' strings in it (`g.T`)."""
    g.lang = pick_language(request.args.get("lang"), request.cookies.get("lang"),
                           request.accept_languages)
    g.T = strings(g.lang)


@bp.after_app_request
def _remember_language(resp: Response) -> Response:
    if request.args.get("lang") in ("en", "de"):
        resp.set_cookie("lang", request.args["lang"], max_age=60 * 60 * 24 * 365,
                        samesite="Lax")
    return resp


@bp.app_context_processor
def _inject():
    other = "de" if g.get("lang", "en") == "en" else "en"
    https_url = current_app.config.get("HTTPS_URL")
    return {"T": g.get("T") or strings("en"), "lang": g.get("lang", "en"),
            "other_lang": other,
            # where the camera works: this page at the HTTPS address (None: already there, or
            # the server has none)
            "secure_url": None if request.is_secure or not https_url else
            https_url.rstrip("/") + request.full_path.rstrip("?"),
            "https_off": not request.is_secure and not https_url,
            "cert_note": (https_url or "").startswith("https:") or request.is_secure,
            # a JSON data block (no inline script: see `security`); "<" escaped so that no
            # text in it can end the block
            "i18n_json": json.dumps(g.get("T") or strings("en"),
                                    ensure_ascii=False).replace("<", "\\u003c")}


def error_page(status: int, message: str):
    return render_template("error.html", status=status, message=message), status


@bp.app_errorhandler(UnknownTable)
def _unknown(exc):
    if request.path.startswith("/api/"):
        from .api import error_body
        return error_body(str(exc)), 404
    return error_page(404, translate(str(exc), g.get("lang", "en")))


def _games(language: str) -> list[dict]:
    """Every game for a page, its layouts' notes in the page's language."""
    return [dict(game, layouts=[dict(l, note=translate(l["note"], language)) for l in game["layouts"]])
            for game in G.all_games()]


@bp.get("/")
def index():
    store = get_store()
    games = _games(g.lang)
    titles = {g["name"]: g["title"] for g in games}  # "Twenty One", not "twenty_one"
    return render_template("index.html", games=games, recent=store.list_tables(8), titles=titles,
                           public_url=current_app.config.get("PUBLIC_URL"))


@bp.post("/join")
def join_by_code():
    code = (request.form.get("code") or "").strip().upper()
    get_store().table_record(code)   # 404 page when unknown
    return redirect(url_for("pages.table", code=code))


@bp.get("/t/<code>")
def table(code: str):
    rec = get_store().table_record(code)
    return render_template("table.html", code=rec.code, game=rec.game,
                           join_url=_table_url(rec.code))


@bp.get("/t/<code>/sheet")
def sheet(code: str):
    rec = get_store().table_record(code)
    return render_template("sheet.html", code=rec.code, game=rec.game,
                           seat=request.args.get("seat", type=int))


@bp.get("/t/<code>/teach")
def teach(code: str):
    rec = get_store().table_record(code)
    return render_template("teach.html", code=rec.code, game=rec.game)


@bp.get("/t/<code>/qr.svg")
def qr(code: str):
    """The QR code that opens the table; `?rejoin=SEAT.CODE`: the one that takes a seat back."""
    rec = get_store().table_record(code)
    url = _table_url(rec.code)
    rejoin = request.args.get("rejoin", "")
    if re.fullmatch(r"\d{1,2}\.[A-Z0-9]{4,8}", rejoin):
        url += f"?rejoin={rejoin}"
    return Response(qr_svg(url), mimetype="image/svg+xml")


@bp.get("/qr.svg")
def qr_home():
    return Response(qr_svg(_base_url() + "/"), mimetype="image/svg+xml")


@bp.get("/check")
def check():
    return render_template("check.html", games=_games(g.lang))


def _base_url() -> str:
    return (current_app.config.get("PUBLIC_URL") or request.host_url).rstrip("/")


def _table_url(code: str) -> str:
    return f"{_base_url()}/t/{code}"


def qr_svg(text: str) -> str:
    """The QR code of `text` as SVG (segno, pure Python)."""
    import segno
    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="svg", scale=6, border=2, xmldecl=False,
                                     svgns=True, title=text)
    return out.getvalue().decode()

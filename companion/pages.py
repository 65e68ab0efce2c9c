"""The pages: server-rendered shells (Jinja) that the local `static/app.js` fills from the
JSON API and keeps live through server-sent events. No CDN: every asset is served here.

- `/`                 start: create a table (game, layout incl. RECON defaults and uploads,
                      players) or open one by code (to watch); the tables this browser's own
                      cookies open (a stranger sees none)
- `/t/<code>`         table view: roll entry (tap or camera), every sheet in small, ranking;
                      `?join=SECRET` (the join link): free seats may be taken
- `/t/<code>/sheet`   my sheet (`?seat=N` for the creator writing for a seat nobody joined)
- `/t/<code>/teach`   teach the table its own dice: a photo per die, a tap for its face
- `/t/<code>/qr.svg`  the QR code that opens the table: its join link for the creator and the
                      seated players, its plain address for anyone else
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
        from .api_base import error_body
        return error_body(str(exc)), 404
    return error_page(404, translate(str(exc), g.get("lang", "en")))


def _games(language: str) -> list[dict]:
    """Every game for a page, its layouts' notes in the page's language."""
    return [dict(game, first_drawn=translate(game["first_drawn"], language),
                 layouts=[dict(layout, note=translate(layout["note"], language))
                          for layout in game["layouts"]])
            for game in G.all_games()]


# The start page lists the tables this browser's cookies open: at most MY_TABLES of them, the
# newest first, looked up from at most COOKIES_LOOKED_UP of its table cookies.
MY_TABLES = 8
COOKIES_LOOKED_UP = 32
_CODE = re.compile(r"[A-Z0-9]{4,8}")


def my_tables(cookies: dict[str, str]) -> list[dict]:
    """The tables whose cookie (`dc_<CODE>`) holds the creator's token or a seat's, newest
    first: {code, game, players, n}. A cookie with another token, or for no table, opens
    nothing; so a browser without cookies gets no list, and no code or name it was not given."""
    from .api_base import COOKIE_PREFIX, a_token, holder
    store = get_store()
    found = []
    codes = [name[len(COOKIE_PREFIX):] for name in cookies
             if name.startswith(COOKIE_PREFIX) and _CODE.fullmatch(name[len(COOKIE_PREFIX):])]
    for code in codes[:COOKIES_LOOKED_UP]:
        try:
            rec = store.table_record(code)
        except UnknownTable:
            continue
        seat, creator = holder(rec, a_token(cookies[COOKIE_PREFIX + code]))
        if seat is not None or creator:
            found.append(rec)
    found.sort(key=lambda rec: rec.id, reverse=True)
    return [{"code": rec.code, "game": rec.game, "n": rec.log_seen,
             "players": ", ".join(s.name for s in rec.seats)} for rec in found[:MY_TABLES]]


@bp.get("/")
def index():
    games = _games(g.lang)
    titles = {g["name"]: g["title"] for g in games}  # "Twenty One", not "twenty_one"
    return render_template("index.html", games=games, recent=my_tables(request.cookies),
                           titles=titles, public_url=current_app.config.get("PUBLIC_URL"))


@bp.post("/join")
def join_by_code():
    """A code typed on the start page opens the table to watch; a seat needs its join link."""
    code = (request.form.get("code") or "").strip().upper()
    get_store().table_record(code)   # 404 page when unknown
    return redirect(url_for("pages.table", code=code))


@bp.get("/t/<code>")
def table(code: str):
    rec = get_store().table_record(code)
    return render_template("table.html", code=rec.code, game=rec.game, **_invitation(rec))


@bp.get("/t/<code>/sheet")
def sheet(code: str):
    rec = get_store().table_record(code)
    # the host lands here after creating the table: the join link is at hand until all sit
    return render_template("sheet.html", code=rec.code, game=rec.game,
                           seat=request.args.get("seat", type=int), **_invitation(rec))


@bp.get("/t/<code>/teach")
def teach(code: str):
    rec = get_store().table_record(code)
    return render_template("teach.html", code=rec.code, game=rec.game)


@bp.get("/t/<code>/qr.svg")
def qr(code: str):
    """The QR code that opens the table; `?rejoin=SEAT.CODE`: the one that takes a seat back."""
    rec = get_store().table_record(code)
    url = _link_for_viewer(rec)
    rejoin = request.args.get("rejoin", "")
    if re.fullmatch(r"\d{1,2}\.[A-Z0-9]{4,8}", rejoin):
        url = _table_url(rec.code) + f"?rejoin={rejoin}"
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


def _invitation(rec) -> dict:
    """The link a page offers the viewer (`join_url`), and whether it invites to sit down
    (`invites`): a join link, while a seat is free; else the link lets one watch."""
    link = _link_for_viewer(rec)
    return {"join_url": link,
            "invites": "?join=" in link and any(not seat.claimed for seat in rec.seats)}


def _link_for_viewer(rec) -> str:
    """The table's join link (`?join=SECRET`) for its creator and its seated players, who may
    hand it on; its plain address, which lets one watch, for anyone else."""
    from .api import join_path
    from .api_base import viewer
    seat, creator = viewer(rec)
    if seat is None and not creator:
        return _table_url(rec.code)
    return _base_url() + join_path(rec)


def qr_svg(text: str) -> str:
    """The QR code of `text` as SVG (segno, pure Python)."""
    import segno
    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="svg", scale=6, border=2, xmldecl=False,
                                     svgns=True, title=text)
    return out.getvalue().decode()

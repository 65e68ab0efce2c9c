"""The JSON API under /api: tables, seats, actions, frames, events, and "check my paper".

Errors are JSON `{"error": message}` with the status that says what went wrong:
400 malformed JSON / bad input / corrupt frame, 403 another player's sheet, 404 unknown
table, 409 an action the rules refuse (the message is the rule's reason) or a seat
already taken, 413 an upload over the size limit, 503 camera reading unavailable.

Who may do what (the server never trusts a client's idea of legality, and checks every
action with the engine before it is written):
- a player (their seat's token, in the cookie `dc_<CODE>` or the `X-Token` header) writes
  and undoes on their own sheet only;
- the table's creator may roll and correct the roll, and writes for seats nobody has
  joined (a player without a phone);
- a free seat is taken with the table's join link (its secret, `"join"`, which the creator
  and the seated players are given in `me.join`: the host's QR code carries it); the creator
  sits down without it; the table's code alone lets anyone watch, not sit;
- the player whose turn it is may roll and correct their own roll.
"""
from __future__ import annotations

import functools
import re
import secrets
import time
import unicodedata
from typing import Any

from flask import Response, current_app, g, jsonify, make_response, request

from engine.dice import Die, Roll
from engine.errors import InvalidInput
from engine.game import OTHER, ROLLER
from engine.placement import ENTER, Mark, Placement
from engine.reasons import Reason
from engine.registry import game_class
from engine.table import Begin, CorrectRoll, KeepRoll, RollDice, Table, action_from_json

from . import games as G
from .api_base import (LAYOUT_BODY, ApiError, body_json, bp, error_body, is_seat_number, lang,
                       limit_arg, load, may_join, set_token, viewer, whole_body)
from .bounded import Bounded
from .db import database, get_store, release_store
from .frames import Mjpeg
from .reasons import explain, translate, translate_score
from .reader import (STATES, BadFrame, ReaderUnavailable, Superseded, TableReader, decode_frame,
                     read_die_json)
from .store import AlreadyDone, AlreadyMade, Overtaken, SeatTaken, TableRecord


def die_json(die) -> dict:
    return {"colour": die.colour, "face": die.face}


def roll_json(roll: Roll | None) -> list | None:
    return None if roll is None else [die_json(d) for d in roll]


# What the API keeps between requests, per app (`init_app`), each `Bounded` (least recently
# used dropped first): drawn sheets, their scores and the state every viewer of a table
# version shares.
SHEETS_KEPT = 2048
SCORES_KEPT = 4096
SHARED_KEPT = 512


def init_app(app) -> None:
    app.extensions["sheets"] = Bounded(SHEETS_KEPT)
    app.extensions["scores"] = Bounded(SCORES_KEPT)
    app.extensions["shared_states"] = Bounded(SHARED_KEPT)
    app.register_blueprint(bp)


def kept_for_sheet(cache: Bounded, key: tuple, sheet, game, make):
    """`make()`, made once per sheet value and kept in `cache` under `key` (the sheet's
    identity first: hashing a sheet costs more than making most of what is kept). Sheets are
    immutable and an action changes one seat's sheet, so the others' entries are reused; the
    entry holds the sheet and its game, so the id is not reused while it is kept."""
    hit = cache.get(key)
    if hit is not None and hit[0] is sheet and hit[1] is game:
        return hit[2]
    value = make()
    cache[key] = (sheet, game, value)
    return value


def sheet_parts(game, sheet) -> tuple[dict, dict | None]:
    """(sheet JSON, drawn view) of one sheet, made once per sheet value."""
    def make():
        data = game.sheet_to_json(sheet)
        return data, game.grid(data)
    return kept_for_sheet(current_app.extensions["sheets"], (id(sheet),), sheet, game, make)


def seat_scores(table: Table) -> list:
    """`table.score(s)` of every seat, each made once per sheet value (scoring four Qwinto
    sheets twice for every new table version was a fifth of an action's time); kept with the
    seat (a shared sheet scores per seat) and whether the game is over (the end may add to a
    score)."""
    cache = current_app.extensions["scores"]
    return [kept_for_sheet(cache, (id(sheet), s, table.is_over), sheet, table.games[s],
                           lambda s=s: table.score(s))
            for s, sheet in enumerate(table.sheets)]


def translate_view(view: dict | None, language: str) -> dict | None:
    """A drawn sheet with its caption in `language` (a copy: views are shared)."""
    if view is None or language == "en" or not view.get("caption"):
        return view
    return dict(view, caption=translate(view["caption"], language))


def shared_state(rec: TableRecord, seq: int, table: Table) -> dict:
    """The part of the state every viewer sees, computed once per table version."""
    language = lang()
    cache = current_app.extensions["shared_states"]
    key = (rec.id, seq, tuple(s.claimed for s in rec.seats), language)
    hit = cache.get(key)
    if hit is not None:
        return hit
    players = []
    scores = seat_scores(table)
    for s, info in enumerate(rec.seats):
        game = table.games[s]
        sc = scores[s]
        layout = game.layout.info
        answer = table.answers[s] if table.answers else None
        sheet_json, view = sheet_parts(game, table.sheets[s])
        players.append({
            "seat": s, "name": info.name, "claimed": info.claimed,
            "layout": {"name": layout.name, "confidence": layout.confidence,
                       "recon": layout.is_recon, "note": translate(layout.note, language)},
            "sheet": sheet_json,
            "view": translate_view(view, language),
            "score": translate_score(sc.to_json(), language),
            "answered": answer is not None,
            "answer": None if answer is None else str(answer),
            "answer_parts": None if answer is None else answer.to_json(),
            "role": table.role(s),
            # what the seat marks with where seats differ (Kuh Vadis: "crosses (X)")
            "mark": translate(game.seat_mark(s), language),
        })
    state = {
        "code": rec.code, "seq": seq,
        "game": {"name": table.game.name, "title": table.game.title,
                 "max_attempts": table.game.max_attempts, "dice": G.dice_spec_of(table.game),
                 "others_answer": table.game.must_answer(OTHER),
                 "rerolls": table.game.rerolls, "shared_sheet": table.game.shared_sheet,
                 "writes_sum": table.game.writes_sum},
        "players": players,
        "roller": table.roller, "next_roller": table.next_roller, "turns": table.turns,
        "attempts": [roll_json(r) for r in table.attempts],
        "roll": roll_json(table.roll),
        "pending": table.pending(), "may_reroll": table.may_reroll(),
        "still_rolling": table.still_rolling,
        "turn_complete": table.turn_complete, "is_over": table.is_over,
        "standings": [{"rank": st.rank, "seat": st.seat, "player": st.player,
                       "total": st.score.total, "rating": solo_rating(table, st, language)}
                      for st in table.standings(scores)],
        "ended_by": ended_by(rec, table, language) if table.is_over else [],
    }
    cache[key] = state
    return state


def ended_by(rec: TableRecord, table: Table, language: str) -> list[dict]:
    """Whose sheet ended the game and why ({"seat", "player", "why"}: "Bob", "2 rows are full");
    a sheet all players share (Kuh Vadis) is said once, without a player."""
    out: list[dict] = []
    for s, (game, sheet) in enumerate(zip(table.games, table.sheets)):
        why = game.end_reason(sheet)
        if why is None:
            continue
        text = translate(why, language)
        if table.game.shared_sheet:
            if out:
                continue
            out.append({"seat": None, "player": None, "why": text})
        else:
            out.append({"seat": s, "player": rec.seats[s].name, "why": text})
    return out


def solo_rating(table: Table, standing, language: str) -> str | None:
    """The rule book's words for a solo game's total (Knister: "very good"), else None."""
    if len(table.players) != 1:
        return None
    rating = table.game.solo_rating(standing.score.total)
    return None if rating is None else translate(rating, language)


def table_state(rec: TableRecord, seq: int, table: Table, seat: int | None,
                creator: bool, stand_in: int | None = None) -> dict:
    """Everything a page shows, for one viewer (their legal placements and reasons).

    `stand_in`: a seat someone joined on their own device whose placements the creator asks
    for, to answer for an absent player (`me.stand_in`; written with `"stand_in": true`)."""
    state = dict(shared_state(rec, seq, table))
    me: dict[str, Any] = {"seat": seat, "creator": creator,
                          "can_roll": creator or (seat is not None and seat == table.next_roller
                                                  and not table.is_over)}
    me["writes_for"] = [s for s in range(len(rec.seats))
                        if s == seat or (creator and not rec.seats[s].claimed)]
    # the join link's secret, for those who may hand it on: the creator and the seated players
    me["join"] = rec.join_key if creator or seat is not None else None
    me["stand_in"] = None
    if (creator and stand_in is not None and 0 <= stand_in < len(rec.seats)
            and stand_in not in me["writes_for"]):
        me["stand_in"] = stand_in
    me["seats"] = {str(s): seat_options(table, s) for s in me["writes_for"]}
    if me["stand_in"] is not None:
        me["seats"][str(stand_in)] = seat_options(table, stand_in)
    state["me"] = me
    return state


def seat_options(table: Table, s: int) -> dict:
    """The legal placements of seat s for the current roll, and why the other fields are not."""
    legal = list(table.legal(s))
    out: dict[str, Any] = {
        "legal": [str(p) for p in legal],
        "parts": [p.to_json() for p in legal],      # the same placements as data
        "specials": [p.kind for p in legal if p.kind != ENTER],
        "marks": sorted({str(m) for p in legal for m in p.marks}),
        # choose, then write: always where an answer may write several fields (a tap that
        # wrote at once on a roll that fitted one field surprised players used to choosing)
        "multi": table.games[s].several_fields or any(len(p.marks) > 1 for p in legal),
        "can_undo": bool(table.answers) and table.answers[s] is not None,
        "reasons": {},
        "can_end_side": _may_end_side(table, s),
        "sides": list(table.start_sides(s)),   # sides to start on, before the first mark
        "erasable": table.erasable(s),         # Qwinto: fields whose wrong number may be erased
        # Kuh Vadis: the placements that give another turn (a quad)
        "another_turn": [str(p) for p in legal
                         if table.roll is not None
                         and table.games[s].gives_another_turn(table.roll, p)],
    }
    roll = table.roll
    game = table.games[s]
    # a roll that lets no field be written by itself (Kuh Vadis' dice without a result): why
    nothing = (game.roll_gives_nothing(roll) if roll is not None
               and not any(p.kind == ENTER for p in legal) else None)
    out["nothing"] = translate(nothing, lang())
    view = sheet_parts(game, table.sheets[s])[1]
    if roll is None or table.answers[s] is not None or view is None \
            or not table.may_answer(s):
        return out
    lit = {(m.row, m.col) for p in legal for m in p.marks}
    role = table.role(s)
    for row in view["rows"]:
        for cell in row["cells"]:
            if cell is None or (cell["row"], cell["col"]) in lit:
                continue
            value = game.cell_value(cell, roll)
            if value is None:
                continue
            reason = game.why_illegal(table.sheets[s], roll, role,
                                      Placement.of(Mark(cell["row"], cell["col"], value)))
            if reason:
                out["reasons"][f"{cell['row']}@{cell['col']}"] = translate(reason, lang())
    return out


def _may_end_side(table: Table, s: int) -> bool:
    # (not once the game is over: the table refuses it, so the page offers no button)
    if table.roll is None or not table.answers or table.answers[s] is None or table.is_over:
        return False
    try:
        return table.games[s].end_side_problem(table.sheets[s]) is None
    except NotImplementedError:
        return False


def state_response(rec: TableRecord, seq: int, table: Table, status: int = 200):
    seat, creator = viewer(rec)
    stand_in = request.args.get("stand_in", type=int)
    return jsonify(table_state(rec, seq, table, seat, creator, stand_in)), status


# -- games ----------------------------------------------------------------------------------
@bp.get("/games")
def games():
    return jsonify({"games": G.all_games()})


@bp.get("/games/<name>")
def game(name: str):
    return jsonify(G.game_info(name))


# -- tables --------------------------------------------------------------------------------
@bp.post("/tables")
def create_table():
    """{"game", "players": [names], "layouts": [per seat: name | "uploaded" | object]?,
    "layout": one for all?, "uploaded": layout object?, "claim": seat?,
    "first": seat | "random"?}"""
    data = body_json(LAYOUT_BODY)
    if not isinstance(data, dict):
        raise ApiError(400, "send a JSON object")
    game_name = game_class(str(data.get("game", ""))).name
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise ApiError(400, "'players' must be a list of names")
    players = [player_name(p) for p in players]
    cls = game_class(game_name)
    if not cls.min_players <= len(players) <= cls.max_players:
        many = (f"{cls.min_players}" if cls.min_players == cls.max_players else
                f"{cls.min_players}-{cls.max_players}")
        raise ApiError(400, f"{cls.title} is played by {many} players, not {len(players)}")
    if len(set(players)) != len(players):
        raise ApiError(400, "two players have the same name")
    n = len(players)
    specs = data.get("layouts")
    if specs is None:
        one = data.get("layout")
        specs = [one] * n if one is not None else G.default_layouts(game_name, n)
    if not isinstance(specs, list) or len(specs) != n:
        raise ApiError(400, "'layouts' needs one entry per player")
    uploaded = data.get("uploaded")
    if uploaded is not None and not isinstance(uploaded, dict):
        raise ApiError(400, "'uploaded' must be a layout object")
    layouts = [G.resolve_layout(game_name, s, uploaded) for s in specs]
    problem = G.seat_layouts_problem(
        game_name, [g.layout.info.name for g in database().memory.games_for(game_name, layouts)])
    if problem:
        raise ApiError(400, problem)
    store = get_store()
    claim = data.get("claim")
    if claim is not None and (not is_seat_number(claim) or not 0 <= claim < n):
        raise ApiError(400, f"'claim' must be a seat 0-{n - 1}")
    first = first_roller(data.get("first"), n)
    key = request_key(data)
    with store.creating(key):
        try:   # the first roller (logged as the table's first action) and the creator's seat
            # with the table, in one transaction
            rec, table = store.create_table(game_name, players, layouts, key=key, first=first,
                                            claim=claim)
        except AlreadyMade as made:     # a retry: the table the first request made
            return _created(store.table_record(made.code))
        return _created(rec)


MAX_NAME = 40   # characters of a player's name (the start page's fields hold as many)
# letters and signs that show nothing: Hangul fillers, the blank Braille pattern
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def player_name(text: str) -> str:
    """A player's name as typed, stripped and in one Unicode form (NFC: an "é" typed as e and
    an accent is the "é" of another keyboard, not a second player); 400 for one over
    `MAX_NAME` characters (it was cut without a word, and two names cut alike were "the same
    name") or one that shows nothing (a zero-width space, control characters)."""
    name = unicodedata.normalize("NFC", text).strip()
    if len(name) > MAX_NAME:
        raise ApiError(400, f"a player's name is at most {MAX_NAME} characters: "
                            f"'{name[:20]}…' has {len(name)}")
    if any(unicodedata.category(ch) == "Cc" for ch in name) or not any(
            unicodedata.category(ch)[0] in "LNPS" and ch not in _BLANK for ch in name):
        raise ApiError(400, "a player's name needs a letter, digit or sign one can see")
    return name


def _created(rec: TableRecord) -> Response:
    """The answer to creating a table (and to a retry of it): 201, its code, the creator's
    state and cookie."""
    seq, table = get_store().state(rec)
    seat = get_store().seat_of(rec, rec.creator_token)
    resp = make_response(jsonify(
        {"code": rec.code, "url": f"/t/{rec.code}", "join_url": join_path(rec),
         "state": table_state(rec, seq, table, seat, True)}), 201)
    resp.headers["Location"] = f"/api/tables/{rec.code}"
    return set_token(resp, rec.code, rec.creator_token)


def join_path(rec: TableRecord) -> str:
    """The table's join link (its path): what the host's QR code opens."""
    return f"/t/{rec.code}?join={rec.join_key}"


_KEY = re.compile(r"[A-Za-z0-9_-]{16,64}")


def request_key(data: dict) -> str | None:
    """The idempotency key a page sends with an action or a new table (`"key"`: 16-64 URL-safe
    characters, new for each thing the player does, the same on a retry); None without one."""
    key = data.get("key")
    if key is not None and not (isinstance(key, str) and _KEY.fullmatch(key)):
        raise ApiError(400, "'key' must be 16-64 letters, digits, '-' or '_'")
    return key


def first_roller(value: Any, n: int) -> int | None:
    """A new table's "first": a seat number, "random" (drawn here: the rules' draw, Kuh
    Vadis' coin toss), or absent (None: the game's own first roller, seat 0)."""
    if value is None:
        return None
    if value == "random":
        return secrets.randbelow(n)
    if not is_seat_number(value) or not 0 <= value < n:
        raise ApiError(400, f"'first' must be \"random\" or a seat 0-{n - 1}")
    return value


@bp.get("/tables/<code>")
def table(code: str):
    rec, seq, table = load(code)
    return state_response(rec, seq, table)


@bp.get("/tables/<code>/log")
def log(code: str):
    store = get_store()
    rec = store.table_record(code)
    return jsonify({"code": rec.code, "actions": store.actions(rec)})


@bp.post("/tables/<code>/join")
def join(code: str):
    """{"seat", "join": the table's join secret}: sit down at a free seat. The secret comes
    with the table's join link (the host's QR code); the creator sits down without it."""
    data = body_json()
    if not isinstance(data, dict) or not is_seat_number(data.get("seat")):
        raise ApiError(400, "send 'seat': a number")
    store = get_store()
    rec = store.table_record(code)
    seat, creator = viewer(rec)
    if seat is not None:
        raise ApiError(409, f"you already sit at this table as {rec.seats[seat].name}")
    if not creator and not may_join(rec, data.get("join")):
        raise ApiError(403, "taking a seat needs the table's join link: scan the host's QR "
                            "code or open the link the host shares")
    try:
        token = store.join(rec, data["seat"], rec.creator_token if creator else None)
    except SeatTaken as exc:
        raise ApiError(409, str(exc)) from None
    return _seated(rec.code, data["seat"], creator, token)


def _seated(code: str, seat: int, creator: bool, token: str) -> Response:
    """The answer to sitting down (or back) at a seat: the state for it, the seat's cookie, and
    a `joined` event for the table's other pages."""
    store = get_store()
    rec = store.table_record(code)
    seq, table = store.state(rec)
    current_app.extensions["broker"].publish(rec.code, "joined", {"seq": seq, "seat": seat})
    resp = make_response(jsonify(table_state(rec, seq, table, seat, creator)))
    return set_token(resp, rec.code, token)


@bp.get("/tables/<code>/seats/<int:seat>/rejoin")
def rejoin_code(code: str, seat: int):
    """The host's view of a seat's rejoin code: {seat, name, key, url}; the code moves the seat
    to another device (a lost phone, a private tab). Only the table's creator may ask."""
    store = get_store()
    rec = store.table_record(code)
    if not viewer(rec)[1]:
        raise ApiError(403, "only the table's creator can show a rejoin code")
    key = store.rejoin_key(rec, seat)
    if key is None:
        raise ApiError(409, f"nobody has joined as {rec.seats[seat].name} yet: "
                            f"{rec.seats[seat].name} sits down with the table's join link")
    return jsonify({"seat": seat, "name": rec.seats[seat].name, "key": key,
                    "url": f"/t/{rec.code}?rejoin={seat}.{key}"})


@bp.post("/tables/<code>/rejoin")
def rejoin(code: str):
    """{"seat", "key"}: take back a joined seat on this device with the code the host shows;
    the device that had the seat keeps watching only."""
    data = body_json()
    if not (isinstance(data, dict) and is_seat_number(data.get("seat"))
            and isinstance(data.get("key"), str)):
        raise ApiError(400, "send 'seat': a number, and 'key': the rejoin code")
    store = get_store()
    rec = store.table_record(code)
    seat, creator = viewer(rec)
    if seat is not None and seat != data["seat"]:
        raise ApiError(409, f"you already sit at this table as {rec.seats[seat].name}")
    if not 0 <= data["seat"] < len(rec.seats):
        raise ApiError(400, f"there is no seat {data['seat']} at this table")
    try:
        token = store.rejoin(rec, data["seat"], data["key"],
                             rec.creator_token if creator else None)
    except SeatTaken as exc:
        raise ApiError(409, str(exc)) from None
    return _seated(rec.code, data["seat"], creator, token)


@bp.post("/tables/<code>/actions")
def act(code: str):
    """One action: {"type": "roll"|"correct", "roll": text | [dice]}, {"type": "keep"} (the
    roller has finished rolling) or {"type": "place", "seat", "placement": text} or
    {"type": "undo", "seat"}; each may carry "key" (its idempotency key: a retry with the
    same key is answered as the first request and writes nothing) and "seq" (the log position
    it was made against: overtaken since, it is a 409 with the current `state`)."""
    data = body_json()
    if not isinstance(data, dict):
        raise ApiError(400, "an action must be a JSON object with a 'type'")
    store = get_store()
    rec = store.table_record(code)
    symbols = G.dice_spec(rec.game)["symbols"]    # the word faces its rolls may show ("cow")
    if isinstance(data.get("roll"), list):
        data = dict(data, roll=str(G.roll_from_dice(data["roll"], symbols)))
    action = action_from_json(data, symbols)
    seat, creator = viewer(rec)
    if isinstance(action, Begin):
        if not creator:
            raise ApiError(403, "only the table's creator says who begins")
        check, by = None, -1
    elif isinstance(action, (RollDice, CorrectRoll, KeepRoll)):
        def check(current: Table) -> None:
            roller = current.next_roller if isinstance(action, RollDice) else current.roller
            if not (creator or seat == roller):
                what = {RollDice: "roll", CorrectRoll: "correct the roll",
                        KeepRoll: "keep the roll"}[type(action)]
                raise ApiError(403, f"only the table's creator or {rec.seats[roller].name}, "
                                    f"whose turn it is, may {what}")
        by = seat if seat is not None and not creator else -1
    else:
        check = None
        target = action.seat
        if not 0 <= target < len(rec.seats):
            raise ApiError(400, f"there is no seat {target} at this table")
        mine = seat == target
        stand_in = creator and not rec.seats[target].claimed
        # the host answers for a player who joined but is away (a lost phone), when asked to
        confirmed = creator and not mine and data.get("stand_in") is True
        if not (mine or stand_in or confirmed):
            if creator:
                raise ApiError(403, f"{rec.seats[target].name} has joined on their own device: "
                                    f"answer for {rec.seats[target].name} only after confirming")
            raise ApiError(403, f"this is {rec.seats[target].name}'s sheet: only "
                                f"{rec.seats[target].name} may write on it")
        by = -1 if confirmed and not stand_in else target
    based_on = data.get("seq")
    if based_on is not None and not (is_seat_number(based_on) and based_on >= 0):
        raise ApiError(400, "'seq' must be the log position the action was made against")
    try:
        seq, table = store.append(rec, action, by, check, key=request_key(data),
                                  based_on=based_on)
    except AlreadyDone as done:     # a retry: the first answer, nothing written again
        return jsonify(table_state(rec, done.seq, store.replay(rec, done.seq), seat, creator))
    except Overtaken as exc:        # made against a roll or a sheet that has changed since
        seq, table = store.state(rec)
        return jsonify(error_body(str(exc), state=table_state(rec, seq, table, seat,
                                                               creator))), 409
    current_app.extensions["broker"].publish(
        rec.code, "action", {"seq": seq, "action": data.get("type"),
                             "seat": getattr(action, "seat", None)})
    return jsonify(table_state(rec, seq, table, seat, creator))


@bp.post("/tables/<code>/why")
def why(code: str):
    """Why a placement is not allowed for a seat now: {"seat", "placement"} -> reason."""
    data = body_json()
    if not isinstance(data, dict):
        raise ApiError(400, "send 'seat' and 'placement'")
    rec, seq, table = load(code)
    s = data.get("seat")
    if not is_seat_number(s) or not 0 <= s < len(rec.seats):
        raise ApiError(400, "'seat' must be a seat number")
    placement = Placement.parse(str(data.get("placement", "")))
    if table.roll is None:
        reason = Reason("table.not_rolled")
    elif table.answers[s] is not None:
        reason = Reason("app.answered_you")
    elif not table.may_answer(s):
        reason = Reason("table.still_rolling", name=table.players[table.roller])
    else:
        reason = table.games[s].why_illegal(table.sheets[s], table.roll, table.role(s),
                                            placement)
    found = explain(reason) if reason else None
    return jsonify({"legal": reason is None,
                    "reason": translate(reason, lang()) if reason else None,
                    "code": found[0] if found else None})


# -- camera frames ----------------------------------------------------------------------------
def _table_reader(rec: TableRecord, game_name: str) -> TableReader:
    """The frame reader of a table, made on its first frame (`ReaderUnavailable` if none)."""
    readers = current_app.extensions["readers"]
    r = readers.get(rec.code)
    if r is None:
        spec = G.dice_spec(game_name)
        palette = [c["colour"] for c in spec["colours"]]
        faces = sorted({f for c in spec["colours"] for f in c["faces"]}, key=str)
        from .teach_api import table_reading
        from .teaching import body_colours
        taught, calibration = table_reading(rec)
        frames, symbols = current_app.config["SETTLE_FRAMES"], spec["symbol_sides"]
        if taught is not None:   # the table's own dice, taught on its teaching page
            # frames by the taught dice's cheap tier, the frame a roll settles on by the whole
            # taught reader (quarter turns and ink contrast of the unsure dice)
            r = TableReader(palette, faces, frames, reader=taught.camera_frame(),
                            settled_reader=taught, symbols=symbols)
        else:
            make = current_app.config.get("READER_FACTORY") or functools.partial(
                TableReader, body_colours=body_colours(spec) is not None,
                vision=current_app.extensions["vision"], repeat_colours=spec["repeat_colours"])
            r = make(palette, faces, frames, symbols=symbols)
        if calibration is not None:   # colours named by the table's own dice (teaching page)
            r.calibrate(calibration)
        r = readers.setdefault(rec.code, r)
    return r


def _may_send_frames(rec: TableRecord) -> None:
    """Reading frames is the server's heaviest work: only the table's players and its creator
    (their token) may ask for it; anyone else gets a 403 before the frame is looked at."""
    seat, creator = viewer(rec)
    if seat is None and not creator:
        raise ApiError(403, "join the table to send it camera frames")


@bp.before_request
def _started() -> None:
    g.t_start = time.perf_counter()


@bp.post("/tables/<code>/frame")
def frame(code: str):
    """A camera frame (JPEG/PNG as the body, or the form field 'frame') -> dice reading.

    Answers the reading, whether it has settled, and for the sender's seat the placements
    the settled dice would allow (a preview; nothing is written until the roll is sent)."""
    rec, seq, table = load(code)
    _may_send_frames(rec)
    return jsonify(read_frame(rec, table, _image_body("frame")))


def _image_body(field: str) -> bytes:
    """The image a request carries: its body, or the multipart form field `field`."""
    if request.files:
        upload = request.files.get(field)
        return upload.read() if upload else b""
    return whole_body(current_app.config["MAX_CONTENT_LENGTH"])


@bp.post("/tables/<code>/camera")
def camera_read(code: str):
    """Read the dice from the latest frame of the server's own camera (or the demo picture this
    table is shown: a picture of its game, kept until the table asks for the next)."""
    rec, seq, table = load(code)
    _may_send_frames(rec)
    source = current_app.config.get("FRAME_SOURCE")
    data = source.latest(rec.game, rec.code) if source else None
    if data is None:
        raise ApiError(404, "the server has no camera and no demo pictures")
    return jsonify(read_frame(rec, table, data, still=source.stills))


@bp.post("/tables/<code>/camera/next")
def camera_next(code: str):
    """The demo's next picture of the table's game (a camera has no next: 409)."""
    rec = get_store().table_record(code)
    source = current_app.config.get("FRAME_SOURCE")
    if source is None:
        raise ApiError(404, "the server has no camera and no demo pictures")
    if source.shown(rec.game, rec.code) is None:
        raise ApiError(409, "the table camera shows what it sees: there is no next picture")
    source.advance(rec.game, rec.code)
    return jsonify(_camera_json(source, rec))


def _camera_json(source, rec: TableRecord | None) -> dict:
    """What the page says of the server's camera: `source` (the server's words), and for a
    demo the picture this table is shown (`picture` of `pictures`)."""
    if source is None:
        return {"source": None}
    game, table = (rec.game, rec.code) if rec else (None, None)
    shown = source.shown(game, table)
    out = {"source": source.describe(game), "demo": bool(source.stills)}
    if shown is not None:
        out["picture"], out["pictures"] = shown
    return out


@bp.get("/camera")
def camera_info():
    """The server's camera; `?table=CODE`: as that table is shown it (its game's pictures)."""
    source = current_app.config.get("FRAME_SOURCE")
    code = request.args.get("table")
    rec = get_store().table_record(code) if code and source is not None else None
    if rec is not None and source.latest(rec.game, rec.code) is None:
        source = None       # a demo without pictures of this game: nothing to show
    return jsonify(_camera_json(source, rec))


@bp.get("/camera.mjpg")
def camera_stream():
    """The server's camera as an MJPEG stream (`?limit=` seconds ends it; `?table=CODE`: the
    picture that table is shown, which changes when it asks for the next)."""
    source = current_app.config.get("FRAME_SOURCE")
    if source is None:
        raise ApiError(404, "the server has no camera and no demo pictures")
    limit = limit_arg()
    code = request.args.get("table")
    rec = get_store().table_record(code) if code else None
    game, table_code = (rec.game, rec.code) if rec else (None, None)
    # served like an event stream (`events`): on the event loop of the companion's server
    return Response(Mjpeg(source, game, table_code, limit), direct_passthrough=True,
                    mimetype="multipart/x-mixed-replace; boundary=frame")


def read_frame(rec: TableRecord, table: Table, data: bytes, still: bool = False) -> dict:
    """Decode, read and settle one frame of a table. A bad frame is refused (400) with the
    last settled reading, which it does not change.

    `timing` says where the server's time went (ms): `wait` (for the table's earlier frame to be
    read; on the table's first frame, also for its reader to be made), `decode` (JPEG/PNG ->
    pixels), `vision` (vision's reader and tracker; `read` of it the reader alone), `rest` (legal
    placements, the answer), `server` (all of it, from the request's start).

    `still`: the frame is a picture of a slideshow (the demo pictures): a picture other than the
    last one read is a new view, not a moved camera (`TableReader.feed`).

    A table's frames are decoded and read one at a time (`TableReader.feed_frame`); a frame that
    waits while a newer frame of the same table comes is neither decoded nor read: it is answered
    at once, 200 with `superseded: true` and state "superseded" (no dice; the page keeps what it
    shows). It is no error: the phone sent nothing wrong, and the newer frame's answer follows.
    Without vision's models the frame is still checked (400 when bad), then answered 503."""
    t0 = time.perf_counter()
    times: dict[str, float] = {}

    def decode():
        times["turn"] = time.perf_counter()
        try:
            image = decode_frame(data)
        except BadFrame as exc:
            known = current_app.extensions["readers"].get(rec.code)
            last = known.settled if known else None
            raise ApiError(400, str(exc), last=None if last is None else
                           [read_die_json(d) for d in last.dice]) from None
        times["decoded"] = time.perf_counter()
        return image

    try:
        reader = _table_reader(rec, table.game.name)
    except ReaderUnavailable as exc:
        image = decode()
        raise ApiError(503, str(exc), width=image.shape[1], height=image.shape[0]) from None
    try:
        reading, settled = reader.feed_frame(decode, still=data if still else None)
    except Superseded:      # a newer frame of this table is read instead: this one says nothing
        return {"superseded": True, "dice": [], "settled": False, "state": "superseded"}
    t_read = time.perf_counter()
    out = _reading_json(rec, table, reading, settled, STATES.get(reading.state, "reading"))
    if settled:     # every page of the table shows a settled roll (never a moving one)
        current_app.extensions["broker"].publish(rec.code, "reading", out)
    out = _in_page_language(out)
    t_end = time.perf_counter()
    start = g.get("t_start", t0)
    out["timing"] = {"wait": round((times["turn"] - t0) * 1000, 2),
                     "decode": round((times["decoded"] - times["turn"]) * 1000, 2),
                     "vision": round((t_read - times["decoded"]) * 1000, 2),
                     "read": round(reading.read_ms, 2),
                     "rest": round((t_end - t_read) * 1000, 2),
                     "server": round((t_end - start) * 1000, 2)}
    return out


def _reading_json(rec: TableRecord, table: Table, reading, settled: bool, state: str) -> dict:
    """A reading as the pages take it: its dice, and where it read any, the roll they make,
    what the rules say of it (`problem`), and for the asker's seat the placements it allows (a
    preview; nothing is written until the roll is sent)."""
    out = {"dice": [read_die_json(d) for d in reading.dice], "settled": settled,
           "state": state, "width": reading.width, "height": reading.height,
           "elapsed_ms": round(reading.elapsed_ms, 1)}
    seat, creator = viewer(rec)
    if reading.dice:
        roll = Roll(Die(d.colour, d.value) for d in reading.dice)
        # a die whose colour the reader left to the player ("?") is no die of another game:
        # the page asks for its colour, and the rules look at the roll once it is sent
        unnamed = (any(d.colour is None for d in reading.dice)
                   and any(table.game.dice_spec().colours))
        problem = None if unnamed else table.game.roll_problem(roll)
        out["roll"] = str(roll)
        out["problem"] = problem
        if problem is None and not unnamed and seat is not None:
            role = ROLLER if seat == table.next_roller else OTHER
            out["legal"] = [str(p) for p in table.games[seat].legal(table.sheets[seat], roll,
                                                                     role)]
    return out


def _in_page_language(reading: dict) -> dict:
    """A reading answered to its asker: the rules' objection in the request's language (the
    table's other pages get it in English, from the event stream, and say it in theirs)."""
    if reading.get("problem") and lang() != "en":
        return dict(reading, problem=translate(reading["problem"], lang()))
    return reading


@bp.post("/tables/<code>/photo")
def photo(code: str):
    """A photo of the rolled dice the player took (JPEG/PNG as the body, or the form field
    'photo') -> the dice read by the settled-roll reader, at once, as `frame` answers a
    settled roll (`state` "photo"). It needs no camera stream and no HTTPS: a phone's file
    input takes the photo. Nothing is written; the page puts the dice into its roll entry."""
    rec, seq, table = load(code)
    _may_send_frames(rec)
    try:
        image = decode_frame(_image_body("photo"), "photo")
    except BadFrame as exc:
        raise ApiError(400, str(exc)) from None
    try:
        reader = _table_reader(rec, table.game.name)
    except ReaderUnavailable as exc:
        raise ApiError(503, str(exc)) from None
    reading = reader.read_photo(image)
    out = _reading_json(rec, table, reading, True, "photo")
    # a black-and-white photo (a mono filter): its colours are left to the player, and the page
    # says why
    out["colourless"] = reading.colourless
    return jsonify(_in_page_language(out))


# -- events ----------------------------------------------------------------------------------
@bp.get("/tables/<code>/events")
def events(code: str):
    store = get_store()
    rec = store.table_record(code)
    seq = rec.log_seen
    seat = viewer(rec)[0]
    release_store()     # the stream stays open as long as the page: it holds no connection
    limit = limit_arg()
    stream = current_app.extensions["broker"].subscribe(
        rec.code, {"seq": seq}, heartbeat=current_app.config["SSE_HEARTBEAT"], limit=limit,
        seat=seat)
    # the body is the stream itself (`events.Stream`): a WSGI server's thread iterates it, the
    # companion's server (`companion.front`) serves it on its event loop, without a thread
    resp = Response(stream, mimetype="text/event-stream", direct_passthrough=True)
    resp.headers["Cache-Control"] = "no-cache"
    resp.headers["X-Accel-Buffering"] = "no"
    return resp


# -- check my paper --------------------------------------------------------------------------
@bp.post("/check")
def check():
    """{"game", "layout": name | object, "sheet": sheet JSON} or {..., "cells": {"Y@3": 7},
    "extras": {...}} -> every rule problem and the score with its breakdown."""
    data = body_json(LAYOUT_BODY)
    if not isinstance(data, dict):
        raise ApiError(400, "send a JSON object")
    game_name = game_class(str(data.get("game", ""))).name
    spec = data.get("layout") or G.default_layouts(game_name, 1)[0]
    layout = G.resolve_layout(game_name, spec, data.get("uploaded"))
    (g_,) = database().memory.games_for(game_name, [layout])
    final = data.get("final", True)
    if not isinstance(final, bool):
        raise ApiError(400, "'final' is true or false")
    if "cells" in data:
        extras = data.get("extras") or {}
        if not isinstance(data["cells"], dict):
            raise ApiError(400, "'cells' must map fields to values")
        if not isinstance(extras, dict):
            raise ApiError(400, "'extras' must map the sheet's extras to values")
        try:
            sheet = g_.sheet_from_json(G.sheet_from_cells(g_, data["cells"], extras))
        except InvalidInput as exc:     # the page shows the message at the field it is about
            field = G.field_refused(g_, data["cells"], extras)
            raise ApiError(400, str(exc), **({"field": field} if field else {})) from None
    else:
        sheet = g_.sheet_from_json(data.get("sheet"))
    problems = g_.problems(sheet)
    language = lang()
    return jsonify({"problems": [translate(p, language) for p in problems], "ok": not problems,
                    "score": translate_score(
                        g_.score(sheet, final=final).to_json(),
                        language),
                    "finished": g_.is_finished(sheet),
                    "sheet": g_.sheet_to_json(sheet),
                    "view": translate_view(G.sheet_view(g_, sheet), language)})


@bp.get("/openapi.json")
def openapi():
    """This API described in OpenAPI 3.1 (`companion.openapi`)."""
    from .openapi import describe
    return jsonify(describe())


from . import teach_api  # noqa: E402,F401  (its routes are on this blueprint)
from . import advice_api  # noqa: E402,F401  (its routes are on this blueprint)

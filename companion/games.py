"""What the pages need to know about a game, asked of the engine through its protocol.

- `game_info`: title, player counts, attempts, the shipped layouts with their confidence
  (RECON ones are labelled), and the dice a person can tap (`dice_spec`).
- `sheet_view`: a sheet as a grid of cells for drawing it like the paper one. A cell is
  addressed the way a `Mark` is (row label + column), so the legal placements of the engine
  light up cells without the page knowing any rule. Views are presentation only; a game
  without a view is still fully playable (the page lists its legal placements as buttons
  and shows the sheet's JSON).
- `sheet_from_cells`: the reverse, for "check my paper": cells typed by a person -> the
  game's sheet JSON, which `Game.sheet_from_json` / `problems` / `score` then judge.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

from engine.dice import Roll
from engine.errors import InvalidInput
from engine.game import Game
from engine.layouts import builtin_layout_data
from engine.reasons import Reason
from engine.registry import GAMES, DEFAULT_LAYOUT, game_class, layout_names


# -- dice -------------------------------------------------------------------------------
def dice_spec_of(game: Game) -> dict:
    """The dice a person can tap for this game object, as the game declares them
    (`Game.dice_spec`: its layout may describe its dice). Every roll a person enters is
    still checked by `Game.roll_problem`."""
    return game.dice_spec().to_json()


def dice_spec(game_name: str) -> dict:
    """The dice of a game with its default layout (`dice_spec_of`)."""
    return dice_spec_of(_default_game(game_class(game_name).name))


@lru_cache(maxsize=None)
def _default_game(game_name: str) -> Game:
    cls = game_class(game_name)
    name = DEFAULT_LAYOUT.get(cls.name) or layout_names(cls.name)[0]
    return cls(cls.parse_layout(builtin_layout_data(cls.name, name)))


# -- games and layouts ------------------------------------------------------------------
def layouts_of(game_name: str) -> list[dict]:
    cls = game_class(game_name)
    out = []
    for name in layout_names(cls.name):
        data = builtin_layout_data(cls.name, name)
        info = cls.parse_layout(data).info
        out.append({"name": info.name, "confidence": info.confidence,
                    "recon": info.is_recon, "note": info.note})
    return out


def game_info(game_name: str) -> dict:
    cls = game_class(game_name)
    return {
        "name": cls.name, "title": cls.title,
        "min_players": cls.min_players, "max_players": min(cls.max_players, 12),
        "max_attempts": cls.max_attempts,
        "default_layout": DEFAULT_LAYOUT.get(cls.name) or layout_names(cls.name)[0],
        "layouts": layouts_of(cls.name),
        "dice": dice_spec(cls.name),
        "seat_layouts": _per_seat_layouts(cls.name),
    }


def _per_seat_layouts(game_name: str) -> bool:
    """True for games where each player should get a different printed sheet (twenty one:
    sheets A-F). Told by the data: several shipped layouts of equal standing."""
    names = layout_names(game_name)
    return len(names) > 1 and all(len(n) == 1 for n in names)


def seat_layouts_problem(game_name: str, names: list[str]) -> str | None:
    """Why these sheets (one per seat, by layout name) break the game's rule that every
    player gets a different sheet (twenty one), or None."""
    cls = game_class(game_name)
    if len(names) < 2 or not _per_seat_layouts(cls.name):
        return None
    twice = sorted({n for n in names if names.count(n) > 1})
    if not twice:
        return None
    return (f"in {cls.title} every player gets a different sheet "
            f"({', '.join(layout_names(cls.name))}): sheet {twice[0]} is given to "
            f"{names.count(twice[0])} players; name one per player, or leave the sheets "
            f"out to deal them in turn")


def all_games() -> list[dict]:
    out = []
    for name in sorted(GAMES):
        try:
            out.append(game_info(name))
        except Exception as exc:  # a game being added may not be complete yet
            out.append({"name": name, "title": name, "error": str(exc)})
    return [g for g in out if "error" not in g]


def default_layouts(game_name: str, n: int) -> list[str]:
    """The shipped layout each of n seats gets by default."""
    cls = game_class(game_name)
    names = layout_names(cls.name)
    if _per_seat_layouts(cls.name):
        return [names[i % len(names)] for i in range(n)]
    default = DEFAULT_LAYOUT.get(cls.name) or names[0]
    return [default] * n


def resolve_layout(game_name: str, spec: Any, uploaded: dict | None) -> dict:
    """A seat's layout: a shipped name, "uploaded", or layout data; checked by the game."""
    cls = game_class(game_name)
    if spec == "uploaded":
        if uploaded is None:
            raise InvalidInput("no layout file was uploaded")
        data = uploaded
    elif isinstance(spec, dict):
        data = spec
    elif isinstance(spec, str):
        data = builtin_layout_data(cls.name, spec)
    else:
        raise InvalidInput("a layout is a shipped layout's name or a layout object")
    cls.parse_layout(data)  # raises InvalidLayout with the reason
    return data


# -- sheet views ------------------------------------------------------------------------
# A view: {"columns": n, "rows": [{"label", "colour", "cells": [cell, ...]}], "extras": [...]}
# cell: {"row": label, "col": int, "value": v | None, "colour": css colour name | None,
#        "printed": text printed in the field | None, "shape": "square" | "pentagon"}
# value: which number a field would take from a roll, for explaining a refusal: "sum" (the
#        dice's total, the default), "die-of-colour" (the die of the field's colour),
#        "printed" (the symbol printed in the field) or "marks-only" (no single value: the
#        page offers the legal placements as a list).
# caption: a line under the sheet (whose move it is, which side is played).
# A cell may carry "x" (1-based grid column) and "span" for sheets that are not a plain
# grid (The Choice's offset rows of numbers).
# extras: counters written outside the grid (Qwinto's failed attempts): {"key", "label",
#        "value", "max"}.
Views = dict[str, Callable[[Game, Any], dict]]
VIEWS: Views = {}


def view(name: str):
    def register(fn):
        VIEWS[name] = fn
        return fn
    return register


def sheet_view(game: Game, sheet: Any) -> dict | None:
    fn = VIEWS.get(game.name)
    return None if fn is None else fn(game, game.sheet_to_json(sheet))


def empty_view(game: Game) -> dict | None:
    return sheet_view(game, game.new_sheet())


@view("qwinto")
def _qwinto_view(game: Game, data: dict) -> dict:
    lay = game.layout
    rows = []
    for row in lay.rows:
        values = dict(zip(row.fields, data["rows"][row.colour]))
        rows.append({"label": row.label, "colour": row.colour, "cells": [
            {"row": row.label, "col": p, "value": values.get(p), "colour": row.colour,
             "printed": None, "shape": "pentagon" if p in row.pentagons else "square"}
            if p in row.fields else None
            for p in range(lay.columns)]})
    return {"columns": lay.columns, "rows": rows, "extras": [
        {"key": "failed_attempts", "label": "failed attempts", "value": data["failed_attempts"],
         "max": lay.failed_attempts_to_end, "points": lay.failed_attempt_points}]}


@view("knister")
def _knister_view(game: Game, data: dict) -> dict:
    labels = "ABCDEFGHIJ"
    grid = data["grid"]
    return {"columns": len(grid), "rows": [
        {"label": labels[r], "colour": None, "cells": [
            {"row": labels[r], "col": c, "value": v, "colour": None, "printed": None,
             "shape": "square"} for c, v in enumerate(row)]}
        for r, row in enumerate(grid)], "extras": [], "numbered": True}


@view("twenty_one")
def _twenty_one_view(game: Game, data: dict) -> dict:
    rows = []
    for lay_row, values in zip(game.layout.rows, data["rows"]):
        rows.append({"label": lay_row.label, "colour": None, "cells": [
            {"row": lay_row.label, "col": p, "value": v, "colour": lay_row.colours[p],
             "printed": str(lay_row.numbers[p]), "shape": "square"}
            for p, v in enumerate(values)]})
    return {"columns": 6, "rows": rows, "extras": [], "value": "die-of-colour"}


@view("kuh_vadis")
def _kuh_vadis_view(game: Game, data: dict) -> dict:
    lay = game.layout
    size = int(round(len(lay.cells) ** 0.5))
    labels = "ABCDEFGHIJ"
    rows = []
    for r, line in enumerate(data["pad"]):
        chars = line.split()
        cells = []
        for c, ch in enumerate(chars):
            printed = lay.cells[r * size + c]
            owner = None if ch == "." else ch.upper()
            cells.append({"row": labels[r], "col": c, "value": owner, "colour": None,
                          "printed": str(printed), "shape": "square",
                          "start": printed in ("X", "O")})
        rows.append({"label": labels[r], "colour": None, "cells": cells})
    # whose move it is: asked when a pad is typed in ("options": one is chosen)
    return {"columns": size, "rows": rows, "value": "printed",
            "caption": Reason("kuh_vadis.caption", who=data.get("to_move", "")),
            "extras": [{"key": "to_move", "label": "to move", "value": data.get("to_move"),
                        "options": ["X", "O"]}]}


@view("the_choice")
def _the_choice_view(game: Game, data: dict) -> dict:
    """The side being played, drawn like the paper: the colour spaces on a ring (row "R",
    clockwise from the top, `"ring": true`; the last space touches the first) around the
    hexagonal number area (row "N", one grid row per row of numbers, each cell two
    half-columns wide at its x)."""
    sides = {s.name: s for s in game.layout.sides}
    side = sides[data["playing"]]
    written = data[side.name]
    crossed = set(written["colours"])
    ring = [{"row": "R", "col": p, "value": "x" if p in crossed else None, "colour": colour,
             "printed": None, "shape": "square"} for p, colour in enumerate(side.ring)]
    line = {side.cell_of[n]: i + 1 for i, n in enumerate(written["numbers"])
            if n in side.cell_of}
    xs = [x for _, x in side.coords]
    rows = [{"label": "R", "colour": None, "cells": ring}]
    for r, positions in enumerate(side.rows):
        cells = []
        for pos in positions:
            _, x = side.coords[pos]
            cells.append({"row": "N", "col": pos,
                          "value": side.numbers[pos] if pos in line else None,
                          "colour": None, "printed": f"{side.numbers[pos]}",
                          "shape": "square", "x": x + 1, "span": 2,
                          "order": line.get(pos)})
        rows.append({"label": "N" if r == 0 else "", "colour": None, "cells": cells})
    return {"columns": max(xs) + 2, "ring": True, "rows": rows, "value": "marks-only",
            "caption": Reason("the_choice.caption", side=side.name),
            "extras": [{"key": "misthrows", "label": "misthrows",
                        "value": written["misthrows"], "max": 3, "points": ""}]}


# -- check my paper: cells -> sheet JSON --------------------------------------------------
def sheet_from_cells(game: Game, cells: dict, extras: dict) -> dict:
    """Build the game's sheet JSON from typed cells {"Y@3": 7, ...} using the game's view.

    The empty sheet's view tells which cells exist; its JSON is rebuilt by writing each
    typed value into the matching place of `sheet_to_json(new_sheet())`. Only games with a
    view can do this; the others take the sheet JSON as typed.
    """
    writer = WRITERS.get(game.name)
    if writer is None:
        raise InvalidInput(f"{game.title} has no grid entry yet: type the sheet as JSON")
    known = {f"{c['row']}@{c['col']}" for r in empty_view(game)["rows"] for c in r["cells"] if c}
    unknown = sorted(set(cells) - known)
    if unknown:
        raise InvalidInput(f"no such field(s): {', '.join(unknown)}")
    parsed = {}
    for key, raw in cells.items():
        if raw is None or raw == "":
            continue
        parsed[key] = _cell_value(raw, key)
    return writer(game, game.sheet_to_json(game.new_sheet()), parsed, extras or {})


def field_refused(game: Game, cells: dict, extras: dict) -> str | None:
    """Which typed field makes `sheet_from_cells` or the game's sheet check refuse the sheet:
    the field without which the sheet is taken, else the first refused on its own (None when
    only the whole is refused)."""
    def taken(some: dict) -> bool:
        try:
            game.sheet_from_json(sheet_from_cells(game, some, extras))
            return True
        except InvalidInput:
            return False
    for key in cells:
        if taken({k: v for k, v in cells.items() if k != key}):
            return key
    return next((key for key, raw in cells.items() if not taken({key: raw})), None)


def _cell_value(raw: Any, key: str):
    if isinstance(raw, bool):
        raise InvalidInput(f"field {key}: '{raw}' is not something written on a sheet")
    if isinstance(raw, int):
        return raw
    text = str(raw).strip().lower()
    if text.lstrip("-").isdigit():
        return int(text)
    if text.isalpha() and len(text) <= 8:
        return text
    raise InvalidInput(f"field {key}: '{raw}' is not a number or a mark")


Writers = dict[str, Callable[[Game, dict, dict, dict], dict]]
WRITERS: Writers = {}


def _writer(name: str):
    def register(fn):
        WRITERS[name] = fn
        return fn
    return register


@_writer("qwinto")
def _qwinto_cells(game: Game, data: dict, cells: dict, extras: dict) -> dict:
    for row in game.layout.rows:
        data["rows"][row.colour] = [cells.get(f"{row.label}@{p}") for p in row.fields]
    data["failed_attempts"] = _count(extras.get("failed_attempts", 0), "failed attempts")
    return data


@_writer("knister")
def _knister_cells(game: Game, data: dict, cells: dict, extras: dict) -> dict:
    labels = "ABCDEFGHIJ"
    n = len(data["grid"])
    data["grid"] = [[cells.get(f"{labels[r]}@{c}") for c in range(n)] for r in range(n)]
    return data


@_writer("twenty_one")
def _twenty_one_cells(game: Game, data: dict, cells: dict, extras: dict) -> dict:
    data["rows"] = [[cells.get(f"{row.label}@{p}") for p in range(6)]
                    for row in game.layout.rows]
    return data


@_writer("kuh_vadis")
def _kuh_vadis_cells(game: Game, data: dict, cells: dict, extras: dict) -> dict:
    """Typed x / o per square; printed starts may stay empty. Whose move it is cannot be
    told from the marks (a quad gives another turn; either player may begin), so it is
    asked: `extras["to_move"]`, "X" or "O"; a pad with marks needs it."""
    labels = "ABCDEFGHIJ"
    rows, marked = [], False
    for r, line in enumerate(data["pad"]):
        chars = []
        for c in range(len(line.split())):
            v = cells.get(f"{labels[r]}@{c}")
            v = "" if v is None else str(v).strip().lower()
            if v not in ("", "x", "o"):
                raise InvalidInput(f"square {labels[r]}{c}: write x (crosses) or o (circles)")
            chars.append(v or ".")
            marked = marked or bool(v)
        rows.append(" ".join(chars))
    data["pad"] = rows
    to_move = extras.get("to_move")
    if to_move is None and marked:
        raise InvalidInput("whose move is it? say it with 'to_move': X (crosses) or O (circles)")
    if to_move is not None:
        if str(to_move).upper() not in ("X", "O"):
            raise InvalidInput(f"'to_move' is X (crosses) or O (circles), not '{to_move}'")
        data["to_move"] = str(to_move).upper()
    data["chain"] = None
    return data


@_writer("the_choice")
def _the_choice_cells(game: Game, data: dict, cells: dict, extras: dict) -> dict:
    """The side being played: x on crossed ring spaces; on number spaces the order in which
    the line passes them (1 = the circled start)."""
    side = {s.name: s for s in game.layout.sides}[data["playing"]]
    ring, line = [], []
    for key, v in cells.items():
        row, col = key.split("@")
        col = int(col)
        if row == "R":
            if str(v).lower() != "x":
                raise InvalidInput(f"ring space {col}: write x to cross it")
            ring.append(col)
        elif row == "N":
            if not isinstance(v, int) or v < 1:
                raise InvalidInput(f"number space {side.numbers[col]}: write its place on "
                                   f"the line (1 for the start, 2, 3, ...)")
            line.append((v, side.numbers[col]))
    orders = [o for o, _ in line]
    if len(set(orders)) != len(orders):
        raise InvalidInput("two number spaces have the same place on the line")
    data[side.name] = {"colours": sorted(ring), "numbers": [n for _, n in sorted(line)],
                       "misthrows": _count(extras.get("misthrows", 0), "misthrows")}
    return data


def _count(raw: Any, what: str) -> int:
    try:
        n = int(raw or 0)
    except (TypeError, ValueError):
        raise InvalidInput(f"{what} must be a whole number") from None
    return n


def roll_from_dice(items: Any) -> Roll:
    """A roll from [{"colour": c, "face": f}, ...] or from text."""
    if isinstance(items, str):
        return Roll.parse(items)
    if not isinstance(items, list) or not items:
        raise InvalidInput("a roll is a list of dice")
    parts = []
    for d in items:
        if not isinstance(d, dict) or "face" not in d:
            raise InvalidInput("each die needs a 'face'")
        colour = d.get("colour")
        parts.append(f"{colour}:{d['face']}" if colour else str(d["face"]))
    return Roll.parse(" ".join(parts))

"""What the pages need to know about a game, asked of the engine through its protocol.

- `game_info`: title, player counts, attempts, the shipped layouts with their confidence
  (RECON ones are labelled), and the dice a person can tap (`dice_spec`).
- `sheet_view`: a sheet as the game draws it, a grid of cells (`Game.grid`). A cell is
  addressed the way a `Mark` is (row label + column), so the legal placements of the engine
  light up cells without the page knowing any rule. A game without a grid is still fully
  playable (the page lists its legal placements as buttons and shows the sheet's JSON).
- `sheet_from_cells`: the reverse, for "check my paper": cells typed by a person -> the
  game's sheet JSON (`Game.sheet_from_grid`), which `Game.sheet_from_json` / `problems` /
  `score` then judge.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Collection

from engine.dice import Roll
from engine.errors import InvalidInput
from engine.game import Game
from engine.registry import GAMES, DEFAULT_LAYOUT, game_class, layout_data, layout_names


# -- dice -------------------------------------------------------------------------------
def dice_spec_of(game: Game) -> dict:
    """The dice a person can tap for this game object, as the game declares them
    (`Game.dice_spec`: its layout may describe its dice). Every roll a person enters is
    still checked by `Game.roll_problem`."""
    return game.dice_spec().to_json()


def dice_spec(game_name: str) -> dict:
    """The dice of a game with its default layout (`dice_spec_of`)."""
    return dice_spec_of(_default_game(game_class(game_name)))


# a pure function of the game's class (a game registered again is another class), bounded
@lru_cache(maxsize=32)
def _default_game(cls: type[Game]) -> Game:
    name = DEFAULT_LAYOUT.get(cls.name) or layout_names(cls.name)[0]
    return cls(cls.parse_layout(layout_data(cls.name, name)))


# -- games and layouts ------------------------------------------------------------------
def layouts_of(game_name: str) -> list[dict]:
    cls = game_class(game_name)
    out = []
    for name in layout_names(cls.name):
        data = layout_data(cls.name, name)
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
        "first_drawn": cls.first_drawn,     # how who begins is drawn ("coin toss")
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
        data = layout_data(cls.name, spec)
    else:
        raise InvalidInput("a layout is a shipped layout's name or a layout object")
    cls.parse_layout(data)  # raises InvalidLayout with the reason
    return data


# -- the sheet drawn, and "check my paper" -------------------------------------------------
# The grid of cells is the game's own (`Game.grid`, described in engine/game.py).
def sheet_view(game: Game, sheet: Any) -> dict | None:
    return game.grid(game.sheet_to_json(sheet))


def empty_view(game: Game) -> dict | None:
    return sheet_view(game, game.new_sheet())


def sheet_from_cells(game: Game, cells: dict, extras: dict) -> dict:
    """Build the game's sheet JSON from typed cells {"Y@3": 7, ...} (`Game.sheet_from_grid`).

    The empty sheet's grid tells which cells exist; each typed value is checked to be
    something written on a sheet, then the game writes them into the JSON of a new sheet.
    Only games drawn as a grid can do this; the others take the sheet JSON as typed.
    """
    empty = empty_view(game)
    if empty is None:
        raise InvalidInput(f"{game.title} has no grid entry yet: type the sheet as JSON")
    known = {f"{c['row']}@{c['col']}" for r in empty["rows"] for c in r["cells"] if c}
    unknown = sorted(set(cells) - known)
    if unknown:
        raise InvalidInput(f"no such field(s): {', '.join(unknown)}")
    parsed = {}
    for key, raw in cells.items():
        if raw is None or raw == "":
            continue
        parsed[key] = _cell_value(raw, key)
    return game.sheet_from_grid(game.sheet_to_json(game.new_sheet()), parsed, extras or {})


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


def roll_from_dice(items: Any, symbols: Collection[str] = ()) -> Roll:
    """A roll from [{"colour": c, "face": f}, ...] or from text; `symbols`: the word faces
    of the game's dice (`Roll.parse`)."""
    if isinstance(items, str):
        return Roll.parse(items, symbols)
    if not isinstance(items, list) or not items:
        raise InvalidInput("a roll is a list of dice")
    parts = []
    for d in items:
        if not isinstance(d, dict) or "face" not in d:
            raise InvalidInput("each die needs a 'face'")
        colour = d.get("colour")
        parts.append(f"{colour}:{d['face']}" if colour else str(d["face"]))
    return Roll.parse(" ".join(parts), symbols)

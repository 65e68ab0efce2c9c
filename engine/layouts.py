"""Sheet layouts: JSON data validated on load.

A layout file names its game, its own name, and a `confidence` mark taken from
SHEETS.md: "H" (two sources agree), "M" (one source or a safe inference) or "RECON" (a
reconstruction shipped as a labelled default, to be replaced by the user's own pad).
The game module owns the rest of the schema and validates it (`Game.parse_layout`).

The built-in layouts ship inside the package (`engine/layouts/*.json`) and are read as
package resources; a user's own layout arrives as already-parsed JSON from the companion,
so the engine itself never opens a file path.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from .errors import InvalidLayout
from .reasons import Reason, declare

declare({
    "layout.object": "a layout must be a JSON object",
    "layout.for_game": "this layout is for '{got}', not '{game}'",
    "layout.name": "a layout needs a non-empty 'name'",
    "layout.long_name": "a layout's 'name' has at most {max} characters",
    "layout.confidence": "'confidence' must be one of {list}",
    "layout.bad_note": "'note' must be text",
    "layout.long_note": "layout '{name}': 'note' has at most {max} characters",
    "layout.whole": "{what} must be a whole number, not {v}",
    "layout.range": "{what} must be {low}-{high}, not {v}",
    # `what` above: a layout's key ("qwinto layout 'mine': 'columns'"); each game declares
    # how it names its layouts ("qwinto.layout") and the things in them
    "layout.key": "{where}: '{key}'",
    "layout.missing": "{where}: missing or bad field {field}",
    "layout.no_builtin": "no built-in layout '{name}' for {game} (built-in: {names})",
    "layout.no_builtin_none": "no built-in layout '{name}' for {game} (built-in: none)",
})

CONFIDENCES = ("H", "M", "RECON")
MAX_NAME = 60       # characters of a layout's name
MAX_NOTE = 1000     # characters of its note (the shipped notes have at most 459)
MAX_POINTS = 1000   # points a layout may give for anything, either way


@dataclass(frozen=True)
class LayoutInfo:
    game: str
    name: str
    confidence: str
    note: str

    @property
    def is_recon(self) -> bool:
        return self.confidence == "RECON"


def read_info(data: Any, game: str) -> LayoutInfo:
    """Check the fields every layout shares; the game checks the rest."""
    if not isinstance(data, dict):
        raise InvalidLayout(Reason("layout.object"))
    if data.get("game") != game:
        raise InvalidLayout(Reason("layout.for_game", got=data.get("game"), game=game))
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise InvalidLayout(Reason("layout.name"))
    if len(name) > MAX_NAME:
        raise InvalidLayout(Reason("layout.long_name", max=MAX_NAME))
    confidence = data.get("confidence", "RECON")
    if confidence not in CONFIDENCES:
        raise InvalidLayout(Reason("layout.confidence", list=", ".join(CONFIDENCES)))
    note = data.get("note", "")
    if not isinstance(note, str):
        raise InvalidLayout(Reason("layout.bad_note"))
    if len(note) > MAX_NOTE:
        raise InvalidLayout(Reason("layout.long_note", name=name, max=MAX_NOTE))
    return LayoutInfo(game, name, confidence, note)


def whole(value: Any, what: str, low: int, high: int) -> int:
    """`value` (a JSON number or numeric text, as layouts have always been read) as a whole
    number in `low`..`high`; `InvalidLayout` naming `what` (a reason, such as "layout.key")
    otherwise. The bounds keep a layout of a few bytes from asking for millions of fields or
    points beyond any sheet."""
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        raise InvalidLayout(Reason("layout.whole", what=what,
                                   v=repr(str(value)[:20]))) from None
    if not low <= number <= high:
        raise InvalidLayout(Reason("layout.range", what=what, low=low, high=high,
                                   v=str(value)[:20]))
    return number


def points(value: Any, what: str) -> int:
    """Points given by a layout: a whole number within +-`MAX_POINTS`."""
    return whole(value, what, -MAX_POINTS, MAX_POINTS)


@lru_cache(maxsize=None)
def _builtin_files() -> dict[tuple[str, str], str]:
    found = {}
    for entry in resources.files("engine").joinpath("layouts").iterdir():
        if entry.name.endswith(".json"):
            data = json.loads(entry.read_text(encoding="utf-8"))
            found[(data["game"], data["name"])] = entry.read_text(encoding="utf-8")
    return found


def builtin_layout_names(game: str) -> list[str]:
    """Names of the layouts shipped for `game`, sorted."""
    return sorted(name for g, name in _builtin_files() if g == game)


def builtin_layout_data(game: str, name: str) -> dict:
    """The parsed JSON of a shipped layout (a fresh copy each call)."""
    try:
        return json.loads(_builtin_files()[(game, name)])
    except KeyError:
        names = ", ".join(builtin_layout_names(game))
        raise InvalidLayout(Reason("layout.no_builtin", name=name, game=game, names=names)
                            if names else
                            Reason("layout.no_builtin_none", name=name, game=game)) from None

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

CONFIDENCES = ("H", "M", "RECON")


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
        raise InvalidLayout("a layout must be a JSON object")
    if data.get("game") != game:
        raise InvalidLayout(f"this layout is for '{data.get('game')}', not '{game}'")
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise InvalidLayout("a layout needs a non-empty 'name'")
    confidence = data.get("confidence", "RECON")
    if confidence not in CONFIDENCES:
        raise InvalidLayout(f"'confidence' must be one of {', '.join(CONFIDENCES)}")
    note = data.get("note", "")
    if not isinstance(note, str):
        raise InvalidLayout("'note' must be text")
    return LayoutInfo(game, name, confidence, note)


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
        names = ", ".join(builtin_layout_names(game)) or "none"
        raise InvalidLayout(
            f"no built-in layout '{name}' for {game} (built-in: {names})") from None

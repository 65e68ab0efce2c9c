"""Game names -> game classes, and building a game from a layout."""
from __future__ import annotations

from typing import Any

from .errors import InvalidInput
from .game import Game
from .games.knister import Knister
from .games.kuh_vadis import KuhVadis
from .games.qwinto import Qwinto
from .games.the_choice import TheChoice
from .games.twenty_one import TwentyOne
from .layouts import builtin_layout_data, builtin_layout_names

GAMES: dict[str, type[Game]] = {cls.name: cls for cls in (
    Qwinto, Knister, TwentyOne, KuhVadis, TheChoice)}

# The layout a new sheet gets when none is named.
DEFAULT_LAYOUT = {"qwinto": "standard", "knister": "standard", "twenty_one": "A",
                  "kuh_vadis": "default", "the_choice": "default"}


def game_class(name: str) -> type[Game]:
    key = name.strip().lower().replace(" ", "_").replace("-", "_")
    try:
        return GAMES[key]
    except KeyError:
        raise InvalidInput(
            f"unknown game '{name}': choose one of {', '.join(sorted(GAMES))}") from None


def load_game(name: str, layout: str | dict[str, Any] | None = None) -> Game:
    """A game built from a built-in layout (by name) or a user's layout (parsed JSON)."""
    cls = game_class(name)
    if layout is None:
        layout = DEFAULT_LAYOUT.get(cls.name) or builtin_layout_names(cls.name)[0]
    data = builtin_layout_data(cls.name, layout) if isinstance(layout, str) else layout
    return cls(cls.parse_layout(data))


def layout_names(name: str) -> list[str]:
    return builtin_layout_names(game_class(name).name)

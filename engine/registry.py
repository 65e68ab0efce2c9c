"""Game names -> game classes, imported when first asked for, and building a game from a layout.

`GAMES` is a mapping whose names are known without importing anything: a game's module is
imported the first time its class is looked up (`GAMES["knister"]`, `load_game("knister")`),
so a Knister `score` never loads The Choice. `register` adds a game made elsewhere (a test's
toy game) with its layouts given as data.
"""
from __future__ import annotations

import copy
from importlib import import_module
from typing import Any, Iterator, Mapping

from .errors import InvalidInput, InvalidLayout
from .game import Game
from .layouts import builtin_layout_data, builtin_layout_names
from .reasons import Reason, declare

declare({"registry.unknown_game": "unknown game '{name}': choose one of {games}"})

# name -> (module, class) of the shipped games
_SHIPPED = {
    "qwinto": ("engine.games.qwinto", "Qwinto"),
    "knister": ("engine.games.knister", "Knister"),
    "twenty_one": ("engine.games.twenty_one", "TwentyOne"),
    "kuh_vadis": ("engine.games.kuh_vadis", "KuhVadis"),
    "the_choice": ("engine.games.the_choice", "TheChoice"),
}

# The layout a new sheet gets when none is named.
DEFAULT_LAYOUT = {"qwinto": "standard", "knister": "standard", "twenty_one": "A",
                  "kuh_vadis": "default", "the_choice": "default"}


class _Games(Mapping[str, type[Game]]):
    """The known games by name; a shipped game's module is imported on first lookup."""

    def __init__(self) -> None:
        self._loaded: dict[str, type[Game]] = {}
        self._added: dict[str, type[Game]] = {}

    def __getitem__(self, name: str) -> type[Game]:
        cls = self._added.get(name) or self._loaded.get(name)
        if cls is None:
            module, attr = _SHIPPED[name]          # KeyError for an unknown name
            cls = self._loaded[name] = getattr(import_module(module), attr)
        return cls

    def __iter__(self) -> Iterator[str]:
        return iter({**_SHIPPED, **self._added})

    def __len__(self) -> int:
        return len({**_SHIPPED, **self._added})

    def __contains__(self, name: object) -> bool:
        return name in _SHIPPED or name in self._added


GAMES = _Games()
# layouts of registered games, as data: game -> layout name -> layout JSON
_LAYOUTS: dict[str, dict[str, dict]] = {}


def register(cls: type[Game], layouts: Mapping[str, dict], default: str | None = None) -> None:
    """Add a game class with its layouts (name -> layout JSON; `default`: the first one).
    Each layout is checked by the game now; a name already taken is refused."""
    if cls.name in GAMES:
        raise InvalidInput(f"a game named '{cls.name}' is already known")
    if not layouts:
        raise InvalidLayout(f"game '{cls.name}' needs at least one layout")
    for data in layouts.values():
        cls.parse_layout(data)
    GAMES._added[cls.name] = cls
    _LAYOUTS[cls.name] = {name: copy.deepcopy(data) for name, data in layouts.items()}
    DEFAULT_LAYOUT[cls.name] = default or next(iter(layouts))


def unregister(name: str) -> None:
    """Remove a game added by `register` (a test cleaning up)."""
    GAMES._added.pop(name, None)
    _LAYOUTS.pop(name, None)
    DEFAULT_LAYOUT.pop(name, None)


def game_class(name: str) -> type[Game]:
    key = name.strip().lower().replace(" ", "_").replace("-", "_")
    if key not in GAMES:
        raise InvalidInput(Reason("registry.unknown_game", name=name,
                                  games=", ".join(sorted(GAMES))))
    return GAMES[key]


def layout_data(game: str, layout: str) -> dict:
    """The JSON of a layout shipped with, or registered for, `game` (a fresh copy)."""
    added = _LAYOUTS.get(game)
    if added is None:
        return builtin_layout_data(game, layout)
    if layout not in added:
        raise InvalidLayout(Reason("layout.no_builtin", name=layout, game=game,
                                   names=", ".join(sorted(added))))
    return copy.deepcopy(added[layout])


def load_game(name: str, layout: str | dict[str, Any] | None = None) -> Game:
    """A game built from a built-in layout (by name) or a user's layout (parsed JSON)."""
    cls = game_class(name)
    if layout is None:
        layout = DEFAULT_LAYOUT.get(cls.name) or layout_names(cls.name)[0]
    data = layout_data(cls.name, layout) if isinstance(layout, str) else layout
    return cls(cls.parse_layout(data))


def layout_names(name: str) -> list[str]:
    key = game_class(name).name
    if key in _LAYOUTS:
        return sorted(_LAYOUTS[key])
    return builtin_layout_names(key)

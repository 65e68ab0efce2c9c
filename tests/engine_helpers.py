"""Small builders so that tests read like the rule texts."""
from engine.dice import Roll
from engine.placement import Placement
from engine.registry import load_game


def roll(text: str) -> Roll:
    return Roll.parse(text)


def placement(text: str) -> Placement:
    return Placement.parse(text)


def shown(legal) -> set[str]:
    """The legal placements as their text forms, for readable assertions."""
    return {str(p) for p in legal}


def game(name: str, layout=None):
    return load_game(name, layout)

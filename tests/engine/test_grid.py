"""Each game draws its sheet as a grid of cells (`Game.grid`) and reads typed cells back
(`Game.sheet_from_grid`): what is drawn, typed in again, draws the same."""
import random

import pytest

from engine.dice import Roll
from engine.registry import GAMES, layout_names, load_game
from engine.simulate import random_turn
from engine.table import Table

GAME_LAYOUTS = [(g, lay) for g in sorted(GAMES) for lay in layout_names(g)]


def typed(cell: dict):
    """What a person writes into a drawn cell to say what it holds."""
    if cell.get("order") is not None:          # The Choice: the place on the line
        return cell["order"]
    if isinstance(cell["value"], str):
        return cell["value"].lower()
    return cell["value"]


@pytest.mark.parametrize("name, layout", GAME_LAYOUTS)
def test_a_drawn_sheet_typed_back_draws_the_same(name, layout):
    game = load_game(name, layout)
    rng = random.Random(11)
    table = Table.new(game, ["a", "b"] if game.min_players <= 2 <= game.max_players else ["a"])
    checked = 0
    for _ in range(60):
        if table.is_over:
            break
        table = random_turn(table, rng)
        data = game.sheet_to_json(table.sheets[0])
        grid = game.grid(data)
        cells = {f"{c['row']}@{c['col']}": typed(c) for r in grid["rows"] for c in r["cells"]
                 if c and c["value"] is not None}
        extras = {e["key"]: e["value"] for e in grid["extras"]}
        blank = game.sheet_to_json(game.new_sheet())
        if name == "the_choice":     # the side being played is the one drawn
            blank["playing"] = data["playing"]
        back = game.sheet_from_grid(blank, cells, extras)
        assert game.grid(back) == grid
        checked += 1
    assert checked


@pytest.mark.parametrize("name, cell, roll, value", [
    ("qwinto", {"row": "O", "col": 3, "colour": "orange"}, "orange:2 yellow:5", 7),
    ("twenty_one", {"row": "A", "col": 0, "colour": "red"},
     "white:1 black:2 red:3 blue:4 yellow:5 green:6", 3),
    ("kuh_vadis", {"row": "A", "col": 1, "printed": "4"}, "1 2 3 4 5", 4),
    ("kuh_vadis", {"row": "A", "col": 0, "printed": "O"}, "1 2 3 4 5", None),
    ("kuh_vadis", {"row": "A", "col": 2, "printed": "cow"}, "1 2 3 4 5", "cow"),
    ("the_choice", {"row": "R", "col": 0, "colour": "red", "value": None}, "red:1 red:2 red:3",
     "red"),
    ("the_choice", {"row": "N", "col": 0, "printed": "8", "value": None}, "red:1 red:2 red:3",
     8),
])
def test_the_value_a_cell_takes_from_a_roll(name, cell, roll, value):
    assert load_game(name).cell_value(cell, Roll.parse(roll)) == value

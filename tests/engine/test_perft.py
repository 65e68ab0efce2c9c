"""Perft for the numeric-grid games: sheet + roll + role -> the exact legal placements.

The fixtures (fixtures/*_perft.json, built by fixtures/make_perft.py from `rule_oracle`,
a naive statement of the rules) are checked exactly; fresh random positions are checked
against the oracle too, so a fixture cannot drift into agreeing with a bug.
"""
import json
import random
from pathlib import Path

import pytest

from engine.dice import Roll
from engine.layouts import builtin_layout_data
from engine.registry import load_game
from engine.simulate import random_turn
from engine.table import Table

from fixtures.make_perft import expected

FIXTURES = Path(__file__).parent / "fixtures"
GAMES = ["qwinto", "knister", "twenty_one"]


def cases(game_name):
    return json.loads((FIXTURES / f"{game_name}_perft.json").read_text())


@pytest.mark.parametrize("game_name", GAMES)
def test_at_least_20_fixtures_including_near_full_sheets(game_name):
    found = cases(game_name)
    assert len(found) >= 20
    assert any(0 < len(c["legal"]) <= 2 for c in found)


@pytest.mark.parametrize("game_name", GAMES)
def test_engine_gives_exactly_the_fixture_sets(game_name):
    for i, case in enumerate(cases(game_name)):
        game = load_game(game_name, case["layout"])
        sheet = game.sheet_from_json(case["sheet"])
        got = sorted(str(p) for p in game.legal(sheet, Roll.parse(case["roll"]), case["role"]))
        assert got == case["legal"], f"case {i}: {case['roll']} as {case['role']}"


@pytest.mark.parametrize("game_name, layout", [("qwinto", "standard"),
                                                ("knister", "standard"),
                                                ("twenty_one", "C"), ("twenty_one", "F")])
def test_engine_agrees_with_the_oracle_on_fresh_positions(game_name, layout):
    game = load_game(game_name, layout)
    data = builtin_layout_data(game_name, layout)
    rng = random.Random(99)
    table = Table.new(game, ["a", "b", "c"])
    checked = 0
    while checked < 300:
        if table.is_over:
            table = Table.new(game, ["a", "b", "c"])
        table = random_turn(table, rng)
        for seat in range(3):
            roll = game.random_roll(rng)
            role = rng.choice(["roller", "other"])
            sheet = table.sheets[seat]
            got = {str(p) for p in game.legal(sheet, roll, role)}
            assert got == expected(game_name, data, game.sheet_to_json(sheet), roll, role)
            checked += 1

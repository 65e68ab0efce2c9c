"""Thousands of seeded random games through the public API (OpenSpiel-style invariants).

Every placement goes through the table's checked boundary, so an offered placement that
broke a rule would raise; the finished sheets are then checked independently with
`problems()`, the check a player runs on a paper sheet.
"""
import json

import pytest

from engine.errors import InvalidInput
from engine.registry import load_game
from engine.simulate import random_game
from engine.table import Table

GAMES = [("qwinto", ["standard"]), ("knister", ["standard"]),
         ("twenty_one", list("ABCDEF"))]
GAMES_PER_KIND = 1000


def table_games(name, layouts, players):
    return [load_game(name, layouts[i % len(layouts)]) for i in range(players)]


@pytest.mark.parametrize("name, layouts", GAMES)
def test_random_games_end_legally_with_scores_in_bounds(name, layouts):
    for seed in range(GAMES_PER_KIND):
        players = 1 + seed % 4
        games = table_games(name, layouts, players)
        table = random_game(games, players, seed)        # raises if a game never ends
        assert table.is_over
        low, high = games[0].score_bounds()
        for game, sheet, standing in zip(games, table.sheets, table.standings()):
            assert game.problems(sheet) == [], f"seed {seed}"
            assert low <= standing.score.total <= high, f"seed {seed}"


@pytest.mark.parametrize("name, layouts", GAMES)
def test_the_same_seed_replays_the_same_game(name, layouts):
    for seed in (1, 2, 3):
        a = random_game(table_games(name, layouts, 3), 3, seed)
        b = random_game(table_games(name, layouts, 3), 3, seed)
        assert a.history == b.history and a.to_json() == b.to_json()
    assert random_game(table_games(name, layouts, 3), 3, 1).history != \
        random_game(table_games(name, layouts, 3), 3, 2).history


@pytest.mark.parametrize("name, layouts", GAMES)
def test_saved_states_reload_to_the_same_state(name, layouts):
    games = table_games(name, layouts, 3)
    table = random_game(games, 3, seed=7)
    for n in range(0, len(table.history), 5):
        partial = Table.new(games, table.players).replay(table.history[:n])
        again = Table.from_json(json.loads(json.dumps(partial.to_json())), games)
        assert again == partial


ALL_GAMES = ("qwinto", "knister", "twenty_one", "kuh_vadis", "the_choice")


@pytest.mark.parametrize("game_name", ALL_GAMES)
def test_a_sheet_of_another_game_is_refused_not_read_as_empty(game_name):
    """A part this game's sheets do not have is refused: where parts left out read as empty
    (Qwinto's rows, The Choice's sides), another game's sheet would read as an empty one."""
    game = load_game(game_name)
    for other in ALL_GAMES:
        if other == game_name:
            continue
        theirs = load_game(other)
        data = theirs.sheet_to_json(theirs.new_sheet())
        if set(data) <= set(game.sheet_to_json(game.new_sheet())):
            continue
        with pytest.raises(InvalidInput, match=f"is not part of a {game.title} sheet"):
            game.sheet_from_json(data)

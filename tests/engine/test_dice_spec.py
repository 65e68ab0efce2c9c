"""Each game declares its dice (`Game.dice_spec`): colours, faces, how many, symbol faces.
The declaration agrees with the game's own roll check and its own random rolls."""
import random

import pytest

from engine.dice import Die, Roll
from engine.registry import GAMES, layout_names, load_game

GAME_LAYOUTS = [(g, lay) for g in sorted(GAMES) for lay in layout_names(g)]


@pytest.mark.parametrize("name, layout", GAME_LAYOUTS)
class TestDeclaredDice:
    def test_random_rolls_use_the_declared_dice(self, name, layout):
        game = load_game(name, layout)
        spec = game.dice_spec()
        usual = {k.colour: set(k.faces if k.usual is None else k.usual) for k in spec.kinds}
        rng = random.Random(5)
        for _ in range(300):
            roll = game.random_roll(rng)
            assert spec.min_dice <= len(roll) <= spec.max_dice
            for die in roll:
                assert die.face in usual[die.colour], (die, usual)
            if not spec.repeat_colours:
                assert len(set(roll.colours)) == len(roll.colours)

    def test_every_declared_face_is_taken_by_the_roll_check(self, name, layout):
        game = load_game(name, layout)
        spec = game.dice_spec()
        rng = random.Random(6)
        for kind in spec.kinds:
            roll = next(r for r in (game.random_roll(rng) for _ in range(500))
                        if kind.colour in r.colours)
            i = roll.colours.index(kind.colour)
            for face in kind.faces:
                dice = list(roll)
                dice[i] = Die(kind.colour, face)
                assert game.roll_problem(Roll(dice)) is None, (kind, face)
            dice = list(roll)
            dice[i] = Die(kind.colour, 7)
            assert game.roll_problem(Roll(dice)) is not None

    def test_symbols_are_faces_that_are_not_numbers(self, name, layout):
        spec = load_game(name, layout).dice_spec()
        faces = {f for k in spec.kinds for f in k.faces}
        assert set(spec.symbols) == {f for f in faces if not isinstance(f, int)}


def test_kuh_vadis_declares_the_cow_a_symbol():
    spec = load_game("kuh_vadis").dice_spec()
    assert spec.symbols == ("cow",) and spec.to_json()["symbols"] == ["cow"]
    assert spec.to_json()["colours"] == [
        {"colour": None, "faces": [1, 2, 3, 4, 5, "cow"], "usual": [1, 2, 3, 4, 5, "cow"]}]


def test_the_choice_usual_faces_follow_the_layout_dice():
    game = load_game("the_choice")
    kinds = {k.colour: k for k in game.dice_spec().kinds}
    for colour, kind in kinds.items():
        printed = {n for die in game.layout.dice for n, c in die.items() if c == colour}
        assert set(kind.usual) == printed and kind.faces == (1, 2, 3, 4, 5, 6)

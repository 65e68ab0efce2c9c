"""Each game declares its dice (`Game.dice_spec`): colours, faces, how many, symbol faces.
The declaration agrees with the game's own roll check and its own random rolls."""
import random

import pytest

from engine.dice import Die, Roll, Symbol
from engine.errors import InvalidInput
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
        assert {s.name for s in spec.symbols} == {f for f in faces if not isinstance(f, int)}
        # a symbol is printed on a face no number is
        assert all(1 <= s.side <= 6 and s.side not in faces for s in spec.symbols)

    def test_every_declared_face_can_be_typed(self, name, layout):
        """`Game.parse_roll` reads every face the game declares, a symbol by its name, back
        from the roll's text; a word that names none of its symbols is refused."""
        game = load_game(name, layout)
        for kind in game.dice_spec().kinds:
            for face in kind.faces:
                assert game.parse_roll(str(Die(kind.colour, face))).faces == (face,)
        with pytest.raises(InvalidInput, match="'moo' is not a die face"):
            game.parse_roll("moo")

    def test_only_the_choice_prints_colours_on_the_faces(self, name, layout):
        spec = load_game(name, layout).dice_spec()
        assert spec.colours_on_faces == (name == "the_choice")
        assert spec.to_json()["colours_on_faces"] == spec.colours_on_faces


def test_kuh_vadis_declares_the_cow_a_symbol_on_the_sixth_face():
    spec = load_game("kuh_vadis").dice_spec()
    assert spec.symbols == (Symbol("cow", 6),) and spec.to_json()["symbols"] == ["cow"]
    assert spec.to_json()["symbol_sides"] == {"cow": 6}
    assert spec.to_json()["colours"] == [
        {"colour": None, "faces": [1, 2, 3, 4, 5, "cow"], "usual": [1, 2, 3, 4, 5, "cow"]}]


def test_the_choice_usual_faces_follow_the_layout_dice():
    game = load_game("the_choice")
    kinds = {k.colour: k for k in game.dice_spec().kinds}
    for colour, kind in kinds.items():
        printed = {n for die in game.layout.dice for n, c in die.items() if c == colour}
        assert set(kind.usual) == printed and kind.faces == (1, 2, 3, 4, 5, 6)


@pytest.mark.parametrize("name, side", [("Cow", 6), ("c0w", 6), ("", 6), ("cow", 7)])
def test_a_symbol_is_a_lower_case_word_on_a_face(name, side):
    """A symbol's name is typed in a roll and written in a mark (`Acow@3`): lower-case letters."""
    with pytest.raises(ValueError):
        Symbol(name, side)

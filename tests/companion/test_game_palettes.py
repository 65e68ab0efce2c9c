"""User story: The Choice prints its colours on the faces, so two dice of a roll may show one
colour; the camera names each die by what it shows. Qwinto and twenty one have one die of each
colour, and the camera names them one each."""
import pytest

from companion import games as G
from companion.reader import TableReader, declared_palette

# two red faces as a camera measures them (BGR), the second a little bluish under the lamp
TWO_REDS = [(50, 40, 190), (100, 40, 170)]


@pytest.mark.parametrize("game, one_each", [("qwinto", True), ("twenty_one", True),
                                            ("the_choice", False)])
def test_a_games_palette_says_whether_its_dice_show_one_colour_each(game, one_each):
    assert declared_palette(G.dice_spec(game)).one_each is one_each


def test_two_faces_of_one_colour_are_both_named_by_it():
    from vision.colour import name_colour
    names, _ = name_colour(TWO_REDS, declared_palette(G.dice_spec("the_choice")),
                           estimate_light=False)
    assert names == ("red", "red")


def test_a_tables_camera_reads_with_its_games_palette():
    """The table's frame reader and its settled-roll reader are built with that palette."""
    built = []

    class Vision:
        def reader(self, colours, numbers, settled=False, repeat_colours=False):
            from companion.reader import game_palette
            built.append(game_palette(colours, None, repeat_colours).one_each)
            return lambda image: None

    spec = G.dice_spec("the_choice")
    TableReader([c["colour"] for c in spec["colours"]], [1, 2, 3, 4, 5, 6], frames=1,
                vision=Vision(), repeat_colours=spec["repeat_colours"])
    assert built == [False, False]


@pytest.mark.parametrize("game, named", [("knister", False), ("kuh_vadis", False),
                                         ("qwinto", True), ("the_choice", True)])
def test_a_tables_camera_names_colours_only_for_dice_that_differ_by_colour(game, named):
    """Knister's and Kuh Vadis' pages show no colours, so their frames are read without naming
    any (the colour stage is a third of a frame's time); the other games' readers name them."""
    from companion.reader import Vision
    spec = G.dice_spec(game)
    faces = sorted({f for c in spec["colours"] for f in c["faces"] if isinstance(f, int)})
    table = TableReader([c["colour"] for c in spec["colours"]], faces, frames=1,
                        vision=Vision(), repeat_colours=spec["repeat_colours"])
    assert table.reader.name_colours is named
    assert table.settled_reader.name_colours is named

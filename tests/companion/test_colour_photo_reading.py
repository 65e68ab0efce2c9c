"""User story: on the teaching page a player photographs all of the table's dice, one of each
colour. A die the reader doubts (a low-contrast face under a coloured lamp) is still shown for the
player to check, as long as the photo then holds no more dice than the game has."""
from dataclasses import dataclass

from companion.teaching import LOOSE_DIE, read_colour_photo


@dataclass(frozen=True)
class Die:
    box: tuple
    colour: str
    die_confidence: float


@dataclass(frozen=True)
class Roll:
    dice: tuple


@dataclass(frozen=True)
class Reader:
    """Reads the candidates of a photo as vision's DiceReader does: those at least `min_die`
    sure to be a die."""
    candidates: tuple
    min_die: float = 0.9

    def __call__(self, bgr):
        return Roll(tuple(d for d in self.candidates if d.die_confidence >= self.min_die))


ORANGE = Die((10, 10, 30, 30), "orange", 0.97)
YELLOW = Die((50, 10, 70, 30), "yellow", 0.99)
DOUBTED = Die((90, 10, 110, 30), "purple", 0.79)
SPECK = Die((130, 10, 150, 30), "purple", 0.6)
FAINT = Die((170, 10, 190, 30), "red", LOOSE_DIE - 0.01)


def test_a_doubted_die_completes_a_photo_of_all_the_dice():
    boxes, names = read_colour_photo(None, Reader((ORANGE, YELLOW, DOUBTED)), dice=3)
    assert names == ("orange", "yellow", "purple") and boxes[2] == DOUBTED.box


def test_the_sure_reading_stays_when_completing_would_give_more_dice_than_the_game_has():
    boxes, names = read_colour_photo(None, Reader((ORANGE, YELLOW, DOUBTED, SPECK)), dice=3)
    assert names == ("orange", "yellow")


def test_a_candidate_that_is_hardly_a_die_is_not_taken():
    assert read_colour_photo(None, Reader((ORANGE, YELLOW, FAINT)), dice=3)[1] == ("orange",
                                                                                    "yellow")


def test_a_photo_with_every_die_found_or_no_count_given_is_read_once_as_it_is():
    assert read_colour_photo(None, Reader((ORANGE, YELLOW, DOUBTED)), dice=2)[1] == ("orange",
                                                                                    "yellow")
    assert read_colour_photo(None, Reader((ORANGE, YELLOW, DOUBTED)))[1] == ("orange", "yellow")

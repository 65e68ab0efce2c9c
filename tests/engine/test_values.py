"""Value types: dice, rolls, marks, placements and scores are immutable, hashable and
read back from their short text forms."""
import dataclasses

import pytest

from engine.dice import Die, Roll
from engine.errors import InvalidInput
from engine.placement import Mark, Placement, Score, ScoreLine


@pytest.mark.parametrize("text", ["orange:3", "6", "cow", "green:cow"])
def test_die_text_round_trip(text):
    assert str(Die.parse(text, {"cow"})) == text


def test_roll_text_and_sum():
    r = Roll.parse("orange:3, purple:5")
    assert str(r) == "orange:3 purple:5" and r.total == 8 and len(r) == 2
    assert Roll.parse("3 cow", {"cow"}).total == 3


def test_a_word_face_is_one_of_the_symbols_given():
    """A face typed as a word is a symbol of the game's dice (`DiceSpec.symbol_names`): the
    words taken are the ones given, and the refusal names them."""
    assert Roll.parse("star 2", {"star"}).faces == ("star", 2)
    with pytest.raises(InvalidInput, match=r"'cow' is not a die face \(a number or 'star'\)"):
        Roll.parse("cow 2", {"star"})
    with pytest.raises(InvalidInput, match=r"'cow' is not a die face \(a number\)$"):
        Roll.parse("cow 2")


@pytest.mark.parametrize("bad, message", [("", "no dice"), ("orange:7", "1-6"),
                                          ("orange:x", "not a die face"),
                                          ("or@nge:3", "not a colour")])
def test_malformed_rolls(bad, message):
    with pytest.raises(InvalidInput, match=message):
        Roll.parse(bad)


def test_mark_and_placement_text():
    assert str(Mark.parse("Y7@4")) == "Y7@4"
    assert Mark.parse("y7@4") == Mark("Y", 4, 7)
    p = Placement.parse("A3@3 A1@5")
    assert str(p) == "A3@3 A1@5" and p == Placement.parse("A1@5 A3@3")
    assert Placement.parse("fail").kind == "fail"
    with pytest.raises(InvalidInput, match="is not a mark"):
        Placement.parse("Y7 at 4")


def test_marks_and_placements_as_data_say_what_their_text_says():
    assert Mark.parse("Acow@3").to_json() == {"text": "Acow@3", "row": "A", "col": 3,
                                              "value": "cow", "dice": []}
    p = Placement.parse("N8@4/12 > N5@8/3")
    assert p.to_json() == {"text": "N8@4/12 > N5@8/3", "kind": "enter", "ordered": True,
                           "marks": [{"text": "N8@4/12", "row": "N", "col": 4, "value": 8,
                                      "dice": [1, 2]},
                                     {"text": "N5@8/3", "row": "N", "col": 8, "value": 5,
                                      "dice": [3]}]}
    # an unordered placement's marks in its canonical order (row, then column)
    assert [m["text"] for m in Placement.parse("A1@5 A3@3").to_json()["marks"]] == \
        ["A3@3", "A1@5"]
    assert Placement.parse("pass").to_json() == {"text": "pass", "kind": "pass",
                                                 "ordered": False, "marks": []}


def test_values_are_immutable_and_hashable():
    things = [Die("red", 4), Roll.parse("red:4"), Mark("Y", 4, 7), Placement.parse("Y7@4"),
              ScoreLine("row", 3)]
    assert len(set(things)) == len(things)
    for thing in things:
        field = dataclasses.fields(thing)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(thing, field, None)


def test_score_total_is_the_sum_of_its_lines():
    s = Score([ScoreLine("a", 4), ScoreLine("b", -5, "1 x -5")])
    assert s.total == -1 and str(s).splitlines()[-1] == "total: -1"
    assert s.to_json()["lines"][1] == {"label": "b", "points": -5, "detail": "1 x -5"}

"""The Choice: one class per rule of shared/rules/the_choice.txt, the worked examples,
perft fixtures and random-game invariants.

The default layout (RECON). Number grids, grid positions in brackets (reading order):

    front  row 0:    6[0]   7[1]   3[2]  11[3]
           row 1:  8[4]  12[5]   1[6]   5[7]  13[8]
           row 2:   10[9]   2[10]  9[11]  4[12]

    back   row 0:    9[0]   5[1]  12[2]   3[3]
           row 1: 11[4]   6[5]   2[6]   1[7]   8[8]
           row 2:    4[9]  13[10]  7[11] 10[12]

Rings, positions 0-15 clockwise:
    front: green red purple blue yellow purple grey red blue yellow green red purple blue
           yellow grey
    back:  green yellow green blue red purple grey yellow red blue purple grey red yellow
           blue purple
"""
from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path

import pytest

from engine.dice import Roll
from engine.errors import IllegalPlacement, InvalidInput, InvalidLayout
from engine.game import OTHER, ROLLER
from engine.games.the_choice import ChoiceSheet, TheChoice
from engine.layouts import builtin_layout_data
from engine.placement import MISTHROW, Placement
from engine.registry import load_game
from engine.simulate import random_game
from engine.table import (ChooseSide, EndSide, KeepRoll, Place, RollDice, Table,
                          action_from_json, action_to_json)

FIXTURES = Path(__file__).parent / "fixtures" / "the_choice_perft.json"
SEED_ROLL = "green:6 green:1 yellow:2"       # Linus' roll in the rule text
TIM_PATH = [8, 12, 7, 3, 1, 9, 4]


@pytest.fixture(scope="module")
def game() -> TheChoice:
    return load_game("the_choice")


def sheet(game, front=None, back=None, first="front", playing=None) -> ChoiceSheet:
    return game.sheet_from_json({"first_side": first, "playing": playing or first,
                                 "front": front or {}, "back": back or {}})


def effects(placements) -> set[str]:
    """Placements without their dice labels: what ends up on paper."""
    return {re.sub(r"/\d+", "", str(p)) for p in placements}


def legal(game, s, roll, role=OTHER):
    return game.legal(s, Roll.parse(roll), role)


class TestTextForms:
    """The additions to the value types: marks naming their dice, ordered placements."""

    def test_marks_with_dice_and_word_values(self):
        from engine.placement import Mark
        assert Mark.parse("N7@4/12") == Mark("N", 4, 7, (1, 2))
        assert Mark.parse("Rred@2/1") == Mark("R", 2, "red", (1,))
        assert Mark.parse("Acow@3") == Mark("A", 3, "cow") == Mark.parse("acow@3")
        assert Mark.parse("Y7@4") == Mark("Y", 4, 7) and str(Mark("Y", 4, 7)) == "Y7@4"
        for text in ("N7@4/12", "Rred@2/1", "Acow@3", "Mx@0"):
            assert str(Mark.parse(text)) == text
        with pytest.raises(InvalidInput):
            Mark.parse("N7@4/0")

    def test_ordered_placements_keep_their_order(self):
        a = Placement.parse("N1@6/2 > N2@10/3")
        b = Placement.parse("N2@10/3 > N1@6/2")
        assert a.ordered and a != b and [m.col for m in b.marks] == [10, 6]
        assert Placement.parse(str(a)) == a and str(a) == "N1@6/2 > N2@10/3"
        unordered = Placement.parse("N2@10/3 N1@6/2")
        assert not unordered.ordered and str(unordered) == "N1@6/2 N2@10/3"
        with pytest.raises(InvalidInput):
            Placement.parse("misthrow >")

    def test_a_number_and_a_word_in_one_field_do_not_crash(self):
        assert len(Placement.parse("A1@0 Acow@0").marks) == 2


class TestLayout:
    def test_default_is_recon_with_two_sides(self, game):
        lay = game.layout
        assert lay.info.is_recon and [s.name for s in lay.sides] == ["front", "back"]
        front = lay.sides[0]
        assert front.ring[:6] == ("green", "red", "purple", "blue", "yellow", "purple")
        assert front.numbers == (6, 7, 3, 11, 8, 12, 1, 5, 13, 10, 2, 9, 4)

    def test_hex_neighbours(self, game):
        front = game.layout.sides[0]
        def n(v):
            return {front.numbers[j] for j in front.adjacent[front.cell_of[v]]}

        assert n(1) == {12, 5, 7, 3, 2, 9}          # an inner space has six
        assert n(6) == {7, 8, 12}
        assert n(4) == {9, 5, 13}

    def test_points_tables(self, game):
        lay = game.layout
        assert [lay.colour_score(k) for k in (0, 6, 7, 9, 10, 12, 13, 15, 16)] == \
            [0, 0, 8, 8, 13, 13, 18, 18, 25]
        # the known values of the number table (the rest is RECON)
        assert [lay.number_score(k) for k in (0, 1, 10, 11, 13)] == [0, 1, 22, 26, 36]

    @pytest.mark.parametrize("change, reason", [
        (lambda d: d["sides"][0]["ring"].pop(), "16 colour spaces"),
        (lambda d: d["sides"][0]["ring"].__setitem__(0, "pink"), "'pink' is not a colour"),
        (lambda d: d["sides"][1]["numbers"][0].pop(), "needs 13 number spaces"),
        (lambda d: d["sides"][1]["numbers"][0].__setitem__(0, 5), "different number"),
        (lambda d: d["sides"][1]["numbers"][0].__setitem__(0, 19), "not a number 1-18"),
        (lambda d: d["sides"][0].__setitem__("offsets", [1, 0]), "'offsets'"),
        (lambda d: d["sides"].pop(), "two sides"),
        (lambda d: d["sides"][1].__setitem__("name", "front"), "different names"),
        (lambda d: d["number_points"].pop(), "13 entries"),
        (lambda d: d.__setitem__("colour_points", [[10, 13], [7, 8]]), "increasing"),
    ])
    def test_malformed_layouts_are_refused_with_the_reason(self, change, reason):
        data = builtin_layout_data("the_choice", "default")
        change(data)
        with pytest.raises(InvalidLayout, match=reason):
            load_game("the_choice", data)

    def test_any_valid_layout_is_accepted(self):
        data = builtin_layout_data("the_choice", "default")
        data["name"] = "mine"
        data["sides"][1] = dict(data["sides"][0], name="other")
        g = load_game("the_choice", data)
        assert g.layout.sides[1].numbers == g.layout.sides[0].numbers


class TestDice:
    def test_two_to_four_players(self, game):
        """"Players: 2-4"."""
        for n in (2, 3, 4):
            game.check_player_count(n)
        for n in (1, 5):
            with pytest.raises(InvalidInput, match=f"2-4 players, not {n}"):
                game.check_player_count(n)

    def test_three_dice_each_a_colour_and_a_number(self, game):
        assert game.roll_problem(Roll.parse(SEED_ROLL)) is None
        assert "3 dice, not 2" in game.roll_problem(Roll.parse("green:6 green:1"))
        assert "no colour" in game.roll_problem(Roll.parse("6 1 2"))
        assert "no colour" in game.roll_problem(Roll.parse("pink:6 green:1 red:2"))

    def test_exactly_one_second_attempt(self, game):
        t = Table.new(game, ["Linus", "Sarah"])
        t = t.apply(RollDice(Roll.parse("red:4 blue:2 grey:3")))
        # Tim keeps one die and rolls two again: any three dice may follow
        t = t.apply(RollDice(Roll.parse("red:4 green:6 green:1")))
        assert not t.may_reroll()
        with pytest.raises(IllegalPlacement, match="2 attempts"):
            t.apply(RollDice(Roll.parse(SEED_ROLL)))
        # the second attempt is any three dice; fewer are no roll at all
        assert game.reroll_problem(Roll.parse(SEED_ROLL), Roll.parse("red:1 red:2 red:3")) \
            is None
        assert "3 dice" in game.reroll_problem(Roll.parse(SEED_ROLL), Roll.parse("red:1 red:2"))

    def test_random_second_attempt_rerolls_one_to_three_dice(self, game):
        rng = random.Random(5)
        first = game.random_roll(rng)
        for _ in range(30):
            second = game.random_roll(rng, first)
            assert len(second) == 3 and game.roll_problem(second) is None


class TestDiceUse:
    """Each die once per player, for its colour or its number; numbers may be added."""

    def test_a_sum_of_all_three(self, game):
        p = Placement.parse("N9@11/123")             # 6 + 1 + 2 = 9 on the front
        assert p in legal(game, game.new_sheet(), SEED_ROLL, ROLLER)

    def test_a_die_is_used_once(self, game):
        reason = game.why_illegal(game.new_sheet(), Roll.parse(SEED_ROLL), OTHER,
                                  Placement.parse("N6@0/1 Rgreen@0/1"))
        assert reason == "each die may be used only once, for its colour or its number"

    def test_the_die_must_show_the_colour_and_the_sum_must_match(self, game):
        roll = Roll.parse(SEED_ROLL)
        s = game.new_sheet()
        assert "die 3 (yellow:2) is not green" in game.why_illegal(
            s, roll, OTHER, Placement.parse("Rgreen@0/3 N7@1/12"))
        assert "add up to 7, not 8" in game.why_illegal(
            s, roll, OTHER, Placement.parse("N8@4/12"))
        assert game.why_illegal(s, roll, OTHER, Placement.parse("Rred@1 N8@4")) == \
            "no die of this roll is red"

    def test_a_mark_no_die_could_make_says_which(self, game):
        """A colour space whose colour was not rolled, a number no dice add up to: the reason
        names what is missing rather than the dice in general."""
        s = game.new_sheet()
        roll = Roll.parse("red:4 blue:2 yellow:6")
        purple = next(i for i, c in enumerate(game.layout.sides[0].ring) if c == "purple")
        assert game.why_illegal(s, roll, OTHER, Placement.parse(f"Rpurple@{purple}")) == \
            "no die of this roll is purple"
        seven = game.layout.sides[0].numbers.index(7)
        assert game.why_illegal(s, roll, OTHER, Placement.parse(f"N7@{seven}")) == \
            "no die of this roll shows 7, and no dice of it add up to 7"
        eight = game.layout.sides[0].numbers.index(8)       # 2 + 6: made, but not with red too
        red = next(i for i, c in enumerate(game.layout.sides[0].ring) if c == "red")
        assert "cannot make these marks" in game.why_illegal(
            s, Roll.parse("red:2 blue:6 yellow:1"), OTHER,
            Placement.parse(f"Rred@{red} N8@{eight}"))

    def test_unlabelled_marks_are_accepted_when_the_dice_can_make_them(self, game):
        s = game.new_sheet()
        roll = Roll.parse(SEED_ROLL)
        assert game.why_illegal(s, roll, OTHER, Placement.parse("Ryellow@4 N7@1")) is None
        after = game.play(s, roll, OTHER, Placement.parse("Ryellow@4 N7@1"))
        assert after.side.ring == {4} and after.side.line == (1,)

    def test_at_most_three_marks(self, game):
        assert "at most 3 marks" in game.why_illegal(
            game.new_sheet(), Roll.parse(SEED_ROLL), OTHER,
            Placement.parse("Rgreen@0 Rred@1 Rpurple@2 Rblue@3"))

    def test_every_legal_placement_passes_the_checked_boundary(self, game):
        rng = random.Random(11)
        s = game.new_sheet()
        for _ in range(15):
            roll = game.random_roll(rng)
            for role in (ROLLER, OTHER):
                for p in legal(game, s, str(roll), role):
                    assert game.why_illegal(s, roll, role, p) is None, str(p)
            clean = [p for p in legal(game, s, str(roll), OTHER)
                     if p.kind != MISTHROW and all(m.row != "M" for m in p.marks)]
            if clean:
                s = game.apply(s, rng.choice(clean))

    def test_one_placement_per_result_on_paper(self, game):
        found = legal(game, game.new_sheet(), SEED_ROLL, OTHER)
        assert len(effects(found)) == len(found)


class TestColourRing:
    """The first cross anywhere on a matching colour; every later one touching a cross."""

    def test_first_cross_anywhere_of_the_colour(self, game):
        crosses = {p for p in legal(game, game.new_sheet(), "red:3 red:4 red:5")
                   if [m.row for m in p.marks] == ["M", "R"]}
        assert effects(crosses) == {"Mx@0 Rred@1", "Mx@0 Rred@7", "Mx@0 Rred@11"}

    def test_tims_ring_continues_with_green_or_grey(self, game):
        # Tim crossed red, purple, blue, yellow, purple (positions 1-5)
        s = sheet(game, {"colours": [1, 2, 3, 4, 5]})
        ones = [p for p in legal(game, s, "green:1 grey:3 red:4")
                if [m.row for m in p.marks] == ["M", "R"]]
        assert effects(ones) == {"Mx@0 Rgreen@0", "Mx@0 Rgrey@6"}
        assert "must be connected" in game.why_illegal(
            s, Roll.parse("green:1 grey:3 red:4"), OTHER, Placement.parse("Rgreen@10/1 Mx@0"))

    def test_crosses_of_one_roll_may_join_each_other(self, game):
        s = sheet(game, {"colours": [1, 2, 3, 4, 5]})
        assert game.why_illegal(s, Roll.parse("grey:1 red:2 blue:3"), OTHER,
                                Placement.parse("Rgrey@6/1 Rred@7/2 Rblue@8/3")) is None

    def test_the_ring_wraps_around(self, game):
        s = sheet(game, {"colours": [15]})
        assert game.why_illegal(s, Roll.parse("green:1 red:2 blue:3"), OTHER,
                                Placement.parse("Rgreen@0/1 Rred@1/2")) is None

    def test_a_crossed_space_is_not_crossed_again(self, game):
        s = sheet(game, {"colours": [1]})
        assert "already crossed" in game.why_illegal(
            s, Roll.parse("red:1 red:2 blue:3"), OTHER, Placement.parse("Rred@1/1 Mx@0"))
        assert "is purple, not red" in game.why_illegal(
            s, Roll.parse("red:1 red:2 blue:3"), OTHER, Placement.parse("Rred@2/1 Mx@0"))

    def test_crosses_typed_in_as_two_arcs_may_be_joined_by_the_roll(self, game):
        # a paper sheet with a gap at red 1 between green 0 and purple 2
        s = sheet(game, {"colours": [0, 2]})
        offered = effects(legal(game, s, "red:1 blue:2 blue:3"))
        assert "Mx@0 Rred@1" in offered
        assert not any("Rblue" in p and "Rred" not in p for p in offered)

    def test_arc_table_offers_what_trying_every_space_offers(self, game):
        # the fast ring options (from the side's arc table) against the plain search,
        # for every arc on both sides and random colour dice
        rng = random.Random(7)
        for index, lay in enumerate(game.layout.sides):
            for mask in game._arc_growth[index]:
                for _ in range(4):
                    roll = game.random_roll(rng)
                    for dice in [(0,), (2,), (0, 1), (1, 2), (0, 1, 2)]:
                        first_ways = {}     # `legal` keeps the first way to cross a set
                        for cells, marks in game._ring_search(lay, roll, dice, mask):
                            first_ways.setdefault(cells, marks)
                        assert game._ring_options(index, lay, roll, dice, mask) == \
                            list(first_ways.items()), (mask, roll, dice)


class TestNumberLine:
    """A start anywhere, then each space touching the last, never entering one twice."""

    def test_tims_path_and_the_unreachable_six(self, game):
        s = game.new_sheet()
        front = game.layout.sides[0]
        for v in TIM_PATH:       # one number per roll, made of two dice (the 1 of one)
            a = min(v - 1, 6) if v > 1 else 1
            b = v - a
            roll = Roll.parse(f"red:{a} blue:{b or 1} grey:1")
            s = game.play(s, roll, OTHER,
                          Placement.parse(f"N{v}@{front.cell_of[v]}" + ("" if b else " Mx@0")))
        assert [front.numbers[c] for c in s.side.line] == TIM_PATH
        assert game.problems(s) == []
        # no roll of any three dice can ever put the 6 on this line
        for a in range(1, 7):
            for b in range(1, 7):
                for c in range(1, 7):
                    roll = Roll.parse(f"red:{a} blue:{b} grey:{c}")
                    assert not any(m.row == "N" and m.value == 6
                                   for p in legal(game, s, str(roll)) for m in p.marks)
        # and the line can still go on from the 4, to the 5 or the 13
        nexts = {m.value for p in legal(game, s, "red:5 blue:6 grey:2") for m in p.marks
                 if m.row == "N"}
        assert nexts == {5, 13}

    def test_the_next_number_must_touch_the_last(self, game):
        s = sheet(game, {"numbers": [8, 12]})
        assert "does not touch 12 (space 5), the end of the line" in game.why_illegal(
            s, Roll.parse("red:4 blue:1 grey:1"), OTHER, Placement.parse("N4@12/1 Mx@0"))
        # 6 touches 12 even though it touches 8 too: touching earlier spaces is allowed
        assert game.why_illegal(s, Roll.parse("red:6 blue:1 grey:1"), OTHER,
                                Placement.parse("N6@0/1 Mx@0")) is None

    def test_no_space_twice(self, game):
        s = sheet(game, {"numbers": [8, 12, 7]})
        assert "already on the line" in game.why_illegal(
            s, Roll.parse("red:6 blue:6 grey:1"), OTHER, Placement.parse("N12@5/12"))

    def test_marks_are_drawn_in_the_order_written(self, game):
        roll = Roll.parse(SEED_ROLL)
        s = game.new_sheet()
        # 1 and 2 touch on the front: both orders are legal and end the line differently
        a = game.play(s, roll, OTHER, Placement.parse("N1@6/2 > N2@10/3"))
        b = game.play(s, roll, OTHER, Placement.parse("N2@10/3 > N1@6/2"))
        assert a.side.line == (6, 10) and b.side.line == (10, 6)

    def test_an_unordered_line_must_be_unambiguous(self, game):
        roll = Roll.parse(SEED_ROLL)
        assert "more than one order" in game.why_illegal(
            game.new_sheet(), roll, OTHER, Placement.parse("N1@6/2 N2@10/3"))
        # from the 10 only 12 -> 6 works (6 does not touch 10), so the order is clear
        s = sheet(game, {"numbers": [10]})
        ok = Placement.parse("N6@0/1 N12@5/23")
        reason = game.why_illegal(s, Roll.parse("green:6 green:6 yellow:6"), OTHER, ok)
        assert reason is None
        assert game.apply(s, ok).side.line == (9, 5, 0)


class TestFourPlayersExample:
    """Linus rolls green 6, green 1, yellow 2; each player uses the dice differently."""

    def test_linus_the_roller_uses_all_three(self, game):
        p = Placement.parse("N6@0/1 Ryellow@9/3 Rgreen@10/2")
        assert p in legal(game, game.new_sheet(), SEED_ROLL, ROLLER)
        assert not any(m.row == "M" for m in p.marks)

    def test_sarah_crosses_yellow_and_starts_with_seven(self, game):
        p = Placement.parse("Ryellow@4/3 N7@1/12")
        assert game.canonical(p) in legal(game, game.new_sheet(), SEED_ROLL, OTHER)

    def test_tim_crosses_three_neighbouring_colour_spaces(self, game):
        back = game.new_sheet("back")
        p = Placement.parse("Rgreen@0/1 Ryellow@1/3 Rgreen@2/2")
        assert p in legal(game, back, SEED_ROLL, OTHER)
        # the front has no green-green-yellow run: there Tim could not do it
        front_rings = [q for q in legal(game, game.new_sheet(), SEED_ROLL, OTHER)
                       if sum(m.row == "R" for m in q.marks) == 3]
        assert front_rings == []

    def test_maria_uses_three_single_numbers_6_2_1(self, game):
        back = game.new_sheet("back")
        p = Placement.parse("N6@5/1 > N2@6/3 > N1@7/2")
        assert p in legal(game, back, SEED_ROLL, OTHER)
        assert game.apply(back, p).side.line == (5, 6, 7)
        # on the front the 6 does not touch the 2: Maria could not do it there
        assert not any([m.value for m in q.marks if m.row == "N"] == [6, 2, 1]
                       for q in legal(game, game.new_sheet(), SEED_ROLL, OTHER))

    def test_all_four_at_one_table(self, game):
        sheets = [game.new_sheet(), game.new_sheet(), game.new_sheet("back"),
                  game.new_sheet("back")]
        t = Table.new(game, ["Linus", "Sarah", "Tim", "Maria"], sheets=sheets)
        t = t.apply(RollDice(Roll.parse("red:4 blue:2 grey:3")))
        t = t.apply(RollDice(Roll.parse(SEED_ROLL)))
        for seat, text in enumerate(["N6@0/1 Ryellow@9/3 Rgreen@10/2", "Ryellow@4/3 N7@1/12",
                                     "Rgreen@0/1 Ryellow@1/3 Rgreen@2/2",
                                     "N6@5/1 > N2@6/3 > N1@7/2"]):
            t = t.apply(Place(seat, Placement.parse(text)))
        assert t.turn_complete and t.next_roller == 1
        assert all(s.side.misthrows == 0 for s in t.sheets)


class TestMisthrows:
    """The roller must use all three dice, the others at least two, or mark a misthrow."""

    def test_roller_using_two_dice_marks_a_misthrow(self, game):
        s = game.new_sheet()
        roll = Roll.parse(SEED_ROLL)
        assert "or mark a misthrow (add Mx@0)" in game.why_illegal(
            s, roll, ROLLER, Placement.parse("N7@1/12"))
        after = game.play(s, roll, ROLLER, Placement.parse("N7@1/12 Mx@0"))
        assert after.side.misthrows == 1

    def test_others_need_two_dice(self, game):
        s = game.new_sheet()
        roll = Roll.parse(SEED_ROLL)
        assert game.why_illegal(s, roll, OTHER, Placement.parse("N7@1/12")) is None
        assert "there is no misthrow" in game.why_illegal(
            s, roll, OTHER, Placement.parse("N7@1/12 Mx@0"))
        assert "at least two dice" in game.why_illegal(
            s, roll, OTHER, Placement.parse("N6@0/1"))

    def test_misthrow_alone_is_always_allowed(self, game):
        for role in (ROLLER, OTHER):
            assert Placement.special(MISTHROW) in legal(game, game.new_sheet(), SEED_ROLL, role)

    def test_the_box_is_the_next_one(self, game):
        s = sheet(game, {"misthrows": 1})
        assert "write Mx@1" in game.why_illegal(
            s, Roll.parse(SEED_ROLL), OTHER, Placement.parse("N6@0/1 Mx@0"))

    def test_third_misthrow_turns_the_sheet_over(self, game):
        s = sheet(game, {"colours": [0], "numbers": [8], "misthrows": 2})
        after = game.play(s, Roll.parse(SEED_ROLL), OTHER, Placement.special(MISTHROW))
        assert after.stage == 1 and after.current == 1 and not game.is_finished(after)
        assert after.sides[0].misthrows == 3 and after.side == after.sides[1]

    def test_third_misthrow_on_the_second_side_ends_the_game(self, game):
        s = sheet(game, {"misthrows": 3}, {"misthrows": 2}, playing="back")
        t = Table.new(game, ["Linus", "Sarah"], sheets=[game.new_sheet(), s])
        t = t.apply(RollDice(Roll.parse(SEED_ROLL))).apply(KeepRoll())
        t = t.apply(Place(1, Placement.special(MISTHROW)))
        assert not t.is_over            # Linus has not answered yet
        t = t.apply(Place(0, Placement.parse("N9@11/123")))
        assert t.is_over
        assert game.end_reason(t.sheets[1]) == "3 misthrows on the second side"
        assert game.end_reason(t.sheets[0]) is None
        with pytest.raises(IllegalPlacement, match="over"):
            t.apply(RollDice(Roll.parse(SEED_ROLL)))
        # Linus's first side may be ended by choice, but not once the game is over
        assert game.end_side_problem(t.sheets[0]) is None
        with pytest.raises(IllegalPlacement, match="the game is over"):
            t.apply(EndSide(0))


class TestSides:
    def test_start_on_either_side(self, game):
        back = game.new_sheet("back")
        assert back.current == 1 and game.sheet_to_json(back)["playing"] == "back"
        with pytest.raises(InvalidInput, match="no side 'middle'"):
            game.new_sheet("middle")

    def test_each_player_picks_the_side_to_start_on(self, game):
        """"Each player places their slip of paper faceup with a side of their choice"."""
        t = Table.new(game, ["Linus", "Sarah"])
        assert t.start_sides(1) == ("front", "back")
        t = t.apply(ChooseSide(1, "back"))
        assert t.sheets[1].current == 1 and t.sheets[0].current == 0
        t = t.apply(ChooseSide(1, "front")).apply(ChooseSide(1, "back"))   # changed mind
        t = t.apply(RollDice(Roll.parse(SEED_ROLL))).apply(KeepRoll())
        t = t.apply(Place(1, Placement.parse("N9@0/123")))                 # the back's 9
        assert t.start_sides(1) == ()
        with pytest.raises(IllegalPlacement, match="chosen before the first mark"):
            t.apply(ChooseSide(1, "front"))
        with pytest.raises(IllegalPlacement, match="no side 'middle'"):
            t.apply(ChooseSide(0, "middle"))
        assert action_from_json(action_to_json(ChooseSide(1, "back"))) == ChooseSide(1, "back")

    def test_other_games_have_no_side_to_choose(self):
        q = load_game("qwinto")
        with pytest.raises(IllegalPlacement, match="Qwinto has no sheet sides to choose"):
            Table.new(q, ["a", "b"]).apply(ChooseSide(0, "back"))

    def test_voluntary_end_of_the_first_side_after_a_dice_action(self, game):
        t = Table.new(game, ["Linus", "Sarah"])
        with pytest.raises(IllegalPlacement, match="after answering a roll"):
            t.apply(EndSide(1))
        t = t.apply(RollDice(Roll.parse(SEED_ROLL))).apply(KeepRoll())
        with pytest.raises(IllegalPlacement, match="after answering a roll"):
            t.apply(EndSide(1))
        t = t.apply(Place(1, Placement.parse("Ryellow@4/3 N7@1/12")))
        t = t.apply(EndSide(1))
        assert t.sheets[1].stage == 1 and t.sheets[0].stage == 0
        assert [line.label for line in t.score(1).lines] == [
            "front colours", "front numbers", "back colours", "back numbers"]
        assert t.score(1).total == 1        # a line of one space; one colour scores 0

    def test_the_second_side_cannot_be_ended_voluntarily(self, game):
        s = sheet(game, {"misthrows": 3}, {}, playing="back")
        assert "only the first side" in game.end_side_problem(s)
        t = Table.new(game, ["Linus", "Sarah"], sheets=[s, game.new_sheet()])
        t = t.apply(RollDice(Roll.parse(SEED_ROLL)))
        t = t.apply(Place(0, Placement.parse("N9@0/123")))      # the 9 of the back
        with pytest.raises(IllegalPlacement, match="only the first side"):
            t.apply(EndSide(0))

    def test_end_side_action_round_trips_as_json(self):
        assert action_from_json(action_to_json(EndSide(2))) == EndSide(2)

    def test_undo_takes_back_the_answer_and_the_end(self, game):
        from engine.table import Undo
        t = Table.new(game, ["Linus", "Sarah"])
        t = t.apply(RollDice(Roll.parse(SEED_ROLL))).apply(KeepRoll())
        t = t.apply(Place(1, Placement.parse("Ryellow@4/3 N7@1/12")))
        t = t.apply(EndSide(1))
        t = t.apply(Undo(1))
        assert t.sheets[1] == game.new_sheet()


class TestScoring:
    def test_maria_39_plus_22_is_61(self, game):
        # first sheet: 11 colours (13) and 11 numbers (26); second: 5 colours (0), 10 (22)
        s = sheet(game,
                  {"colours": list(range(2, 13)),
                   "numbers": [6, 8, 10, 12, 7, 3, 1, 2, 9, 4, 5], "misthrows": 3},
                  {"colours": [0, 1, 2, 3, 4],
                   "numbers": [9, 11, 4, 13, 6, 5, 12, 2, 7, 1], "misthrows": 1},
                  playing="back")
        assert game.problems(s) == []
        score = game.score(s)
        assert [(line.label, line.points) for line in score.lines] == [
            ("front colours", 13), ("front numbers", 26),
            ("back colours", 0), ("back numbers", 22)]
        assert score.total == 61
        assert "11 colour spaces crossed" in str(score)

    def test_only_sides_played_are_scored(self, game):
        s = sheet(game, {"colours": [0, 1, 2, 3, 4, 5, 6], "numbers": [8]})
        assert game.score(s).total == 8 + 1 and len(game.score(s).lines) == 2

    def test_an_empty_side_says_nothing_is_crossed_yet(self, game):
        colours, numbers = game.score(game.new_sheet()).lines
        assert (colours.detail, numbers.detail) == ("no colour space crossed yet", "no line yet")

    def test_a_full_second_side_ends_the_game_at_the_table(self, game):
        """"The game also ends when a player has marked all 16 colour spaces and all 13
        number spaces on their second player sheet", after that turn; "possibly only scoring
        one [sheet] if they are still playing on the first sheet"."""
        almost = {"colours": list(range(15)),
                  "numbers": [6, 8, 10, 12, 7, 3, 1, 2, 9, 4, 5, 13, 11]}
        sarah = sheet(game, {"misthrows": 3}, almost, playing="back")
        linus = sheet(game, {"colours": [0, 1, 2, 3, 4, 5, 6], "numbers": [8]})
        t = Table.new(game, ["Sarah", "Linus"], sheets=[sarah, linus])
        t = t.apply(RollDice(Roll.parse("purple:3 green:1 yellow:2"))).apply(KeepRoll())
        t = t.apply(Place(0, Placement.parse("Rpurple@15/1 Mx@0")))   # her last space
        assert not t.is_over            # Linus has not answered yet
        t = t.apply(Place(1, Placement.parse("N6@0/123")))
        assert t.is_over
        standings = {s.player: s.score for s in t.standings()}
        assert standings["Sarah"].total == 25 + 36
        assert [str(line.label) for line in standings["Linus"].lines] == \
            ["front colours", "front numbers"]      # still on his first side

    def test_a_full_second_side_ends_the_game(self, game):
        full = {"colours": list(range(16)),
                "numbers": [6, 8, 10, 12, 7, 3, 1, 2, 9, 4, 5, 13, 11]}
        s = sheet(game, {"misthrows": 3}, full, playing="back")
        assert game.is_finished(s) and game.end_reason(s) == "the second side is full"
        assert game.score(s).total == 25 + 36
        first_full = sheet(game, full)
        assert not game.is_finished(first_full)
        assert game.score_bounds() == (0, 122)


class TestSheetJson:
    def test_round_trip(self, game):
        s = sheet(game, {"colours": [1, 2], "numbers": TIM_PATH, "misthrows": 1},
                  first="front")
        data = json.loads(json.dumps(game.sheet_to_json(s)))
        assert data["front"]["numbers"] == TIM_PATH
        assert game.sheet_from_json(data) == s

    @pytest.mark.parametrize("data, reason", [
        ([], "JSON object"),
        ({"first_side": "left"}, "'first_side'"),
        ({"front": {"numbers": [14]}}, "no number space 14"),
        ({"front": {"colours": [16]}}, "ring positions 0-15"),
        ({"front": {"colours": [1, 1]}}, "twice"),
        ({"front": {"misthrows": -1}}, "whole number"),
        ({"front": {"numbers": [[1]]}}, "no number space"),
        ({"first_side": ["front"]}, "'first_side'"),
        ({"front": {"colours": "1 2"}}, "ring positions"),
    ])
    def test_shape_errors(self, game, data, reason):
        with pytest.raises(InvalidInput, match=reason):
            game.sheet_from_json(data)

    def test_problems_list_every_rule_broken(self, game):
        s = sheet(game, {"colours": [0, 5], "numbers": [8, 4, 8], "misthrows": 3},
                  {"numbers": [9]})
        probs = "\n".join(game.problems(s))
        assert "crosses on the front are not connected" in probs
        assert "enters a space twice" in probs
        assert "4 does not touch 8" in probs
        assert "must be on the other side" in probs
        assert "the back has marks" in probs


class TestPerft:
    """Fixtures worked out by hand; compared without dice labels (see the file)."""

    def test_there_are_enough_fixtures(self):
        assert len(json.loads(FIXTURES.read_text())["cases"]) >= 20

    @pytest.mark.parametrize("case", json.loads(FIXTURES.read_text())["cases"],
                             ids=lambda c: c["name"])
    def test_fixture(self, game, case):
        s = game.sheet_from_json(case["sheet"])
        assert game.problems(s) == []
        roll = Roll.parse(case["roll"])
        got = game.legal(s, roll, case["role"])
        assert effects(got) == set(case["legal"])
        assert len(got) == len(case["legal"])
        for p in got:
            assert game.why_illegal(s, roll, case["role"], p) is None
            assert Placement.parse(str(p)) == p


class TestRandomGames:
    GAMES = int(os.environ.get("ENGINE_RANDOM_GAMES", 300))

    def test_invariants_over_many_seeded_games(self, game):
        lo, hi = game.score_bounds()
        flips = 0
        for seed in range(self.GAMES):
            t = random_game(game, 2 + seed % 3, seed)
            assert t.is_over
            assert any(game.is_finished(s) for s in t.sheets)
            for s in t.sheets:
                assert game.problems(s) == []
                assert lo <= game.score(s).total <= hi
                assert game.sheet_from_json(game.sheet_to_json(s)) == s
                flips += s.stage
            # the table's history replays to the same sheets
            if seed % 20 == 0:
                again = Table.new(game, t.players).replay(t.history)
                assert again.sheets == t.sheets
        assert flips > 0

    def test_long_games_of_players_who_use_their_dice(self, game):
        """A policy that avoids misthrows when it can: sheets fill up, sides end by
        misthrows or by voluntary ends, the table stays consistent."""
        lo, hi = game.score_bounds()
        long_lines = 0
        for seed in range(40):
            rng = random.Random(seed)
            t = Table.new(game, ["a", "b", "c"])
            while not t.is_over:
                t = t.apply(RollDice(game.random_roll(rng)))
                if rng.random() < 0.5:
                    t = t.apply(RollDice(game.random_roll(rng, t.roll)))
                else:
                    t = t.apply(KeepRoll())
                for seat in t.pending():
                    options = list(t.legal(seat))
                    clean = [p for p in options if p.kind != MISTHROW
                             and all(m.row != "M" for m in p.marks)]
                    t = t.apply(Place(seat, rng.choice(clean or options)))
                    if t.sheets[seat].stage == 0 and rng.random() < 0.01:
                        t = t.apply(EndSide(seat))
                assert t.turns < 500
            for s in t.sheets:
                assert game.problems(s) == []
                assert lo <= game.score(s).total <= hi
                long_lines = max(long_lines, max(len(x.line) for x in s.sides))
            again = Table.from_json(json.loads(json.dumps(t.to_json())), t.games)
            assert again.sheets == t.sheets and again.is_over
        assert long_lines >= 8

    def test_same_seed_same_game(self, game):
        a, b = random_game(game, 3, 42), random_game(game, 3, 42)
        assert a.history == b.history and a.sheets == b.sheets


class TestOracle:
    """Fresh random positions checked against `graph_oracle`, a naive marks-first
    statement of the rules (so the fixtures cannot drift into agreeing with a bug)."""

    def test_engine_agrees_with_the_oracle(self, game):
        import graph_oracle
        data = builtin_layout_data("the_choice", "default")
        rng = random.Random(2024)
        checked = 0
        while checked < 150:
            s = game.new_sheet(rng.choice(["front", "back"]))
            for _ in range(rng.randint(0, 10)):
                roll = game.random_roll(rng)
                used = [p for p in game.legal(s, roll, OTHER)
                        if p.kind != MISTHROW and all(m.row != "M" for m in p.marks)]
                if used:
                    s = game.apply(s, rng.choice(used))
            if rng.random() < 0.2:
                s = game.end_side(s)
            if rng.random() < 0.3:
                s = game.apply(s, Placement.special(MISTHROW))
            lay = data["sides"][s.current]
            side = s.side
            numbers = [v for row in lay["numbers"] for v in row]
            roll = game.random_roll(rng)
            for role in (ROLLER, OTHER):
                want = graph_oracle.choice_legal(
                    lay["ring"], lay["numbers"], lay["offsets"], set(side.ring),
                    [numbers[c] for c in side.line], side.misthrows,
                    [(d.colour, d.face) for d in roll], role)
                got = game.legal(s, roll, role)
                assert effects(got) == want, (game.sheet_to_json(s), str(roll), role)
                assert len(got) == len(want)
            checked += 1

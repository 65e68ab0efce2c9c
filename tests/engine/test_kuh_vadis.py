"""Kuh Vadis: one class per rule of shared/rules/kuh_vadis.txt, the worked examples,
perft fixtures and random-game invariants.

The default pad (RECON, SHEETS.md), rows A-G top to bottom, columns 0-6:

       0 1 2 3 4 5 6
    A  O 4 C X 5 3 O
    B  4 3 C C C 1 C
    C  5 1 C C C 4 3
    D  1 3 2 2 1 1 C
    E  2 4 C 2 C C C
    F  C 5 C 4 2 2 3
    G  X C 5 O 5 1 X
"""
from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from engine.dice import Roll
from engine.errors import IllegalPlacement, InvalidInput, InvalidLayout
from engine.game import OTHER, ROLLER
from engine.games.kuh_vadis import (CIRCLES, CROSSES, KuhVadis, Result, results,
                                    square_name)
from engine.layouts import builtin_layout_data
from engine.placement import PASS, Placement
from engine.registry import load_game
from engine.table import Place, RollDice, Table, Undo

FIXTURES = Path(__file__).parent / "fixtures" / "kuh_vadis_perft.json"

EMPTY = [". . . . . . ."] * 7


def kv_roll(text: str) -> Roll:
    """A roll typed for Kuh Vadis: the cow by the name its dice declare (`Game.parse_roll`)."""
    return load_game("kuh_vadis").parse_roll(text)


@pytest.fixture(scope="module")
def game() -> KuhVadis:
    return load_game("kuh_vadis")


def pad(game, rows, to_move="X", chain=None):
    return game.sheet_from_json({"pad": rows, "to_move": to_move, "chain": chain})


def legal_strs(game, sheet, roll, role=ROLLER):
    return {str(p) for p in game.legal(sheet, kv_roll(roll), role)}


def table_for(game, sheet=None) -> Table:
    t = Table.new(game, ["Sarah", "Emil"])
    if sheet is not None:
        t = Table.new(game, ["Sarah", "Emil"], sheets=[sheet, sheet])
    return t


class TestLayout:
    def test_default_pad_is_the_recon_of_sheets_md(self, game):
        info = game.layout.info
        assert info.name == "default" and info.is_recon
        assert game.layout.rows_text()[0] == "O 4 C X 5 3 O"
        assert game.layout.rows_text()[6] == "X C 5 O 5 1 X"
        assert [square_name(i) for i in game.layout.starts[CROSSES]] == ["A3", "G0", "G6"]
        assert [square_name(i) for i in game.layout.starts[CIRCLES]] == ["A0", "A6", "G3"]

    def test_square_counts(self, game):
        cells = game.layout.cells
        counts = {s: cells.count(s) for s in (1, 2, 3, 4, 5, "cow")}
        assert counts == {1: 6, 2: 6, 3: 5, 4: 5, 5: 5, "cow": 16}

    def test_any_valid_pad_is_accepted(self):
        data = builtin_layout_data("kuh_vadis", "default")
        data["name"] = "mine"
        data["rows"][3] = "5 5 5 5 5 5 5"
        g = load_game("kuh_vadis", data)
        assert g.layout.cells[21:28] == (5,) * 7

    @pytest.mark.parametrize("change, reason", [
        (lambda d: d["rows"].pop(), "7 rows"),
        (lambda d: d["rows"].__setitem__(1, "4 3 C C C 1"), "must hold 7 squares"),
        (lambda d: d["rows"].__setitem__(1, "4 3 C C C 6 C"), "B5 holds '6'"),
        (lambda d: d["rows"].__setitem__(0, "O 4 C C 5 3 O"), "exactly 3 starting crosses"),
        (lambda d: d["rows"].__setitem__(1, "O 3 C C C 1 C"), "exactly 3 starting circles"),
        (lambda d: d.__setitem__("game", "qwinto"), "not 'kuh_vadis'"),
    ])
    def test_malformed_pads_are_refused_with_the_reason(self, change, reason):
        data = builtin_layout_data("kuh_vadis", "default")
        change(data)
        with pytest.raises(InvalidLayout, match=reason):
            load_game("kuh_vadis", data)


class TestDice:
    def test_five_dice_with_faces_one_to_five_and_a_cow(self, game):
        assert game.roll_problem(kv_roll("1 2 3 4 cow")) is None
        assert "5 dice, not 4" in game.roll_problem(kv_roll("1 2 3 4"))
        assert "1-5 and a cow" in game.roll_problem(kv_roll("1 2 3 4 6"))
        assert "names a colour" in game.roll_problem(kv_roll("red:1 2 3 4 5"))

    def test_three_attempts_with_free_keeps(self, game):
        # any dice may be thrown again, even ones set aside earlier: any five dice follow
        assert game.max_attempts == 3
        assert game.reroll_problem(kv_roll("4 4 1 2 3"), kv_roll("5 5 5 cow 1")) is None
        assert "5 dice, not 4" in game.reroll_problem(kv_roll("4 4 1 2 3"), kv_roll("5 5 5 cow"))
        # at the table: a third attempt, then no fourth
        t = Table.new(game, ["Sarah", "Tim"]).apply(RollDice(kv_roll("4 4 1 2 3")))
        t = t.apply(RollDice(kv_roll("4 4 5 5 cow"))).apply(RollDice(kv_roll("1 2 3 4 5")))
        with pytest.raises(IllegalPlacement, match="3 attempts"):
            t.apply(RollDice(kv_roll("4 4 4 4 4")))

    def test_random_rerolls_keep_the_commonest_face(self, game):
        rng = random.Random(3)
        first = kv_roll("4 4 4 1 2")
        for _ in range(20):
            assert Roll(game.random_roll(rng, first)).faces.count(4) >= 3


class TestResults:
    """2 cows (3 also allowed) or exactly 3 of a number: mark one; 4 or 5: a quad."""

    @pytest.mark.parametrize("roll, expected", [
        ("cow cow 1 2 3", [Result("cow", False)]),
        ("cow cow cow 1 2", [Result("cow", False)]),
        ("4 4 4 1 2", [Result(4, False)]),
        ("4 4 4 1 1", [Result(4, False)]),
        ("4 4 4 4 1", [Result(4, True)]),
        ("4 4 4 4 4", [Result(4, True)]),
        ("cow cow cow cow 2", [Result("cow", True)]),
        ("cow cow cow cow cow", [Result("cow", True)]),
        ("cow cow 3 3 3", [Result("cow", False), Result(3, False)]),
        ("1 1 2 2 cow", []),
        ("1 2 3 4 5", []),
    ])
    def test_results_of_a_roll(self, roll, expected):
        assert sorted(results(kv_roll(roll)), key=str) == sorted(expected, key=str)

    def test_two_cows_and_three_of_a_number_mark_only_one(self, game):
        sheet = game.new_sheet()
        legal = game.legal(sheet, kv_roll("cow cow 3 3 3"), ROLLER)
        assert all(len(p.marks) <= 1 for p in legal)
        assert {p.marks[0].value for p in legal if p.marks} == {"cow", 3}

    def test_no_result_marks_nothing(self, game):
        sheet = game.new_sheet()
        assert legal_strs(game, sheet, "1 1 2 2 cow") == {"pass"}
        reason = game.why_illegal(sheet, kv_roll("1 1 2 2 cow"), ROLLER,
                                  Placement.parse("B1@5"))
        assert "give no result" in reason


class TestMarking:
    def test_emil_three_fours_mark_a_four_and_the_turn_passes(self, game):
        # Emil (circles) has thrown three 4s after his third attempt
        sheet = pad(game, EMPTY, to_move="O")
        roll = kv_roll("4 4 4 2 cow")
        assert legal_strs(game, sheet, str(roll)) == {
            "A4@1", "B4@0", "C4@5", "E4@1", "F4@3", "pass"}
        after = game.play(sheet, roll, ROLLER, Placement.parse("C4@5"))
        assert after.owner[2 * 7 + 5] == CIRCLES
        assert after.to_move == CROSSES and after.chain is None   # Sarah's turn

    def test_any_free_matching_square_anywhere(self, game):
        sheet = pad(game, [". . . . . . .", ". . . . . x .", ". x . . . . .",
                           ". . . . . . .", ". . . . . . .", ". . . . . . .",
                           ". . . . . o ."])
        # the 1s at B5, C1 and G5 are taken; D0, D4 and D5 remain (not next to anything)
        assert legal_strs(game, sheet, "1 1 1 5 cow") == {"D1@0", "D1@4", "D1@5", "pass"}

    @pytest.mark.parametrize("mark, reason", [
        ("A0@0", "A0 is a printed starting circle"),
        ("A3@3", "A3 is a printed starting cross$"),
        ("B5@5", "B5 shows a 1, not a 5"),
        ("C1@1", "C1 is already marked by the crosses"),
        ("A5@4", "the dice give exactly three 1s"),
        ("H1@0", "no square H0"),
    ])
    def test_refusals_name_the_rule(self, game, mark, reason):
        sheet = pad(game, [". . . . . . .", ". . . . . . .", ". x . . . . .",
                           ". . . . . . .", ". . . . . . .", ". . . . . . .",
                           ". . . . . . ."])
        with pytest.raises(IllegalPlacement, match=reason):
            game.play(sheet, kv_roll("1 1 1 5 cow"), ROLLER, Placement.parse(mark))

    def test_a_result_marks_exactly_one_square(self, game):
        reason = game.why_illegal(game.new_sheet(), kv_roll("1 1 1 5 cow"), ROLLER,
                                  Placement.parse("D1@0 D1@4"))
        assert reason == "a result marks exactly one square"

    def test_only_the_roller_marks(self, game):
        assert not game.legal(game.new_sheet(), kv_roll("4 4 4 2 cow"), OTHER)
        assert "only the player whose turn" in game.why_illegal(
            game.new_sheet(), kv_roll("4 4 4 2 cow"), OTHER, Placement.parse("A4@1"))

    def test_no_free_matching_square_leaves_only_pass(self, game):
        fives = pad(game, [". . . . x . .", ". . . . . . .", "o . . . . . .",
                           ". . . . . . .", ". . . . . . .", ". x . . . . .",
                           ". . o . x . ."])
        assert legal_strs(game, fives, "5 5 5 1 2") == {"pass"}


class TestQuadChain:
    """A quad marks a square and gives another turn; each square of the chain must touch
    the square marked just before, including the final non-quad mark."""

    def test_sarahs_quad_chain_through_the_table(self, game):
        t = table_for(game)
        # Sarah (crosses, seat 0) throws four 3s and marks the 3 at C6
        t = t.apply(RollDice(kv_roll("3 3 3 3 5")))
        t = t.apply(Place(0, Placement.parse("C3@6")))
        assert t.turn_complete and t.next_roller == 0          # another turn
        # this time four cows after her third attempt
        t = t.apply(RollDice(kv_roll("1 2 3 4 5")))
        t = t.apply(RollDice(kv_roll("cow cow 1 2 3")))
        t = t.apply(RollDice(kv_roll("cow cow cow cow 2")))
        assert t.roller == 0
        # only cows touching C6: B6 and D6 (the printed pad's "directly to the left"
        # cow is not on the RECON pad; the rule is the touching)
        assert {str(p) for p in t.legal(0)} == {"Bcow@6", "Dcow@6", "pass"}
        with pytest.raises(IllegalPlacement, match="must touch C6; C2 does not"):
            t.apply(Place(0, Placement.parse("Ccow@2")))
        t = t.apply(Place(0, Placement.parse("Bcow@6")))
        assert t.next_roller == 0
        # now three 1s: the 1 touching the cow square B6 is B5 (D0, D4, C1... do not)
        t = t.apply(RollDice(kv_roll("1 1 1 4 5")))
        assert {str(p) for p in t.legal(0)} == {"B1@5", "pass"}
        t = t.apply(Place(0, Placement.parse("B1@5")))
        # no quad this time: her turn ends
        assert t.next_roller == 1
        assert t.sheets[0].to_move == CIRCLES and t.sheets[0].chain is None

    def test_the_game_says_which_marks_give_another_turn(self, game):
        quad, three = kv_roll("cow cow cow cow 3"), kv_roll("cow cow 3 3 3")
        assert game.gives_another_turn(quad, Placement.parse("Bcow@2"))
        assert not game.gives_another_turn(quad, Placement.special(PASS))
        assert not game.gives_another_turn(three, Placement.parse("Bcow@2"))
        assert not game.gives_another_turn(three, Placement.parse("C3@6"))

    def test_directly_to_the_left_on_a_pad_that_has_it(self):
        data = builtin_layout_data("kuh_vadis", "default")
        data["name"] = "cow-left-of-3"
        data["rows"][2] = "5 1 C C C C 3"      # C5 becomes a cow, left of the 3 at C6
        g = load_game("kuh_vadis", data)
        s = g.play(g.new_sheet(), kv_roll("3 3 3 3 1"), ROLLER, Placement.parse("C3@6"))
        s = g.play(s, kv_roll("cow cow cow cow 2"), ROLLER, Placement.parse("Ccow@5"))
        assert s.chain == 2 * 7 + 5 and s.to_move == CROSSES

    def test_a_chain_without_a_touching_square_ends_the_turn(self, game):
        sheet = game.play(game.new_sheet(), kv_roll("3 3 3 3 1"), ROLLER,
                          Placement.parse("C3@6"))
        # the 2s are nowhere near C6
        assert legal_strs(game, sheet, "2 2 2 1 cow") == {"pass"}
        after = game.play(sheet, kv_roll("2 2 2 1 cow"), ROLLER, Placement.special(PASS))
        assert after.to_move == CIRCLES and after.chain is None

    def test_a_quad_in_the_chain_continues_it(self, game):
        s = game.play(game.new_sheet(), kv_roll("3 3 3 3 1"), ROLLER,
                      Placement.parse("C3@6"))
        s = game.play(s, kv_roll("1 1 1 1 2"), ROLLER, Placement.parse("D1@5"))
        assert s.chain == 3 * 7 + 5 and s.to_move == CROSSES
        # next: must touch D5 (C4 cow, C5 4, C6 3, D4 1, D6 cow, E4 cow, E5 cow, E6 cow)
        assert legal_strs(game, s, "cow cow 4 4 2") == {
            "Ccow@4", "Dcow@6", "Ecow@4", "Ecow@5", "Ecow@6", "pass"}


class TestConnection:
    def test_three_starts_joined_win(self, game):
        # crosses: A3 down column 3 to F3, then to G0 along row F and to G6
        s = pad(game, [". . . X . . .", ". . . x . . .", ". . . x . . .",
                       ". . . x . . .", ". . . x . . .", ". x x x x x .",
                       "X . . O . . X"])
        assert game.connected(s, CROSSES) and game.winner(s) == CROSSES
        assert game.is_finished(s)
        assert game.score(s).lines[0].points == 1 and game.score(s).lines[1].points == 0
        # the game is over: the circles are not "still open"
        assert game.state(s, CIRCLES) == \
            "circles did not join their starts: the others joined theirs first"

    def test_diagonal_connections_count(self, game):
        s = pad(game, [". . . X . . .", ". . x . . . .", ". x . . . . .",
                       ". x . . . . .", "x . . . . . .", ". x . x . x .",
                       "X . x O x . X"])
        # A3-B2-C1-D1-E0-F1-G0 and F1-G2-F3-G4-F5-G6: all but one step diagonal
        assert game.connected(s, CROSSES)
        broken = pad(game, [". . . X . . .", ". . x . . . .", ". x . . . . .",
                            ". x . . . . .", "x . . . . . .", ". x . x . . .",
                            "X . x O x . X"])
        assert not game.connected(broken, CROSSES)

    def test_a_gap_is_not_a_connection(self, game):
        s = pad(game, [". . . X . . .", ". . . x . . .", ". . . . . . .",
                       ". . . x . . .", ". . . x . . .", ". x x x x x .",
                       "X . . O . . X"])
        assert not game.connected(s, CROSSES) and game.winner(s) is None

    def test_winning_mark_ends_the_game_at_the_table(self, game):
        almost = pad(game, [". . . X . . .", ". . . x . . .", ". . . . . . .",
                            ". . . x . . .", ". . . x . . .", ". x x x x x .",
                            "X . . O . . X"])
        t = table_for(game, almost)
        t = t.apply(RollDice(kv_roll("cow cow 1 2 3")))    # C3 is a cow
        t = t.apply(Place(0, Placement.parse("Ccow@3")))
        assert t.is_over
        assert game.end_reason(t.sheets[0]) == "crosses have connected A3, G0, G6"
        assert [(s.player, s.rank, s.score.total) for s in t.standings()] == [
            ("Sarah", 1, 1), ("Emil", 2, 0)]
        with pytest.raises(IllegalPlacement, match="over"):
            t.apply(RollDice(kv_roll("1 2 3 4 5")))


class TestBlocking:
    """A player whose starts can no longer be joined is cut off; both cut off: a tie."""

    WALL = [". . . X . . .", ". . . . . . .", ". . . . . . .", "o o o o o o o",
            ". . . . . . .", ". . x x x . .", "X . x O x . X"]

    def test_a_wall_cuts_off_with_an_explanation(self, game):
        s = pad(game, [". . . X . . .", ". . . . . . .", ". . . . . . .",
                       "o o o o o o o", ". . . . . . .", ". . . . . . .",
                       "X . . O . . X"])
        assert game.cut_off(s, CROSSES) is not None
        assert game.state(s, CROSSES) == \
            "crosses are cut off: no free path joins A3 to G0"
        assert game.cut_off(s, CIRCLES) is None
        assert not game.is_finished(s)          # one side blocked: play goes on

    def test_circles_cut_off_message(self, game):
        s = pad(game, [". . . . . . .", ". . . . . . .", ". . . . . . .",
                       ". . . . . . .", ". . . . . . .", ". . x x x . .",
                       ". . x . x . ."])
        assert game.state(s, CIRCLES) == \
            "circles are cut off: no free path joins A0 to G3"

    def test_a_diagonal_line_does_not_cut_off(self, game):
        # connections run diagonally for both players, so the circles slip between two
        # diagonal neighbours of a diagonal line of crosses (the lines may cross)
        s = pad(game, [". . . . . . .", ". . . . . . .", "x . . . . . .",
                       ". x . . . . .", ". . x . . . .", ". . . x . . .",
                       ". . . . x x ."])
        assert game.cut_off(s, CIRCLES) is None

    def test_both_blocked_is_a_tie_at_once(self, game):
        s = pad(game, self.WALL)
        assert game.cut_off(s, CROSSES) and game.cut_off(s, CIRCLES)
        assert game.is_finished(s) and game.winner(s) is None
        assert game.explain(s).splitlines()[-1] == "both are cut off: the game ends in a tie"
        assert game.score(s).total == 0

    def test_the_drawn_pad_says_how_the_game_ended(self, game):
        """While the game goes on the drawn pad's caption says whose move it is; once it is
        over, the tie or who won (not a move nobody can make)."""
        view = game.grid(game.sheet_to_json(pad(game, self.WALL)))
        assert view["caption"] == "both are cut off: the game ends in a tie"
        won = pad(game, [". . . X . . .", ". . . x . . .", ". . . x . . .",
                         ". . . x . . .", ". . . x . . .", ". x x x x x .",
                         "X . . O . . X"])
        assert game.grid(game.sheet_to_json(won))["caption"] == "crosses win"
        going_on = pad(game, [". . . X . . .", ". . . . . . .", ". . . . . . .",
                              ". . . . . . .", ". . . . . . .", ". . . . . . .",
                              "X . . O . . X"], to_move="O")
        assert game.grid(game.sheet_to_json(going_on))["caption"] == "circles (O) to move"

    def test_the_blocking_mark_ends_the_game_in_a_tie(self, game):
        # circles are already cut off (G3 boxed in); they close row D to cut the crosses
        before = pad(game, [". . . X . . .", ". . . . . . .", ". . . . . . .",
                            "o o o o o o .", ". . . . . . .", ". . x x x . .",
                            "X . x O x . X"], to_move="O")
        assert game.cut_off(before, CIRCLES) and not game.cut_off(before, CROSSES)
        t = Table.new(game, ["Sarah", "Emil"], sheets=[before, before])
        assert t.roller == 1           # the pad says circles (seat 1) are to move
        t = t.apply(RollDice(kv_roll("cow cow 1 2 3")))
        t = t.apply(Place(1, Placement.parse("Dcow@6")))
        assert t.is_over
        assert [s.rank for s in t.standings()] == [1, 1]
        assert game.end_reason(t.sheets[0]) == "both are cut off"

    def test_cut_off_is_checked_fast(self, game):
        import timeit
        s = pad(game, self.WALL)
        per_call = timeit.timeit(lambda: (game.cut_off(s, CROSSES), game.cut_off(s, CIRCLES)),
                                 number=200) / 200
        assert per_call < 0.001


class TestSheetJson:
    def test_round_trip(self, game):
        s = pad(game, TestBlocking.WALL, to_move="O", chain=None)
        assert game.sheet_from_json(game.sheet_to_json(s)) == s
        chained = game.play(game.new_sheet(), kv_roll("3 3 3 3 1"), ROLLER,
                            Placement.parse("C3@6"))
        data = game.sheet_to_json(chained)
        assert data["chain"] == "C6" and data["pad"][2] == ". . . . . . x"
        assert game.sheet_from_json(json.loads(json.dumps(data))) == chained

    def test_typed_from_paper_with_or_without_spaces(self, game):
        a = game.sheet_from_json({"pad": [".......", ".x.....", ".......", ".......",
                                          ".......", ".......", "......."]})
        b = game.sheet_from_json({"pad": ["O . . X . . O", ". x . . . . .", *EMPTY[2:6],
                                          "X . . O . . X"]})
        assert a == b and game.problems(a) == []

    @pytest.mark.parametrize("data, reason", [
        ({"pad": EMPTY[:6]}, "7 entries"),
        ({"pad": [". . . . . . ?"] + EMPTY[1:]}, "A6 holds '?'"),
        ({"pad": EMPTY, "to_move": "Z"}, "'to_move'"),
        ({"pad": EMPTY, "chain": "Q9"}, "'chain'"),
        ("pad", "JSON object"),
    ])
    def test_shape_errors(self, game, data, reason):
        with pytest.raises(InvalidInput, match=reason):
            game.sheet_from_json(data)

    def test_problems_list_every_rule_broken(self, game):
        s = game.sheet_from_json({"pad": ["x . . X . . O"] + EMPTY[1:], "chain": "B1"})
        probs = game.problems(s)
        assert any("A0 is a printed starting circle" in p for p in probs)
        s = game.sheet_from_json({"pad": ["O . . o . . O"] + EMPTY[1:]})
        assert "A3 is a printed starting cross: nothing can be written there" \
            in game.problems(s)
        assert any("quad chain continues from B1" in p for p in probs)
        both = pad(game, ["O . . X . . O", "o . . x . . o", "o . . x . . o",
                          "o . . x . . o", "o . . x . . o", "o x x x x x o",
                          "X o o O o o X"])
        assert game.connected(both, CROSSES) and game.connected(both, CIRCLES)
        assert any("both players have connected" in p for p in game.problems(both))


class TestTable:
    def test_only_the_roller_answers_and_the_pad_is_shared(self, game):
        t = table_for(game)
        t = t.apply(RollDice(kv_roll("4 4 4 2 cow")))
        assert t.pending() == [0]
        assert not t.legal(1)
        with pytest.raises(IllegalPlacement, match="only the roller answers"):
            t.apply(Place(1, Placement.parse("A4@1")))
        t = t.apply(Place(0, Placement.parse("A4@1")))
        assert t.turn_complete and t.sheets[0] is t.sheets[1]
        assert t.next_roller == 1

    def test_three_attempts_then_no_more(self, game):
        t = table_for(game)
        for roll in ("1 2 3 4 5", "1 1 3 4 5", "1 1 1 4 5"):
            t = t.apply(RollDice(kv_roll(roll)))
        assert not t.may_reroll()
        with pytest.raises(IllegalPlacement, match="3 attempts"):
            t.apply(RollDice(kv_roll("1 1 1 1 5")))

    def test_a_failed_turn_is_a_pass(self, game):
        t = table_for(game)
        for roll in ("1 2 3 4 5", "1 1 3 4 5", "1 1 2 2 cow"):
            t = t.apply(RollDice(kv_roll(roll)))
        assert [str(p) for p in t.legal(0)] == ["pass"]
        t = t.apply(Place(0, Placement.special(PASS)))
        assert t.next_roller == 1

    def test_undo_restores_the_shared_pad(self, game):
        t = table_for(game)
        t = t.apply(RollDice(kv_roll("3 3 3 3 1")))
        t = t.apply(Place(0, Placement.parse("C3@6")))
        t = t.apply(Undo(0))
        assert t.sheets[0] == t.sheets[1] == game.new_sheet()
        assert not t.turn_complete

    def test_json_round_trip(self, game):
        t = table_for(game)
        t = t.apply(RollDice(kv_roll("3 3 3 3 1")))
        t = t.apply(Place(0, Placement.parse("C3@6")))
        again = Table.from_json(json.loads(json.dumps(t.to_json())), t.games)
        assert again.sheets == t.sheets and again.next_roller == 0


def _fixture_cases():
    return json.loads(FIXTURES.read_text())["cases"]


class TestPerft:
    """Fixtures: pad + roll -> the exact set of legal placements (worked out by hand
    from the pad drawn at the top of this file)."""

    def test_there_are_enough_fixtures(self):
        assert len(_fixture_cases()) >= 20

    @pytest.mark.parametrize("case", _fixture_cases(), ids=lambda c: c["name"])
    def test_fixture(self, game, case):
        sheet = game.sheet_from_json(case["sheet"])
        assert game.problems(sheet) == []
        roll = kv_roll(case["roll"])
        got = game.legal(sheet, roll, case.get("role", ROLLER))
        assert {str(p) for p in got} == set(case["legal"])
        assert len(got) == len(case["legal"])
        for p in got:
            assert game.why_illegal(sheet, roll, case.get("role", ROLLER), p) is None


def play_fast(game: KuhVadis, seed: int, max_turns: int = 2000):
    """A seeded game through the game protocol (no table): returns the sheets."""
    rng = random.Random(seed)
    sheet = game.new_sheet()
    sheets = [sheet]
    for _ in range(max_turns):
        if game.is_finished(sheet):
            return sheets
        roll = game.random_roll(rng)
        for _ in range(2):
            if results(roll) and rng.random() < 0.7:
                break
            roll = game.random_roll(rng, roll)
        options = list(game.legal(sheet, roll, ROLLER))
        choice = rng.choice(options)
        sheet = game.apply_result(sheet, roll, ROLLER, choice)
        sheets.append(sheet)
    raise AssertionError(f"seed {seed}: no end in {max_turns} turns")


class TestRandomGames:
    # about 12 ms a game here; ENGINE_RANDOM_GAMES=5000 runs the long version
    GAMES = int(os.environ.get("ENGINE_RANDOM_GAMES", 400))

    def test_invariants_over_many_seeded_games(self, game):
        outcomes = {CROSSES: 0, CIRCLES: 0, None: 0}
        for seed in range(self.GAMES):
            sheets = play_fast(game, seed)
            prev = sheets[0]
            for s in sheets[1:]:
                # marks are only ever added, by the player to move, one at a time
                added = [i for i in range(49) if s.owner[i] != prev.owner[i]]
                assert len(added) <= 1
                if added:
                    assert prev.owner[added[0]] is None
                    assert s.owner[added[0]] == prev.to_move
                    if prev.chain is not None:       # a chain mark touches the last one
                        r, c = divmod(added[0], 7)
                        pr, pc = divmod(prev.chain, 7)
                        assert max(abs(r - pr), abs(c - pc)) == 1
                # once cut off, cut off for good
                for p in (CROSSES, CIRCLES):
                    if game.cut_off(prev, p):
                        assert game.cut_off(s, p)
                prev = s
            end = sheets[-1]
            assert game.problems(end) == []
            win = game.winner(end)
            outcomes[win] += 1
            if win is None:
                assert game.cut_off(end, CROSSES) and game.cut_off(end, CIRCLES)
            else:
                assert not game.connected(end, CIRCLES if win == CROSSES else CROSSES)
            lo, hi = game.score_bounds()
            assert lo <= game.score(end).total <= hi
            assert game.sheet_from_json(game.sheet_to_json(end)) == end
        assert all(outcomes.values())      # wins for both and ties all happen

    def test_same_seed_same_game(self, game):
        assert play_fast(game, 7) == play_fast(game, 7)

    def test_games_through_the_table(self, game):
        from engine.simulate import random_game
        for seed in range(40):
            t = random_game(game, 2, seed)
            assert t.is_over
            ranks = [s.rank for s in t.standings()]
            assert ranks in ([1, 2], [1, 1])
            replayed = Table.new(game, t.players).replay(t.history)
            assert replayed.sheets == t.sheets


class TestOracle:
    """Random pads checked against `graph_oracle`, a naive statement of the rules."""

    def test_engine_agrees_with_the_oracle(self, game):
        import graph_oracle
        cells = game.layout.cells
        symbols = {divmod(i, 7): s for i, s in enumerate(cells) if s not in ("X", "O")}
        starts = {p: [divmod(i, 7) for i in game.layout.starts[p]] for p in "XO"}
        rng = random.Random(77)
        checked = 0
        for seed in range(30):
            for s in play_fast(game, seed)[::4]:
                owner = {divmod(i, 7): o for i, o in enumerate(s.owner)}
                for p in "XO":
                    assert (game.cut_off(s, p) is not None) == \
                        graph_oracle.kv_blocked(owner, starts[p], p)
                    assert game.connected(s, p) == \
                        graph_oracle.kv_connected(owner, starts[p], p)
                if game.is_finished(s):
                    continue
                roll = game.random_roll(rng)
                chain = None if s.chain is None else divmod(s.chain, 7)
                assert {str(p) for p in game.legal(s, roll, ROLLER)} == \
                    graph_oracle.kv_legal(symbols, owner, chain, list(roll.faces))
                checked += 1
        assert checked > 200

"""twenty one, rule by rule (shared/rules/twenty_one.txt).

Sheets are RECON layouts (engine/layouts/twenty_one-*.json): row A of sheet A reads
yellow 6, red 5, green 4, blue 3, white 2, black 1 (it fits Sarah's example); row A of
sheet B reads blue 6, white 5, black 4, yellow 3, red 2, green 1 (it fits Emma's).
"""
from dataclasses import replace

import pytest

from engine.errors import IllegalPlacement, InvalidInput
from engine.game import OTHER, ROLLER
from engine.placement import CROSS, Mark, Placement
from engine.table import Place, RollDice, Table

from engine_helpers import game, placement, roll, shown

A = game("twenty_one", "A")
B = game("twenty_one", "B")
EMPTY = [None] * 6


def sheet(g, *rows):
    rows = [list(r) for r in rows] + [EMPTY] * (5 - len(rows))
    return g.sheet_from_json({"rows": rows})


SARAHS_ROLL = "black:1 blue:3 yellow:4 red:1 green:2 white:4"
EMMA_BEFORE = [5, None, 4, 2, 2, None]
LINUS = [[5, "x", 4, 2, 2, 1],     # 14 + 6 (3 exact hits) = 20
         [6, 4, 3, 2, 1, 1],       # 17 + 3 (2 exact hits) = 20
         [4, 4, 4, "x", 2, 1],     # 15 + 6 (3 exact hits) = 21
         [2, 2, 1, "x", "x", 1],   # 6 + 1 (1 exact hit) = 7
         [5, 5, "x", 3, "x", 1]]   # 14 + 6 (3 exact hits) = 20


class TestRecordingDice:
    def test_sarah_may_record_the_dice_that_fit(self):
        legal = A.legal(A.new_sheet(), roll(SARAHS_ROLL), OTHER)
        singles = {str(p) for p in legal if len(p.marks) == 1}
        # black 1 and blue 3 are exact hits, yellow 4 fits under 6; red 1 and green 2 fit too
        assert singles == {"A1@5", "A3@3", "A4@0", "A1@1", "A2@2"}
        assert len(legal) == 2 ** 5 - 1 + 1      # every non-empty subset, or a cross-out
        s = A.play(A.new_sheet(), roll(SARAHS_ROLL), OTHER, placement("A1@5 A3@3 A4@0"))
        assert A.exact_hits(s, 0) == 2

    def test_sarah_cannot_record_the_white_4(self):
        with pytest.raises(IllegalPlacement, match="white 4 is higher than the 2"):
            A.play(A.new_sheet(), roll(SARAHS_ROLL), OTHER, placement("A4@4"))
        assert not any(m.col == 4 for p in A.legal(A.new_sheet(), roll(SARAHS_ROLL))
                       for m in p.marks)

    def test_a_die_goes_only_into_the_field_of_its_colour(self):
        with pytest.raises(IllegalPlacement, match="red field takes the red die, which shows 1"):
            A.play(A.new_sheet(), roll(SARAHS_ROLL), OTHER, placement("A4@1"))

    def test_numbers_only_in_the_current_row(self):
        s = sheet(A, [6, 5, 4, 3, 2, 1])
        with pytest.raises(IllegalPlacement, match="you are on row B"):
            A.play(s, roll(SARAHS_ROLL), OTHER, placement("A1@5"))
        with pytest.raises(IllegalPlacement, match="you are on row A"):
            A.play(A.new_sheet(), roll(SARAHS_ROLL), OTHER, placement("A1@5 B1@0"))

    def test_everyone_must_record_or_cross_out(self):
        with pytest.raises(IllegalPlacement, match="at least one number or cross out"):
            A.play(A.new_sheet(), roll(SARAHS_ROLL), ROLLER, placement("pass"))

    def test_roller_and_others_have_the_same_choices(self):
        r = roll(SARAHS_ROLL)
        assert A.legal(A.new_sheet(), r, ROLLER).as_set() == \
            A.legal(A.new_sheet(), r, OTHER).as_set()


class TestCrossingOut:
    def test_emma_must_cross_out_the_white_5(self):
        s = sheet(B, EMMA_BEFORE)
        r = roll("white:6 green:5 blue:2 black:3 yellow:1 red:4")
        assert shown(B.legal(s, r, OTHER)) == {"cross"}
        after = B.play(s, r, OTHER, placement("cross"))
        assert after.rows[0] == (5, "x", 4, 2, 2, None)     # the leftmost empty field

    def test_crossing_out_is_allowed_even_when_a_number_fits(self):
        after = A.play(A.new_sheet(), roll(SARAHS_ROLL), OTHER, placement("cross"))
        assert after.rows[0] == ("x",) + (None,) * 5

    def test_never_a_cross_and_a_number_together(self):
        with pytest.raises(InvalidInput, match="writes no marks"):
            Placement(CROSS, (Mark("A", 5, 1),))
        # nor as a number and an x written in one round
        with pytest.raises(IllegalPlacement, match="shows 4, not x"):
            A.play(A.new_sheet(), roll(SARAHS_ROLL), OTHER, placement("A1@5 Ax@0"))
        legal = A.legal(A.new_sheet(), roll(SARAHS_ROLL), OTHER)
        assert all(p.kind == CROSS or all(m.value != "x" for m in p.marks) for p in legal)

    def test_crossed_fields_are_worth_nothing(self):
        s = sheet(A, ["x", "x", "x", "x", "x", "x"])
        assert A.score(s).total == 0


class TestScoringRows:
    def test_emmas_20_points(self):
        s = sheet(B, [5, "x", 4, 2, 2, 1])
        (line,) = B.score(s).lines
        assert line.points == 20
        assert "14 + 6 bonus for 3 exact hits" in line.detail

    def test_a_row_without_exact_hits_says_so(self):
        s = sheet(A, ["x", "x", "x", "x", "x", "x"])
        (line,) = A.score(s).lines
        assert line.points == 0 and line.detail == "0, no exact hit"

    def test_exact_hit_bonus_table(self):
        assert A.layout.exact_hit_bonus == (0, 1, 3, 6, 10, 15, 21)

    @pytest.mark.parametrize("row, total", [([6, 5, 4, 3, "x", "x"], 18 + 10),
                                            ([6, 5, 4, 3, 2, "x"], 20 + 15),
                                            ([6, 5, 4, 3, 2, 1], 21 + 21)])
    def test_four_five_and_six_exact_hits_earn_their_bonus(self, row, total):
        assert A.score(sheet(A, row)).total == total

    def test_all_six_dice_in_one_round(self):
        """"he can write down more than one number, and theoretically even all six"."""
        r = roll("yellow:6 red:5 green:4 blue:3 white:2 black:1")
        all_six = placement("A6@0 A5@1 A4@2 A3@3 A2@4 A1@5")
        assert str(all_six) in shown(A.legal(A.new_sheet(), r, OTHER))
        s = A.play(A.new_sheet(), r, OTHER, all_six)
        assert s.rows[0] == (6, 5, 4, 3, 2, 1) and A.score(s).total == 42

    def test_linus_88(self):
        s = sheet(A, *LINUS)
        assert A.problems(s) == []
        assert [line.points for line in A.score(s).lines] == [20, 20, 21, 7, 20]
        assert A.score(s).total == 88
        assert A.is_finished(s)

    def test_unfinished_row_does_not_score_during_the_game(self):
        s = sheet(A, [6, 5, 4, 3, 2, 1], [6, None, None, None, None, None])
        assert [line.label for line in A.score(s).lines] == ["row A"]

    def test_at_game_end_the_current_row_scores_with_its_bonus(self):
        s = sheet(A, [6, 5, 4, 3, 2, 1], [6, 5, None, None, None, None])
        lines = A.score(s, final=True).lines
        assert lines[1].points == 11 + 3
        assert "partial row scored at game end" in lines[1].detail


class TestSecondAttempt:
    # Tim rolls 6, 4, 3, 3, 1 and 1; the two dice showing 1 must stay.
    FIRST = "white:6 black:4 red:3 blue:3 yellow:1 green:1"

    def test_ones_stay(self):
        assert A.reroll_problem(roll(self.FIRST),
                                roll("white:2 black:5 red:6 blue:1 yellow:1 green:1")) is None

    def test_a_one_that_moved_is_refused(self):
        problem = A.reroll_problem(roll(self.FIRST),
                                   roll("white:2 black:5 red:6 blue:1 yellow:4 green:1"))
        assert "yellow die showed 1" in problem

    def test_at_most_two_attempts(self):
        t = Table.new([A, B], ["Tim", "Sarah"]).apply(RollDice(roll(self.FIRST)))
        t = t.apply(RollDice(roll("white:2 black:5 red:6 blue:1 yellow:1 green:1")))
        with pytest.raises(IllegalPlacement, match="2 attempts"):
            t.apply(RollDice(roll("white:2 black:5 red:6 blue:1 yellow:1 green:1")))

    def test_six_dice_one_of_each_colour(self):
        assert "one of each colour" in A.roll_problem(roll("white:1 white:2"))
        assert A.roll_problem(roll("white:1 white:2 red:3 blue:4 yellow:5 green:6")).endswith(
            "; missing: black")

    def test_dice_without_colours_say_which_colours_are_missing(self):
        problem = A.roll_problem(roll("1 2 3 4 5 6"))
        assert problem.endswith("missing: white, black, red, blue, yellow, green "
                                "(write each die as colour:face, e.g. red:4)")
        t = Table.new([A, B], ["Tim", "Sarah"])
        with pytest.raises(IllegalPlacement, match="missing: white"):
            t.apply(RollDice(roll("1 2 3 4 5 6")))


class TestDrawnSheet:
    def test_an_exact_hit_is_marked_as_the_paper_marks_it_with_a_small_x(self):
        """"an exact hit ... that you indicate with a small x": the drawn sheet marks each
        field whose number is its printed one (Linus' first row: the 4, the 2 and the 1)."""
        rows = A.grid(A.sheet_to_json(sheet(A, LINUS[0])))["rows"]
        assert [c["col"] for c in rows[0]["cells"] if c["hit"]] == [2, 4, 5]
        assert not any(c["hit"] for row in rows[1:] for c in row["cells"])


class TestEndOfGame:
    def test_others_score_their_current_row_when_one_player_finishes(self):
        t = Table.new([A, B], ["Linus", "Emma"])
        linus = sheet(A, *LINUS[:4], [5, 5, "x", 3, "x", None])
        emma = sheet(B, [5, "x", 4, 2, 2, 1], [6, None, None, None, None, None])
        t = replace(t, sheets=(linus, emma))
        t = t.apply(RollDice(roll("white:1 black:2 red:3 blue:4 yellow:5 green:6")))
        t = t.apply(Place(0, placement("cross")))     # Linus completes his fifth row
        t = t.apply(Place(1, placement("B2@1")))      # black 2 on the 5 of Emma's row B
        assert t.is_over
        assert A.end_reason(t.sheets[0]) == "the last row is filled"
        assert B.end_reason(t.sheets[1]) is None
        (first, second) = t.standings()
        assert (first.player, first.score.total) == ("Linus", 20 + 20 + 21 + 7 + (13 + 3))
        # Emma's row B (6, 2, ...) is scored although not full: 8 + 1 bonus (the 6 hit)
        assert second.score.total == 20 + 9

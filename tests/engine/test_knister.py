"""Knister, rule by rule (shared/rules/knister.txt)."""
import pytest

from engine.errors import IllegalPlacement, InvalidInput
from engine.game import OTHER, ROLLER
from engine.games.knister import combination
from engine.simulate import random_game

from engine_helpers import game, placement, roll, shown

K = game("knister")

# Tim's grid at the end of the game: 53 points (rule text's example). Row B holds his
# full house, the "\" diagonal three 6s, the "/" diagonal the straight 4-5-6-7-8, and two
# rows (C and D) score nothing.
TIM = [[6, 5, 8, 8, 5],
       [6, 6, 6, 8, 8],
       [10, 11, 6, 9, 4],
       [7, 4, 12, 8, 6],
       [7, 8, 10, 9, 11]]


def sheet(grid):
    return K.sheet_from_json({"grid": grid})


def full_grid_with_row(values):
    """A grid whose first row is `values` and whose other lines score nothing."""
    filler = [[2, 4, 6, 9, 12], [3, 5, 11, 2, 8], [10, 12, 3, 5, 2], [4, 9, 2, 12, 10]]
    return [list(values)] + filler


class TestCombinations:
    @pytest.mark.parametrize("values, name, points", [
        ([4, 5, 6, 7, 5], "pair", 1),
        ([7, 8, 7, 7, 4], "three_of_a_kind", 3),
        ([6, 3, 6, 6, 6], "four_of_a_kind", 6),
        ([8, 8, 8, 8, 8], "five_of_a_kind", 10),
        ([5, 6, 6, 10, 5], "two_pairs", 3),
        ([4, 9, 4, 4, 9], "full_house", 8),
        ([7, 10, 8, 6, 9], "straight_with_7", 8),
        ([3, 5, 6, 2, 4], "straight_without_7", 12),
        # the other straights: without a 7 only 2-6 and 8-12, every other one holds a 7
        ([8, 9, 10, 11, 12], "straight_without_7", 12),
        ([12, 10, 11, 9, 8], "straight_without_7", 12),
        ([2, 3, 4, 5, 6], "straight_without_7", 12),
        ([3, 4, 5, 6, 7], "straight_with_7", 8),
        ([7, 8, 9, 10, 11], "straight_with_7", 8),
    ])
    def test_each_combination_from_the_table(self, values, name, points):
        assert combination(values) == name
        assert K.layout.points[name] == points

    def test_a_line_without_a_combination_scores_nothing(self):
        assert combination([2, 4, 6, 9, 12]) is None

    def test_four_numbers_in_a_row_are_not_a_straight(self):
        assert combination([3, 4, 5, 6, 9]) is None

    def test_straights_in_any_order(self):
        assert combination([5, 7, 8, 4, 6]) == "straight_with_7"

    def test_a_row_scores_its_combination(self):
        s = sheet(full_grid_with_row([4, 9, 4, 4, 9]))
        lines = {line.label: line.points for line in K.score(s).lines}
        assert lines["row A"] == 8


class TestScoreDuringTheGame:
    def test_tims_full_house_after_the_ninth_round(self):
        """"After the ninth round, Tim has entered nine numbers ... a Full House in the second
        horizontal row and immediately writes down the 8 points": a full line scores at once,
        lines still open score nothing yet."""
        nine = [[None, 5, None, None, None],
                [6, 6, 6, 8, 8],
                [None, None, 7, None, None],
                [None] * 5,
                [None, None, None, 3, None]]
        score = K.score(sheet(nine))
        assert [(str(line.label), line.points) for line in score.lines] == [("row B", 8)]
        assert score.total == 8 and not K.is_finished(sheet(nine))


class TestDiagonalsDouble:
    def test_diagonal_points_are_doubled(self):
        grid = [[5, 2, 3, 12, 7],
                [2, 5, 11, 7, 3],
                [4, 9, 5, 2, 10],
                [12, 7, 3, 5, 4],
                [7, 10, 8, 6, 5]]
        lines = {line.label: line for line in K.score(sheet(grid)).lines}
        assert lines["diagonal \\"].points == 20        # five 5s: 10 x 2
        assert lines["diagonal /"].points == 12         # 7-7-5-7-7: four of a kind, 6 x 2
        assert "x2" in lines["diagonal \\"].detail
        # the same four of a kind in a row scores single
        row = {line.label: line.points
               for line in K.score(sheet(full_grid_with_row([7, 7, 5, 7, 7]))).lines}
        assert row["row A"] == 6

    def test_tims_53_points(self):
        s = sheet(TIM)
        lines = {line.label: line.points for line in K.score(s).lines}
        assert lines["diagonal \\"] == 6        # three of a kind, 2 x 3
        assert lines["diagonal /"] == 16        # straight with 7, 2 x 8
        assert lines["row B"] == 8              # his full house
        assert [lines[f"row {r}"] for r in "CD"] == [0, 0]
        assert K.score(s).total == 53


class TestWritingTheSum:
    def test_every_player_writes_the_sum_in_any_free_field(self):
        # Sarah rolls 3 and 5: "eight"
        r = roll("3 5")
        s = K.new_sheet()
        assert len(K.legal(s, r, ROLLER)) == 25 == len(K.legal(s, r, OTHER))
        assert {p.marks[0].value for p in K.legal(s, r)} == {8}
        K.play(s, r, ROLLER, placement("C8@2"))    # Sarah: the middle
        K.play(s, r, OTHER, placement("E8@0"))     # Tim: lower left corner
        K.play(s, r, OTHER, placement("B8@4"))     # Linus: the far right column

    def test_no_field_twice(self):
        s = K.play(K.new_sheet(), roll("3 5"), ROLLER, placement("C8@2"))
        with pytest.raises(IllegalPlacement, match="already holds 8"):
            K.play(s, roll("1 1"), ROLLER, placement("C2@2"))
        assert "C2@2" not in shown(K.legal(s, roll("1 1")))

    def test_the_sum_not_another_number(self):
        with pytest.raises(IllegalPlacement, match="add up to 8, not 9"):
            K.play(K.new_sheet(), roll("3 5"), ROLLER, placement("C9@2"))

    def test_writing_is_compulsory(self):
        assert "pass" not in shown(K.legal(K.new_sheet(), roll("3 5"), OTHER))
        with pytest.raises(IllegalPlacement, match="must write the sum"):
            K.play(K.new_sheet(), roll("3 5"), OTHER, placement("pass"))

    def test_one_roll_of_two_dice(self):
        assert K.roll_problem(roll("3 5")) is None
        assert "two dice" in K.roll_problem(roll("3 5 6"))
        assert "single roll" in K.reroll_problem(roll("3 5"), roll("6 6"))


class TestEndOfGame:
    def test_the_game_ends_after_25_rounds_with_full_grids(self):
        t = random_game(K, 3, seed=11)
        assert t.turns + 1 == 25
        assert all(K.is_finished(s) for s in t.sheets)
        assert K.end_reason(t.sheets[0]) == "the grid is full after 25 rounds"
        assert K.end_reason(K.new_sheet()) is None

    def test_as_many_players_as_you_want(self):
        """"you can also play Knister with as many players as you want": the companion's
        limit is 99 at one table (docs/rules-decisions.md)."""
        for n in (1, 2, 12, 99):
            K.check_player_count(n)
        with pytest.raises(InvalidInput, match="1-99 players, not 100"):
            K.check_player_count(100)

    def test_solo_game(self):
        t = random_game(K, 1, seed=5)
        assert t.is_over and t.turns + 1 == 25


class TestSoloRating:
    """"50 to 79 points is good, 80 to 99 points is very good, and more than 100 points is
    amazing!" (playing alone)."""

    @pytest.mark.parametrize("total, rating", [
        (49, None), (50, "good: 50 to 79 points"), (79, "good: 50 to 79 points"),
        (80, "very good: 80 to 99 points"), (99, "very good: 80 to 99 points"),
        (100, "amazing: 100 points or more"), (130, "amazing: 100 points or more")])
    def test_the_rule_books_words(self, total, rating):
        assert K.solo_rating(total) == rating

    def test_other_games_rate_nothing(self):
        assert game("qwinto").solo_rating(120) is None


class TestCheckMyPaperSheet:
    def test_numbers_outside_2_to_12_are_listed(self):
        problems = K.problems(sheet([[1, 13] + [None] * 3] + [[None] * 5] * 4))
        assert len(problems) == 2 and "not a sum of two dice" in problems[0]

    def test_malformed_grid(self):
        with pytest.raises(InvalidInput, match="5 entries"):
            K.sheet_from_json({"grid": [[1, 2]] * 5})

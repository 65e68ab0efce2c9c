"""Qwinto, rule by rule (shared/rules/qwinto.txt)."""
import random

import pytest

from engine.errors import IllegalPlacement, InvalidInput
from engine.game import OTHER, ROLLER
from engine.table import Erase, KeepRoll, Place, RollDice, Table, Undo, action_from_json, \
    action_to_json

from engine_helpers import game, placement, roll, shown

Q = game("qwinto")


def sheet(orange=None, yellow=None, purple=None, failed=0):
    return Q.sheet_from_json({"rows": {"orange": orange or [None] * 9,
                                       "yellow": yellow or [None] * 9,
                                       "purple": purple or [None] * 9},
                              "failed_attempts": failed})


def dice_adding_up_to(total, first):
    """A Qwinto roll of 1-3 dice, `first` among them, whose faces add up to `total`."""
    colours = [first] + [c for c in ("orange", "yellow", "purple") if c != first]
    n = -(-total // 6)
    faces = [total // n + (1 if i < total % n else 0) for i in range(n)]
    r = roll(" ".join(f"{c}:{f}" for c, f in zip(colours, faces)))
    assert r.total == total
    return r


# Tim's sheet (the rule text's first example), field order left to right:
#   orange fields at 2,3,4,6,7,8,9,10,11; yellow 1,2,3,4,5,7,8,9,10; purple 0,1,2,3,5,6,7,8,9
TIM = dict(orange=[3, 5, None, None, None, None, None, None, None],
           yellow=[None, 2, 4, None, None, None, None, None, None],
           purple=[None, None, 1, 3, 6, None, 7, None, None])

# Sarah's sheet at the end of the game (43 points).
SARAH = dict(orange=[None, 5, None, None, None, 11, 14, 15, None],
             yellow=[1, 2, 3, 4, 6, 7, 10, 13, 16],
             purple=[1, 2, None, 4, None, 7, None, 9, 12],
             failed=2)


class TestAscendingRows:
    def test_a_number_must_exceed_everything_to_its_left(self):
        s = sheet(yellow=[None, None, 9, None, None, None, None, None, None])
        with pytest.raises(IllegalPlacement,
                           match="7 must be greater than the 9 to its left in the yellow row"):
            Q.play(s, roll("yellow:3 purple:4"), ROLLER, placement("Y7@4"))

    def test_a_number_must_be_below_everything_to_its_right(self):
        s = sheet(purple=[None, None, None, None, None, None, 5, None, None])
        with pytest.raises(IllegalPlacement, match="must be smaller than the 5 to its right"):
            Q.play(s, roll("purple:6"), ROLLER, placement("P6@2"))

    def test_no_number_twice_in_a_row(self):
        s = sheet(orange=[4, None, None, None, None, None, None, None, None])
        assert "O4@3" not in shown(Q.legal(s, roll("orange:4")))

    def test_gaps_may_be_left_and_filled_later(self):
        s = sheet(orange=[2, None, None, None, None, None, None, None, 12])
        assert {"O7@3", "O7@4", "O7@6", "O7@10"} <= shown(Q.legal(s, roll("orange:3 yellow:4")))

    @pytest.mark.parametrize("row, colour, column", [("O", "orange", 5), ("Y", "yellow", 6),
                                                     ("P", "purple", 4)])
    def test_the_missing_field_is_never_written(self, row, colour, column):
        """The rule: "Each colored row has one missing field. Do not enter a number in this field."
        """
        with pytest.raises(IllegalPlacement, match="not a field"):
            Q.play(Q.new_sheet(), roll(f"{colour}:5"), ROLLER, placement(f"{row}5@{column}"))
        assert all(m.col != column for p in Q.legal(Q.new_sheet(), roll(f"{colour}:5"))
                   for m in p.marks if m.row == row)


class TestColumns:
    def test_no_number_twice_in_a_three_field_column(self):
        s = sheet(orange=[7, None, None, None, None, None, None, None, None])
        with pytest.raises(IllegalPlacement, match="7 already stands in column 2"):
            Q.play(s, roll("yellow:3 purple:4"), ROLLER, placement("Y7@2"))

    def test_no_number_twice_in_a_two_field_column(self):
        # column 4 holds orange and yellow only, column 6 orange and purple only
        s = sheet(orange=[None, None, 8, None, None, None, None, None, None])
        assert "Y8@4" not in shown(Q.legal(s, roll("yellow:4 purple:4")))
        s = sheet(orange=[None, None, None, 8, None, None, None, None, None])
        assert "P8@6" not in shown(Q.legal(s, roll("yellow:4 purple:4")))
        assert "P8@5" in shown(Q.legal(s, roll("yellow:4 purple:4")))   # another column

    def test_order_within_a_column_does_not_matter(self):
        s = sheet(orange=[9, None, None, None, None, None, None, None, None])
        assert "P3@2" in shown(Q.legal(s, roll("purple:3")))


class TestTheRoll:
    def test_sum_goes_only_into_rows_of_rolled_colours(self):
        # Linus rolls purple and yellow: 4 + 5 = nine
        legal = shown(Q.legal(Q.new_sheet(), roll("purple:4 yellow:5")))
        assert {p[0] for p in legal if "@" in p} == {"Y", "P"}
        assert all(p.startswith(("Y9", "P9")) for p in legal if "@" in p)
        with pytest.raises(IllegalPlacement, match="orange die was not rolled"):
            Q.play(Q.new_sheet(), roll("purple:4 yellow:5"), OTHER, placement("O9@8"))

    def test_linus_tim_and_sarah_write_the_nine_in_different_places(self):
        r = roll("purple:4 yellow:5")
        Q.play(Q.new_sheet(), r, ROLLER, placement("Y9@7"))     # Linus
        Q.play(Q.new_sheet(), r, OTHER, placement("Y9@9"))      # Tim, further right
        Q.play(Q.new_sheet(), r, OTHER, placement("P9@6"))      # Sarah

    def test_the_written_number_is_the_sum(self):
        with pytest.raises(IllegalPlacement, match="add up to 9, not 8"):
            Q.play(Q.new_sheet(), roll("purple:4 yellow:5"), ROLLER, placement("Y8@7"))

    def test_exactly_one_field_per_roll(self):
        with pytest.raises(IllegalPlacement, match="exactly one field"):
            Q.play(Q.new_sheet(), roll("purple:4 yellow:5"), ROLLER, placement("Y9@7 P9@6"))

    def test_roller_chooses_one_two_or_three_dice(self):
        assert Q.roll_problem(roll("orange:3")) is None
        assert Q.roll_problem(roll("orange:3 yellow:1 purple:6")) is None
        assert "1, 2 or 3 dice" in Q.roll_problem(roll("orange:3 yellow:1 purple:6 orange:2"))
        assert "only one die of each colour" in Q.roll_problem(roll("orange:3 orange:1"))
        assert "not a Qwinto die" in Q.roll_problem(roll("red:3"))

    def test_second_attempt_rolls_all_the_same_dice(self):
        first = roll("purple:2 yellow:4")
        assert Q.reroll_problem(first, roll("yellow:5 purple:4")) is None
        assert "all the dice of the first" in Q.reroll_problem(first, roll("yellow:5"))
        assert "all the dice of the first" in Q.reroll_problem(first, roll("yellow:5 orange:4"))


class TestFailedAttempts:
    def test_roller_who_cannot_or_will_not_enter_records_a_failed_attempt(self):
        r = roll("orange:6")
        assert "fail" in shown(Q.legal(Q.new_sheet(), r, ROLLER))
        assert "pass" not in shown(Q.legal(Q.new_sheet(), r, ROLLER))
        s = Q.play(Q.new_sheet(), r, ROLLER, placement("fail"))
        assert s.failed_attempts == 1

    def test_others_never_record_a_failed_attempt(self):
        r = roll("orange:6")
        assert "fail" not in shown(Q.legal(Q.new_sheet(), r, OTHER))
        with pytest.raises(IllegalPlacement, match="only the roller"):
            Q.play(Q.new_sheet(), r, OTHER, placement("fail"))
        assert Q.play(Q.new_sheet(), r, OTHER, placement("pass")) == Q.new_sheet()

    def test_roller_may_not_simply_pass(self):
        with pytest.raises(IllegalPlacement, match="roller must enter the sum or record"):
            Q.play(Q.new_sheet(), roll("orange:6"), ROLLER, placement("pass"))

    def test_each_failed_attempt_costs_five_points(self):
        assert Q.score(sheet(failed=3)).total == -15


class TestTimsSheet:
    def test_tims_sheet_is_correct(self):
        assert Q.problems(sheet(**TIM)) == []

    @pytest.mark.parametrize("total", range(1, 19))
    def test_only_a_1_fits_the_leftmost_yellow_field(self, total):
        r = dice_adding_up_to(total, first="yellow")
        fits = f"Y{total}@1" in shown(Q.legal(sheet(**TIM), r, ROLLER))
        assert fits == (total == 1)

    def test_the_purple_field_between_6_and_7_is_dead(self):
        s = sheet(**TIM)
        assert ("P", 6) in Q.dead_fields(s)
        for a in range(1, 7):
            for b in range(1, 7):
                assert not any(m.row == "P" and m.col == 6
                               for p in Q.legal(s, roll(f"purple:{a} yellow:{b}"))
                               for m in p.marks)

    def test_two_full_columns_earn_their_pentagon_bonus(self):
        lines = {line.label: line.points for line in Q.score(sheet(**TIM)).lines}
        assert lines["column 2 bonus"] == 1   # purple pentagon holds 1
        assert lines["column 3 bonus"] == 5   # orange pentagon holds 5
        assert sum(1 for k in lines if k.endswith("bonus")) == 2


class TestScoring:
    def test_sarahs_43_points(self):
        s = sheet(**SARAH)
        assert Q.problems(s) == []
        score = Q.score(s)
        lines = {line.label: line.points for line in score.lines}
        assert lines["orange row"] == 4       # 4 numbers, row not full
        assert lines["yellow row"] == 16      # full: the number on the far right
        assert lines["purple row"] == 6       # 6 numbers
        assert sorted(v for k, v in lines.items() if k.endswith("bonus")) == [5, 10, 12]
        assert lines["failed attempts"] == -10
        assert score.total == 43

    def test_an_empty_row_says_it_holds_no_number_yet(self):
        details = {line.label: line.detail for line in Q.score(Q.new_sheet()).lines}
        assert details["orange row"] == "no number yet"

    def test_a_column_with_an_empty_field_earns_no_bonus(self):
        s = sheet(orange=[3, None, None, None, None, None, None, None, None],
                  yellow=[None, 4, None, None, None, None, None, None, None])
        assert not any(line.label.endswith("bonus") for line in Q.score(s).lines)


class TestEndOfGame:
    def test_two_full_rows_end_the_game(self):
        full = list(range(1, 10))
        assert not Q.is_finished(sheet(yellow=full))
        assert Q.end_reason(sheet(yellow=full)) is None
        ended = sheet(yellow=full, purple=[10, 11, 12, 13, 14, 15, 16, 17, 18])
        assert Q.is_finished(ended) and Q.end_reason(ended) == "2 rows are full"

    def test_the_fourth_failed_attempt_ends_the_game(self):
        assert not Q.is_finished(sheet(failed=3)) and Q.end_reason(sheet(failed=3)) is None
        assert Q.is_finished(sheet(failed=4))
        assert Q.end_reason(sheet(failed=4)) == "4 failed attempts"

    def test_table_ends_after_the_turn_of_the_fourth_failed_attempt(self):
        """The game ends once the turn of the fourth failed attempt is answered by all."""
        t = Table.new(Q, ["Linus", "Tim"], sheets=[sheet(failed=3), Q.new_sheet()])
        t = t.apply(RollDice(roll("orange:6"))).apply(Place(0, placement("fail")))
        assert not t.is_over            # Tim has not answered yet
        t = t.apply(Place(1, placement("pass")))
        assert t.is_over
        assert [(s.player, s.score.total) for s in t.standings()] == [("Tim", 0),
                                                                       ("Linus", -20)]

    def test_table_ends_after_the_turn_that_fills_a_second_row(self):
        full = list(range(1, 10))
        t = Table.new(Q, ["Linus", "Tim"])
        almost = sheet(yellow=full, purple=[10, 11, 12, 13, 14, 15, 16, 17, None])
        t = t.__class__(**{**t.__dict__, "sheets": (almost, Q.new_sheet())})
        t = t.apply(RollDice(roll("purple:6 orange:6 yellow:6")))
        t = t.apply(Place(0, placement("P18@9")))
        assert not t.is_over            # Tim has not answered yet
        t = t.apply(Place(1, placement("pass")))
        assert t.is_over
        assert [s.player for s in t.standings()] == ["Linus", "Tim"]


class TestCheckMyPaperSheet:
    def test_every_problem_is_listed(self):
        s = sheet(orange=[5, 4, None, None, None, None, None, None, None],
                  yellow=[None, 5, None, None, None, None, None, None, 30],
                  failed=5)
        problems = Q.problems(s)
        assert any("4 at column 3 must be greater than the 5" in p for p in problems)
        assert any("5 stands twice in column 2" in p for p in problems)
        assert any("30 at column 10" in p for p in problems)
        assert any("5 failed attempts" in p for p in problems)
        assert len(problems) == 4

    def test_malformed_sheets_are_refused_with_the_reason(self):
        with pytest.raises(InvalidInput, match="must have 9 entries"):
            Q.sheet_from_json({"rows": {"orange": [1, 2]}})
        with pytest.raises(InvalidInput, match="unknown row"):
            Q.sheet_from_json({"rows": {"red": [None] * 9}})
        with pytest.raises(InvalidInput, match="write a number, x for an erased one, or leave"):
            Q.sheet_from_json({"rows": {"orange": ["a"] + [None] * 8}})
        for fails in (True, 1.5, -1):
            with pytest.raises(InvalidInput, match="'failed_attempts' must be a whole number"):
                Q.sheet_from_json({"failed_attempts": fails})

    def test_refused_placement_leaves_the_sheet_unchanged(self):
        s = sheet(**TIM)
        before = Q.sheet_to_json(s)
        with pytest.raises(IllegalPlacement):
            Q.play(s, roll("yellow:3"), ROLLER, placement("Y3@1"))
        assert Q.sheet_to_json(s) == before


class TestLegalAgreesWithWhyIllegal:
    def test_on_a_typed_in_sheet_that_already_breaks_the_rule(self):
        """A 9 then a 2 to the right of it: no number fits between the 4 and the 9 that
        the 2 further right forbids; `legal` looked only at the nearest number."""
        s = sheet(yellow=[4, None, 9, None, 2, None, None, None, None])
        r = roll("yellow:3 orange:3")
        offered = {str(p) for p in Q.legal(s, r, OTHER) if p.kind == "enter"}
        assert "Y6@2" not in offered
        assert "must be smaller than the 2" in Q.why_illegal(s, r, OTHER, placement("Y6@2"))

    def test_on_random_sheets_broken_or_not(self):
        rng = random.Random(18)
        fields = [(row.label, p) for row in Q.layout.rows for p in row.fields]
        for _ in range(400):
            rows = {row.colour: [rng.choice([None, None, rng.randint(1, 18)])
                                 for _ in row.fields] for row in Q.layout.rows}
            s = Q.sheet_from_json({"rows": rows})
            r = Q.random_roll(rng)
            offered = {p for p in Q.legal(s, r, OTHER) if p.kind == "enter"}
            allowed = {placement(f"{label}{r.total}@{p}") for label, p in fields
                       if Q.why_illegal(s, r, OTHER, placement(f"{label}{r.total}@{p}")) is None}
            assert offered == allowed, (rows, str(r))


class TestErasingAWrongNumber:
    """"If you don't notice that a number was incorrectly entered until a later round, erase
    the incorrectly entered number, which cannot be entered anywhere else": the field is
    crossed out ("x"), holds no number and is never written again."""

    def test_the_field_is_crossed_out_and_scores_nothing(self):
        s = sheet(orange=[3, 9, None, None, None, None, None, None, None])
        assert Q.erasable(s) == [("O", 2), ("O", 3)]
        after = Q.erase(s, "O", 3)
        assert Q.sheet_to_json(after)["rows"]["orange"][:3] == [3, "x", None]
        assert Q.score(after).total == Q.score(sheet(orange=[3] + [None] * 8)).total
        # a 5 may now follow the 3: the erased 9 asks nothing of its neighbours
        r = roll("orange:5")
        assert "O5@4" in shown(Q.legal(after, r, OTHER))
        assert not any(p.marks and p.marks[0].col == 3 for p in Q.legal(after, r, OTHER))
        assert Q.why_illegal(after, r, OTHER, placement("O5@3")) == \
            "column 3 of the orange row is crossed out: its number was erased"
        assert Q.problems(after) == []

    def test_a_crossed_field_keeps_a_row_from_being_full(self):
        full = [1, 2, 3, 4, 5, 6, 7, 8, 9]
        assert Q._row_full(sheet(orange=full), 0)
        crossed = Q.erase(sheet(orange=full), "O", 11)
        assert not Q._row_full(crossed, 0) and not Q.is_finished(crossed)
        assert Q.sheet_from_json(Q.sheet_to_json(crossed)) == crossed

    def test_refusals(self):
        s = sheet(orange=[3] + [None] * 8)
        assert "holds no number to erase" in Q.erase_problem(s, "O", 3)
        assert "already crossed out" in Q.erase_problem(Q.erase(s, "O", 2), "O", 2)
        assert "no row 'Z'" in Q.erase_problem(s, "Z", 2)
        assert "not a field" in Q.erase_problem(s, "O", 0)
        with pytest.raises(InvalidInput, match="write a number, x for an erased one"):
            Q.sheet_from_json({"rows": {"orange": ["y"] + [None] * 8}})

    def test_at_the_table_any_time_and_kept_by_an_undo(self):
        t = Table.new(Q, ["Linus", "Tim"]).apply(RollDice(roll("orange:3"))).apply(KeepRoll())
        t = t.apply(Place(0, placement("O3@2"))).apply(Place(1, placement("O3@3")))
        t = t.apply(RollDice(roll("yellow:4"))).apply(KeepRoll())
        t = t.apply(Place(0, placement("Y4@2")))
        with pytest.raises(IllegalPlacement, match="Y@2 is Linus's answer to this roll: undo"):
            t.apply(Erase(0, "Y@2"))
        assert t.erasable(0) == ["O@2"]
        t = t.apply(Erase(0, "O@2"))        # last round's 3 was wrong
        assert t.sheets[0].rows[0][2] == "x"
        t = t.apply(Undo(0))                 # the answer is taken back, the erasure stays
        assert t.sheets[0].rows[0][2] == "x" and t.sheets[0].rows[1][2] is None
        with pytest.raises(IllegalPlacement, match="holds no number"):
            t.apply(Erase(1, "Y@2"))
        assert action_from_json(action_to_json(Erase(1, "O@3"))) == Erase(1, "O@3")
        with pytest.raises(InvalidInput, match="not a field"):
            action_from_json({"type": "erase", "seat": 0, "field": "O3"})

    def test_other_games_do_not_erase(self):
        k = game("knister")
        t = Table.new(k, ["a"]).apply(RollDice(roll("3 4"))).apply(Place(0, placement("A7@0")))
        with pytest.raises(IllegalPlacement, match="Knister has no erasing"):
            t.apply(Erase(0, "A@0"))

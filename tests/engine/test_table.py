"""The table: turns, rolls, who must act, undo, corrections, saving and replaying."""
import json
from dataclasses import replace

import pytest

from engine.errors import IllegalPlacement, InvalidInput
from engine.table import (Begin, ChooseSide, CorrectRoll, KeepRoll, Place, RollDice, Table, Undo,
                          action_from_json, action_to_json)

from engine_helpers import game, placement, roll

Q = game("qwinto")
K = game("knister")


def qwinto_table(n=3):
    return Table.new(Q, [f"P{i}" for i in range(n)])


class TestTurns:
    def test_nobody_acts_before_the_first_roll(self):
        t = qwinto_table()
        assert t.pending() == [] and t.roll is None
        with pytest.raises(IllegalPlacement, match="nothing has been rolled"):
            t.apply(Place(0, placement("fail")))

    def test_every_player_answers_the_roll(self):
        t = qwinto_table().apply(RollDice(roll("orange:3"))).apply(KeepRoll())
        assert t.pending() == [0, 1, 2]
        assert t.role(0) == "roller" and t.role(1) == "other"
        t = t.apply(Place(1, placement("O3@2")))
        assert t.pending() == [0, 2]
        with pytest.raises(IllegalPlacement, match="already answered"):
            t.apply(Place(1, placement("pass")))

    def test_the_next_player_rolls_once_everyone_answered(self):
        t = qwinto_table(2).apply(RollDice(roll("orange:3")))
        t = t.apply(Place(0, placement("O3@2"))).apply(Place(1, placement("pass")))
        assert t.turn_complete and t.next_roller == 1
        t = t.apply(RollDice(roll("yellow:4")))
        assert t.roller == 1 and t.turns == 1 and t.pending() == [1]

    def test_no_second_attempt_once_someone_has_written(self):
        t = qwinto_table().apply(RollDice(roll("orange:3"))).apply(KeepRoll())
        t = t.apply(Place(2, placement("pass")))
        with pytest.raises(IllegalPlacement, match="P0 has finished rolling"):
            t.apply(RollDice(roll("orange:5")))

    def test_second_attempt_must_obey_the_rule(self):
        t = qwinto_table().apply(RollDice(roll("orange:3 yellow:2")))
        with pytest.raises(IllegalPlacement, match="all the dice of the first"):
            t.apply(RollDice(roll("orange:5")))
        t = t.apply(RollDice(roll("orange:5 yellow:6")))
        assert t.roll.total == 11 and not t.may_reroll()

    def test_players_per_game(self):
        with pytest.raises(InvalidInput, match="1-6 players"):
            Table.new(Q, [str(i) for i in range(7)])
        assert len(Table.new(K, [str(i) for i in range(12)]).players) == 12

    def test_a_game_for_exactly_two_says_two_players(self):
        from engine.games.kuh_vadis import KuhVadis
        with pytest.raises(InvalidInput, match=r"played by 2 players, not 1$"):
            KuhVadis.check_player_count(1)


class TestFinishedRolling:
    """"Once the active player has finished rolling, each player may use the roll": the
    others answer only a kept roll, so nobody takes the roller's second attempt away."""

    def test_the_others_wait_while_the_roller_may_roll_again(self):
        t = qwinto_table().apply(RollDice(roll("orange:3")))
        assert t.still_rolling and t.pending() == [0]
        assert not t.legal(1) and t.legal(0)
        with pytest.raises(IllegalPlacement, match="P0 is still rolling"):
            t.apply(Place(1, placement("O3@2")))
        t = t.apply(RollDice(roll("orange:5")))     # the second attempt is still the roller's
        assert str(t.roll) == "orange:5"

    def test_the_last_attempt_is_final(self):
        t = qwinto_table().apply(RollDice(roll("orange:3"))).apply(RollDice(roll("orange:5")))
        assert t.roll_final and t.pending() == [0, 1, 2]
        t = t.apply(Place(1, placement("O5@2")))
        assert t.answers[1] is not None
        with pytest.raises(IllegalPlacement, match="already finished rolling"):
            t.apply(KeepRoll())

    def test_keeping_opens_the_answers_and_ends_the_attempts(self):
        t = qwinto_table().apply(RollDice(roll("orange:3"))).apply(KeepRoll())
        assert t.roll_final and not t.may_reroll() and t.legal(1)
        with pytest.raises(IllegalPlacement, match="P0 has finished rolling"):
            t.apply(RollDice(roll("orange:5")))
        # a misread die is still corrected before anyone writes
        t = t.apply(CorrectRoll(roll("orange:4")))
        assert t.roll_final and str(t.roll) == "orange:4"

    def test_the_rollers_answer_keeps_the_roll(self):
        t = qwinto_table().apply(RollDice(roll("orange:3"))).apply(Place(0, placement("O3@2")))
        assert t.roll_final and t.pending() == [1, 2]
        t = t.apply(Undo(0))                       # taking it back does not reopen the dice
        with pytest.raises(IllegalPlacement, match="finished rolling"):
            t.apply(RollDice(roll("orange:5")))

    def test_single_attempt_games_are_final_at_once(self):
        t = Table.new(K, ["a", "b"]).apply(RollDice(roll("3 4")))
        assert t.roll_final and t.pending() == [0, 1]

    def test_nothing_to_keep(self):
        with pytest.raises(IllegalPlacement, match="nothing has been rolled"):
            qwinto_table().apply(KeepRoll())

    def test_a_new_turn_starts_unkept(self):
        t = qwinto_table(2).apply(RollDice(roll("orange:3"))).apply(KeepRoll())
        t = t.apply(Place(0, placement("O3@2"))).apply(Place(1, placement("pass")))
        t = t.apply(RollDice(roll("yellow:4")))
        assert t.roller == 1 and t.still_rolling and t.pending() == [1]

    def test_a_log_from_before_the_keep_step_replays(self):
        """An old log: the other player answered attempt 1 at once, which fixed the roll."""
        old = [RollDice(roll("orange:3")), Place(1, placement("O3@2")),
               Place(0, placement("fail"))]
        with pytest.raises(IllegalPlacement, match="still rolling"):
            qwinto_table(2).replay(old)
        t = qwinto_table(2).replay(old, first_answer_keeps=True)
        assert t.turn_complete and t.sheets[1].rows[0][2] == 3


class TestUndoAndCorrection:
    def test_undo_restores_the_sheet_before_the_answer(self):
        t = qwinto_table().apply(RollDice(roll("orange:3"))).apply(KeepRoll())
        before = t.sheets[1]
        t = t.apply(Place(1, placement("O3@2"))).apply(Undo(1))
        assert t.sheets[1] == before and 1 in t.pending()

    def test_undo_is_possible_until_the_next_roll(self):
        t = qwinto_table(2).apply(RollDice(roll("orange:3")))
        t = t.apply(Place(0, placement("O3@2"))).apply(Place(1, placement("pass")))
        t = t.apply(Undo(0))
        assert not t.turn_complete and t.pending() == [0]
        t = t.apply(Place(0, placement("fail"))).apply(RollDice(roll("yellow:4")))
        with pytest.raises(IllegalPlacement, match="nothing to undo"):
            t.apply(Undo(0))

    def test_a_misread_roll_is_corrected_before_anyone_writes(self):
        t = qwinto_table().apply(RollDice(roll("orange:3"))).apply(KeepRoll())
        t = t.apply(CorrectRoll(roll("orange:4")))
        assert str(t.roll) == "orange:4" and len(t.attempts) == 1
        t = t.apply(Place(0, placement("O4@2")))
        with pytest.raises(IllegalPlacement, match="must undo their entries"):
            t.apply(CorrectRoll(roll("orange:5")))

    def test_refused_actions_change_nothing(self):
        t = qwinto_table().apply(RollDice(roll("orange:3"))).apply(KeepRoll())
        with pytest.raises(IllegalPlacement):
            t.apply(Place(1, placement("Y3@2")))
        assert t.pending() == [0, 1, 2] and t.sheets[1] == Q.new_sheet()

    def test_unknown_seat(self):
        with pytest.raises(InvalidInput, match="no seat 7"):
            qwinto_table().apply(RollDice(roll("orange:3"))).apply(Place(7, placement("pass")))


class TestWhoBegins:
    """Qwinto "Draw to see who goes first", The Choice "Randomly determine a player", Kuh
    Vadis' coin toss: the table is told who begins; seat 0 when nobody says."""

    def test_the_chosen_seat_rolls_first_then_the_next(self):
        t = qwinto_table().apply(Begin(2))
        assert t.roller == 2 and t.next_roller == 2
        t = t.apply(RollDice(roll("orange:3"))).apply(Place(2, placement("O3@2")))
        t = t.apply(Place(0, placement("pass"))).apply(Place(1, placement("pass")))
        assert t.next_roller == 0

    def test_only_before_the_first_roll(self):
        t = qwinto_table().apply(RollDice(roll("orange:3")))
        with pytest.raises(IllegalPlacement, match="before the first roll"):
            t.apply(Begin(1))
        with pytest.raises(InvalidInput, match="no seat 5"):
            qwinto_table().apply(Begin(5))

    def test_kuh_vadis_coin_toss_won_by_the_circles(self):
        kv = game("kuh_vadis")
        t = Table.new(kv, ["Sarah", "Tim"]).apply(Begin(1))
        assert t.roller == 1 and t.sheets[0].to_move == "O" and t.sheets[1] is t.sheets[0]
        t = t.apply(RollDice(roll("1 2 3 4 5"))).apply(Place(1, placement("pass")))
        assert t.next_roller == 0


class TestTheEnd:
    FULL = {"grid": [[2, 4, 6, 9, 12], [3, 5, 11, 2, 8], [10, 12, 3, 5, 2],
                     [4, 9, 2, 12, 10], [4, 9, 4, 4, 9]]}

    def test_a_table_started_from_a_finished_sheet_is_over_at_once(self):
        full = K.sheet_from_json(self.FULL)
        t = Table.new(K, ["a", "b"], sheets=[full, K.new_sheet()])
        assert t.is_over and t.pending() == [] and not t.legal(1)
        with pytest.raises(IllegalPlacement, match="the game is over"):
            t.apply(RollDice(roll("3 4")))
        assert [s.score.total for s in t.standings()][0] == K.score(full).total

    def test_a_game_in_progress_is_not_over(self):
        assert not Table.new(K, ["a", "b"]).is_over

    def test_nobody_begins_or_chooses_a_side_after_the_end(self):
        """"Nothing is written after the end" (docs/rules-decisions.md): a finished Kuh Vadis
        pad keeps whose move it was, and The Choice's players keep their sides."""
        kv = game("kuh_vadis")
        won = kv.sheet_from_json({"pad": [". . . X . . .", ". . . x . . .", ". . . x . . .",
                                          ". . . x . . .", ". . . x . . .", ". x x x x x .",
                                          "X . . O . . X"], "to_move": "O"})
        t = Table.new(kv, ["Sarah", "Emil"], sheets=[won, won])
        assert t.is_over
        with pytest.raises(IllegalPlacement, match="the game is over"):
            t.apply(Begin(0))
        assert t.sheets[0].to_move == "O"
        choice = game("the_choice")
        done = choice.sheet_from_json({"first_side": "front", "playing": "back",
                                       "front": {"misthrows": 3}, "back": {"misthrows": 3}})
        t = Table.new(choice, ["a", "b"], sheets=[done, choice.new_sheet()])
        assert t.is_over and t.start_sides(1) == ()
        for action in (ChooseSide(1, "back"), Begin(1)):
            with pytest.raises(IllegalPlacement, match="the game is over"):
                t.apply(action)


class TestRanking:
    def test_equal_scores_share_a_rank(self):
        t = Table.new(K, ["a", "b", "c"])
        full = K.sheet_from_json({"grid": [[2, 4, 6, 9, 12], [3, 5, 11, 2, 8],
                                           [10, 12, 3, 5, 2], [4, 9, 2, 12, 10],
                                           [4, 9, 4, 4, 9]]})
        t = replace(t, sheets=(full, full, K.new_sheet()))
        ranks = [(s.rank, s.player) for s in t.standings()]
        assert ranks[0][0] == ranks[1][0] == 1 and ranks[2] == (3, "c")

    def test_scores_the_caller_has_rank_the_same(self):
        """The companion passes the scores it keeps per sheet; the ranking is the table's."""
        t = Table.new(K, ["a", "b"])
        full = K.sheet_from_json({"grid": [[2, 3, 4, 5, 6], [7, 8, 9, 10, 11], [12, 2, 3, 4, 5],
                                           [6, 7, 8, 9, 10], [11, 12, 2, 3, 4]]})
        t = replace(t, sheets=(K.new_sheet(), full))
        assert t.standings([t.score(0), t.score(1)]) == t.standings()
        assert [s.player for s in t.standings()] == ["b", "a"]
        with pytest.raises(ValueError, match="1 scores for 2 seats"):
            t.standings([t.score(0)])


class TestSaving:
    def test_actions_round_trip_through_json(self):
        for action in (RollDice(roll("orange:3 purple:2")), Place(1, placement("O5@2")),
                       Undo(2), CorrectRoll(roll("orange:4")), KeepRoll(), Begin(1)):
            assert action_from_json(json.loads(json.dumps(action_to_json(action)))) == action

    def test_malformed_actions_are_refused(self):
        for bad in ({}, {"type": "dance"}, {"type": "place", "seat": 0},
                    {"type": "roll", "roll": "orange:9"}, "roll",
                    {"type": "undo", "seat": True}, {"type": "undo", "seat": 1.9},
                    {"type": "place", "seat": "1", "placement": "pass"}):
            with pytest.raises(InvalidInput):
                action_from_json(bad)

    def test_a_saved_state_reloads_to_the_same_state(self):
        t = qwinto_table().apply(RollDice(roll("orange:3 yellow:2"))).apply(KeepRoll())
        t = t.apply(Place(1, placement("O5@2")))
        again = Table.from_json(json.loads(json.dumps(t.to_json())), t.games)
        assert again == t
        assert again.to_json() == t.to_json()

    def test_replaying_the_history_rebuilds_the_table(self):
        t = qwinto_table().apply(RollDice(roll("orange:3 yellow:2"))).apply(KeepRoll())
        t = t.apply(Place(1, placement("O5@2"))).apply(Place(0, placement("fail")))
        assert qwinto_table().replay(t.history) == t

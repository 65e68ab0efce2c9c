"""The advisor (engine/advice): its advice is legal, repeatable, finds the moves the
rules make best, and keeps its time budget (measured on an injected fake clock)."""
from __future__ import annotations

import random

import numpy as np
import pytest

from engine.advice import advise, advise_dice, colour_choices, evaluator_for
from engine.advice.core import FINISH
from engine.advice.types import FIGURES
from engine.advice.players import AdvisorPlayer, GreedyPlayer, RandomPlayer, play_game
from engine.advice.knister import (FIRST_PLAYOUTS, FURTHER_FIELDS, FURTHER_GAMES,
                                   FURTHER_OPTIONS, MAX_PLAYOUTS, PLAYOUT_OPTIONS)
from engine.advice.knister_playout import Dice
from engine.advice.twenty_one import solve_row
from engine.advice.types import LOOKED_FURTHER, NOT_LOOKED_AT, PLAYED_OUT, Budget
from engine.dice import Roll
from engine.game import OTHER, ROLLER
from engine.registry import GAMES, load_game


def positions(game, seed, count=12):
    """(sheet, roll, role) from random play on the unchecked core."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        sheet = game.new_sheet()
        for _ in range(rng.randint(0, 12)):
            roll = game.random_roll(rng)
            options = list(game.legal(sheet, roll, ROLLER))
            if not options:
                break
            sheet = game.apply_result(sheet, roll, ROLLER, rng.choice(options))
            if game.is_finished(sheet):
                break
        if game.is_finished(sheet):
            continue
        roles = [ROLLER] if game.name == "kuh_vadis" else [ROLLER, OTHER]
        out.append((sheet, game.random_roll(rng), rng.choice(roles)))
    return out


class TestAdviceIsLegal:
    @pytest.mark.parametrize("name", sorted(GAMES))
    def test_every_option_is_a_legal_placement_and_every_legal_one_is_ranked(self, name):
        game = load_game(name)
        evaluator = evaluator_for(game)
        for sheet, roll, role in positions(game, 3):
            legal = game.legal(sheet, roll, role)
            advice = advise(game, sheet, roll, role, evaluator=evaluator)
            assert len(advice.options) == len(legal)
            assert {o.placement for o in advice.options} == legal.as_set()
            # the most deeply looked at first (Knister: played out), each depth best first
            ranks = [(o.depth, o.expected) for o in advice.options if o.depth != NOT_LOOKED_AT]
            assert ranks == sorted(ranks, reverse=True)
            values = [v for _, v in ranks]
            lo, hi = game.score_bounds()
            assert all(lo - 1e-9 <= v <= hi + 1e-9 for v in values)
            assert all(o.reason for o in advice.options)

    @pytest.mark.parametrize("name", sorted(GAMES))
    @pytest.mark.parametrize("budget_ms", [None, 0.0])
    def test_every_figure_is_a_plain_number_the_apps_json_takes(self, name, budget_ms):
        """The phone's hints are sent as JSON by orjson, which takes a Python float but not
        numpy's (a Knister hint once failed whenever its further look ran): with all the
        work done (no clock) and with a budget spent at once (the figures of fields not
        looked at)."""
        import time

        import orjson
        game = load_game(name)
        evaluator = evaluator_for(game)
        budget = {} if budget_ms is None else {"budget_ms": budget_ms,
                                                "clock": time.process_time}
        for sheet, roll, role in positions(game, 5, count=6):
            advice = advise(game, sheet, roll, role, attempts_left=1 if role == ROLLER else 0,
                            evaluator=evaluator, **budget)
            figures = [o.expected for o in advice.options] + [d.expected for d in advice.dice]
            assert {type(v) for v in figures} == {float}, (name, {type(v) for v in figures})
            assert orjson.loads(orjson.dumps(advice.to_json())) == advice.to_json()

    @pytest.mark.parametrize("name", ["twenty_one", "kuh_vadis", "the_choice", "qwinto"])
    def test_dice_choices_roll_again_real_dice(self, name):
        game = load_game(name)
        evaluator = evaluator_for(game)
        for sheet, roll, _ in positions(game, 4, count=4):
            choices = advise_dice(evaluator, sheet, roll, game.max_attempts - 1)
            assert choices[0].expected == max(c.expected for c in choices)
            assert sum(c.action == "keep" for c in choices) == 1
            for c in choices:
                assert all(1 <= d <= len(roll) for d in c.dice)
                if name == "twenty_one" and c.action == "reroll":   # 1s stay
                    assert all(roll.dice[d - 1].face != 1 for d in c.dice)


class TestFigures:
    @pytest.mark.parametrize("name, players, figure", [
        ("knister", 1, "points"), ("qwinto", 3, "points"), ("the_choice", 2, "points"),
        ("kuh_vadis", 2, "chance"), ("twenty_one", 1, "points"), ("twenty_one", 3, "relative")])
    def test_the_advice_says_what_its_figures_are(self, name, players, figure):
        game = load_game(name)
        assert evaluator_for(game, players).figure == figure
        assert figure in FIGURES


class TestSeed:
    @pytest.mark.parametrize("name", sorted(GAMES))
    def test_the_same_seed_gives_the_same_advice(self, name):
        game = load_game(name)
        sheet, roll, role = positions(game, 5, count=1)[0]
        first = advise(game, sheet, roll, role, attempts_left=game.max_attempts - 1, seed=9)
        again = advise(game, sheet, roll, role, attempts_left=game.max_attempts - 1, seed=9)
        assert first.to_json() == again.to_json()

    def test_a_seeded_game_between_players_replays_exactly(self):
        game = load_game("qwinto")
        players = lambda: [AdvisorPlayer(game), GreedyPlayer(1), RandomPlayer()]  # noqa: E731
        assert play_game(game, players(), 11) == play_game(game, players(), 11)


class TestKnownBestMoves:
    def test_twenty_one_takes_the_exact_hit_that_completes_the_row(self):
        game = load_game("twenty_one", "A")      # row A: yellow 6, red 5, green 4, blue 3,
        sheet = game.sheet_from_json(            # white 2, black 1
            {"rows": [[None, 4, 3, 2, 1, 1]] + [[None] * 6] * 4})
        roll = Roll.parse("yellow:6 red:2 green:2 blue:2 white:2 black:2")
        best = advise(game, sheet, roll).best
        assert str(best.placement) == "A6@0"
        assert "exact hit" in best.reason and "completes row A" in best.reason

    def test_twenty_one_keeps_an_exact_hit_rather_than_rolling_again(self):
        game = load_game("twenty_one", "A")
        sheet = game.sheet_from_json({"rows": [[None, 5, 4, 3, 2, 1]] + [[None] * 6] * 4})
        roll = Roll.parse("yellow:6 red:2 green:2 blue:2 white:2 black:2")
        advice = advise(game, sheet, roll, attempts_left=1)
        assert advice.dice[0].action == "keep"

    def test_qwinto_writes_the_last_field_of_a_bonus_column(self):
        game = load_game("qwinto")
        # column 7: yellow 5 and purple 6 written; orange's pentagon field between 10 and 14
        sheet = game.sheet_from_json({"rows": {
            "orange": [None, None, None, 10, None, 14, None, None, None],
            "yellow": [None, None, None, None, None, 5, None, None, None],
            "purple": [None, None, None, None, None, None, 6, None, None]}})
        best = advise(game, sheet, Roll.parse("orange:6 purple:6")).best
        assert str(best.placement) == "O12@7"
        assert "completes column 7" in best.reason

    def test_qwinto_reasons_count_the_open_fields_either_side(self):
        """On an empty sheet a number written in the i-th field of its row leaves i open
        fields to its left and the rest to its right (the reason says why, the placement
        says where)."""
        game = load_game("qwinto")
        advice = advise(game, game.new_sheet(), Roll.parse("orange:1 yellow:2"))
        written = [o for o in advice.options if o.placement.marks]   # besides the failed attempt
        assert written
        for option in written:
            (mark,) = option.placement.marks
            fields = game.layout.rows[game._by_label[mark.row]].fields
            i = fields.index(mark.col)
            left = "1 open field" if i == 1 else f"{i} open fields"
            assert option.reason == f"leaves {left} to its left and {len(fields) - 1 - i} " \
                                    "to its right", option.reason

    def test_qwinto_a_crossed_out_field_earns_no_column_bonus(self):
        game = load_game("qwinto")
        # the same column 7, but yellow's 5 was erased: the column can no longer earn its bonus
        sheet = game.sheet_from_json({"rows": {
            "orange": [None, None, None, 10, None, 14, None, None, None],
            "yellow": [None, None, None, None, None, "x", None, None, None],
            "purple": [None, None, None, None, None, None, 6, None, None]}})
        advice = advise(game, sheet, Roll.parse("orange:6 purple:6"))
        assert [str(o.placement) for o in advice.options]  # ranked, no TypeError
        assert all("completes column" not in o.reason for o in advice.options)

    def test_knister_completes_the_straight_on_the_doubled_diagonal(self):
        game = load_game("knister")
        grid = [[2, 9, 9, 11, 8], [10, 3, 9, 11, 12], [10, 10, 4, 11, 12],
                [8, 8, 7, 5, 12], [3, 7, 7, 6, None]]
        sheet = game.sheet_from_json({"grid": grid})
        # one field left: a 6 there makes 2-3-4-5-6, 24 points on the diagonal
        best = advise(game, sheet, Roll.parse("3 3")).best
        assert str(best.placement) == "E6@4" and "straight without 7" in best.reason
        grid[4][4], grid[0][4] = 6, None
        sheet = game.sheet_from_json({"grid": grid})
        assert "completes" in advise(game, sheet, Roll.parse("4 4")).best.reason

    def test_kuh_vadis_marks_the_square_that_wins(self):
        game = load_game("kuh_vadis")
        sheet = game.new_sheet()
        rng = random.Random(2)
        # crosses mark the squares of a shortest path but one, circles pass
        from engine.advice.kuh_vadis import distance
        me = sheet.to_move
        while distance(sheet.owner, me, game.layout.starts[me]) > 1:
            free = [i for i, o in enumerate(sheet.owner) if o is None]
            best = min(free, key=lambda i: distance(
                sheet.owner[:i] + (me,) + sheet.owner[i + 1:], me, game.layout.starts[me]))
            owner = list(sheet.owner)
            owner[best] = me
            sheet = type(sheet)(tuple(owner), me, None)
        for _ in range(500):
            roll = game.random_roll(rng)
            wins = [p for p in game.legal(sheet, roll, ROLLER)
                    if game.winner(game.apply_result(sheet, roll, ROLLER, p)) == me]
            if wins:
                break
        best = advise(game, sheet, roll).best
        assert best.placement in wins and best.expected == 1.0
        assert "you win" in best.reason

    def test_qwinto_colour_choice_covers_every_set_of_dice(self):
        game = load_game("qwinto")
        choices = colour_choices(game, game.new_sheet())
        assert len(choices) == 7 and choices[0].expected == max(c.expected for c in choices)


class FakeClock:
    """A clock that moves on by `step` seconds every time it is read."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


class TestBudget:
    @pytest.mark.parametrize("name", sorted(GAMES))
    def test_a_spent_budget_still_ranks_every_option(self, name):
        game = load_game(name)
        sheet, roll, role = positions(game, 6, count=1)[0]
        clock = FakeClock(1.0)            # every reading is past a 1 ms budget
        advice = advise(game, sheet, roll, role, attempts_left=game.max_attempts - 1,
                        budget_ms=1, clock=clock)
        assert len(advice.options) == len(game.legal(sheet, roll, role))
        assert advice.best.depth != NOT_LOOKED_AT
        if game.max_attempts > 1 and role == ROLLER:     # the dice choices too
            assert advice.dice and sum(c.action == "keep" for c in advice.dice) == 1
        assert clock.now < 200         # it stopped reading the clock soon after

    def test_more_budget_looks_deeper(self):
        game = load_game("knister")
        sheet, roll, role = positions(game, 7, count=1)[0]
        short = advise(game, sheet, roll, role, budget_ms=1, clock=FakeClock(1.0))
        long = advise(game, sheet, roll, role, budget_ms=10_000, clock=FakeClock(1e-6))
        assert sum(o.depth for o in long.options) > sum(o.depth for o in short.options)

    def test_the_dice_choices_stop_sampling_when_the_budget_is_spent(self):
        game = load_game("the_choice")
        evaluator = evaluator_for(game)
        sheet, roll, _ = positions(game, 8, count=1)[0]
        choices = advise_dice(evaluator, sheet, roll, 1, budget=Budget(0.001, FakeClock(1.0)))
        assert len(choices) == 8            # keep, or any 1, 2 or 3 of the dice again
        assert choices[0].expected == max(c.expected for c in choices)


    def test_the_dice_choices_start_no_outcome_that_would_end_past_the_budget(self):
        """The Choice's outcomes take milliseconds each: sampling stops while the time left
        is less than the last one took and the time kept for the answer (`FINISH`), so the
        call ends within its budget (once the first round, which gives every choice its
        outcomes, is done)."""
        game = load_game("the_choice")
        evaluator = evaluator_for(game)
        sheet, roll, _ = positions(game, 8, count=1)[0]
        clock = ManualClock()
        value = evaluator.roll_value

        def slow_value(*args):            # each outcome takes 7 ms of the clock
            clock.now += 0.007
            return value(*args)

        evaluator.roll_value = slow_value
        for seconds in (1.5, 1.8, 2.3):         # all the outcomes would take 2.4 s
            clock.now = 0.0
            advise_dice(evaluator, sheet, roll, 1, budget=Budget(seconds, clock))
            assert seconds - 0.007 - FINISH <= clock.now <= seconds - FINISH + 1e-9


class ManualClock:
    """A clock that reads `now`, moved on by the code under test."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class TestKnisterPlayouts:
    """The best fields for a Knister sum are compared by games played to the end."""

    GRID = [[2, 9, 9, 11, 8], [10, 3, 9, 11, 12], [10, 10, 4, 11, 12],
            [8, 8, 7, 5, 12], [3, 7, 7, 6, None]]

    def test_a_playout_fills_every_empty_field_and_scores_the_grid_by_the_rules(self):
        game = load_game("knister")
        values = evaluator_for(game).values
        grid = [row[:] for row in self.GRID]
        grid[0][1] = grid[2][3] = None
        states, filled = values.codes(grid)
        assert np.flatnonzero(~filled).tolist() == [1, 13, 24]
        sums = [6, 4, 11]
        scores = set()
        for order in ([6, 4, 11], [6, 11, 4], [4, 6, 11], [4, 11, 6], [11, 6, 4], [11, 4, 6]):
            for f, v in zip([1, 13, 24], order):
                grid[f // 5][f % 5] = v
            scores.add(game.score(game.sheet_from_json({"grid": grid})).total)
        _, played = values.play(np.array([sums]), states[None], filled[None])
        assert played[0] in scores
        # one field left: the sum goes there
        grid = [row[:] for row in self.GRID]
        states, filled = values.codes(grid)
        grid[4][4] = 6
        assert values.play(np.array([[6]]), states[None], filled[None])[1][0] == \
            game.score(game.sheet_from_json({"grid": grid})).total

    def test_each_sum_goes_where_the_grid_is_then_worth_most(self):
        """Greedy play by the stage values, checked against the values recomputed field
        by field from the grid in plain Python."""
        game = load_game("knister")
        values = evaluator_for(game).values
        lines = [cells for _, _, cells in game._lines]

        def worth(k, grid):
            return values.constant[k] + sum(
                values.line_value(k, i, tuple(v for r, c in cells
                                              if (v := grid[r][c]) is not None))
                for i, cells in enumerate(lines))

        rng = random.Random(5)
        for case in range(12):
            start = [[None] * 5 for _ in range(5)]
            for f in rng.sample(range(25), rng.randint(0, 22)):
                start[f // 5][f % 5] = rng.randint(2, 12)
            states, filled = values.codes(start)
            sums = Dice(str(case), 25 - int(filled.sum())).first(3)
            _, together = values.play(sums, np.array([states] * 3), np.array([filled] * 3))
            for g in range(3):
                record, alone = values.play(sums[g:g + 1], states[None], filled[None],
                                            record=True)
                assert alone[0] == together[g]          # a batch plays each game alone
                grid = [row[:] for row in start]
                for step, v in enumerate(sums[g].tolist()):
                    k = 25 - len(sums[g]) + step
                    written = record[step][1][0]
                    now = record[step + 1][1][0] if step + 1 < len(record) else ~written
                    (chosen,) = np.flatnonzero(now & ~written)
                    options = {}
                    for f in np.flatnonzero(~written):
                        grid[f // 5][f % 5] = v
                        options[f] = worth(k + 1, grid)
                        grid[f // 5][f % 5] = None
                    assert options[chosen] >= max(options.values()) - 1e-9
                    grid[chosen // 5][chosen % 5] = v
                assert alone[0] == game.score(game.sheet_from_json({"grid": grid})).total

    def test_games_played_in_parts_are_the_games_played_alone(self):
        """`play` plays large batches in parts (`PART` games at a time): splitting a batch
        anywhere, or recording the grids, changes no game."""
        from engine.advice.knister_values import PART
        values = evaluator_for(load_game("knister")).values
        sums = Dice("parts", 25).first(PART + 300)
        record, whole = values.play(sums, record=True)
        _, head = values.play(sums[:7])
        _, tail = values.play(sums[7:])
        assert (whole == np.concatenate([head, tail])).all()
        assert (values.play(sums)[1] == whole).all()
        assert len(record) == 25 and all(len(s) == len(f) == PART + 300 for s, f in record)
        last_states, last_filled = record[-1]
        assert (last_filled.sum(axis=1) == 24).all()
        _, alone = values.play(sums[-1:, -1:], last_states[-1:], last_filled[-1:])
        assert alone[0] == whole[-1]

    def test_the_value_of_an_empty_grid_is_the_points_its_games_average(self):
        """The figures the hints show are final points: an empty grid's value is what
        greedy games by the same values score on average."""
        values = evaluator_for(load_game("knister")).values
        sums = Dice("calibration", 25).first(4000)
        _, scores = values.play(sums)
        empty = values.value(0, np.zeros((1, 12), dtype=np.intp))[0]
        assert abs(empty - scores.mean()) < 1.5, (empty, scores.mean())
        assert scores.mean() > 63          # the random-fill line values alone reach 57

    def test_tables_of_the_wrong_shape_are_refused(self):
        from engine.advice.knister_values import StageValues
        with pytest.raises(ValueError, match="shape"):
            StageValues(load_game("knister"), np.zeros((25, 2, 1365)), np.zeros(26))

    def test_the_nth_sequence_of_sums_is_the_same_however_many_are_drawn(self):
        stepwise, at_once = Dice("3:7", 18), Dice("3:7", 18)
        stepwise.first(3), stepwise.first(5)
        drawn = at_once.first(40)
        assert (stepwise.first(40) == drawn).all()
        assert drawn.shape == (40, 18) and drawn.min() >= 2 and drawn.max() <= 12
        assert not (Dice("4:7", 18).first(2) == drawn[:2]).all()
        # each sum comes up about as often as two dice make it
        counts = np.bincount(Dice("5:0", 25).first(4000).ravel(), minlength=13)[2:] / 1e5
        assert np.abs(counts * 36 - [1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1]).max() < 0.15

    def test_the_doubled_diagonal_straight_is_completed_with_fields_to_spare(self):
        game = load_game("knister")
        grid = [row[:] for row in self.GRID]
        grid[0][1] = grid[1][2] = grid[3][0] = None
        # 2 3 4 5 on the diagonal: a 6 in E4 makes 24 points
        advice = advise(game, game.sheet_from_json({"grid": grid}), Roll.parse("3 3"))
        assert str(advice.best.placement) == "E6@4" and advice.best.depth == LOOKED_FURTHER
        assert "straight without 7" in advice.best.reason

    def test_the_best_fields_are_played_out_and_listed_first(self):
        game = load_game("knister")
        sheet, roll, role = positions(game, 11, count=1)[0]
        advice = advise(game, sheet, roll, role)
        played = [o for o in advice.options if o.depth >= PLAYED_OUT]
        n = PLAYOUT_OPTIONS
        assert len(played) == n and advice.options[:n] == tuple(played)
        # the best few of them looked at once more, the next sum placed by games too
        assert [o.depth for o in played] == ([LOOKED_FURTHER] * FURTHER_OPTIONS
                                             + [PLAYED_OUT] * (n - FURTHER_OPTIONS))
        assert all(o.depth < PLAYED_OUT for o in advice.options[n:])

    def test_with_two_fields_left_after_the_advised_one_the_games_alone_rank(self):
        """The further look is made while at least 3 fields are left after the advised
        one (the diagonal test above: 3 left, looked at further)."""
        game = load_game("knister")
        grid = [row[:] for row in self.GRID]
        grid[0][1] = grid[1][2] = None
        advice = advise(game, game.sheet_from_json({"grid": grid}), Roll.parse("3 3"))
        assert {o.depth for o in advice.options} == {PLAYED_OUT}

    def test_the_further_look_can_be_turned_off(self):
        game = load_game("knister")
        sheet, roll, role = positions(game, 11, count=1)[0]
        evaluator = evaluator_for(game)
        evaluator.further_options = 0
        advice = advise(game, sheet, roll, role, evaluator=evaluator)
        assert [o.depth for o in advice.options[:PLAYOUT_OPTIONS]] == \
            [PLAYED_OUT] * PLAYOUT_OPTIONS

    def test_a_sum_written_moves_only_the_lines_through_its_field(self):
        """`StageValues.written`, which the further look starts its games from, gives
        the line codes of the grid with the sum written in it."""
        values = evaluator_for(load_game("knister")).values
        rng = random.Random(5)
        grids, fields, sums = [], [], []
        for _ in range(200):
            grid = [[rng.choice([None, *range(2, 13)]) for _ in range(5)] for _ in range(5)]
            empty = [(r, c) for r in range(5) for c in range(5) if grid[r][c] is None]
            if not empty:
                continue
            r, c = rng.choice(empty)
            grids.append(grid)
            fields.append(5 * r + c)
            sums.append(rng.randint(2, 12))
        states = np.array([values.codes(g)[0] for g in grids])
        got = values.written(states, np.array(fields), np.array(sums) - 2)
        for grid, field, v, codes in zip(grids, fields, sums, got):
            grid[field // 5][field % 5] = v
            assert (codes == values.codes(grid)[0]).all()

    def test_the_games_played_stop_when_the_budget_is_spent(self):
        game = load_game("knister")
        sheet, roll, role = positions(game, 12, count=1)[0]
        ranked = [(0.0, 2, p, game.apply_result(sheet, roll, role, p))
                  for p in game.legal(sheet, roll, role)]
        counts = []
        for seconds, step in ((0.001, 1.0), (10.0, 1e-6)):
            evaluator = evaluator_for(game)
            play, games = evaluator.values.play, []
            evaluator.values.play = lambda *a: games.append(len(a[0])) or play(*a)
            again = evaluator.play_out(sheet, ranked, 0, Budget(seconds, FakeClock(step)))
            n = PLAYOUT_OPTIONS
            assert all(t[1] >= PLAYED_OUT for t in again[:n])
            assert {t[2] for t in again} == {t[2] for t in ranked}
            counts.append(sum(games))
        # a spent budget: one round for each field compared, no further look; a long one:
        # up to the cap, then the further look's games
        further = FURTHER_OPTIONS * 11 * FURTHER_FIELDS * FURTHER_GAMES
        assert counts == [n * FIRST_PLAYOUTS, n * MAX_PLAYOUTS + further]


class TestGames:
    @pytest.mark.parametrize("name", sorted(GAMES))
    def test_advisor_games_end_with_scores_in_bounds(self, name):
        game = load_game(name)
        players = [AdvisorPlayer(game), GreedyPlayer(1)]
        lo, hi = game.score_bounds()
        assert all(lo <= s <= hi for s in play_game(game, players, 1))


@pytest.mark.parametrize("players", [1, 3])
def test_the_shipped_twenty_one_row_values_are_the_solved_ones(players):
    game = load_game("twenty_one")
    evaluator = evaluator_for(game, players)
    F, R = solve_row((6, 5, 4, 3, 2, 1), game.layout.exact_hit_bonus, evaluator.turn_cost)
    shipped_F, shipped_R = evaluator.rows[0]
    assert shipped_F.keys() == F.keys() and shipped_R.keys() == R.keys()
    assert all(abs(shipped_F[k] - F[k]) < 1e-3 for k in F)
    assert all(abs(shipped_R[k] - R[k]) < 1e-3 for k in R)


def test_twenty_one_at_a_table_writes_more_at_once_than_alone():
    # the same roll: alone the advisor may wait for exact hits, at a table each turn
    # a row still needs costs points, so it writes at least as many numbers
    game = load_game("twenty_one", "A")
    rng = random.Random(12)
    more = 0
    for _ in range(40):
        sheet, roll = game.new_sheet(), game.random_roll(rng)
        alone = advise(game, sheet, roll, players=1).best.placement
        table = advise(game, sheet, roll, players=3).best.placement
        assert len(table.marks) >= len(alone.marks) or table.kind != alone.kind
        more += len(table.marks) > len(alone.marks)
    assert more > 0

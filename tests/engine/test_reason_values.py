"""Refusals, rule problems and score lines are values: a code with parameters whose text is
the English sentence (`engine.reasons.Reason`)."""
import pickle

import pytest

from engine.dice import Roll
from engine.errors import IllegalPlacement
from engine.placement import Placement
from engine.reasons import TEMPLATES, Reason, code_of, declare, fields
from engine.registry import GAMES, load_game
from engine.table import RollDice, Table


class TestReasonValue:
    def test_text_is_the_english_sentence(self):
        r = Reason("game.sum", total=7, v=9)
        assert r == "the dice add up to 7, not 9" and r.code == "game.sum"
        assert r.params == {"total": 7, "v": 9}

    def test_str_and_an_exception_keep_the_code(self):
        r = Reason("game.sum", total=7, v=9)
        assert code_of(str(r)) == "game.sum"
        assert code_of(str(IllegalPlacement(r))) == "game.sum"
        assert code_of("the dice add up to 7, not 9") is None

    def test_pickles_with_its_code(self):
        r = pickle.loads(pickle.dumps(Reason("table.answered", name="Ann")))
        assert r == "Ann has already answered this roll" and r.code == "table.answered"

    def test_unknown_code_is_an_error(self):
        with pytest.raises(KeyError, match="no reason 'no.such'"):
            Reason("no.such")

    def test_a_code_declared_twice_with_another_text_is_an_error(self):
        with pytest.raises(ValueError, match="declared twice"):
            declare({"game.sum": "something else"})


class TestEveryGameSpeaksInReasons:
    @pytest.mark.parametrize("name", sorted(GAMES))
    def test_templates_have_named_fields_only(self, name):
        load_game(name)
        for code, template in TEMPLATES.items():
            assert all(f.isidentifier() for f in fields(template)), code

    def test_a_refusal_through_the_table_is_a_reason(self):
        table = Table.new(load_game("qwinto"), ["Ann"]).apply(RollDice(Roll.parse("orange:3")))
        with pytest.raises(IllegalPlacement) as exc:
            table.game.play(table.sheets[0], table.roll, "roller", Placement.parse("O4@3"))
        reason = exc.value.args[0]
        assert isinstance(reason, Reason) and reason.code == "game.sum"
        assert reason.params == {"total": 3, "v": 4}

    def test_score_lines_are_reasons(self):
        game = load_game("qwinto")
        line = game.score(game.new_sheet()).lines[0]
        assert line.label.code == "qwinto.l_row" and line.label == "orange row"

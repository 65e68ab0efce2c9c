"""Sheet layouts are data: every shipped one loads, RECON ones say so, bad ones are
refused with the reason, and a user's own layout works like a shipped one."""
import copy

import pytest

from engine.errors import InvalidLayout
from engine.layouts import builtin_layout_data, builtin_layout_names
from engine.registry import GAMES, load_game

from engine_helpers import roll, shown


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_builtin_layout_loads(name):
    names = builtin_layout_names(name)
    assert names
    for layout in names:
        assert load_game(name, layout).layout.info.name == layout


def test_confidence_marks_follow_sheets_md():
    assert load_game("qwinto").layout.info.confidence == "H"
    assert load_game("knister").layout.info.confidence == "H"
    assert builtin_layout_names("twenty_one") == list("ABCDEF")
    assert all(load_game("twenty_one", s).layout.info.is_recon for s in "ABCDEF")


def test_twenty_one_sheets_differ_only_in_colours():
    rows = [builtin_layout_data("twenty_one", s)["rows"] for s in "ABCDEF"]
    assert all(r["numbers"] == [6, 5, 4, 3, 2, 1] for sheet in rows for r in sheet)
    assert len({tuple(sheet[0]["colours"]) for sheet in rows}) == 6


class TestRefusedLayouts:
    def qwinto(self, **change):
        data = builtin_layout_data("qwinto", "standard")
        data.update(change)
        return data

    def test_wrong_game(self):
        with pytest.raises(InvalidLayout, match="this layout is for 'knister', not 'qwinto'"):
            GAMES["qwinto"].parse_layout(builtin_layout_data("knister", "standard"))

    def test_unknown_confidence(self):
        with pytest.raises(InvalidLayout, match="'confidence' must be one of"):
            GAMES["qwinto"].parse_layout(self.qwinto(confidence="sure"))

    def test_qwinto_column_without_pentagon(self):
        data = self.qwinto()
        data["rows"][0]["pentagons"] = [7]
        with pytest.raises(InvalidLayout, match="3-field column 3 needs exactly one pentagon"):
            GAMES["qwinto"].parse_layout(data)

    def test_qwinto_missing_field(self):
        data = self.qwinto()
        del data["rows"]
        with pytest.raises(InvalidLayout, match="missing or bad field"):
            GAMES["qwinto"].parse_layout(data)

    def test_twenty_one_row_without_every_colour(self):
        data = builtin_layout_data("twenty_one", "A")
        data["rows"][2]["colours"][0] = "pink"
        with pytest.raises(InvalidLayout, match="row C must hold each of"):
            GAMES["twenty_one"].parse_layout(data)

    def test_knister_wrong_size(self):
        data = builtin_layout_data("knister", "standard")
        data["size"] = 6
        with pytest.raises(InvalidLayout, match="5x5"):
            GAMES["knister"].parse_layout(data)

    def test_unknown_builtin_name(self):
        with pytest.raises(InvalidLayout, match="no built-in layout 'Z'.*A, B, C, D, E, F"):
            load_game("twenty_one", "Z")


def test_a_users_own_twenty_one_sheet_is_used(tmp_path):
    data = builtin_layout_data("twenty_one", "A")
    mine = copy.deepcopy(data)
    mine["name"] = "my pad"
    mine["rows"][0]["colours"] = ["black", "white", "red", "blue", "yellow", "green"]
    game = load_game("twenty_one", mine)
    # black now sits on the 6: a black 6 is an exact hit in the first field
    assert "A6@0" in shown(game.legal(game.new_sheet(),
                                      roll("white:1 black:6 red:1 blue:1 yellow:1 green:1")))

"""A new game is an engine module, its layouts and its catalogue entries: a toy game made in
this test (a `Game` subclass, one layout as data, German templates for its codes), registered
with `engine.registry.register`, is playable through the web API: a table, a roll, a
placement, a refusal in German, a score. Its die has a symbol face (a star where the five pips
would be), declared by the game alone: a person types it, the teaching page lists it and the
camera names it."""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest

from companion.reasons import CATALOGUE
from engine import registry
from engine.dice import DiceSpec, Die, DieKind, Roll, Symbol
from engine.game import Game, as_list, require
from engine.layouts import LayoutInfo, read_info, whole
from engine.placement import ENTER, Mark, Placement, Score, ScoreLine
from engine.reasons import TEMPLATES, Reason

ENGLISH = {
    "toy.dice": "Tally is rolled with one plain die, not {n}",
    "toy.one": "Tally writes the die's face into one field",
    "toy.face": "the die shows {f}, not {v}",
    "toy.taken": "field {p} already holds {v}",
    "toy.no_field": "there is no field {p}: the fields are 0-{n}",
    "toy.l_total": "all fields",
}
GERMAN = {
    "toy.dice": "Tally wird mit einem Würfel gewürfelt, nicht mit {n}",
    "toy.one": "bei Tally kommt die Augenzahl in ein Feld",
    "toy.face": "der Würfel zeigt {f}, nicht {v}",
    "toy.taken": "in Feld {p} steht schon {v}",
    "toy.no_field": "es gibt kein Feld {p}: die Felder sind 0-{n}",
    "toy.l_total": "alle Felder",
}
LAYOUT = {"game": "tally", "name": "four", "confidence": "H", "fields": 4}
FACES = (1, 2, 3, 4, 6, "star")      # the star is printed on the die's fifth face


@dataclass(frozen=True)
class TallyLayout:
    info: LayoutInfo
    fields: int

    @classmethod
    def parse(cls, data: Any) -> "TallyLayout":
        info = read_info(data, "tally")
        return cls(info, whole(data.get("fields"), "'fields'", 1, 9))


class Tally(Game):
    """Roll one die, write its face into a free field of one row; the sum is the score (a star
    counts nothing)."""

    name, title = "tally", "Tally"
    min_players, max_players, max_attempts = 1, 4, 1
    parse_layout = staticmethod(TallyLayout.parse)

    def new_sheet(self):
        return (None,) * self.layout.fields

    def sheet_to_json(self, sheet) -> dict:
        return {"layout": self.layout.info.name, "fields": list(sheet)}

    def sheet_from_json(self, data):
        require(isinstance(data, dict), "a Tally sheet is a JSON object")
        return tuple(as_list(data.get("fields"), self.layout.fields, "'fields'"))

    def problems(self, sheet):
        return []

    def dice_spec(self) -> DiceSpec:
        return DiceSpec((DieKind(None, FACES),), 1, 1, repeat_colours=False,
                        symbols=(Symbol("star", 5),))

    def roll_problem(self, roll):
        return None if len(roll) == 1 and roll.faces[0] in FACES else \
            Reason("toy.dice", n=len(roll))

    def reroll_problem(self, first, second):
        return self.roll_problem(second)

    def random_roll(self, rng: random.Random, previous=None) -> Roll:
        return Roll([Die(None, rng.choice(FACES))])

    def _legal(self, sheet, roll, role):
        return [Placement.of(Mark("A", p, roll.faces[0])) for p, v in enumerate(sheet)
                if v is None]

    def apply(self, sheet, placement):
        (mark,) = placement.marks
        return sheet[:mark.col] + (mark.value,) + sheet[mark.col + 1:]

    def why_illegal(self, sheet, roll, role, placement):
        if placement.kind != ENTER or len(placement.marks) != 1:
            return Reason("toy.one")
        (mark,) = placement.marks
        if mark.row != "A" or not 0 <= mark.col < len(sheet):
            return Reason("toy.no_field", p=mark.col, n=len(sheet) - 1)
        if mark.value != roll.faces[0]:
            return Reason("toy.face", f=roll.faces[0], v=mark.value)
        if sheet[mark.col] is not None:
            return Reason("toy.taken", p=mark.col, v=sheet[mark.col])
        return None

    def score(self, sheet, final: bool = False) -> Score:
        return Score([ScoreLine(Reason("toy.l_total"),
                                sum(v for v in sheet if isinstance(v, int)))])

    def is_finished(self, sheet) -> bool:
        return None not in sheet

    def score_bounds(self):
        return 0, 6 * self.layout.fields

    def grid(self, data: dict) -> dict:
        return {"columns": self.layout.fields, "extras": [], "rows": [
            {"label": "A", "colour": None, "cells": [
                {"row": "A", "col": p, "value": v, "colour": None, "printed": None,
                 "shape": "square"} for p, v in enumerate(data["fields"])]}]}

    def sheet_from_grid(self, data: dict, cells: dict, extras: dict) -> dict:
        data["fields"] = [cells.get(f"A@{p}") for p in range(self.layout.fields)]
        return data

    def cell_value(self, cell, roll):
        return roll.faces[0]


class _Seen:
    """What the pip reader hands on for a frame: one die with `pips` pips up."""

    def __init__(self, pips):
        from vision.dice import Die as VisionDie
        self.dice = (VisionDie((20, 20, 60, 60), pips, 0.95, "white", 0.9, (250, 250, 250), 0.9),)


@pytest.fixture
def tally(monkeypatch):
    registry.register(Tally, {"four": LAYOUT})
    for code, text in ENGLISH.items():      # the module's `declare`, undone after the test
        monkeypatch.setitem(TEMPLATES, code, text)
    for code, text in GERMAN.items():
        monkeypatch.setitem(CATALOGUE, code, text)
    yield
    registry.unregister("tally")


def act(client, code, **action):
    return client.post(f"/api/tables/{code}/actions", json=action)


def test_a_toy_game_is_played_through_the_web_api(client, tally):
    assert "tally" in [g["name"] for g in client.get("/api/games").json["games"]]
    info = client.get("/api/games/tally").json
    assert info["default_layout"] == "four" and info["dice"]["max_dice"] == 1
    r = client.post("/api/tables", json={"game": "tally", "players": ["Ann"], "claim": 0})
    assert r.status_code == 201, r.json
    code = r.json["code"]
    state = act(client, code, type="roll", roll="4").json
    assert state["me"]["seats"]["0"]["legal"] == ["A4@0", "A4@1", "A4@2", "A4@3"]
    assert [c["col"] for c in state["players"][0]["view"]["rows"][0]["cells"]] == [0, 1, 2, 3]
    state = act(client, code, type="place", seat=0, placement="A4@2").json
    assert state["players"][0]["sheet"]["fields"] == [None, None, 4, None]
    act(client, code, type="roll", roll="6")
    refused = client.post(f"/api/tables/{code}/actions?lang=de",
                          json={"type": "place", "seat": 0, "placement": "A6@2"})
    assert refused.status_code == 409
    assert refused.json == {"error": "in Feld 2 steht schon 4", "code": "toy.taken"}
    why = client.get(f"/api/tables/{code}?lang=de").json["me"]["seats"]["0"]["reasons"]
    assert why == {"A@2": "in Feld 2 steht schon 4"}
    state = client.post(f"/api/tables/{code}/actions?lang=en",
                        json={"type": "place", "seat": 0, "placement": "A6@0"}).json
    score = state["players"][0]["score"]
    assert score["total"] == 10 and score["lines"][0]["label"] == "all fields"
    german = client.get(f"/api/tables/{code}?lang=de").json["players"][0]["score"]
    assert german["lines"][0]["label"] == "alle Felder"
    for face, field in ((1, 1), (2, 3)):
        act(client, code, type="roll", roll=str(face))
        state = act(client, code, type="place", seat=0, placement=f"A{face}@{field}").json
    assert state["is_over"] and state["standings"][0]["total"] == 13


def test_the_toy_game_is_gone_after_the_test():
    assert "tally" not in registry.GAMES


def test_the_toy_games_symbol_face_is_taught_and_read_by_its_declaration(tally, tmp_path,
                                                                         make_table):
    """The die's star, declared by the game on its fifth face: the teaching page teaches the
    star among the faces, and a camera frame in which the pip reader counts five pips is read as
    the star (a roll of the game), a frame with six pips as a 6."""
    cv2 = pytest.importorskip("cv2")
    np = pytest.importorskip("numpy")
    from companion.app import create_app
    from companion.reader import TableReader
    pips = []
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "toy.sqlite"),
                      "VISION_AT_START": False,
                      "READER_FACTORY": lambda palette, faces, frames, symbols: TableReader(
                          palette, faces, frames, symbols=symbols,
                          reader=lambda image: _Seen(pips[-1]))})
    client = app.test_client()
    code = make_table(client, game="tally", players=("Ann",))
    teach = client.get(f"/api/tables/{code}/teach").json
    assert teach["faces"] == [1, 2, 3, 4, 6, "star"] and teach["colours"] is None
    assert teach["body_colours"] is None
    frame = cv2.imencode(".png", np.full((120, 160, 3), 90, np.uint8))[1].tobytes()
    for seen, face, roll in ((5, "star", "star"), (6, 6, "6")):
        pips.append(seen)
        read = client.post(f"/api/tables/{code}/frame", data=frame,
                           content_type="image/png").json
        assert read["dice"] == [{"colour": None, "face": face, "box": [20, 20, 60, 60],
                                 "confidence": 0.95, "check": False}], read
        assert read["roll"] == roll and read["problem"] is None
        assert read["legal"][0] == f"A{face}@0"


def test_the_toy_games_symbol_is_typed_by_its_declared_name(client, tally):
    """A roll typed or tapped for the toy game takes its star by name, and the star is written
    on the sheet; Kuh Vadis' cow is not a face of its die (the words come from the declaration)."""
    code = client.post("/api/tables", json={"game": "tally", "players": ["Ann"],
                                            "claim": 0}).json["code"]
    state = act(client, code, type="roll", roll="star").json
    assert state["me"]["seats"]["0"]["legal"][0] == "Astar@0"
    state = act(client, code, type="place", seat=0, placement="Astar@0").json
    assert state["players"][0]["sheet"]["fields"] == ["star", None, None, None]
    state = act(client, code, type="roll", roll=[{"colour": None, "face": "star"}]).json
    assert state["me"]["seats"]["0"]["legal"][0] == "Astar@1"
    refused = act(client, code, type="correct", roll="cow")
    assert refused.status_code == 400
    assert refused.json["error"] == "'cow' is not a die face (a number or 'star')"
    assert client.get(f"/api/tables/{code}").json["roll"] == [{"colour": None, "face": "star"}]

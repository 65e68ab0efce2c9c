"""German pages show the engine's reasons, problems and score lines in German.

The engine writes English sentences; `companion.reasons` matches each against its catalogue
(code + template) and fills the German template. These tests drive the API in German for
each of the five games, check that a sentence the catalogue does not know stays English
(never an error), and play random games of every game to check that every sentence the
pages would show has a catalogue entry (so a changed engine wording fails here).
"""
import random

import pytest

from companion import games as G
from companion.reasons import CATALOGUE, WORDS, explain, render, translate
from engine.placement import ENTER, Mark, Placement
from engine.reasons import Reason
from engine.registry import load_game
from engine.simulate import random_turn
from engine.table import Table

GAMES = ("qwinto", "knister", "twenty_one", "kuh_vadis", "the_choice")
DE = {"Accept-Language": "de-DE,de;q=0.9"}
# words that show a German sentence was made (none of them is English)
GERMAN = ("ü", "ö", "ä", "ß", "Würfel", "Reihe", "Feld", "Spalte", "nicht", "ist", "sind",
          "Zahl", "Farbe", "Kreuz", "Kreis", "Seite", "Summe", "eine", "zeigt", "Linie", "Punkt",
          "Kombination", "Treffer", "angekreuzt", "Bonus", "Fehlwürfe")


def german(text: str) -> bool:
    return any(w in text for w in GERMAN)


def english_words(text: str) -> bool:
    return any(f" {w} " in f" {text} " for w in ("the", "must", "not", "row", "column",
                                                 "dice", "shows", "colour", "space"))


def _first_roll_with_marks(client, code, game_name):
    """Roll (seeded) until seat 0 has a placement that writes marks; returns the state."""
    game = load_game(game_name)
    rng = random.Random(7)
    for _ in range(60):
        roll = game.random_roll(rng)
        r = client.post(f"/api/tables/{code}/actions", json={"type": "roll", "roll": str(roll)},
                        headers=DE)
        assert r.status_code == 200, r.json
        opts = r.json["me"]["seats"]["0"]
        if any(p not in ("pass", "fail", "cross", "misthrow") for p in opts["legal"]):
            return r.json
        # nothing to write for seat 0 on this roll: answer and let the next turn start
        for seat in r.json["pending"]:
            legal = r.json["me"]["seats"][str(seat)]["legal"]
            client.post(f"/api/tables/{code}/actions",
                        json={"type": "place", "seat": seat, "placement": legal[0]})
    raise AssertionError(f"{game_name}: no roll with marks for seat 0")


def _wrong(mark: Mark, game_name: str) -> Placement:
    """The first legal mark with a value the roll cannot give there."""
    if isinstance(mark.value, int):
        value = mark.value + 40 if game_name != "twenty_one" else (mark.value % 6) + 1
    elif game_name == "the_choice":
        value = next(c for c in WORDS["de"]["c"] if c != mark.value and c not in
                     ("orange", "white", "black"))
    else:
        value = 3
    return Placement.of(Mark(mark.row, mark.col, value))


class TestGermanApi:
    @pytest.mark.parametrize("game_name", GAMES)
    def test_refusal_reason_and_score_lines_in_german(self, client, make_table, game_name):
        code = make_table(client, game=game_name, players=("Ann", "Bob"))
        state = _first_roll_with_marks(client, code, game_name)
        legal = [Placement.parse(p) for p in state["me"]["seats"]["0"]["legal"]]
        mark = next(p for p in legal if p.kind == ENTER).marks[0]
        wrong = _wrong(mark, game_name)
        r = client.post(f"/api/tables/{code}/actions",
                        json={"type": "place", "seat": 0, "placement": str(wrong)}, headers=DE)
        assert r.status_code == 409
        assert german(r.json["error"]) and not english_words(r.json["error"]), r.json
        assert r.json["code"] in CATALOGUE
        # the same refusal in English is the engine's own sentence, with the same code
        en = client.post(f"/api/tables/{code}/actions?lang=en",
                         json={"type": "place", "seat": 0, "placement": str(wrong)})
        assert en.status_code == 409 and en.json["code"] == r.json["code"]
        assert en.json["error"] != r.json["error"]
        # "why not" on a tapped field
        why = client.post(f"/api/tables/{code}/why?lang=de",
                          json={"seat": 0, "placement": str(wrong)})
        assert why.json["legal"] is False and why.json["reason"] == r.json["error"]
        # write a legal entry so that every game has a score line, then read in German
        client.post(f"/api/tables/{code}/actions?lang=de",
                    json={"type": "place", "seat": 0, "placement": str(legal[-1])})
        state = client.get(f"/api/tables/{code}?lang=de").json
        lines = [line for p in state["players"] for line in p["score"]["lines"]]
        if game_name == "knister":     # lines score only when full: check a full sheet
            lines = self._knister_full_lines(client)
        elif not lines:                # twenty one: rows score when full or at the end
            me = state["players"][0]
            r = client.post("/api/check?lang=de", json={
                "game": game_name, "layout": me["layout"]["name"], "sheet": me["sheet"],
                "final": True})
            assert r.status_code == 200, r.json
            lines = r.json["score"]["lines"]
        assert lines, game_name
        for line in lines:
            assert explain(translate(line["label"], "en")) or True
            assert german(line["label"] + " " + line["detail"]), line
        for reason in state["me"]["seats"]["0"]["reasons"].values():
            assert german(reason) and not english_words(reason), reason

    @staticmethod
    def _knister_full_lines(client):
        cells = {f"{'ABCDE'[r]}@{c}": 2 + (r * 5 + c) % 11 for r in range(5) for c in range(5)}
        r = client.post("/api/check?lang=de", json={"game": "knister", "cells": cells})
        assert r.status_code == 200, r.json
        return r.json["score"]["lines"]

    def test_english_pages_keep_the_engine_text(self, client, make_table):
        code = make_table(client)
        client.post(f"/api/tables/{code}/actions", json={"type": "roll",
                                                        "roll": "orange:3 yellow:4"})
        r = client.post(f"/api/tables/{code}/actions?lang=en",
                        json={"type": "place", "seat": 0, "placement": "Y9@4"})
        assert r.status_code == 409 and r.json["error"] == "the dice add up to 7, not 9"
        assert r.json["code"] == "game.sum"

    def test_check_my_paper_problems_in_german(self, client):
        r = client.post("/api/check", headers=DE, json={
            "game": "qwinto", "sheet": {"rows": {"orange": [None, 9, None, 5] + [None] * 5,
                                                 "yellow": [None] * 9, "purple": [None] * 9},
                                        "failed_attempts": 0}})
        assert r.status_code == 200, r.json
        assert r.json["problems"] and all(german(p) for p in r.json["problems"])
        assert all(german(line["label"]) for line in r.json["score"]["lines"])

    def test_a_printed_start_written_over_in_german(self, client):
        r = client.post("/api/check", headers=DE, json={"game": "kuh_vadis", "cells": {"A@3": "o"},
                                                        "extras": {"to_move": "X"}})
        assert "auf A3 ist ein Start-Kreuz gedruckt: dort kann nichts eingetragen werden" \
            in r.json["problems"], r.json
        assert translate(Reason("kuh_vadis.start", sq="A0", pm="circle"), "de") == \
            "auf A0 ist ein Start-Kreis gedruckt"

    @pytest.mark.parametrize("game, cells", [("qwinto", {"Y@3": "a"}), ("knister", {"A@0": "x"})])
    def test_a_letter_typed_into_check_my_paper_in_german(self, client, game, cells):
        r = client.post("/api/check", headers=DE, json={"game": game, "cells": cells})
        assert r.status_code == 400 and "eine Zahl eintragen" in r.json["error"], r.json
        assert "das Feld leer lassen" in r.json["error"]

    def test_a_malformed_roll_and_placement_in_german(self, client, make_table):
        """What a German player types wrong (a die face, a mark) is refused in German with
        what was typed kept as it is, and the table stays as it was."""
        code = make_table(client)
        before = client.get(f"/api/tables/{code}").json
        r = client.post(f"/api/tables/{code}/actions", headers=DE,
                        json={"type": "roll", "roll": "7 x"})
        assert r.status_code == 400, r.json
        assert r.json == {"error": "eine Würfelseite muss 1-6 sein, nicht 7",
                          "code": "dice.face_range"}
        r = client.post(f"/api/tables/{code}/actions", headers=DE,
                        json={"type": "roll", "roll": "orange:x"})
        assert r.status_code == 400 and r.json["code"] == "dice.not_face"
        assert r.json["error"] == "'x' ist keine Würfelseite (eine Zahl)"
        assert client.get(f"/api/tables/{code}").json == before
        client.post(f"/api/tables/{code}/actions", json={"type": "roll", "roll": "orange:3"})
        rolled = client.get(f"/api/tables/{code}").json
        r = client.post(f"/api/tables/{code}/actions", headers=DE,
                        json={"type": "place", "seat": 0, "placement": "O3"})
        assert r.status_code == 400, r.json
        assert r.json == {"error": "'O3' ist kein Eintrag: REIHE WERT @ SPALTE schreiben, "
                                   "z. B. Y7@4", "code": "placement.not_mark"}
        assert client.get(f"/api/tables/{code}").json == rolled
        # the same refusals in English are the engine's own sentences
        en = client.post(f"/api/tables/{code}/actions?lang=en",
                         json={"type": "place", "seat": 0, "placement": "O3"})
        assert en.json["error"] == "'O3' is not a mark: write ROW VALUE @ COLUMN, e.g. Y7@4"

    def test_an_unknown_game_and_action_in_german(self, client, make_table):
        r = client.post("/api/tables", headers=DE, json={"game": "chess", "players": ["Ann"]})
        assert r.status_code == 400 and r.json["code"] == "registry.unknown_game", r.json
        assert r.json["error"].startswith("unbekanntes Spiel 'chess': wähle eines von ")
        code = make_table(client)
        r = client.post(f"/api/tables/{code}/actions", headers=DE, json={"type": "dance"})
        assert r.status_code == 400 and r.json["code"] == "table.unknown_action", r.json
        assert r.json["error"].startswith("unbekannte Aktion 'dance': ")

    def test_an_uploaded_layout_with_a_bad_field_in_german(self, client):
        from engine.registry import layout_data
        layout = dict(layout_data("qwinto", "standard"), name="mine", columns="many")
        r = client.post("/api/tables", headers=DE, json={
            "game": "qwinto", "players": ["Ann", "Bob"], "layout": "uploaded",
            "uploaded": layout})
        assert r.status_code == 400, r.json
        assert r.json == {"error": "Qwinto-Zettel 'mine': 'columns' muss eine ganze Zahl sein, "
                                   "nicht 'many'", "code": "layout.whole"}
        rows = [dict(row) for row in layout_data("qwinto", "standard")["rows"]]
        rows[1]["pentagons"] = [0]
        layout = dict(layout_data("qwinto", "standard"), name="mine", rows=rows)
        r = client.post("/api/tables", headers=DE, json={
            "game": "qwinto", "players": ["Ann", "Bob"], "layout": "uploaded",
            "uploaded": layout})
        assert r.status_code == 400 and german(r.json["error"]), r.json
        assert not english_words(r.json["error"]), r.json
        en = client.post("/api/tables?lang=en", json={
            "game": "qwinto", "players": ["Ann", "Bob"], "layout": "uploaded",
            "uploaded": layout})
        assert en.json["code"] == r.json["code"] and en.json["error"] != r.json["error"]
        assert en.json["error"].startswith("qwinto layout 'mine': ")

    def test_the_engine_s_input_errors_have_german_texts(self):
        """The codes of a malformed roll, placement or sheet, an unknown game and an uploaded
        layout's checks each have a German template of their own (not the English copied)."""
        from engine.reasons import TEMPLATES
        for name in GAMES:
            load_game(name)
        prefixes = ("dice.", "placement.", "registry.", "layout.", "game.list", "game.entries",
                    "game.whole")
        codes = [c for c in TEMPLATES if c.startswith(prefixes)
                 and not c.startswith("layout.note.")]
        assert len(codes) > 20
        same = {"layout.key"}           # "{where}: '{key}'": only its parameters are words
        assert [c for c in codes if c not in same and CATALOGUE[c] == TEMPLATES[c]] == []

    def test_unknown_table_in_german(self, client):
        r = client.get("/api/tables/QQQQQ", headers=DE)
        assert r.status_code == 404 and r.json["error"] == "es gibt keinen Tisch 'QQQQQ'"


class TestFallback:
    def test_unknown_sentence_stays_english(self):
        text = "a rule the catalogue has never heard of"
        assert explain(text) is None
        assert translate(text, "de") == text

    def test_unknown_code_renders_nothing(self):
        assert render("no.such.code", {"n": 3}, "de") is None

    def test_missing_parameter_renders_nothing(self):
        assert render("game.sum", {"total": 7}, "de") is None

    def test_non_text_is_returned_as_is(self):
        assert translate(None, "de") is None and explain("") is None

    def test_a_prefix_does_not_swallow_a_longer_sentence(self):
        assert explain("row B is made of cheese") is None
        assert translate("row B is made of cheese", "de") == "row B is made of cheese"

    def test_unknown_reason_in_the_api_stays_english(self, client, make_table, monkeypatch):
        from engine.games.qwinto import Qwinto
        monkeypatch.setattr(Qwinto, "why_illegal",
                            lambda self, *a: "a brand-new rule the engine just learnt")
        code = make_table(client)
        client.post(f"/api/tables/{code}/actions", json={"type": "roll", "roll": "orange:3"})
        r = client.post(f"/api/tables/{code}/actions", headers=DE,
                        json={"type": "place", "seat": 0, "placement": "O3@0"})
        assert r.status_code == 409
        assert r.json == {"error": "a brand-new rule the engine just learnt"}
        state = client.get(f"/api/tables/{code}", headers=DE).json
        assert set(state["me"]["seats"]["0"]["reasons"].values()) <= {
            "a brand-new rule the engine just learnt"}


class TestCatalogueCoversTheEngine:
    """Every sentence the pages show in a random game of each game has an entry."""

    def test_every_declared_code_has_a_german_entry(self):
        from engine.reasons import TEMPLATES
        for name in GAMES:
            load_game(name)
        import engine.advice  # noqa: F401  (declares the advisor's reasons)
        import engine.table  # noqa: F401  (declares the table's reasons)
        assert sorted(set(TEMPLATES) - set(CATALOGUE)) == []

    @pytest.mark.parametrize("game_name", GAMES)
    def test_random_games(self, game_name):
        game = load_game(game_name)
        missing = set()
        for seed in range(4):
            rng = random.Random(seed)
            table = Table.new(game, ["P1", "P2"])
            for _ in range(300):
                if table.is_over:
                    break
                table = random_turn(table, rng)
                self._collect(table, missing)
                if table.is_over:
                    break
                roll = game.random_roll(rng)
                self._collect_reasons(game, table, roll, missing)
            for s in range(2):
                for line in table.score(s).lines:
                    for text in (line.label, line.detail):
                        if text and not explain(text):
                            missing.add(text)
        assert not missing, sorted(missing)[:20]

    @staticmethod
    def _collect(table, missing):
        for s, sheet in enumerate(table.sheets):
            game = table.games[s]
            for line in game.score(sheet).lines:
                for text in (line.label, line.detail):
                    if text and not explain(text):
                        missing.add(text)
            view = G.sheet_view(game, sheet)
            if view and view.get("caption") and not explain(view["caption"]):
                missing.add(view["caption"])

    @staticmethod
    def _collect_reasons(game, table, roll, missing):
        sheet = table.sheets[0]
        view = G.sheet_view(game, sheet)
        problem = game.roll_problem(roll)
        assert problem is None
        for row in view["rows"]:
            for cell in row["cells"]:
                if cell is None:
                    continue
                values = [game.cell_value(cell, roll)]
                if cell.get("colour") and cell["row"] == "R":
                    values = [cell["colour"], "red"]
                if view.get("value") == "marks-only" and cell["row"] == "N":
                    values = [int(cell["printed"]), int(cell["printed"]) + 1]
                for value in values:
                    if value is None:
                        continue
                    for role in ("roller", "other"):
                        reason = game.why_illegal(sheet, roll, role,
                                                  Placement.of(Mark(cell["row"], cell["col"],
                                                                    value)))
                        if reason and not explain(reason):
                            missing.add(reason)
        for special in ("pass", "fail", "cross", "misthrow"):
            for role in ("roller", "other"):
                reason = game.why_illegal(sheet, roll, role, Placement.special(special))
                if reason and not explain(reason):
                    missing.add(reason)


class TestTheAdvisorInGerman:
    """A German player's hints give their reasons in German: every reason the advisor gives
    in random positions of each game is a known code whose German sentence has no English
    left in it."""

    @pytest.mark.parametrize("game_name", GAMES)
    def test_every_reason_of_random_positions(self, game_name):
        import time

        from engine.advice import advise, colour_choices
        from engine.game import ROLLER
        game = load_game(game_name)
        reasons = set()
        for seed in range(3):
            rng = random.Random(seed)
            table = Table.new(game, ["P1", "P2"])
            for turn in range(40):
                if table.is_over:
                    break
                if turn % 4 == 0:
                    sheet = table.sheets[0]
                    roll = game.random_roll(rng)
                    advice = advise(game, sheet, roll, ROLLER, attempts_left=1, players=2,
                                    seed=seed, budget_ms=15, clock=time.process_time)
                    reasons |= {o.reason for o in advice.options}
                    reasons |= {d.reason for d in advice.dice}
                    if game_name == "qwinto":
                        reasons |= {c.reason for c in colour_choices(game, sheet)}
                table = random_turn(table, rng)
        assert len(reasons) > 5
        for reason in reasons:
            assert isinstance(reason, Reason) and explain(reason), reason
            de = translate(reason, "de")
            assert de != reason and not english_words(de), (reason, de)

    def test_kuh_vadis_squares_are_named_without_a_pair_that_reads_as_a_decimal(self):
        """The engine names squares "A3", never "A3 (0,3)", whose pair read as a decimal."""
        kv = load_game("kuh_vadis")
        pad = [". . . X . . .", ". . . . . . .", ". . . . . . .", "O O O O O O O",
               ". . . . . . .", ". . . . . . .", "X . . O . . X"]
        cut = kv.state(kv.sheet_from_json({"pad": pad}), "X")
        assert translate(cut, "de") == ("Kreuze sind abgeschnitten: kein freier Weg verbindet "
                                        "A3 mit G0")

    def test_decimal_figures_get_a_decimal_comma(self):
        import engine.advice  # noqa: F401
        assert translate(Reason("advice.gain", x="+1.5"), "de") == \
            "bringt im Mittel +1,5 Punkte gegenüber diesem Wurf"
        assert translate(Reason("advice.kuh_vadis.keep", kf="2 cow", a=53, b=40), "de") == \
            "2 Kuh behalten: gewinnt 53-mal von 100 (mit diesem Wurf: 40)"


def test_the_companion_s_templates_have_named_fields_only():
    """A template is formatted and parsed by its {fields}: a literal brace in a message (a JSON
    example such as {"seat": number}) would read as a field. The engine's own test sees the
    companion's templates only when another test has imported the companion first."""
    from companion.reasons import CATALOGUE, COMPANION
    from engine.reasons import fields
    for code, template in {**COMPANION, **CATALOGUE}.items():
        assert all(f.isidentifier() for f in fields(template)), code

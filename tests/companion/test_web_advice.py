"""The advisor's hints through the API: a player's own seat only, ranked, with marks."""
import pytest

pytestmark = pytest.mark.both_stores     # every test's app on SQLite, then on PostgreSQL


def roll(client, code, dice):
    r = client.post(f"/api/tables/{code}/actions", json={"type": "roll", "roll": dice})
    assert r.status_code in (200, 201), r.json
    return r


class TestAdviceRoute:
    def test_the_roller_gets_every_legal_placement_ranked_with_the_dice(self, client,
                                                                        make_table):
        code = make_table(client, "qwinto", ["Ann", "Bob"])
        roll(client, code, "orange:3 purple:5")
        r = client.get(f"/api/tables/{code}/advice?seat=0")
        assert r.status_code == 200
        options = r.json["options"]
        legal = client.get(f"/api/tables/{code}").json["me"]["seats"]["0"]["legal"]
        assert sorted(o["placement"] for o in options) == sorted(legal)
        assert [o["expected"] for o in options] == sorted((o["expected"] for o in options),
                                                          reverse=True)
        assert r.json["best"] == options[0]["placement"] and options[0]["reason"]
        assert all(o["marks"] == ([] if o["placement"] == "fail" else [o["placement"]])
                   for o in options)
        assert {d["action"] for d in r.json["dice"]} == {"keep", "reroll"}

    @pytest.mark.parametrize("game, players, figure", [
        ("qwinto", ["Ann", "Bob"], "points"), ("kuh_vadis", ["Ann", "Bob"], "chance"),
        ("twenty_one", ["Ann"], "points"), ("twenty_one", ["Ann", "Bob"], "relative")])
    def test_the_answer_says_what_its_figures_are(self, client, make_table, game, players,
                                                  figure):
        """The page words a figure by it: an expected final score, a chance to win (Kuh
        Vadis), or points less the cost of turns (twenty one at a table), said before the
        roll too."""
        code = make_table(client, game, players)
        assert client.get(f"/api/tables/{code}/advice?seat=0").json["figure"] == figure

    def test_a_german_page_gets_its_reasons_in_german(self, client, make_table):
        """The reasons are translated like the rules' refusals: the same advice, in the
        request's language (here the Qwinto colours before the roll and the placements and
        dice choices after it)."""
        de = {"Accept-Language": "de-DE,de;q=0.9"}
        code = make_table(client, "qwinto", ["Ann", "Bob"])
        before = client.get(f"/api/tables/{code}/advice?seat=0", headers=de).json["dice"]
        assert before[0]["reason"].startswith("Summen ")
        roll(client, code, "orange:3 purple:5")
        en = client.get(f"/api/tables/{code}/advice?seat=0").json
        r = client.get(f"/api/tables/{code}/advice?seat=0", headers=de).json
        assert sorted(o["placement"] for o in r["options"]) == \
            sorted(o["placement"] for o in en["options"])
        assert all(o["reason"].startswith("lässt links davon ") for o in r["options"]
                   if o["marks"])
        assert all(o["reason"].startswith("leaves ") for o in en["options"] if o["marks"])
        assert {d["reason"] for d in r["dice"]} & {"diesen Wurf jetzt eintragen"}

    def test_a_knister_player_who_follows_the_hints_gets_one_every_turn(self, client,
                                                                        make_table):
        """A whole Knister game by the hints: every turn's hint answers (its further look,
        which runs once fields are few enough, once made every answer a server error), and
        its best field is accepted."""
        import random
        rng = random.Random(7)
        code = make_table(client, "knister", ["Ann"])
        for turn in range(25):
            roll(client, code, f"{rng.randint(1, 6)} {rng.randint(1, 6)}")
            r = client.get(f"/api/tables/{code}/advice?seat=0")
            assert r.status_code == 200, (turn, r.json)
            assert all(isinstance(o["expected"], float) for o in r.json["options"])
            placed = client.post(f"/api/tables/{code}/actions",
                                 json={"type": "place", "seat": 0, "placement": r.json["best"]})
            assert placed.status_code in (200, 201), (turn, placed.json)
        assert client.get(f"/api/tables/{code}").json["is_over"]

    def test_nothing_to_hint_before_the_roll(self, client, make_table):
        code = make_table(client, "knister", ["Ann"])
        r = client.get(f"/api/tables/{code}/advice?seat=0")
        assert r.status_code == 200 and r.json["options"] == [] and r.json["best"] is None
        assert r.json["dice"] == []            # Knister's roller chooses no dice

    def test_the_qwinto_roller_is_told_which_colours_to_roll_before_the_roll(self, client,
                                                                            make_table):
        """Qwinto: before the roll the player who rolls next gets the colours to roll, ranked
        as `advise` without `--roll` ranks them; the others get none. Once the turn is over
        the next roller gets them for the next roll."""
        from engine.advice import colour_choices
        from engine.registry import load_game
        code = make_table(client, "qwinto", ["Ann", "Bob"])
        r = client.get(f"/api/tables/{code}/advice?seat=0")
        game = load_game("qwinto")
        expected = [c.to_json() for c in colour_choices(game, game.new_sheet())]
        assert r.json["options"] == [] and r.json["dice"] == expected
        assert {d["action"] for d in r.json["dice"]} == {"roll"}
        assert client.get(f"/api/tables/{code}/advice?seat=1").json["dice"] == []
        roll(client, code, "orange:3 yellow:4")
        for seat, placement in ((0, "O7@2"), (1, "Y7@1")):
            client.post(f"/api/tables/{code}/actions",
                        json={"type": "place", "seat": seat, "placement": placement})
        after = client.get(f"/api/tables/{code}/advice?seat=1").json     # Bob rolls next
        assert after["options"] == [] and after["dice"][0]["action"] == "roll"
        assert client.get(f"/api/tables/{code}/advice?seat=0").json["dice"] == []

    def test_another_players_hints_are_refused(self, sit, client, client2, make_table):
        code = make_table(client, "knister", ["Ann", "Bob"])
        sit(client2, client, code, 1)
        roll(client, code, "3 4")
        assert client2.get(f"/api/tables/{code}/advice?seat=1").status_code == 200
        for who, seat in ((client2, 0), (client, 1)):
            r = who.get(f"/api/tables/{code}/advice?seat={seat}")
            assert r.status_code == 403 and "only to the player" in r.json["error"]

    def test_the_creator_gets_hints_for_a_seat_nobody_claimed(self, client, make_table):
        code = make_table(client, "knister", ["Ann", "Bob"])
        roll(client, code, "3 4")
        r = client.get(f"/api/tables/{code}/advice?seat=1")
        assert r.status_code == 200 and len(r.json["options"]) == 25

    def test_a_seat_that_is_not_there(self, client, make_table):
        code = make_table(client, "knister", ["Ann"])
        for query in ("", "?seat=5", "?seat=x"):
            r = client.get(f"/api/tables/{code}/advice{query}")
            assert r.status_code == 400 and "name a seat" in r.json["error"]

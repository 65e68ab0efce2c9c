"""Retries are safe: an action or a new table sent twice (a retry after a lost answer, a double
tap, two requests at the same instant) is done once, and an action made against a roll that
has changed since is refused with the current state."""
import threading

import pytest

from companion.store import overtaken

pytestmark = pytest.mark.both_stores     # every test's app on SQLite, then on PostgreSQL

KEY = "k" * 16


def log(client, code):
    return client.get(f"/api/tables/{code}/log").json["actions"]


def creator_of(app, client, code):
    """Another client holding the creator's cookie (a second request of the same phone)."""
    other = app.test_client()
    other.set_cookie(f"dc_{code}", client.get_cookie(f"dc_{code}").value)
    return other


def orange_3_kept(client, client2, make_table):
    """A Qwinto table of Ann (client, its creator) and Bob (client2) with an orange 3 rolled and
    kept: (its code, the log position the players see)."""
    code = make_table(client)
    key = client.get(f"/api/tables/{code}").json["me"]["join"]    # the host's join link
    client2.post(f"/api/tables/{code}/join", json={"seat": 1, "join": key})
    client.post(f"/api/tables/{code}/actions", json={"type": "roll", "roll": "orange:3"})
    return code, client.post(f"/api/tables/{code}/actions", json={"type": "keep"}).json["seq"]


def at_once(calls):
    """Run the calls in threads released together; their answers in order."""
    gate, out = threading.Barrier(len(calls)), [None] * len(calls)

    def run(i, call):
        gate.wait()
        out[i] = call()
    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


class TestIdempotencyKeys:
    def test_a_retried_roll_is_answered_as_the_first_and_rolls_once(self, client, make_table):
        code = make_table(client)
        body = {"type": "roll", "roll": "orange:3 yellow:4", "key": KEY + "roll"}
        first = client.post(f"/api/tables/{code}/actions", json=body)
        again = client.post(f"/api/tables/{code}/actions", json=body)
        assert first.status_code == again.status_code == 200
        assert again.json == first.json and first.json["seq"] == 1
        assert len(log(client, code)) == 1
        assert first.json["may_reroll"]        # the second attempt is still there

    def test_the_first_answer_even_after_other_actions(self, client, client2, make_table):
        code, _ = orange_3_kept(client, client2, make_table)
        place = {"type": "place", "seat": 1, "placement": "O3@2", "key": KEY + "bob"}
        first = client2.post(f"/api/tables/{code}/actions", json=place)
        client.post(f"/api/tables/{code}/actions",
                    json={"type": "place", "seat": 0, "placement": "O3@3"})
        again = client2.post(f"/api/tables/{code}/actions", json=place)
        assert again.status_code == 200 and again.json["seq"] == first.json["seq"] == 3
        assert again.json["players"][1]["sheet"] == first.json["players"][1]["sheet"]
        assert len(log(client, code)) == 4

    def test_the_same_action_twice_at_once_is_written_once(self, app, client, make_table):
        code = make_table(client)
        phones = [creator_of(app, client, code) for _ in range(4)]
        body = {"type": "roll", "roll": "orange:5", "key": KEY + "once"}
        answers = at_once([lambda p=p: p.post(f"/api/tables/{code}/actions", json=body)
                           for p in phones])
        assert [a.status_code for a in answers] == [200] * 4
        assert {a.json["seq"] for a in answers} == {1}
        assert len(log(client, code)) == 1

    def test_a_key_is_kept_per_table(self, client, make_table):
        one, two = make_table(client), make_table(client)
        body = {"type": "roll", "roll": "orange:3", "key": KEY + "both"}
        assert client.post(f"/api/tables/{one}/actions", json=body).status_code == 200
        assert client.post(f"/api/tables/{two}/actions", json=body).status_code == 200
        assert len(log(client, one)) == len(log(client, two)) == 1

    @pytest.mark.parametrize("key", ["short", "x" * 65, 1234567890123456, "bad key with spaces"])
    def test_a_key_that_is_no_key_is_400(self, client, make_table, key):
        code = make_table(client)
        r = client.post(f"/api/tables/{code}/actions",
                        json={"type": "roll", "roll": "orange:3", "key": key})
        assert r.status_code == 400 and "'key'" in r.json["error"]
        assert log(client, code) == []


class TestNewTables:
    def test_two_identical_requests_make_one_table(self, app):
        body = {"game": "qwinto", "players": ["Ann", "Bob"], "claim": 0, "first": 1,
                "key": KEY + "table"}
        phones = [app.test_client() for _ in range(3)]
        answers = at_once([lambda p=p: p.post("/api/tables", json=body) for p in phones])
        assert [a.status_code for a in answers] == [201] * 3
        codes = {a.json["code"] for a in answers}
        assert len(codes) == 1
        code = codes.pop()
        # each got the creator's cookie and state; the table began once
        for phone, a in zip(phones, answers):
            assert a.json["state"]["me"]["creator"] and a.json["state"]["me"]["seat"] == 0
            assert phone.get(f"/api/tables/{code}").json["me"]["creator"]
        assert [x["type"] for x in log(phones[0], code)] == ["begin"]
        again = app.test_client().post("/api/tables", json=body)
        assert again.status_code == 201 and again.json["code"] == code

    def test_without_a_key_each_request_is_a_table(self, client):
        body = {"game": "qwinto", "players": ["Ann"]}
        assert client.post("/api/tables", json=body).json["code"] != \
            client.post("/api/tables", json=body).json["code"]


class TestLogPosition:
    def test_two_rolls_made_against_the_same_log_roll_once(self, app, client, make_table):
        code = make_table(client)
        phones = [creator_of(app, client, code) for _ in range(2)]
        body = {"type": "roll", "roll": "orange:3 yellow:4", "seq": 0}
        answers = at_once([lambda p=p: p.post(f"/api/tables/{code}/actions", json=body)
                           for p in phones])
        assert sorted(a.status_code for a in answers) == [200, 409]
        refused = next(a for a in answers if a.status_code == 409)
        assert "changed meanwhile" in refused.json["error"]
        assert refused.json["state"]["seq"] == 1 and refused.json["state"]["may_reroll"]
        assert len(log(client, code)) == 1      # not Qwinto's second attempt

    def test_a_placement_made_before_the_roll_was_corrected_is_409(self, client, client2,
                                                                   make_table):
        code, seen = orange_3_kept(client, client2, make_table)
        client.post(f"/api/tables/{code}/actions", json={"type": "correct", "roll": "orange:5"})
        r = client2.post(f"/api/tables/{code}/actions",
                         json={"type": "place", "seat": 1, "placement": "O3@2", "seq": seen})
        assert r.status_code == 409 and r.json["state"]["seq"] == seen + 1
        assert r.json["state"]["roll"] == [{"colour": "orange", "face": 5}]
        assert [a["type"] for a in log(client, code)] == ["roll", "keep", "correct"]

    def test_players_answering_the_same_roll_at_once_are_all_accepted(self, client, client2,
                                                                      make_table):
        code, seen = orange_3_kept(client, client2, make_table)
        for c, seat, field in ((client, 0, "O3@2"), (client2, 1, "O3@3")):
            r = c.post(f"/api/tables/{code}/actions",
                       json={"type": "place", "seat": seat, "placement": field, "seq": seen})
            assert r.status_code == 200, r.json

    def test_a_position_past_the_log_or_no_position_is_400(self, client, make_table):
        code = make_table(client)
        for seq in (5, -1, "0", 1.5):
            r = client.post(f"/api/tables/{code}/actions",
                            json={"type": "roll", "roll": "orange:3", "seq": seq})
            assert r.status_code == 400, seq
        assert log(client, code) == []


class TestOvertaken:
    def test_the_rule(self):
        place0 = {"type": "place", "seat": 0, "placement": "O3@0"}
        assert not overtaken(place0, [])
        assert not overtaken(place0, [{"type": "place", "seat": 1}, {"type": "undo", "seat": 2}])
        assert overtaken(place0, [{"type": "undo", "seat": 0}])
        for kind in ("roll", "correct", "keep", "begin"):
            assert overtaken(place0, [{"type": kind}])
            assert overtaken({"type": "roll"}, [{"type": kind}])
        assert not overtaken({"type": "roll"}, [{"type": "place", "seat": 0}])

"""A lost phone must not stall the table: a player takes their seat back on another device with
the rejoin code the host shows, and the host answers for a player who is away, after confirming.
Through Flask's test client; the pages are driven in test_web_browser.py."""
import pytest

pytestmark = pytest.mark.both_stores     # every test's app on SQLite, then on PostgreSQL


@pytest.fixture
def table_of_two(sit, client, client2, make_table):
    """Ann created the table (seat 0, the host) and Ben joined seat 1 on his phone (client2)."""
    code = make_table(client, players=("Ann", "Ben"))
    assert sit(client2, client, code, 1).status_code == 200
    return code


def new_phone(client):
    return client.application.test_client()


class TestRejoin:
    def test_the_host_shows_a_code_that_moves_the_seat_to_a_new_phone(self, client, client2,
                                                                       table_of_two):
        code = table_of_two
        shown = client.get(f"/api/tables/{code}/seats/1/rejoin")
        assert shown.status_code == 200
        key = shown.json["key"]
        assert shown.json["name"] == "Ben" and len(key) == 6
        assert shown.json["url"] == f"/t/{code}?rejoin=1.{key}"
        phone_b = new_phone(client)
        assert phone_b.get(f"/api/tables/{code}").json["me"]["seat"] is None
        r = phone_b.post(f"/api/tables/{code}/rejoin", json={"seat": 1, "key": key.lower()})
        assert r.status_code == 200 and r.json["me"]["seat"] == 1
        assert f"dc_{code}=" in r.headers["Set-Cookie"]
        # phone B writes for Ben now; phone A is a viewer and may no longer write
        client.post(f"/api/tables/{code}/actions", json={"type": "roll", "roll": "orange:3"})
        client.post(f"/api/tables/{code}/actions",
                    json={"type": "place", "seat": 0, "placement": "O3@2"})
        refused = client2.post(f"/api/tables/{code}/actions",
                               json={"type": "place", "seat": 1, "placement": "pass"})
        assert refused.status_code == 403
        assert client2.get(f"/api/tables/{code}").json["me"]["seat"] is None
        ok = phone_b.post(f"/api/tables/{code}/actions",
                          json={"type": "place", "seat": 1, "placement": "pass"})
        assert ok.status_code == 200 and ok.json["players"][1]["answered"]

    def test_a_code_is_spent_once_used_and_a_new_one_is_shown(self, client, table_of_two):
        code = table_of_two
        key = client.get(f"/api/tables/{code}/seats/1/rejoin").json["key"]
        assert new_phone(client).post(f"/api/tables/{code}/rejoin",
                                      json={"seat": 1, "key": key}).status_code == 200
        again = new_phone(client).post(f"/api/tables/{code}/rejoin", json={"seat": 1, "key": key})
        assert again.status_code == 400 and "not Ben's rejoin code" in again.json["error"]
        assert client.get(f"/api/tables/{code}/seats/1/rejoin").json["key"] != key

    @pytest.mark.parametrize("body, status, message", [
        ({"seat": 1, "key": "AAAAAA"}, 400, "not Ben's rejoin code"),
        ({"seat": 1}, 400, "rejoin code"),
        ({"seat": 5, "key": "AAAAAA"}, 400, "no seat 5"),
        ({"seat": "1", "key": "AAAAAA"}, 400, "rejoin code"),
    ])
    def test_a_wrong_code_changes_nothing(self, client, client2, table_of_two, body, status,
                                          message):
        code = table_of_two
        r = new_phone(client).post(f"/api/tables/{code}/rejoin", json=body)
        assert r.status_code == status and message in r.json["error"], r.json
        assert client2.get(f"/api/tables/{code}").json["me"]["seat"] == 1

    def test_only_the_host_sees_a_code(self, client, client2, table_of_two):
        code = table_of_two
        r = client2.get(f"/api/tables/{code}/seats/0/rejoin")
        assert r.status_code == 403 and "creator" in r.json["error"]
        assert new_phone(client).get(f"/api/tables/{code}/seats/1/rejoin").status_code == 403

    def test_a_seat_nobody_joined_needs_no_code(self, client, make_table):
        code = make_table(client, players=("Ann", "Ben", "Cem"))
        r = client.get(f"/api/tables/{code}/seats/2/rejoin")
        assert r.status_code == 409 and "sits down with the table's join link" in r.json["error"]

    def test_the_hosts_device_stays_the_host_when_it_takes_a_seat_back(self, sit, client,
                                                                        client2, make_table):
        """The host's laptop (no seat) takes back Ann's seat, whose phone died: Ann plays on the
        laptop now, and the laptop is still the host."""
        code = make_table(client, players=("Ann", "Ben"), claim=None)
        assert sit(client2, client, code, 0).status_code == 200
        key = client.get(f"/api/tables/{code}/seats/0/rejoin").json["key"]
        r = client.post(f"/api/tables/{code}/rejoin", json={"seat": 0, "key": key})
        assert r.status_code == 200
        assert r.json["me"]["seat"] == 0 and r.json["me"]["creator"] is True
        assert client.get(f"/api/tables/{code}/seats/1/rejoin").status_code == 409

    def test_german(self, client, table_of_two):
        r = new_phone(client).post(f"/api/tables/{table_of_two}/rejoin?lang=de",
                                   json={"seat": 1, "key": "AAAAAA"})
        assert r.json["error"].startswith("das ist nicht der Code von Ben")


class TestStandIn:
    def test_the_host_answers_for_an_absent_player_after_confirming(self, client, table_of_two):
        code = table_of_two
        client.post(f"/api/tables/{code}/actions", json={"type": "roll", "roll": "orange:3"})
        client.post(f"/api/tables/{code}/actions",
                    json={"type": "place", "seat": 0, "placement": "O3@2"})
        unconfirmed = client.post(f"/api/tables/{code}/actions",
                                  json={"type": "place", "seat": 1, "placement": "O3@2"})
        assert unconfirmed.status_code == 403
        assert "only after confirming" in unconfirmed.json["error"]
        # the host's page asks for Ben's placements to answer for him
        mine = client.get(f"/api/tables/{code}").json["me"]
        assert mine["stand_in"] is None and "1" not in mine["seats"]
        asked = client.get(f"/api/tables/{code}?stand_in=1").json["me"]
        assert asked["stand_in"] == 1 and "O3@2" in asked["seats"]["1"]["legal"]
        r = client.post(f"/api/tables/{code}/actions",
                        json={"type": "place", "seat": 1, "placement": "O3@2", "stand_in": True})
        assert r.status_code == 200 and r.json["turn_complete"]
        log = client.get(f"/api/tables/{code}/log").json["actions"]
        assert log[-1]["by_seat"] == -1          # the log says the host wrote it
        # the next roll is no longer refused
        assert client.post(f"/api/tables/{code}/actions",
                           json={"type": "roll", "roll": "yellow:2"}).status_code == 200

    def test_nobody_else_may_stand_in(self, client, client2, table_of_two):
        code = table_of_two
        client.post(f"/api/tables/{code}/actions", json={"type": "roll", "roll": "orange:3"})
        r = client2.post(f"/api/tables/{code}/actions",
                         json={"type": "place", "seat": 0, "placement": "O3@2", "stand_in": True})
        assert r.status_code == 403 and "Ann's sheet" in r.json["error"]
        assert client2.get(f"/api/tables/{code}?stand_in=0").json["me"]["stand_in"] is None

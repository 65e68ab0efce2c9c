"""Who may sit down, and what a stranger sees: the start page lists only the tables this
browser's own cookies open, and an unclaimed seat is taken only with the table's join link (its
secret is in the host's QR code and links), never with the table's code alone. Through Flask's
test client; the pages are driven in test_web_browser*.py."""
import re

import pytest

pytestmark = pytest.mark.both_stores     # every test's app on SQLite, then on PostgreSQL

DE = {"Accept-Language": "de-DE,de;q=0.9"}


def new_phone(client):
    return client.application.test_client()


def join_key(host, code):
    """The table's join secret as its creator's state gives it."""
    key = host.get(f"/api/tables/{code}").json["me"]["join"]
    assert isinstance(key, str) and len(key) >= 16
    return key


@pytest.fixture
def table(client, make_table):
    """Ann created a table for Ann (seat 0, claimed) and Ben (seat 1, free) on `client`."""
    return make_table(client, players=("Ann", "Ben"))


class TestStartPage:
    def test_a_stranger_sees_no_table(self, client, table):
        html = new_phone(client).get("/").get_data(as_text=True)
        assert table not in html and "Ann" not in html and 'class="recent"' not in html

    def test_the_creator_sees_their_table(self, client, table):
        recent = client.get("/").get_data(as_text=True).split('class="recent"')[1]
        assert table in recent and "Ann, Ben" in recent

    def test_a_browser_with_a_seat_sees_its_table_only(self, client, table, make_table):
        other = make_table(new_phone(client), players=("Cy", "Di"))
        ben = new_phone(client)
        assert ben.post(f"/api/tables/{table}/join",
                        json={"seat": 1, "join": join_key(client, table)}).status_code == 200
        recent = ben.get("/").get_data(as_text=True).split('class="recent"')[1]
        assert table in recent and other not in recent

    def test_a_cookie_with_a_wrong_token_opens_nothing(self, client, table):
        stranger = new_phone(client)
        stranger.set_cookie(f"dc_{table}", "guessed-token")
        stranger.set_cookie("dc_QQQQQ", "no-such-table")
        assert 'class="recent"' not in stranger.get("/").get_data(as_text=True)

    def test_the_code_alone_opens_the_table_to_watch(self, client, table):
        stranger = new_phone(client)
        r = stranger.post("/join", data={"code": table.lower()})
        assert r.status_code == 302 and r.headers["Location"].endswith(f"/t/{table}")
        assert stranger.get(f"/api/tables/{table}").json["me"]["join"] is None


class TestJoinLink:
    def test_the_code_alone_does_not_take_a_seat(self, client, table):
        stranger = new_phone(client)
        r = stranger.post(f"/api/tables/{table}/join", json={"seat": 1})
        assert r.status_code == 403 and "join link" in r.json["error"]
        assert r.json["code"] == "app.join_link"
        assert f"dc_{table}" not in r.headers.get("Set-Cookie", "")
        state = client.get(f"/api/tables/{table}").json
        assert state["players"][1]["claimed"] is False

    @pytest.mark.parametrize("wrong", ["", "x" * 16, 7, None, "ä" * 16])
    def test_a_wrong_secret_does_not_take_a_seat(self, client, table, wrong):
        r = new_phone(client).post(f"/api/tables/{table}/join", json={"seat": 1, "join": wrong})
        assert r.status_code == 403 and r.json["code"] == "app.join_link"
        assert client.get(f"/api/tables/{table}").json["players"][1]["claimed"] is False

    def test_the_refusal_is_in_german_for_a_german_page(self, client, table):
        r = new_phone(client).post(f"/api/tables/{table}/join", json={"seat": 1}, headers=DE)
        assert r.status_code == 403 and "Einladungslink" in r.json["error"]

    def test_the_link_takes_a_seat(self, client, table):
        ben = new_phone(client)
        r = ben.post(f"/api/tables/{table}/join", json={"seat": 1, "join": join_key(client, table)})
        assert r.status_code == 200 and r.json["me"]["seat"] == 1
        assert ben.get(f"/api/tables/{table}").json["me"]["seat"] == 1

    def test_creating_a_table_answers_its_join_link(self, client):
        r = client.post("/api/tables", json={"game": "qwinto", "players": ["Ann", "Ben"]})
        code, key = r.json["code"], r.json["state"]["me"]["join"]
        assert r.json["join_url"] == f"/t/{code}?join={key}"

    def test_the_creator_sits_down_without_the_link(self, client, make_table):
        code = make_table(client, players=("Ann", "Ben"), claim=None)
        r = client.post(f"/api/tables/{code}/join", json={"seat": 1})
        assert r.status_code == 200 and r.json["me"]["seat"] == 1

    def test_only_the_tables_own_holders_are_given_the_secret(self, client, table):
        key = join_key(client, table)
        ben = new_phone(client)
        ben.post(f"/api/tables/{table}/join", json={"seat": 1, "join": key})
        assert ben.get(f"/api/tables/{table}").json["me"]["join"] == key
        assert new_phone(client).get(f"/api/tables/{table}").json["me"]["join"] is None

    def test_each_table_has_its_own_secret(self, client, make_table):
        first, second = make_table(client), make_table(client)
        r = new_phone(client).post(f"/api/tables/{second}/join",
                                   json={"seat": 1, "join": join_key(client, first)})
        assert r.status_code == 403

    def test_a_seated_player_and_the_rejoin_code_keep_working(self, client, table):
        ben = new_phone(client)
        ben.post(f"/api/tables/{table}/join", json={"seat": 1, "join": join_key(client, table)})
        again = ben.post(f"/api/tables/{table}/join", json={"seat": 0})
        assert again.status_code == 409 and again.json["code"] == "app.sitting"
        assert ben.get(f"/api/tables/{table}").json["me"]["writes_for"] == [1]
        rejoin = client.get(f"/api/tables/{table}/seats/1/rejoin").json["key"]
        phone = new_phone(client)
        r = phone.post(f"/api/tables/{table}/rejoin", json={"seat": 1, "key": rejoin})
        assert r.status_code == 200 and r.json["me"]["seat"] == 1


class TestPages:
    def test_the_hosts_qr_and_link_carry_the_secret(self, client, table):
        key = join_key(client, table)
        assert f"/t/{table}?join={key}" in client.get(f"/t/{table}/qr.svg").get_data(as_text=True)
        assert f"/t/{table}?join={key}" in client.get(f"/t/{table}").get_data(as_text=True)

    def test_a_strangers_qr_and_page_do_not(self, client, table):
        key = join_key(client, table)
        stranger = new_phone(client)
        for path in (f"/t/{table}/qr.svg", f"/t/{table}", f"/t/{table}/sheet"):
            text = stranger.get(path).get_data(as_text=True)
            assert key not in text and "join=" not in text
        svg = stranger.get(f"/t/{table}/qr.svg").get_data(as_text=True)
        assert re.search(rf"/t/{table}\b", svg)

"""State has an owner: what the server keeps between requests (the store's memory and
connections, drawn sheets, shared table states, frame readers, the event broker) belongs to
one app (`app.extensions`), each part bounded, so two apps in one process share nothing."""
import gc

from companion import api
from companion.app import create_app

KEPT = ("database", "sheets", "shared_states", "readers", "broker")


def _app(path, **config):
    return create_app({"TESTING": True, "DATABASE": str(path), **config})


def _knister(client):
    r = client.post("/api/tables", json={"game": "knister", "players": ["Ann"], "claim": 0})
    assert r.status_code == 201, r.json
    return r.json["code"]


def _turn(client, code, face):
    """Ann rolls `face`, `face` and writes them into the first free field of the state."""
    r = client.post(f"/api/tables/{code}/actions", json={"type": "roll", "roll": f"{face} {face}"})
    assert r.status_code == 200, r.json
    placement = r.json["me"]["seats"]["0"]["legal"][0]
    r = client.post(f"/api/tables/{code}/actions",
                    json={"type": "place", "seat": 0, "placement": placement})
    assert r.status_code == 200, r.json
    return r.json


class TestTwoAppsInOneProcess:
    def test_each_app_owns_its_caches_locks_and_connections(self, tmp_path):
        a, b = _app(tmp_path / "one.sqlite"), _app(tmp_path / "one.sqlite")
        for name in KEPT:
            assert a.extensions[name] is not b.extensions[name], name
        ma, mb = a.extensions["database"].memory, b.extensions["database"].memory
        assert ma.write_lock is not mb.write_lock
        assert not set(map(id, ma.table_locks)) & set(map(id, mb.table_locks))
        with a.app_context():
            conn_a = a.extensions["database"].sqlite()
        with b.app_context():
            assert b.extensions["database"].sqlite() is not conn_a

    def test_a_table_played_in_one_app_is_kept_by_that_app_only(self, tmp_path):
        a, b = _app(tmp_path / "one.sqlite"), _app(tmp_path / "one.sqlite")
        ca, cb = a.test_client(), b.test_client()
        code = _knister(ca)
        _turn(ca, code, 3)
        for name in ("sheets", "scores", "shared_states"):
            assert len(a.extensions[name]) and not len(b.extensions[name]), name
        assert len(a.extensions["database"].memory.tables) == 1
        assert len(b.extensions["database"].memory.tables) == 0
        # the other app reads the same file for itself, and sees what the first writes after
        seen = cb.get(f"/api/tables/{code}").json
        assert seen["seq"] == ca.get(f"/api/tables/{code}").json["seq"]
        shared_a = a.extensions["sheets"]._items.values()
        shared_b = b.extensions["sheets"]._items.values()
        assert not {id(e[0]) for e in shared_a} & {id(e[0]) for e in shared_b}
        after = _turn(ca, code, 5)
        assert cb.get(f"/api/tables/{code}").json["players"][0]["sheet"] == \
            after["players"][0]["sheet"]

    def test_filling_one_app_drops_nothing_of_the_other(self, tmp_path, monkeypatch):
        monkeypatch.setattr(api, "SHARED_KEPT", 3)
        monkeypatch.setattr(api, "SHEETS_KEPT", 4)
        a, b = _app(tmp_path / "a.sqlite"), _app(tmp_path / "b.sqlite")
        ca, cb = a.test_client(), b.test_client()
        mine = _knister(cb)
        cb.get(f"/api/tables/{mine}")
        kept = dict(b.extensions["shared_states"]._items)
        code = _knister(ca)
        for face in (1, 2, 3, 4, 5, 6):
            _turn(ca, code, face)
        assert len(a.extensions["shared_states"]) == 3      # the bound: the latest versions
        assert len(a.extensions["sheets"]) == 4
        assert dict(b.extensions["shared_states"]._items) == kept


class TestPostgresPools:
    def test_each_app_has_its_own_pool_closed_when_the_app_goes(self, postgres_url):
        a, b = _app(postgres_url), _app(postgres_url)
        pool_a, pool_b = a.extensions["database"].pool(), b.extensions["database"].pool()
        assert pool_a is not pool_b and not pool_a.closed
        _knister(a.test_client())
        del a
        gc.collect()
        assert pool_a.closed and not pool_b.closed


    def test_an_apps_pool_is_closed_when_asked_and_opened_again_when_needed(self, postgres_url):
        app = _app(postgres_url)
        client = app.test_client()
        code = client.post("/api/tables", json={"game": "qwinto", "players": ["A"]}).json["code"]
        pool = app.extensions["database"].pool()
        app.extensions["database"].close()
        assert pool.closed
        assert client.get(f"/api/tables/{code}").json["code"] == code     # a new pool
        assert not app.extensions["database"].pool().closed
        app.extensions["database"].close()

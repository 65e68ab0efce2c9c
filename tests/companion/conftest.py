import os

import pytest

from companion.app import create_app


@pytest.fixture
def app(tmp_path):
    app = create_app({"TESTING": True, "DATABASE": os.path.join(tmp_path, "test.sqlite"),
                      "MAX_CONTENT_LENGTH": 256 * 1024})
    yield app


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def client2(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


@pytest.fixture
def make_table():
    def make(client, game="qwinto", players=("Ann", "Bob"), claim=0, **extra):
        r = client.post("/api/tables", json={"game": game, "players": list(players),
                                             "claim": claim, **extra})
        assert r.status_code == 201, r.json
        return r.json["code"]
    return make

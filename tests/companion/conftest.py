import os

import cv2
import numpy as np
import pytest

from companion.app import create_app


def pytest_configure(config):
    config.addinivalue_line("markers", "both_stores: run against the SQLite and the "
                            "PostgreSQL store (the `database` fixture)")


def pytest_generate_tests(metafunc):
    """A module, class or test marked `both_stores` (`pytestmark = pytest.mark.both_stores`)
    runs twice: its `database` (and so its `app`) a SQLite file, then a PostgreSQL database of
    the tests' own server; the PostgreSQL run skips, saying why, only where that server cannot
    be started (`postgres_server`)."""
    if ("database" in metafunc.fixturenames
            and metafunc.definition.get_closest_marker("both_stores")):
        metafunc.parametrize("database", ["sqlite", "postgresql"], indirect=True)


@pytest.fixture
def database(request, tmp_path):
    """The `DATABASE` of the test's app: a new SQLite file, or a new PostgreSQL database
    with the schema in place where the test is marked `both_stores` (`pg_database`)."""
    if getattr(request, "param", "sqlite") == "postgresql":
        return request.getfixturevalue("pg_database")
    return os.path.join(tmp_path, "test.sqlite")


@pytest.fixture
def app(database):
    app = create_app({"TESTING": True, "DATABASE": database, "MAX_CONTENT_LENGTH": 256 * 1024})
    yield app
    app.extensions["database"].close()


@pytest.fixture(scope="session")
def postgres_server():
    """A PostgreSQL server of the tests' own (`live_servers.Postgres`), for the session."""
    pytest.importorskip("psycopg", reason="psycopg is not installed: pip install -e '.[server]'")
    from live_servers import Postgres, Unavailable
    try:
        server = Postgres()
    except Unavailable as exc:
        pytest.skip(str(exc))
    yield server
    server.stop()


@pytest.fixture
def postgres_url(postgres_server):
    """The URL of a new, empty database on the tests' PostgreSQL server (dropped after)."""
    url = postgres_server.new_database()
    yield url
    postgres_server.drop_database(url)


@pytest.fixture
def pg_database(postgres_server):
    """The URL of a new database with the store's schema (a copy of one migrated once),
    dropped after the test."""
    url = postgres_server.new_database(template=postgres_server.migrated())
    yield url
    postgres_server.drop_database(url)


@pytest.fixture
def redis_server():
    """A redis-server of the test's own (`live_servers.Redis`), stopped after the test."""
    pytest.importorskip("redis", reason="redis is not installed: pip install -e '.[server]'")
    from live_servers import Redis, Unavailable
    try:
        server = Redis()
    except Unavailable as exc:
        pytest.skip(str(exc))
    yield server
    server.stop()


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


@pytest.fixture
def sit():
    """`sit(phone, host, code, seat)`: `phone` sits down at `seat` of table `code` by the
    table's join link, whose secret `host` (its creator's client) is given; the answer."""
    def sit_down(phone, host, code, seat):
        key = host.get(f"/api/tables/{code}").json["me"]["join"]
        return phone.post(f"/api/tables/{code}/join", json={"seat": seat, "join": key})
    return sit_down


def close_up(design, face, seed, colour=None) -> bytes:
    """A phone photo of one die of a special design, close and roughly in the middle (JPEG
    bytes): what a player takes on the teaching page."""
    from vision.training.special_dice import render_special_scene
    rng = np.random.default_rng(seed)
    sc = render_special_scene(rng, design, n_dice=1, size=(480, 640), values=[face],
                              side_range=(70, 110), colours=[colour] if colour else None)
    x0, y0, x1, y1 = sc.dice[0].box
    half = max(x1 - x0, y1 - y0) * rng.uniform(0.9, 1.4)
    cx, cy = ((x0 + x1) / 2 + rng.uniform(-0.1, 0.1) * half,
              (y0 + y1) / 2 + rng.uniform(-0.1, 0.1) * half)
    h, w = sc.image.shape[:2]
    crop = sc.image[int(max(0, cy - half)):int(min(h, cy + half)),
                    int(max(0, cx - half)):int(min(w, cx + half))]
    return cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()


@pytest.fixture
def photo():
    """`photo(design, face, seed, colour=None)`: a close-up JPEG of one die (`close_up`)."""
    return close_up

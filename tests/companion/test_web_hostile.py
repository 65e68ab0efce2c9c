"""Hostile input: whatever a fuzzer or a stranger sends gets a clean 4xx with a one-line
message and changes nothing (no 500, no memory that stays, no work out of proportion)."""
import json
import threading
import time
import zlib
import struct

import cv2
import numpy as np
import pytest

from engine.layouts import builtin_layout_data

pytestmark = pytest.mark.both_stores     # every test's app on SQLite, then on PostgreSQL


def json_routes(code):
    """Every route that reads a JSON body, with a body it would take."""
    return [("/api/tables", {"game": "qwinto", "players": ["Ann"]}),
            (f"/api/tables/{code}/actions", {"type": "roll", "roll": "orange:3"}),
            (f"/api/tables/{code}/join", {"seat": 1}),
            (f"/api/tables/{code}/rejoin", {"seat": 1, "key": "ABCDEF"}),
            (f"/api/tables/{code}/why", {"seat": 0, "placement": "pass"}),
            (f"/api/tables/{code}/teach/withdraw", {"seq": 1}),
            (f"/api/tables/{code}/teach/use", {"use": False}),
            (f"/api/tables/{code}/teach/colours/use", {"photo": None}),
            ("/api/check", {"game": "qwinto", "cells": {}})]


def qwinto_layout(**changes):
    return {**builtin_layout_data("qwinto", "standard"), "name": "mine", **changes}


class TestJsonBodies:
    def test_nesting_thousands_deep_is_400_on_every_json_route(self, client, make_table):
        code = make_table(client)
        deep = "[" * 5000 + "]" * 5000
        for path, _ in json_routes(code):
            r = client.post(path, data=deep, content_type="application/json")
            assert r.status_code == 400, (path, r.status_code)
            assert r.json["error"] == "malformed JSON: nested more than 20 deep"
        nested = {"a": 1}
        for _ in range(30):     # within what Python parses, beyond what any body needs
            nested = {"a": nested}
        r = client.post(f"/api/tables/{code}/actions", json=nested)
        assert r.status_code == 400 and "nested more than 20 deep" in r.json["error"]

    @pytest.mark.parametrize("number", ["1e999", "-1e999", "NaN", "Infinity", "9" * 5000,
                                        str(2 ** 64)], ids=["1e999", "-1e999", "NaN",
                                                            "Infinity", "5000 digits", "2**64"])
    def test_numbers_that_overflow_are_400(self, client, make_table, number):
        code = make_table(client)
        for path, body in [(f"/api/tables/{code}/join", '{"seat": %s}'),
                           (f"/api/tables/{code}/actions", '{"type": "undo", "seat": %s}'),
                           ("/api/check", '{"game": "qwinto", "cells": {"O@1": %s}}')]:
            r = client.post(path, data=body % number, content_type="application/json")
            assert r.status_code == 400 and r.json["error"].startswith("malformed JSON"), path
        assert client.get(f"/api/tables/{code}/log").json["actions"] == []

    def test_text_with_a_lone_surrogate_is_400_and_stores_nothing(self, client, make_table):
        code = make_table(client)
        r = client.post("/api/tables", data='{"game": "qwinto", "players": ["Ann\\ud800"]}',
                        content_type="application/json")
        assert r.status_code == 400 and "lone surrogate" in r.json["error"]
        r = client.post(f"/api/tables/{code}/why",
                        data='{"seat": 0, "placement": "\\udc00"}', content_type="application/json")
        assert r.status_code == 400
        r = client.post("/api/check", data=b'{"game": "qwinto", "cells": {}, "x": "\xff"}',
                        content_type="application/json")
        assert r.status_code == 400 and "not UTF-8" in r.json["error"]

    def test_text_with_a_nul_character_is_400_and_stores_nothing(self, client, make_table):
        """NUL (\\u0000) is no character of a name, a layout or an action (and PostgreSQL's
        text cannot hold it): refused wherever it stands in a body, on either store."""
        code = make_table(client)
        tables = client.get("/").get_data(as_text=True).count("entries")
        for path, body in [
                ("/api/tables", '{"game": "qwinto", "players": ["Ann\\u0000"]}'),
                ("/api/tables", '{"game": "qwinto", "players": ["Ann"], "uploaded": %s}'
                 % json.dumps(qwinto_layout(note="a\u0000b"))),
                (f"/api/tables/{code}/actions", '{"type": "roll", "roll": "orange:3\\u0000"}'),
                (f"/api/tables/{code}/actions", '{"type\\u0000": "roll", "roll": "orange:3"}')]:
            r = client.post(path, data=body, content_type="application/json")
            assert r.status_code == 400, (path, r.status_code)
            assert r.json["error"] == "malformed JSON: the text holds a NUL character (\\u0000)"
        assert client.get(f"/api/tables/{code}/log").json["actions"] == []
        assert client.get("/").get_data(as_text=True).count("entries") == tables

    def test_a_body_sent_in_chunks_over_the_limit_is_413_not_cut_short(self, app):
        """A body without a Content-Length (sent in chunks) over its route's limit is refused as
        too large by the running server, as the same body with one is (it was read up to the
        limit and answered "malformed JSON" or "the photo is corrupt")."""
        import http.client
        from companion.server import ServerThread
        server = ServerThread(app, threads=2)
        try:
            cookie = []

            def post(path, body, kind, token=None):
                conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
                headers = {"Content-Type": kind, **({"Cookie": token} if token else {})}
                conn.request("POST", path, body=iter([body[i:i + 8192]
                                                      for i in range(0, len(body), 8192)]),
                             headers=headers, encode_chunked=True)
                r = conn.getresponse()
                cookie.append((r.getheader("Set-Cookie") or "").split(";")[0])
                answer = (r.status, json.loads(r.read()))
                conn.close()
                return answer
            status, made = post("/api/tables", json.dumps(
                {"game": "qwinto", "players": ["Ann", "Bob"], "claim": 0}).encode(),
                "application/json")
            assert status == 201
            code, token = made["code"], cookie[0]
            action = json.dumps({"type": "roll", "roll": "orange:3", "pad": "x" * 20_000})
            photo = b"\xff\xd8\xff\xe0" + bytes(3_000_000)
            for path, body, kind in ((f"/api/tables/{code}/actions", action.encode(),
                                      "application/json"),
                                     (f"/api/tables/{code}/photo", photo, "image/jpeg")):
                status, answer = post(path, body, kind, token)
                assert (status, answer["error"]) == (413, "the upload is too large"), path
            assert post(f"/api/tables/{code}/actions", json.dumps(
                {"type": "roll", "roll": "orange:3"}).encode(), "application/json",
                token)[0] == 200
        finally:
            server.stop()

    def test_each_route_limits_its_body(self, client, make_table):
        code = make_table(client)
        # an action is a few dozen bytes: 16 KB is the most
        r = client.post(f"/api/tables/{code}/actions",
                        json={"type": "roll", "roll": "orange:3", "pad": "x" * 20_000})
        assert r.status_code == 413 and "too large" in r.json["error"]
        # a sheet to check with its layout: 64 KB (a 100 KB note is refused before it is read)
        r = client.post("/api/check", json={"game": "qwinto", "cells": {},
                                            "layout": qwinto_layout(note="n" * 100_000)})
        assert r.status_code == 413
        assert client.get(f"/api/tables/{code}/log").json["actions"] == []


class TestTokens:
    def test_a_token_that_is_not_ascii_is_no_token(self, client, make_table, app):
        code = make_table(client)
        stranger = app.test_client()
        stranger.set_cookie(f"dc_{code}", "caf\u00e9")
        r = stranger.get(f"/api/tables/{code}")
        assert r.status_code == 200 and r.json["me"]["seat"] is None
        r = stranger.post(f"/api/tables/{code}/actions", json={"type": "roll", "roll": "orange:3"})
        assert r.status_code == 403
        r = app.test_client().get(f"/api/tables/{code}", headers={"X-Token": "\u00fc" * 32})
        assert r.status_code == 200 and r.json["me"]["creator"] is False
        # the creator's own cookie still works beside it
        assert client.get(f"/api/tables/{code}").json["me"]["creator"] is True

    def test_a_code_no_table_can_have_is_an_unknown_table(self, client, make_table):
        """A table code is five of the code's letters and digits: anything else (a NUL, which
        PostgreSQL's text cannot hold, a long or a lower-case one) names no table, on either
        store, in every route that takes a code."""
        code = make_table(client)
        for wrong in ["AB%00CD", f"{code}%00", code + "X" * 300, "%F0%9F%8E%B2"]:
            for path in [f"/api/tables/{wrong}", f"/api/tables/{wrong}/log",
                         f"/api/tables/{wrong}/teach"]:
                r = client.get(path)
                assert r.status_code == 404 and "there is no table" in r.json["error"], path
            r = client.post(f"/api/tables/{wrong}/actions",
                            json={"type": "roll", "roll": "orange:3"})
            assert r.status_code == 404, wrong
            assert client.get(f"/t/{wrong}").status_code == 404
            assert client.post("/join", data={"code": wrong.replace("%00", "\0")}
                               ).status_code == 404
        assert client.get(f"/api/tables/{code.lower()}").json["code"] == code
        assert client.get(f"/api/tables/{code}/log").json["actions"] == []

    def test_a_rejoin_code_that_is_not_ascii_is_refused(self, client, make_table, app, sit):
        code = make_table(client)
        sit(app.test_client(), client, code, 1)
        r = app.test_client().post(f"/api/tables/{code}/rejoin",
                                   json={"seat": 1, "key": "\u00c4BCDEF"})
        assert r.status_code == 400 and "rejoin code" in r.json["error"]


class TestLayoutBounds:
    @pytest.mark.parametrize("columns", ["1e400", "1e10", "5000000", "0", "\"12x\""])
    def test_a_layout_of_absurd_size_is_400_at_once(self, client, columns):
        text = ('{"game": "qwinto", "cells": {}, "layout": {"game": "qwinto", "name": "big", '
                '"columns": %s, "rows": [{"label": "O", "colour": "orange", "fields": [0]}, '
                '{"label": "Y", "colour": "yellow", "fields": [1]}, '
                '{"label": "P", "colour": "purple", "fields": [2]}]}}' % columns)
        r = client.post("/api/check", data=text, content_type="application/json")
        assert r.status_code == 400, r.json
        r = client.post("/api/tables", data=text.replace('"cells": {}', '"players": ["A"]'),
                        content_type="application/json")
        assert r.status_code == 400

    def test_a_layout_whose_fields_lie_far_out_is_400(self, client):
        layout = qwinto_layout()
        layout["rows"][0]["fields"] = [0, 10 ** 15]
        r = client.post("/api/check", json={"game": "qwinto", "cells": {}, "layout": layout})
        assert r.status_code == 400 and "a field must be 0-11" in r.json["error"]

    @pytest.mark.parametrize("game, change", [
        ("qwinto", {"max_value": 10 ** 9}),
        ("qwinto", {"failed_attempt_points": -10 ** 9}),
        ("knister", {"diagonal_multiplier": 10 ** 6}),
        ("twenty_one", {"exact_hit_bonus": [0, 1, 3, 6, 10, 15, 10 ** 12]}),
        ("qwinto", {"note": "n" * 1001}),
        ("qwinto", {"name": "n" * 61}),
    ], ids=["max_value", "failed points", "multiplier", "bonus", "note", "name"])
    def test_values_beyond_any_sheet_are_400(self, client, game, change):
        name = {"qwinto": "standard", "knister": "standard", "twenty_one": "A"}[game]
        layout = dict(builtin_layout_data(game, name), **change)
        r = client.post("/api/check", json={"game": game, "cells": {}, "layout": layout})
        assert r.status_code == 400, r.json


def png_of_size(width: int, height: int) -> bytes:
    """A real grey PNG of width x height made without holding its pixels: a few hundred KB
    that decode to width * height * 3 bytes."""
    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    z = zlib.compressobj(9)
    row = b"\x00" * (width + 1)
    idat = b"".join(z.compress(row) for _ in range(height)) + z.flush()
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", idat) + chunk(b"IEND", b""))


class TestImages:
    def test_a_decompression_bomb_is_refused_from_its_header(self, client, make_table,
                                                             monkeypatch):
        code = make_table(client)
        bomb = png_of_size(8000, 8000)     # 8 KB here; 192 MB decoded
        decoded = []
        real = cv2.imdecode
        monkeypatch.setattr(cv2, "imdecode", lambda *a: decoded.append(1) or real(*a))
        r = client.post(f"/api/tables/{code}/frame", data=bomb, content_type="image/png")
        assert r.status_code == 400
        assert r.json["error"] == "the frame is 8000x8000: at most 4096 pixels a side"
        r = client.post(f"/api/tables/{code}/teach", data={"face": "3", "photo": (
            __import__("io").BytesIO(bomb), "die.png")}, content_type="multipart/form-data")
        assert r.status_code == 400 and "at most 4096 pixels a side" in r.json["error"]
        assert decoded == []

    def test_a_jpeg_whose_header_gives_no_size_is_refused(self, client, make_table):
        code = make_table(client)
        r = client.post(f"/api/tables/{code}/frame", data=b"\xff\xd8\xff\xda" + b"\x00" * 100,
                        content_type="image/jpeg")
        assert r.status_code == 400 and "header gives no size" in r.json["error"]

    def test_at_most_two_frames_are_decoded_at_once(self, monkeypatch):
        from companion import reader
        jpeg = cv2.imencode(".jpg", np.zeros((32, 32, 3), np.uint8))[1].tobytes()
        busy, most, guard = [0], [0], threading.Lock()
        real = cv2.imdecode

        def slow(*args):
            with guard:
                busy[0] += 1
                most[0] = max(most[0], busy[0])
            time.sleep(0.1)
            with guard:
                busy[0] -= 1
            return real(*args)

        monkeypatch.setattr(cv2, "imdecode", slow)
        threads = [threading.Thread(target=reader.decode_frame, args=(jpeg,)) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert most[0] == reader.DECODE_AT_ONCE == 2


class TestMemoryStaysBounded:
    """Every cache filled by what clients send keeps at most its size (least recently used
    dropped): a stream of new layouts, tables or cameras takes no more memory for good."""

    def test_layouts_of_new_names_do_not_pile_up(self, app, client):
        from companion import store
        for i in range(store.GAMES_CACHED + 20):
            r = client.post("/api/check", json={"game": "qwinto", "cells": {},
                                                "layout": qwinto_layout(name=f"pad {i}",
                                                                        note="n" * 1000)})
            assert r.status_code == 200
        assert len(app.extensions["database"].memory.games) == store.GAMES_CACHED

    def test_the_replayed_tables_kept_are_bounded(self, app):
        from companion import store
        from companion.db import get_store
        with app.app_context():
            s = get_store()
            for _ in range(store.TABLES_CACHED + 10):
                rec, _ = s.create_table("knister", ["Ann"], [builtin_layout_data("knister",
                                                                                 "standard")])
                s.state(s.table_record(rec.code))
        assert len(app.extensions["database"].memory.tables) == store.TABLES_CACHED

    def test_frame_readers_are_kept_for_a_bounded_number_of_tables(self, tmp_path, make_table):
        import os
        from companion.app import READERS_KEPT, create_app
        from companion.reader import TableReader

        class _Nothing:
            dice = []
        app = create_app({"TESTING": True, "DATABASE": os.path.join(tmp_path, "t.sqlite"),
                          "READER_FACTORY": lambda palette, faces, frames, symbols:
                          TableReader(palette, faces, frames, reader=lambda image: _Nothing,
                                      symbols=symbols)})
        client = app.test_client()
        jpeg = cv2.imencode(".jpg", np.full((48, 64, 3), 90, np.uint8))[1].tobytes()
        for _ in range(READERS_KEPT + 6):
            code = make_table(client, game="knister", players=["Ann"])
            r = client.post(f"/api/tables/{code}/frame", data=jpeg, content_type="image/jpeg")
            assert r.status_code == 200
        assert len(app.extensions["readers"]) == READERS_KEPT


class TestFoundByTheFuzzer:
    """Reproducers of what `.ci/fuzz_api.py` (schemathesis) found, kept as ordinary tests."""

    @pytest.mark.parametrize("path", ["/api/tables/{code}/teach/null%2Cnull.jpg",
                                      "/api/tables/{code}/teach/0/null%2Cnull.jpg",
                                      "/api/tables/{code}/seats/null%2Cnull/rejoin",
                                      "/api/tables/{code}/seats/-1/rejoin", "/api/nothing"])
    def test_an_address_under_api_that_is_no_route_answers_json_404(self, client, make_table,
                                                                     path):
        r = client.get(path.format(code=make_table(client)))
        assert r.status_code == 404 and r.mimetype == "application/json"
        assert r.json["error"] == "there is no such address"

    def test_a_method_a_route_does_not_take_answers_json_405(self, client):
        r = client.delete("/api/games")
        assert r.status_code == 405 and r.json["error"] and "GET" in r.headers["Allow"]
        assert client.get("/no/such/page").status_code == 404

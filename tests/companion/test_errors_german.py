"""A German page gets every error the API answers in German.

Every message the companion raises for a client (`ApiError`, and the checks' own exceptions that
the routes turn into answers: malformed bodies, bad frames and photos, bad input to the store, the
teaching checks) is listed here from the source itself, so a new message without a German entry
fails this test: each must be recognised by the catalogue (`reasons.explain`) and rendered in
German. Then hostile requests through the API in German get German answers with their code.
"""
import ast
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.reasons import CATALOGUE, explain, translate

COMPANION = Path(__file__).resolve().parents[2] / "companion"
# the exceptions whose message is the API's answer (ApiError: its second argument)
RAISED = {"ApiError": 1, "BadJson": 0, "BadFrame": 0, "InvalidInput": 0, "TeachError": 0,
          "SeatTaken": 0, "Overtaken": 0, "IllegalPlacement": 0, "ReaderUnavailable": 0}
# messages answered without one of those exceptions (the app's HTTP errors, other sites)
ANSWERED = ("there is no such address", "this address does not take that method",
            "the upload is too large",
            "refused: this request comes from a page of another site")
DE = {"Accept-Language": "de-DE,de;q=0.9"}


STAND_INS = ("7", "frame", "photo", "roll")


def _samples(node: ast.expr) -> list[str]:
    """The texts a message expression can make: each value put in replaced by each stand-in (a
    number, what is refused, what a player may do); none for a message passed on unchanged."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        texts = [""]
        for part in node.values:
            options = [part.value] if isinstance(part, ast.Constant) else STAND_INS
            texts = [t + o for t in texts for o in options]
        return texts
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return [t + "7" for t in _samples(node.left)]
    return []


def raised_messages() -> list[tuple[str, str]]:
    """(where, the texts it can make) for every message made for a client in companion/."""
    found = []
    for path in sorted(COMPANION.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            if name in RAISED and len(node.args) > RAISED[name]:
                texts = _samples(node.args[RAISED[name]])
                if texts:
                    found.append((f"{path.name}:{node.lineno}", texts))
    return found


MESSAGES = raised_messages() + [("answered", [m]) for m in ANSWERED]


def test_the_source_scan_finds_the_messages():
    texts = {m for _, ms in MESSAGES for m in ms}
    assert len(MESSAGES) > 80
    assert "malformed JSON: 7" in texts and "the frame is 7x7: at most 7 pixels a side" in texts
    assert "send the body as JSON (Content-Type: application/json)" in texts


@pytest.mark.parametrize("where,texts", MESSAGES, ids=[w for w, _ in MESSAGES])
def test_every_error_message_has_a_german_text(where, texts):
    known = [t for t in texts if explain(t) is not None and explain(t)[0] in CATALOGUE]
    assert known, f"{where}: no catalogue entry for {texts[0]!r}"
    for text in known:
        assert translate(text, "de") != text, f"{where}: {text!r} is not translated"


class TestHostileRequestsInGerman:
    """The hostile-input answers through the API, in German, with their code."""

    def _german(self, r, code):
        assert r.json["code"] == code, r.json
        assert r.json["error"] == translate(r.json["error"], "de")   # nothing English left
        return r.json["error"]

    def test_malformed_json(self, client, make_table):
        deep = "[" * 50 + "]" * 50
        r = client.post("/api/tables", data=deep, content_type="application/json", headers=DE)
        assert r.status_code == 400
        assert self._german(r, "app.json_malformed") == (
            "fehlerhaftes JSON: mehr als 20 Ebenen tief verschachtelt")
        r = client.post("/api/tables", data='{"game": 1e999}', content_type="application/json",
                        headers=DE)
        assert self._german(r, "app.json_malformed") == (
            "fehlerhaftes JSON: die Zahl 1e999 ist zu groß")
        r = client.post("/api/tables", data=json.dumps({"game": "qwinto"}),
                        content_type="text/plain", headers=DE)
        assert r.status_code == 415 and self._german(r, "app.json_type").startswith(
            "den Inhalt als JSON senden")

    def test_another_site_unknown_address_and_stream_limit(self, client, make_table):
        code = make_table(client)
        r = client.post(f"/api/tables/{code}/actions", json={"type": "roll", "roll": "O3"},
                        headers={**DE, "Origin": "https://elsewhere.example"})
        assert r.status_code == 403 and self._german(r, "app.cross_site").startswith("abgelehnt")
        r = client.get("/api/nowhere", headers=DE)
        assert r.status_code == 404
        assert self._german(r, "app.no_route") == "diese Adresse gibt es nicht"
        r = client.get(f"/api/tables/{code}/events?limit=nan", headers=DE)
        assert r.status_code == 400 and self._german(r, "app.limit") == (
            "'limit' muss eine Zahl von Sekunden zwischen 0 und 3600 sein")

    def test_frames_and_retries(self, client, make_table):
        code = make_table(client)
        big = cv2.imencode(".png", np.zeros((8, 8, 3), np.uint8))[1].tobytes()
        big = big[:16] + (5000).to_bytes(4, "big") + (5000).to_bytes(4, "big") + big[24:]
        r = client.post(f"/api/tables/{code}/frame", data=big, content_type="image/png",
                        headers=DE)
        assert r.status_code == 400
        assert self._german(r, "app.frame_side") == (
            "das Bild ist 5000x5000 groß: höchstens 4096 Pixel pro Seite")
        r = client.post(f"/api/tables/{code}/actions", json={"type": "roll", "roll": "orange:3",
                                                            "key": "short"}, headers=DE)
        assert r.status_code == 400 and self._german(r, "app.key").startswith("'key' muss")
        r = client.post(f"/api/tables/{code}/actions", json={"type": "roll", "roll": "orange:3",
                                                            "seq": 99}, headers=DE)
        assert r.status_code == 400 and self._german(r, "app.seq_past") == (
            "'seq' 99 liegt hinter dem Ende des Protokolls (0)")

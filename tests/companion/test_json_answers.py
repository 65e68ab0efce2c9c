"""The app's answers are encoded with orjson (`companion.json_answers`): the same JSON values as
Flask's own encoder gives, for everything an answer may hold."""
import datetime
import json
from dataclasses import dataclass

from flask.json.provider import DefaultJSONProvider


@dataclass
class Point:
    x: int
    y: int


def test_answers_hold_the_values_flask_would_give(app):
    value = {"b": 1, "a": [1.5, None, True, -3], 2: "int keys become text",
             "text": "Noch nicht gewürfelt ✓", "pair": (1, 2), "nested": {"deep": [[{}]]},
             "day": datetime.date(2026, 11, 27), "point": Point(1, 2)}
    flasks = DefaultJSONProvider(app)
    flasks.sort_keys = False              # (sorting fails on keys of two types)
    ours = app.json.dumps(value)
    assert json.loads(ours) == json.loads(flasks.dumps(value))
    assert "gewürfelt" in ours            # UTF-8, not \\u escapes
    assert list(json.loads(ours)) == ["b", "a", "2", "text", "pair", "nested", "day", "point"]


def test_an_answer_is_json_with_its_keys_in_the_order_made(client):
    r = client.get("/api/games/knister")
    assert r.mimetype == "application/json" and r.data.endswith(b"}\n")
    assert list(json.loads(r.data))[:2] == ["name", "title"]


def test_numpy_numbers_are_numbers(app):
    # a figure computed with numpy (the advisor's, vision's) is a number in the answer, not a
    # server error: orjson takes no float subclass such as numpy.float64 by itself
    import numpy as np
    value = {"expected": np.float64(71.25), "confidence": np.float32(0.5), "dice": np.int64(3),
             "check": np.bool_(False)}
    assert json.loads(app.json.dumps(value)) == {"expected": 71.25, "confidence": 0.5,
                                                 "dice": 3, "check": False}

"""The app's JSON answers, encoded with orjson.

Flask encodes every answer with the standard library's `json`; a table's state (four sheets,
their drawn views, every seat's legal placements) is encoded on every action and every page
refresh, and that encoding was about 12 % of an action's time in a worker (docs/companion.md,
"Hosting many tables"). orjson gives the same JSON (UTF-8 instead of \\u escapes) at a
fraction of the cost. What orjson does not encode itself (dates, dataclasses, anything
unusual) goes to Flask's own `default`, so answers keep Flask's forms for those; numpy's
numbers (`OPTIONS`) are numbers.
"""
from __future__ import annotations

from typing import Any

import orjson
from flask.json.provider import DefaultJSONProvider

# numpy's numbers too: the engine's and vision's figures come from numpy, and orjson, unlike
# the standard library's json, takes no float subclass (numpy.float64) without this option, so
# one such figure in an answer was a server error rather than a number
OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME \
    | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_SERIALIZE_NUMPY


def dumps_bytes(obj: Any) -> bytes:
    """Compact JSON of `obj` (keys kept in their order), Flask's `default` for other types."""
    return orjson.dumps(obj, default=DefaultJSONProvider.default, option=OPTIONS)


class JsonAnswers(DefaultJSONProvider):
    """Flask's JSON provider with orjson for encoding; decoding stays Flask's (requests are
    read by `companion.bodies.parse_json`, which checks depth, numbers and text)."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if kwargs:                      # options orjson does not take: Flask's own encoder
            return super().dumps(obj, **kwargs)
        return dumps_bytes(obj).decode()

    def response(self, *args: Any, **kwargs: Any):
        obj = self._prepare_response_obj(args, kwargs)
        return self._app.response_class(dumps_bytes(obj) + b"\n", mimetype=self.mimetype)

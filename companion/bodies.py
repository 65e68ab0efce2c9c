"""JSON from outside, decoded and checked in one place.

`parse_json` reads every JSON request body of the API and every JSON file the command line
reads (sheets, layouts). What it hands on is plain data a program can use without surprises;
anything else is refused with `BadJson`, a `ValueError` whose message is one line:

- bytes that are not UTF-8, or text that is not JSON;
- arrays and objects nested deeper than `MAX_DEPTH` (no sheet, layout or action nests more
  than 5 deep; Python's parser stops with a `RecursionError` near 1,000);
- numbers that are not finite (`1e999`, `NaN`, `Infinity`) and whole numbers beyond
  `MAX_INT` (2**53, what a browser's JSON numbers hold exactly; SQLite stores at most 2**63,
  and Python refuses to read integers of over 4,300 digits);
- text with a lone surrogate (`"\\ud800"`), which cannot be written as UTF-8 (nor stored);
- text holding NUL (`"\\u0000"`), which no name, layout or action needs and PostgreSQL's text
  cannot store (so both stores refuse it alike).
"""
from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_DEPTH = 20
MAX_INT = 2 ** 53
_MAX_DIGITS = len(str(MAX_INT))
_SURROGATE = re.compile("[\ud800-\udfff]")


class BadJson(ValueError):
    """Input that is not JSON this program takes (the message says why)."""


def _number(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BadJson(f"the number {text[:20]} is too large")
    return value


def _whole(text: str) -> int:
    if len(text.lstrip("-")) > _MAX_DIGITS or abs(int(text)) > MAX_INT:
        raise BadJson(f"the number {text[:20]}{'...' if len(text) > 20 else ''} is too large "
                      f"(at most {MAX_INT})")
    return int(text)


def _constant(name: str):
    raise BadJson(f"{name} is not a JSON number")


def parse_json(raw: bytes | str) -> Any:
    """The JSON value of `raw`, checked as the module says; `BadJson` when refused."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, (bytes, bytearray)) else raw
        value = json.loads(text, parse_float=_number, parse_int=_whole,
                           parse_constant=_constant)
    except UnicodeDecodeError as exc:
        raise BadJson(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise BadJson(str(exc)) from None
    except RecursionError:
        raise BadJson(f"nested more than {MAX_DEPTH} deep") from None
    _check(value)
    return value


def _check(value: Any) -> None:
    """Depth and text of a parsed value, walked without recursion."""
    todo = [(value, 1)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, str):
            if not item.isascii() and _SURROGATE.search(item):
                raise BadJson("the text holds a lone surrogate (\\ud800-\\udfff), "
                              "which is not a character")
            if "\0" in item:
                raise BadJson("the text holds a NUL character (\\u0000)")
        elif isinstance(item, (list, dict)):
            if depth > MAX_DEPTH:
                raise BadJson(f"nested more than {MAX_DEPTH} deep")
            if isinstance(item, dict):
                todo.extend((k, depth) for k in item)
                todo.extend((v, depth + 1) for v in item.values())
            else:
                todo.extend((v, depth + 1) for v in item)

"""The API's description (/api/openapi.json) stays true: every route is described, nothing
else is, and the answers of a short game match it. (`.ci/fuzz_api.py` fuzzes it with
schemathesis; what that found is kept in tests/companion/test_web_hostile.py.)"""
import re

import pytest

jsonschema = pytest.importorskip("jsonschema", reason="the 'jsonschema' package is not installed")


def described(spec):
    return {(method.upper(), path) for path, ops in spec["paths"].items() for method in ops}


def routes(app):
    out = set()
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/"):
            continue
        path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule[len("/api"):])
        out |= {(m, path) for m in rule.methods - {"HEAD", "OPTIONS"}}
    return out


class TestDescription:
    def test_every_route_is_described_and_nothing_else(self, client, app):
        spec = client.get("/api/openapi.json").json
        assert spec["openapi"].startswith("3.")
        assert described(spec) == routes(app)

    def test_every_path_parameter_is_declared(self, client):
        spec = client.get("/api/openapi.json").json
        for path, ops in spec["paths"].items():
            names = set(re.findall(r"{(\w+)}", path))
            for method, op in ops.items():
                declared = {p["name"] for p in op.get("parameters", []) if p["in"] == "path"}
                assert declared == names, (method, path)

    def test_a_short_game_answers_as_described(self, client, client2, make_table):
        spec = client.get("/api/openapi.json").json
        validator = Answers(spec)
        code = make_table(client)
        calls = [
            ("get", "/games", {}), ("get", "/games/{name}", {"name": "qwinto"}),
            ("get", "/tables/{code}", {}), ("get", "/tables/{code}/log", {}),
            ("post", "/tables/{code}/actions", {"json": {"type": "roll", "roll": "orange:3"}}),
            ("post", "/tables/{code}/why", {"json": {"seat": 0, "placement": "O3@0"}}),
            ("post", "/tables/{code}/actions", {"json": {"type": "place", "seat": 0,
                                                         "placement": "P3@0"}}),
            ("get", "/tables/{code}/advice", {"query_string": {"seat": 0}}),
            ("post", "/check", {"json": {"game": "qwinto", "cells": {"O@1": 5}}}),
            ("get", "/tables/{code}/teach", {}), ("get", "/camera", {}),
            ("post", "/tables/{code}/frame", {"data": b"nope", "content_type": "image/jpeg"}),
            ("post", "/tables", {"data": "{}", "content_type": "text/plain"}),
            ("get", "/tables/{code}/events", {"query_string": {"limit": "nan"}}),
        ]
        for method, template, kwargs in calls:
            values = {"code": code, **{k: v for k, v in kwargs.items() if k == "name"}}
            kwargs = {k: v for k, v in kwargs.items() if k != "name"}
            r = getattr(client, method)("/api" + template.format(**values), **kwargs)
            validator.check(method, template, r)


class Answers:
    """Checks an answer against the operation's description (status and body)."""

    def __init__(self, spec):
        self.spec = spec

    def check(self, method, template, response):
        op = self.spec["paths"][template][method]
        status = str(response.status_code)
        assert status in op["responses"], (method, template, status, response.data[:200])
        content = op["responses"][status].get("content", {})
        if "application/json" in content:
            schema = dict(content["application/json"]["schema"],
                          components=self.spec["components"])
            jsonschema.validate(response.json, schema,
                                cls=jsonschema.Draft202012Validator)

"""The app factory (flaskr style): `create_app(config)` builds the companion web app.

Defaults: the database `companion.sqlite` in the instance folder, uploads up to
`MAX_CONTENT_LENGTH` bytes, a roll counts as settled after `SETTLE_FRAMES` equal readings.
`config` (a mapping) overrides any of them; tests pass a temporary database.
"""
from __future__ import annotations

import os
from typing import Any, Mapping

from flask import Flask, g, jsonify, make_response, request

from . import db

READERS_KEPT = 64   # tables whose frame reader (and its settled roll) is kept; others rebuild


def create_app(config: Mapping[str, Any] | None = None,
               instance_path: str | None = None) -> Flask:
    app = Flask(__name__, instance_relative_config=True,
                instance_path=os.path.abspath(instance_path) if instance_path else None)
    app.config.from_mapping(
        DATABASE=os.path.join(app.instance_path, "companion.sqlite"),   # or postgresql://...
        DATABASE_POOL=20,                     # PostgreSQL: connections per worker process
        REDIS_URL=None,                       # redis://...: live updates across workers
        MAX_CONTENT_LENGTH=2 * 1024 * 1024,   # frames and layout files; more -> 413
        SETTLE_FRAMES=3,
        SSE_HEARTBEAT=5.0,                    # also how soon a closed page frees its thread
        PUBLIC_URL=None,                      # the LAN address printed by `serve` (QR, links)
        HTTPS_URL=None,                       # its HTTPS address, when `serve` runs HTTPS
        FRAME_SOURCE=None,                    # a server-side camera / demo source
        READER_FACTORY=None,                  # tests: (palette, faces, frames, symbols=)
    )
    if config is None:
        app.config.from_pyfile("config.py", silent=True)
    else:
        app.config.from_mapping(config)
    if not db.store_pg.is_url(app.config["DATABASE"]):
        os.makedirs(os.path.dirname(os.path.abspath(app.config["DATABASE"])), exist_ok=True)
    os.makedirs(app.instance_path, exist_ok=True)

    from .json_answers import JsonAnswers
    app.json = JsonAnswers(app)

    db.init_app(app)
    db.init_db(app.config["DATABASE"])      # the app creates and migrates its own schema

    from .bounded import Bounded
    app.extensions["broker"] = open_broker(app.config["REDIS_URL"], app.config["SSE_HEARTBEAT"])
    app.extensions["readers"] = Bounded(READERS_KEPT)   # table code -> reader.TableReader

    from . import api, pages, reader, security
    from .reasons import translate
    security.init_app(app)
    reader.init_app(app)   # the camera's models, loaded now (not on the first frame)
    api.init_app(app)
    app.register_blueprint(pages.bp)

    def http_error(exc):
        """404 (no such route), 405 and 413 answered in the API's JSON under /api and as the
        error page elsewhere (they arise before a blueprint's own handlers are known)."""
        message = {404: "there is no such address", 405: "this address does not take that method",
                   413: "the upload is too large"}[exc.code]
        if request.path.startswith("/api/"):
            resp = jsonify(api.error_body(message))
        else:
            resp = make_response(pages.error_page(exc.code,
                                                  translate(message, g.get("lang", "en"))))
        resp.status_code = exc.code
        if exc.code == 405:
            resp.headers["Allow"] = ", ".join(exc.valid_methods or ())
        return resp

    for status in (404, 405, 413):
        app.register_error_handler(status, http_error)

    return app


def open_broker(redis_url: str | None, heartbeat: float = 5.0):
    """The app's broker of live events (`events.Broker`, in-process), or with a redis:// URL
    the one every worker shares (`broker_redis.RedisBroker`)."""
    if not redis_url:
        from .events import Broker
        return Broker()
    from .broker_redis import RedisBroker
    return RedisBroker(redis_url, heartbeat=heartbeat)


def hosting_config(env: Mapping[str, str]) -> dict:
    """The app's settings named by the environment's DICE_COMPANION_* variables."""
    config: dict = {}
    if env.get("DICE_COMPANION_DB"):
        database = env["DICE_COMPANION_DB"]
        config["DATABASE"] = database if db.store_pg.is_url(database) else os.path.abspath(database)
    if env.get("DICE_COMPANION_REDIS"):
        config["REDIS_URL"] = env["DICE_COMPANION_REDIS"]
    if env.get("DICE_COMPANION_URL"):
        config["PUBLIC_URL"] = env["DICE_COMPANION_URL"].rstrip("/")
    return config

"""The database connection of a request (flaskr's `db.py`): taken on first use, kept on `g`,
handed back on teardown; `init_db` creates or migrates the schema, also as `flask init-db`.

Connections are kept per worker thread and database (opening one and setting its pragmas
costs more than most requests), so a request reuses its thread's connection; a connection
left inside a transaction by an error is rolled back before it is reused.
"""
from __future__ import annotations

import threading

import click
from flask import Flask, current_app, g
from flask.cli import with_appcontext

from .store import Store, connect, migrate


_local = threading.local()


def get_store() -> Store:
    if "store" not in g:
        path = current_app.config["DATABASE"]
        pool = getattr(_local, "pool", None)
        if pool is None:
            pool = _local.pool = {}
        db = pool.get(path)
        if db is None:
            db = pool[path] = connect(path)
        if db.in_transaction:
            db.rollback()
        g.store = Store(db, path)
    return g.store


def close_db(exc: BaseException | None = None) -> None:
    store = g.pop("store", None)
    if store is not None and store.db.in_transaction:
        store.db.rollback()


def init_db(path: str) -> int:
    """Create or migrate the schema; returns the version found before."""
    db = connect(path)
    try:
        return migrate(db)
    finally:
        db.close()


@click.command("init-db")
@with_appcontext
def init_db_command() -> None:
    """Create the tables, or migrate an older database to this version's schema."""
    before = init_db(current_app.config["DATABASE"])
    click.echo(f"database ready (schema was version {before})")


def init_app(app: Flask) -> None:
    app.teardown_appcontext(close_db)
    app.cli.add_command(init_db_command)

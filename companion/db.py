"""The database connection of a request (flaskr's `db.py`): opened on first use, kept on `g`,
closed on teardown; `init_db` creates or migrates the schema, also as `flask init-db`."""
from __future__ import annotations

import click
from flask import Flask, current_app, g
from flask.cli import with_appcontext

from .store import Store, connect, migrate


def get_store() -> Store:
    if "store" not in g:
        path = current_app.config["DATABASE"]
        g.store = Store(connect(path), path)
    return g.store


def close_db(exc: BaseException | None = None) -> None:
    store = g.pop("store", None)
    if store is not None:
        store.db.close()


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

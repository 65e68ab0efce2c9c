"""The database connection of a request (flaskr's `db.py`): taken on first use, kept on `g`,
handed back on teardown; `init_db` creates or migrates the schema, also as `flask init-db`.

SQLite: connections are kept per worker thread and database (opening one and setting its
pragmas costs more than most requests), so a request reuses its thread's connection; a
connection left inside a transaction by an error is rolled back before it is reused.

PostgreSQL (`DATABASE` is a postgresql:// URL, `store_pg`): a request borrows a connection
from this process's pool on first use and gives it back on teardown, or earlier with
`release_store` (an event stream holds its request for as long as the page is open).
"""
from __future__ import annotations

import threading

import click
from flask import Flask, current_app, g
from flask.cli import with_appcontext

from . import store_pg
from .store import Store, connect, migrate


_local = threading.local()


_pools: dict[str, object] = {}        # PostgreSQL URL -> this process's pool
_pools_lock = threading.Lock()


def pg_pool(url: str):
    with _pools_lock:
        pool = _pools.get(url)
        if pool is None:
            pool = _pools[url] = store_pg.open_pool(url, current_app.config["DATABASE_POOL"])
        return pool


def get_store() -> Store:
    if "store" not in g:
        path = current_app.config["DATABASE"]
        if store_pg.is_url(path):
            conn = pg_pool(path).getconn()
            g.store = store_pg.PgStore(store_pg.Connection(conn), store_pg.redacted(path))
            g.pg_conn = conn
            return g.store
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
    conn = g.pop("pg_conn", None)
    if conn is not None:
        pg_pool(current_app.config["DATABASE"]).putconn(conn)
    elif store is not None and store.db.in_transaction:
        store.db.rollback()


release_store = close_db    # done with the store before the request ends (an event stream)


def init_db(path: str) -> int:
    """Create or migrate the schema; returns the version found before."""
    if store_pg.is_url(path):
        return store_pg.init_db(path)
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

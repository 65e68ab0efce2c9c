"""The database connection of a request (flaskr's `db.py`): taken on first use, kept on `g`,
handed back on teardown; `init_db` creates or migrates the schema, also as `flask init-db`.

The app owns its database's connections and memory (`Database`). SQLite: connections are
kept per worker thread (opening one and setting its pragmas costs more than most requests), so
a request reuses its thread's connection; a connection left inside a transaction by an error
is rolled back before it is reused.

PostgreSQL (`DATABASE` is a postgresql:// URL, `store_pg`): a request borrows a connection
from the app's pool on first use and gives it back on teardown, or earlier with
`release_store` (an event stream holds its request for as long as the page is open).
"""
from __future__ import annotations

import sqlite3
import threading
import weakref

import click
from flask import Flask, current_app, g
from flask.cli import with_appcontext

from . import store_pg
from .store import Store, StoreMemory, connect, migrate


class Database:
    """One app's database (`app.extensions["database"]`): its name, what its stores keep
    between requests (`memory`, a `StoreMemory`) and its connections: SQLite, one per worker
    thread that served a request (dropped with the thread or the app); PostgreSQL, a pool of
    at most `pool_size` opened on first use and closed when the app is dropped. Two apps in
    one process share none of it."""

    def __init__(self, name: str, pool_size: int) -> None:
        self.name = name
        self.pg = store_pg.is_url(name)
        self.memory = StoreMemory(store_pg.redacted(name) if self.pg else name)
        self.pool_size = pool_size
        self._local = threading.local()
        self._pool = None
        self._pool_lock = threading.Lock()

    def pool(self):
        with self._pool_lock:
            if self._pool is None:
                self._pool = store_pg.open_pool(self.name, self.pool_size)
                weakref.finalize(self, self._pool.close)
            return self._pool

    def close(self) -> None:
        """Close the pool now (PostgreSQL), rather than when the app is dropped; a request
        after this opens a new one."""
        with self._pool_lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    def sqlite(self) -> sqlite3.Connection:
        """This thread's connection, out of any transaction an error left it in."""
        db = getattr(self._local, "db", None)
        if db is None:
            db = self._local.db = connect(self.name)
        if db.in_transaction:
            db.rollback()
        return db


def database() -> Database:
    return current_app.extensions["database"]


def get_store() -> Store:
    if "store" not in g:
        data = database()
        if data.pg:
            conn = data.pool().getconn()
            g.store = store_pg.PgStore(store_pg.Connection(conn), data.memory)
            g.pg_conn = conn
            return g.store
        g.store = Store(data.sqlite(), data.memory)
    return g.store


def close_db(exc: BaseException | None = None) -> None:
    store = g.pop("store", None)
    conn = g.pop("pg_conn", None)
    if conn is not None:
        database().pool().putconn(conn)
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
    app.extensions["database"] = Database(app.config["DATABASE"], app.config["DATABASE_POOL"])
    app.teardown_appcontext(close_db)
    app.cli.add_command(init_db_command)

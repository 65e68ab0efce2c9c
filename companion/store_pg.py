"""The game store on PostgreSQL: the hosting mode beside the embedded SQLite default.

`PgStore` is `store.Store` with its SQL sent to PostgreSQL (psycopg 3, optional: the
`server` extra): the same action-log schema (`companion/migrations/postgresql/*.sql`, applied
in order at start by `migrate`), the same operations and the same guarantees:

- the log is append-only (a trigger refuses UPDATE and DELETE of its rows);
- one writer per table at a time across every worker process: an action is checked and
  written in a transaction holding the table's advisory lock, against the log as it is then
  (`_table_writer` counts it again under the lock), so two workers never write the same seq;
- a conflicting write is a 409 (`Overtaken`, or the (table, seq) key: `IllegalPlacement`);
- every action is committed before the caller answers (its COMMIT frees the lock); an action
  costs two round trips to the server under the lock (pipelines), other statements are
  autocommitted.

The queries are the SQLite store's own: `Connection` translates its `?` placeholders to
psycopg's `%s` and gives rows that are read by index or by column name, as `sqlite3.Row` is.
"""
from __future__ import annotations

import contextlib
import dataclasses
import re
from pathlib import Path
from typing import Any, Sequence
from urllib.parse import urlsplit, urlunsplit

from engine.errors import IllegalPlacement

from .store import Store, StoreMemory, TableRecord

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations" / "postgresql"
MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
# advisory lock keys, two-int form (the table writers' one-int keys are table ids: another space)
LOCK_MIGRATE = (1, 0)
LOCK_NEW_TABLE = 2     # (2, hashtext(idempotency key))

SCHEMES = ("postgresql://", "postgres://")


def is_url(database: str) -> bool:
    """Whether `database` names a PostgreSQL server (else it is a SQLite file)."""
    return str(database).startswith(SCHEMES)


def redacted(url: str) -> str:
    """The URL without its password (printed, and the key of this process's caches)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    return urlunsplit(parts._replace(netloc=netloc[0].split(":", 1)[0] + ":***@" + netloc[1]))


class Row(tuple):
    """A row read by index or by column name (`row["seq"]`, `dict(row)`), as sqlite3.Row."""

    def __new__(cls, values, index: dict[str, int]):
        row = super().__new__(cls, values)
        row._index = index
        return row

    def __getitem__(self, key):
        if isinstance(key, str):
            return tuple.__getitem__(self, self._index[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self._index)


def _row_factory(cursor):
    index = {c.name: i for i, c in enumerate(cursor.description or ())}
    return lambda values: Row(values, index)


class Connection:
    """A psycopg connection (autocommit) spoken to as the SQLite store speaks to sqlite3."""

    def __init__(self, conn) -> None:
        self.conn = conn
        conn.row_factory = _row_factory

    def execute(self, sql: str, params: Sequence[Any] = ()):
        return self.conn.execute(sql.replace("?", "%s"), tuple(params))

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]):
        cur = self.conn.cursor()
        cur.executemany(sql.replace("?", "%s"), [tuple(r) for r in rows])
        return cur


class PgStore(Store):
    """The operations of the app on one pooled PostgreSQL connection (`Connection`)."""

    SEATS_JSON = ("(SELECT json_agg(json_build_array(p.seat, p.name, p.token) ORDER BY p.seat)"
                  "::text FROM players p WHERE p.table_id = t.id)")

    def __init__(self, db: Connection, memory: StoreMemory) -> None:
        super().__init__(db, memory)

    @contextlib.contextmanager
    def _transaction(self):
        with self.db.conn.transaction():
            yield

    def _one_writer(self, rec: TableRecord) -> None:
        """The table's advisory lock, held until the transaction ends (the action log's
        writers take the same one)."""
        self.db.execute("SELECT pg_advisory_xact_lock(?)", (rec.id,))

    @contextlib.contextmanager
    def _table_writer(self, rec: TableRecord, key: str | None = None):
        """This process's lock of the table, then a transaction holding the table's advisory
        lock (every worker's writers wait on it; the COMMIT that writes the action, or the
        ROLLBACK of a refused one, frees it), in which the log is counted again and `key`
        looked up: the record to check against and the seq of `key`'s action. BEGIN, the lock,
        the count and the key go to the server in one round trip (a pipeline)."""
        conn = self.db.conn
        with self._lock(rec):
            with conn.pipeline():
                self.db.execute("BEGIN")
                self.db.execute("SELECT pg_advisory_xact_lock(?)", (rec.id,))
                count = self.db.execute("SELECT COUNT(*) FROM actions WHERE table_id=?",
                                        (rec.id,))
                done = None if key is None else self.db.execute(
                    "SELECT seq FROM actions WHERE table_id=? AND request_key=?", (rec.id, key))
            try:
                row = None if done is None else done.fetchone()
                yield (dataclasses.replace(rec, log_seen=count.fetchone()[0]),
                       None if row is None else row["seq"])
            finally:
                if conn.info.transaction_status.name != "IDLE":    # refused, or an error
                    conn.execute("ROLLBACK")

    def _commit_action(self, row: tuple) -> None:
        """Insert the row and COMMIT in one round trip (a pipeline); the commit frees the
        table's lock."""
        with self.db.conn.pipeline():
            cur = self.db.execute(
                "INSERT INTO actions (table_id, seq, action, created, by_seat, request_key) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING", row)
            self.db.execute("COMMIT")
        if cur.rowcount != 1:   # only a writer that ignored the advisory lock gets here
            raise IllegalPlacement("the table changed meanwhile: look again and retry")

    def creating(self, key: str | None):
        """Held while a new table is made with idempotency key `key`: this process's lock and
        the key's advisory lock, so a retry sent to another worker waits too."""
        if key is None:
            return contextlib.nullcontext()
        return self._creating(key)

    @contextlib.contextmanager
    def _creating(self, key: str):
        with super().creating(key):
            self.db.execute("SELECT pg_advisory_lock(?, hashtext(?))", (LOCK_NEW_TABLE, key))
            try:
                yield
            finally:
                self.db.execute("SELECT pg_advisory_unlock(?, hashtext(?))",
                                (LOCK_NEW_TABLE, key))


# -- migrations ---------------------------------------------------------------------------------
def migration_files(folder: Path = MIGRATIONS_DIR) -> list[tuple[int, str, str]]:
    """(version, file name, SQL) of every migration in `folder`, in order: files named
    NNNN_what.sql, numbered 1, 2, 3, ... without a gap."""
    found = []
    for path in sorted(folder.iterdir()):
        match = MIGRATION_NAME.match(path.name)
        if match is None:
            if path.suffix == ".sql":
                raise RuntimeError(f"migration {path.name}: name it NNNN_what.sql")
            continue
        found.append((int(match.group(1)), path.name, path.read_text()))
    for expected, (version, name, _) in enumerate(found, start=1):
        if version != expected:
            raise RuntimeError(f"migration {name}: expected number {expected:04d}")
    return found


def migrate(conn, folder: Path = MIGRATIONS_DIR) -> int:
    """Apply the migrations in `folder` that the database lacks, each in its own transaction
    and recorded in `schema_migrations`; returns the version found before. Workers starting at
    once take turns (an advisory lock); a database newer than the files is refused."""
    files = migration_files(folder)
    conn.execute("SELECT pg_advisory_lock(%s, %s)", LOCK_MIGRATE)
    try:
        conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY "
                     "KEY, name TEXT NOT NULL, applied TIMESTAMPTZ NOT NULL DEFAULT now())")
        found = conn.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations"
                             ).fetchone()[0]
        if found > len(files):
            raise RuntimeError(f"the database has schema {found}, newer than this program "
                               f"({len(files)})")
        for version, name, sql in files[found:]:
            with conn.transaction():
                conn.execute(sql)
                conn.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, %s)",
                             (version, name))
        return found
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s, %s)", LOCK_MIGRATE)


# -- connections --------------------------------------------------------------------------------
def _psycopg():
    try:
        import psycopg
        import psycopg_pool
    except ImportError:
        raise RuntimeError("a postgresql:// database needs psycopg 3 and psycopg_pool: "
                           "pip install 'dice-companion[server]'") from None
    return psycopg, psycopg_pool


def connect(url: str):
    """One autocommit connection (migrations, tests)."""
    psycopg, _ = _psycopg()
    return psycopg.connect(url, autocommit=True)


def init_db(url: str) -> int:
    """Create or migrate the schema; returns the version found before."""
    with connect(url) as conn:
        return migrate(conn)


def open_pool(url: str, max_size: int = 20):
    """This process's connection pool to `url`: autocommit connections, each checked before
    it is handed out (a server restarted meanwhile costs a reconnect, not a failed request)."""
    _, psycopg_pool = _psycopg()
    pool = psycopg_pool.ConnectionPool(
        url, min_size=1, max_size=max_size, kwargs={"autocommit": True}, open=True,
        check=psycopg_pool.ConnectionPool.check_connection, name="dice-companion")
    return pool

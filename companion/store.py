"""The game store: SQLite in the instance folder, one append-only log of actions per table.

A table's state is never stored, only its actions: the state is `engine.Table.replay` of
the log. That gives undo, history, crash safety and an audit of every table.

Layout of the data (schema version in `PRAGMA user_version`, migrated by `migrate`):

- ``tables``: one row per table: its code, game, the layout data of every seat (the
  full JSON, so a table stays playable if a shipped layout changes), the creator's token and
  the join secret (`join_key`: what the table's join link carries besides its code; without
  it nobody but the creator takes a free seat).
- ``players``: one row per seat: name and, once someone joined as that seat, its token.
- ``actions``: the log: (table, seq) -> the action as JSON (`engine.table.action_to_json`).

Connections are per request (flaskr style, see `db.get_store`); the database runs in WAL mode
with `synchronous=FULL`, and every accepted action is committed before the caller answers.
The stores of one app share a `StoreMemory` (owned by the app), which keeps the replayed
`Table` of each table keyed by the length of its log, so a request replays only when another
process wrote (or on the first request).
"""
from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from engine.errors import IllegalPlacement, InvalidInput
from engine.game import Game
from engine.registry import game_class
from engine.table import Action, Begin, Table, action_from_json, action_to_json

from .bounded import Bounded

SCHEMA_VERSION = 5

# Each step takes the database from version i to i + 1.
MIGRATIONS: list[str] = [
    # 0 -> 1: tables, seats, the action log
    """
    CREATE TABLE tables (
        id INTEGER PRIMARY KEY,
        code TEXT NOT NULL UNIQUE,
        game TEXT NOT NULL,
        layouts TEXT NOT NULL,          -- JSON list: the layout data of each seat
        creator_token TEXT NOT NULL,
        created REAL NOT NULL
    );
    CREATE TABLE players (
        table_id INTEGER NOT NULL REFERENCES tables(id),
        seat INTEGER NOT NULL,
        name TEXT NOT NULL,
        token TEXT UNIQUE,              -- NULL until someone joins as this seat
        PRIMARY KEY (table_id, seat)
    );
    CREATE TABLE actions (
        table_id INTEGER NOT NULL REFERENCES tables(id),
        seq INTEGER NOT NULL,           -- 1, 2, 3, ... per table
        action TEXT NOT NULL,           -- JSON, engine.table.action_to_json
        created REAL NOT NULL,
        PRIMARY KEY (table_id, seq)
    );
    """,
    # 1 -> 2: who wrote each action (seat, or -1 for the creator acting as the table)
    """
    ALTER TABLE actions ADD COLUMN by_seat INTEGER;
    """,
    # 2 -> 3: teaching the table's own dice: examples (a photo and its label), withdrawals,
    # and switching the taught reader on and off; append-only like the actions
    """
    CREATE TABLE teach_log (
        table_id INTEGER NOT NULL REFERENCES tables(id),
        seq INTEGER NOT NULL,           -- 1, 2, 3, ... per table
        kind TEXT NOT NULL,             -- example, withdraw (of the example `ref`), use, stop
        face TEXT,                      -- example: the face's label (3, cow)
        colour TEXT,                    -- example: the face's colour (The Choice), else NULL
        box TEXT,                       -- example: JSON [x0, y0, x1, y1], the die in the photo
        image BLOB,                     -- example: the photo as uploaded (JPEG/PNG bytes)
        ref INTEGER,                    -- withdraw: the seq of the example
        created REAL NOT NULL,
        PRIMARY KEY (table_id, seq)
    );
    """,
    # 3 -> 4: retries are safe: the idempotency key a page sent with an action or a new table
    # (a retry with the same key is answered as the first request, and writes nothing)
    """
    ALTER TABLE actions ADD COLUMN request_key TEXT;
    CREATE UNIQUE INDEX actions_request_key ON actions (table_id, request_key);
    ALTER TABLE tables ADD COLUMN request_key TEXT;
    CREATE UNIQUE INDEX tables_request_key ON tables (request_key);
    """,
    # 4 -> 5: a table's join secret, carried by its join link and QR code; the tables made
    # before get one each (96 random bits, as `new_join_key`'s)
    """
    ALTER TABLE tables ADD COLUMN join_key TEXT;
    UPDATE tables SET join_key = lower(hex(randomblob(12))) WHERE join_key IS NULL;
    """,
]
assert len(MIGRATIONS) == SCHEMA_VERSION

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I
CODE_LENGTH = 5
_CODE_CHARS = frozenset(CODE_ALPHABET)
REJOIN_LENGTH = 6   # a seat's rejoin code: 32**6, about 10**9


def new_join_key() -> str:
    """A table's join secret: 96 random bits, 16 URL-safe characters (short for the QR)."""
    return secrets.token_urlsafe(12)


class UnknownTable(LookupError):
    """No table has this code (404)."""


class SeatTaken(ValueError):
    """Someone already joined as this seat (409)."""


class AlreadyDone(Exception):
    """An action whose idempotency key is in the log already: it was written as entry `seq`
    (a retry after a lost answer; nothing is written again)."""

    def __init__(self, seq: int) -> None:
        super().__init__(f"already done as entry {seq}")
        self.seq = seq


class AlreadyMade(Exception):
    """A new table whose idempotency key made table `code` already (nothing is made again)."""

    def __init__(self, code: str) -> None:
        super().__init__(f"already made as table {code}")
        self.code = code


class AlreadyWithdrawn(ValueError):
    """A teaching example withdrawn already (by another device at the same moment): nothing is
    written again."""


class Overtaken(ValueError):
    """An action made against an earlier state of the table than the log holds now, and
    overtaken by what was written since (409 with the current state)."""


TABLE_ACTIONS = frozenset({"roll", "correct", "keep", "begin"})   # the others name a seat


def overtaken(action: dict, since: Sequence[dict]) -> bool:
    """Whether `action` (JSON, as logged) made against an earlier log is overtaken by the
    actions written `since`: by any roll, correction, keep or begin (the roll it was judged
    against changed), and a seat's action also by any action on that same seat. A placement
    of another seat does not overtake it: every player answers the same roll at once."""
    for later in since:
        if later.get("type") in TABLE_ACTIONS:
            return True
        if action.get("type") not in TABLE_ACTIONS and later.get("seat") == action.get("seat"):
            return True
    return False


def connect(path: str) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
    db.row_factory = sqlite3.Row
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA foreign_keys=ON")
    db.execute("PRAGMA busy_timeout=10000")
    return db


def migrate(db: sqlite3.Connection) -> int:
    """Bring the schema up to `SCHEMA_VERSION`; returns the version found before."""
    found = db.execute("PRAGMA user_version").fetchone()[0]
    if found > SCHEMA_VERSION:
        raise RuntimeError(f"the database has schema {found}, newer than this program "
                           f"({SCHEMA_VERSION})")
    for version in range(found, SCHEMA_VERSION):
        db.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(MIGRATIONS[version]):
                db.execute(statement)
            db.execute(f"PRAGMA user_version={version + 1}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    return found


def _statements(script: str) -> list[str]:
    lines = [line.split("--", 1)[0] for line in script.splitlines()]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


@dataclass(frozen=True)
class Seat:
    seat: int
    name: str
    claimed: bool


@dataclass(frozen=True)
class TableRecord:
    id: int
    code: str
    game: str
    layouts: tuple[dict, ...]
    creator_token: str
    seats: tuple[Seat, ...]
    # each seat's secret token (None until joined), read with the seats; never shown
    tokens: tuple[str | None, ...] = field(default=(), repr=False, compare=False)
    # the length of the log when the record was read (None: unknown)
    log_seen: int | None = field(default=None, repr=False, compare=False)
    # the table's join secret: with it a free seat may be taken; shown only to the creator
    # and the seated players (their state's `me.join`)
    join_key: str = field(default="", repr=False, compare=False)


# What the stores of one database keep between requests (`StoreMemory`). Each cache is
# bounded (`Bounded`: least recently used dropped first): a client can send any number of
# layouts and create any number of tables.
LAYOUTS_CACHED = 256    # distinct stored layout texts, parsed
GAMES_CACHED = 64       # distinct layouts' game objects (the shipped ones: 10)
TABLES_CACHED = 256     # tables' replayed states
TABLE_LOCKS = 256       # a table always maps to the same one of these locks
NEW_TABLE_LOCKS = 64    # the same for new tables' idempotency keys


class StoreMemory:
    """What the stores of one database keep between requests, owned by whoever opens the
    database (the app: `db.Database`; a test: its own), never by the module: parsed layouts,
    game objects and replayed tables (each `Bounded`), the locks of its tables and of new
    tables (striped: a fixed number however many tables there are), the database's write lock
    and, for SQLite, its group commit. Stores made with one memory share them (the requests
    of one app); two apps, even on one file, each have their own and meet in the database,
    as two processes do."""

    def __init__(self, path: str, tables: int = TABLES_CACHED, games: int = GAMES_CACHED,
                 layouts: int = LAYOUTS_CACHED) -> None:
        self.path = path
        self.layouts: Bounded[tuple[dict, ...]] = Bounded(layouts)
        self.games: Bounded[Game] = Bounded(games)
        self.tables: Bounded[tuple[int, Table]] = Bounded(tables)   # id -> (log length, Table)
        self.table_locks = tuple(threading.Lock() for _ in range(TABLE_LOCKS))
        # separate: a new table's first action takes its table's lock while this one is held
        self.new_table_locks = tuple(threading.Lock() for _ in range(NEW_TABLE_LOCKS))
        # one writer at a time per database: SQLite allows one anyway, and waiting here
        # instead of in its busy handler (which may sleep in whole seconds) keeps the
        # latency of concurrent writes low
        self.write_lock = threading.Lock()
        self.group_commit = GroupCommit(self.write_lock)

    def parsed_layouts(self, text: str) -> tuple[dict, ...]:
        """The stored layouts of a table, parsed once per distinct text (they never change)."""
        return self.layouts.get_or_make(text, lambda: tuple(json.loads(text)))

    def games_for(self, game: str, layouts: Sequence[dict]) -> tuple[Game, ...]:
        """One game object per seat, built from stored layout data (cached by content)."""
        cls = game_class(game)
        return tuple(self.games.get_or_make((cls.name, json.dumps(data, sort_keys=True)),
                                            lambda data=data: cls(cls.parse_layout(data)))
                     for data in layouts)


class Store:
    """The operations of the app on one SQLite connection; `memory`: what the stores of its
    database keep between requests."""

    def __init__(self, db: sqlite3.Connection, memory: StoreMemory) -> None:
        self.db = db
        self.memory = memory
        self.path = memory.path

    # -- tables ----------------------------------------------------------------------
    def create_table(self, game: str, players: Sequence[str], layouts: Sequence[dict],
                     key: str | None = None, first: int | None = None,
                     claim: int | None = None) -> tuple[TableRecord, Table]:
        """Create a table (checked by building it); returns the record and the new Table.
        `key`: the request's idempotency key; a table already made with it is `AlreadyMade`.
        `first`: the seat that rolls first, logged as the table's first action (`Begin`);
        `claim`: the seat the creator sits at. Table, first roller and seat are written in one
        transaction: a server killed between them left a table whose retry (the same key)
        answered with the wrong first roller and the creator standing."""
        games = self.memory.games_for(game, layouts)
        table = Table.new(games, players)          # raises InvalidInput when wrong
        begin = None
        if first is not None:
            begin = Begin(first)
            table = table.apply(begin)             # refused: nothing written
        if claim is not None and not 0 <= claim < len(players):
            raise InvalidInput(f"there is no seat {claim} at this table of {len(players)}")
        name = games[0].name
        token = secrets.token_urlsafe(24)
        return self._insert_table(name, players, layouts, token, key, begin, claim), table

    # -- what differs between the stores (`store_pg.PgStore` overrides these) --------------
    # The seats of table `t` as one JSON text: [[seat, name, token], ...] in seat order.
    SEATS_JSON = ("(SELECT json_group_array(json_array(p.seat, p.name, p.token)) FROM "
                  " (SELECT seat, name, token FROM players WHERE table_id = t.id ORDER BY seat) p)")

    @contextlib.contextmanager
    def _transaction(self):
        """One write transaction: SQLite has one writer per database, so this process's
        writers wait on its lock (not in SQLite's busy handler), then BEGIN IMMEDIATE."""
        with self.memory.write_lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    def _one_writer(self, rec: TableRecord) -> None:
        """Inside a transaction: no other writer of this table's logs until it ends. SQLite's
        BEGIN IMMEDIATE holds the database's one write lock already."""

    @contextlib.contextmanager
    def _table_writer(self, rec: TableRecord, key: str | None = None):
        """Held while an action is checked and written; yields the record to check against
        and the seq of the action written with idempotency key `key` (None: none, or no key).
        One writer per table at a time in this process; another process's write since the
        record was read is caught at the insert by the (table, seq) key."""
        with self._lock(rec):
            done = None if key is None else self.db.execute(
                "SELECT seq FROM actions WHERE table_id=? AND request_key=?",
                (rec.id, key)).fetchone()
            yield rec, None if done is None else done["seq"]

    def _commit_action(self, row: tuple) -> None:
        """Write one row of the log (table, seq, action, created, by_seat, key), committed
        before it returns; a seq already written is refused (`IllegalPlacement`, 409)."""
        self.memory.group_commit.commit(self.db, row)

    # -- tables, continued -------------------------------------------------------------
    def _insert_table(self, name, players, layouts, token, key=None, begin=None,
                      claim=None) -> TableRecord:
        with self._transaction():
            if key is not None:
                made = self.db.execute("SELECT code FROM tables WHERE request_key=?",
                                       (key,)).fetchone()
                if made is not None:
                    raise AlreadyMade(made["code"])
            for _ in range(50):
                code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
                if not self.db.execute("SELECT 1 FROM tables WHERE code=?", (code,)).fetchone():
                    break
            tid = self.db.execute(
                "INSERT INTO tables (code, game, layouts, creator_token, join_key, created, "
                "request_key) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (code, name, json.dumps(list(layouts)), token, new_join_key(), time.time(),
                 key)).fetchone()[0]
            self.db.executemany(
                "INSERT INTO players (table_id, seat, name, token) VALUES (?, ?, ?, ?)",
                [(tid, i, p, token if i == claim else None) for i, p in enumerate(players)])
            if begin is not None:
                self.db.execute(
                    "INSERT INTO actions (table_id, seq, action, created, by_seat, request_key) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (tid, 1, json.dumps(action_to_json(begin)), time.time(), -1, None))
        return self.table_record(code)

    def table_record(self, code: str) -> TableRecord:
        """The table, its seats (with their tokens) and its log length, read in one query
        that returns one row: every SQLite step lets other threads take the GIL, and under
        load getting it back costs more than the query."""
        wanted = code.strip().upper()
        if len(wanted) != CODE_LENGTH or not set(wanted) <= _CODE_CHARS:
            # no table has it (nor is it asked of the database: PostgreSQL's text holds no NUL)
            raise UnknownTable(f"there is no table '{code}'")
        row = self.db.execute(
            "SELECT t.id, t.code, t.game, t.layouts, t.creator_token, t.join_key, "
            f"{self.SEATS_JSON} AS seats, "
            "(SELECT COUNT(*) FROM actions a WHERE a.table_id = t.id) AS n "
            "FROM tables t WHERE t.code=?", (wanted,)).fetchone()
        if row is None:
            raise UnknownTable(f"there is no table '{code}'")
        seats = json.loads(row["seats"])
        return TableRecord(row["id"], row["code"], row["game"],
                           self.memory.parsed_layouts(row["layouts"]),
                           row["creator_token"],
                           tuple(Seat(seat, name, token is not None)
                                 for seat, name, token in seats),
                           tuple(token for _, _, token in seats), row["n"],
                           join_key=row["join_key"])

    # -- players ---------------------------------------------------------------------
    def join(self, rec: TableRecord, seat: int, token: str | None = None) -> str:
        """Claim a seat: returns the player's secret token; `SeatTaken` if claimed.

        The creator joins with their own token, so one cookie says both."""
        if not 0 <= seat < len(rec.seats):
            raise InvalidInput(f"there is no seat {seat} at this table of {len(rec.seats)}")
        token = token or secrets.token_urlsafe(24)
        with self._transaction():
            cur = self.db.execute(
                "UPDATE players SET token=? WHERE table_id=? AND seat=? AND token IS NULL",
                (token, rec.id, seat))
        if cur.rowcount != 1:
            raise SeatTaken(f"{rec.seats[seat].name} has already joined this table")
        return token

    def rejoin_key(self, rec: TableRecord, seat: int) -> str | None:
        """The code that moves a joined seat to another device (None: nobody joined it).

        Made from the creator's secret and the seat's current token (HMAC), so nothing is
        stored: once used, the seat has a new token and the code is spent; only someone who
        holds the creator's token can make it."""
        if not 0 <= seat < len(rec.seats):
            raise InvalidInput(f"there is no seat {seat} at this table of {len(rec.seats)}")
        token = rec.tokens[seat]
        if token is None:
            return None
        digest = hmac.new(rec.creator_token.encode(), f"rejoin:{rec.code}:{seat}:{token}".encode(),
                          hashlib.sha256).digest()
        return "".join(CODE_ALPHABET[b % len(CODE_ALPHABET)] for b in digest[:REJOIN_LENGTH])

    def rejoin(self, rec: TableRecord, seat: int, key: str, token: str | None = None) -> str:
        """Move a joined seat to this device with its rejoin code: the seat gets a new token
        (the old device's is no longer the seat's); returns it. `InvalidInput` for a wrong
        code, `SeatTaken` when the seat changed meanwhile."""
        expected = self.rejoin_key(rec, seat)
        given = "".join(str(key).split()).upper()
        if expected is None or not given.isascii() or not secrets.compare_digest(expected, given):
            raise InvalidInput(f"that is not {rec.seats[seat].name}'s rejoin code: "
                               f"ask the host for the code shown now")
        token = token or secrets.token_urlsafe(24)
        with self._transaction():
            cur = self.db.execute(
                "UPDATE players SET token=? WHERE table_id=? AND seat=? AND token=?",
                (token, rec.id, seat, rec.tokens[seat]))
        if cur.rowcount != 1:
            raise SeatTaken(f"{rec.seats[seat].name}'s seat changed meanwhile: "
                            f"ask the host for the code shown now")
        return token

    def seat_of(self, rec: TableRecord, token: str | None) -> int | None:
        """The seat whose token this is (read with the record: no query)."""
        if not token:
            return None
        for seat, known in enumerate(rec.tokens):
            if known is not None and secrets.compare_digest(known, token):
                return seat
        return None

    # -- teaching the table's dice ---------------------------------------------------
    def teach_append(self, rec: TableRecord, kind: str, face: str | None = None,
                     colour: str | None = None, box: Sequence[int] | None = None,
                     image: bytes | None = None, ref: int | None = None) -> int:
        """Append one entry to the table's teaching log (committed before it returns); its seq.

        Kinds: `example` (a photo, its face, colour and box), `withdraw` (`ref`: an example),
        `use` / `stop` (the taught reader on or off); and for body colours `colour_photo` (a photo
        of the table's dice; `box`: the JSON list of the dice found, `colour`: the JSON list of
        the colours read), `colours` (`ref`: a colour photo; `colour`: the JSON list of the
        confirmed names) and `colours_stop`. The columns' comments in the schema name the first
        four (schema 3); the others reuse the same columns. A `withdraw` of an example withdrawn
        already is `AlreadyWithdrawn`: checked in the same transaction, as two devices'
        withdrawals at once both passed a check made before it."""
        with self._transaction():
            self._one_writer(rec)
            if kind == "withdraw" and self.db.execute(
                    "SELECT 1 FROM teach_log WHERE table_id=? AND kind='withdraw' AND ref=?",
                    (rec.id, ref)).fetchone():
                raise AlreadyWithdrawn(f"example {ref} is withdrawn already")
            seq = self.db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM teach_log "
                                  "WHERE table_id=?", (rec.id,)).fetchone()[0]
            self.db.execute(
                "INSERT INTO teach_log (table_id, seq, kind, face, colour, box, image, ref, "
                "created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (rec.id, seq, kind, face, colour, None if box is None else json.dumps(list(box)),
                 image, ref, time.time()))
        return seq

    def teach_log(self, rec: TableRecord, images: bool = False) -> list[dict]:
        """The teaching log in order (`images`: with the photos' bytes)."""
        cols = "seq, kind, face, colour, box, ref" + (", image" if images else "")
        rows = self.db.execute(f"SELECT {cols} FROM teach_log WHERE table_id=? ORDER BY seq",
                               (rec.id,))
        return [dict(r) | {"box": None if r["box"] is None else json.loads(r["box"])}
                for r in rows]

    def teach_image(self, rec: TableRecord, seq: int) -> bytes | None:
        """The photo of one teaching example or colour photo (None if `seq` is neither)."""
        row = self.db.execute("SELECT image FROM teach_log WHERE table_id=? AND seq=? "
                              "AND kind IN ('example', 'colour_photo')",
                              (rec.id, seq)).fetchone()
        return None if row is None else row["image"]

    # -- the log ---------------------------------------------------------------------
    def creating(self, key: str | None):
        """Held while a new table is made with idempotency key `key` (its seats claimed, its
        first roller logged): a retry with the same key waits, then finds it made."""
        if key is None:
            return contextlib.nullcontext()
        locks = self.memory.new_table_locks
        return locks[hash(key) % len(locks)]

    def _lock(self, rec: TableRecord) -> threading.Lock:
        locks = self.memory.table_locks
        return locks[rec.id % len(locks)]

    def log_length(self, rec: TableRecord) -> int:
        return self.db.execute("SELECT COUNT(*) FROM actions WHERE table_id=?",
                               (rec.id,)).fetchone()[0]

    def actions(self, rec: TableRecord) -> list[dict]:
        return [json.loads(r["action"]) | {"seq": r["seq"], "by_seat": r["by_seat"],
                                           "at": r["created"]}
                for r in self.db.execute("SELECT seq, action, by_seat, created FROM actions "
                                         "WHERE table_id=? ORDER BY seq", (rec.id,))]

    def replay(self, rec: TableRecord, upto: int | None = None) -> Table:
        """The table as its whole log makes it (no cache), or its first `upto` actions (the
        answer to a retried action). A log written before the roller's keep step (the first
        answer fixed the roll) replays as it was played."""
        table = Table.new(self.memory.games_for(rec.game, rec.layouts),
                          [s.name for s in rec.seats])
        rows = self.db.execute("SELECT action FROM actions WHERE table_id=? AND seq<=? "
                               "ORDER BY seq", (rec.id, 2 ** 62 if upto is None else upto))
        return table.replay([action_from_json(json.loads(r["action"]), table.symbols)
                             for r in rows],
                            first_answer_keeps=True)

    def state(self, rec: TableRecord) -> tuple[int, Table]:
        """(log length, table): cached, replayed again when the log has grown elsewhere."""
        with self._lock(rec):
            return self._current(rec)

    def _current(self, rec: TableRecord) -> tuple[int, Table]:
        cache = self.memory.tables
        hit = cache.get(rec.id)
        # The log only grows. A cached table at least as long as the log the record saw is
        # current (it may include this process's later appends); a shorter one means
        # another process wrote: count again and replay. A write by another process after
        # the record was read is caught when committing (the seq is taken: 409).
        if hit is not None and rec.log_seen is not None and hit[0] >= rec.log_seen:
            return hit
        n = self.log_length(rec)
        if hit is not None and hit[0] == n:
            return hit
        if hit is not None and hit[0] < n:      # the log grew elsewhere: apply what is new
            table = hit[1].replay(self._actions_after(rec, hit[0], hit[1].symbols),
                                  first_answer_keeps=True)
        else:
            table = self.replay(rec)
        cache[rec.id] = (n, table)
        return n, table

    def _actions_after(self, rec: TableRecord, seq: int, symbols) -> list[Action]:
        return [action_from_json(json.loads(r["action"]), symbols) for r in self.db.execute(
            "SELECT action FROM actions WHERE table_id=? AND seq>? ORDER BY seq", (rec.id, seq))]

    def append(self, rec: TableRecord, action: Action, by_seat: int | None,
               check=None, key: str | None = None,
               based_on: int | None = None) -> tuple[int, Table]:
        """Check `action` against the current table, then commit it to the log.

        Raises the engine's `IllegalPlacement` / `InvalidInput` (nothing written) when the
        action is refused. `check(table)`, if given, is called with the current table first
        (under the table's lock) and may refuse by raising. Returns (new log length, new
        table) once the action is durable.

        `key`: the request's idempotency key; one already in the table's log raises
        `AlreadyDone` (nothing written). `based_on`: the log length the action was made
        against; one overtaken by what was written since (`overtaken`) raises `Overtaken`.
        """
        with self._table_writer(rec, key) as (rec, done):
            if done is not None:
                raise AlreadyDone(done)
            n, table = self._current(rec)
            if based_on is not None:
                if based_on > n:
                    raise InvalidInput(f"'seq' {based_on} is past the end of the log ({n})")
                since = [json.loads(r["action"]) for r in self.db.execute(
                    "SELECT action FROM actions WHERE table_id=? AND seq>? ORDER BY seq",
                    (rec.id, based_on))] if based_on < n else []
                if overtaken(action_to_json(action), since):
                    raise Overtaken("the table changed meanwhile: look again and retry")
            if check is not None:
                check(table)
            table = table.apply(action)       # refused: nothing written, no lock taken
            row = (rec.id, n + 1, json.dumps(action_to_json(action)), time.time(), by_seat,
                   key)
            self._commit_action(row)
            self.memory.tables[rec.id] = (n + 1, table)
            return n + 1, table


class _Pending:
    __slots__ = ("row", "done", "error")

    def __init__(self, row: tuple) -> None:
        self.row, self.done, self.error = row, False, None


class GroupCommit:
    """Commits the actions of many requests in one transaction (one fsync), each request
    answered only once the transaction holding its action is committed.

    A writer queues its row; when no transaction is being written it becomes the leader:
    it takes every row queued so far (its own among them), writes them under the
    database's write lock and commits, then wakes the writers waiting. A writer woken with
    its row committed is done; one whose row came too late for that transaction leads the
    next. Waiting on a condition (not in line on the lock) lets the next transaction start
    as soon as the last one ended, however many finished writers are still waking. Under load
    (twenty tables posting at once) one commit carries several actions instead of twenty
    commits queueing behind each other's fsync; alone, a writer commits its row at once,
    as before. Durability is unchanged: nobody is answered before their COMMIT returned.

    A row whose (table, seq) is already in the log (another process wrote to that table
    since the check) is not written and refused with "the table changed meanwhile"; the
    other rows of the transaction are written.
    """

    def __init__(self, lock: threading.Lock) -> None:
        self.lock = lock                # the database's write lock
        self._queue: list[_Pending] = []
        self._cond = threading.Condition()
        self._writing = False
        self.batches = 0            # transactions written, and rows in them (for tests)
        self.rows = 0

    def commit(self, db: sqlite3.Connection, row: tuple) -> None:
        item = _Pending(row)
        with self._cond:
            self._queue.append(item)
            # wait until a leader has written our row, or lead ourselves when nobody writes
            while not item.done and self._writing:
                self._cond.wait()
            lead = not item.done
            if lead:
                self._writing = True
                batch, self._queue = self._queue, []
        if lead:
            try:
                with self.lock:
                    self._write(db, batch)
            finally:
                with self._cond:
                    self._writing = False
                    self.batches += 1
                    self.rows += len(batch)
                    self._cond.notify_all()
        if item.error is not None:
            raise item.error

    @staticmethod
    def _write(db: sqlite3.Connection, batch: list[_Pending]) -> None:
        """Write the batch as one multi-row INSERT in autocommit mode: the statement is its
        own transaction, committed (WAL, synchronous=FULL) before `execute` returns, and
        it is a single SQLite step. Each step lets the other threads take the GIL, and
        under load getting it back costs more than the write itself, so BEGIN / INSERT /
        COMMIT (three steps) are one here. The statement is atomic: on an error nothing of
        it is written."""
        try:
            written = 0
            for i in range(0, len(batch), 500):     # SQLite allows 32766 variables
                part = batch[i:i + 500]
                written += db.execute(
                    "INSERT OR IGNORE INTO actions (table_id, seq, action, created, by_seat, "
                    "request_key) VALUES " + ", ".join(["(?, ?, ?, ?, ?, ?)"] * len(part)),
                    [v for item in part for v in item.row]).rowcount
            if written != len(batch):   # a seq was taken by another process: whose?
                for item in batch:
                    found = db.execute("SELECT action, created FROM actions WHERE "
                                       "table_id=? AND seq=?", item.row[:2]).fetchone()
                    if found is None or tuple(found) != item.row[2:4]:
                        item.error = IllegalPlacement(
                            "the table changed meanwhile: look again and retry")
        except BaseException as exc:  # the statement was not written
            for item in batch:
                item.error = exc
        finally:
            for item in batch:
                item.done = True


def layout_list(data: Any) -> list[dict]:
    """Check a list of layout dicts read from storage or a request."""
    if not isinstance(data, list) or not all(isinstance(d, dict) for d in data):
        raise InvalidInput("layouts must be a list of layout objects")
    return data

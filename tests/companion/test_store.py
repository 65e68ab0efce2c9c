"""The store: its write path (concurrent actions, a write from another process in between),
idempotency keys, seats, the teaching log and the replay cache. The tests of both stores run
against the SQLite store and against the PostgreSQL store (`stores`); each store's own
mechanics (SQLite's group commit, PostgreSQL's migrations and advisory locks) are tested
after them. The kill -9 tests are in test_web_restart.py and test_web_workers.py."""
import random
import threading

import pytest

from companion import store as S
from companion import store_pg as P
from engine.errors import IllegalPlacement, InvalidInput
from engine.registry import load_game
from engine.simulate import random_turn
from engine.table import Table


def _store(path, memory=None):
    S.migrate(S.connect(path))
    return S.Store(S.connect(path), memory or S.StoreMemory(path))


@pytest.fixture(params=["sqlite", "postgresql"])
def stores(request, tmp_path):
    """`stores()`: a new store, on its own connection, of one fresh database of the store
    named by the parameter (as each request and each worker process has its own)."""
    if request.param == "sqlite":
        path = str(tmp_path / "s.sqlite")
        S.migrate(S.connect(path))
        memory = S.StoreMemory(path)        # one process's, shared by its stores
        yield lambda: S.Store(S.connect(path), memory)
        return
    yield request.getfixturevalue("pg_stores")


@pytest.fixture
def pg_stores(postgres_url):
    """`pg_stores()`: a new PostgreSQL store, on its own connection, of one fresh database."""
    P.init_db(postgres_url)
    conns = []
    memory = S.StoreMemory(P.redacted(postgres_url))

    def make():
        conns.append(P.connect(postgres_url))
        return P.PgStore(P.Connection(conns[-1]), memory)
    yield make
    for conn in conns:
        conn.close()


def _table(st, players=("A", "B"), key=None):
    return st.create_table("qwinto", list(players), [_layout_data("qwinto")] * len(players),
                           key=key)[0]


class TestBothStores:
    def test_concurrent_tables_all_written_in_order(self, stores):
        first = stores()
        recs = [_table(first) for _ in range(8)]
        errors = []

        def play(i, rec, st):
            try:
                for action in _actions(i):
                    st.append(rec, action, None)
            except Exception as exc:                  # reported below
                errors.append(repr(exc))

        threads = [threading.Thread(target=play, args=(i, r, stores()))
                   for i, r in enumerate(recs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not errors, errors
        for i, rec in enumerate(recs):
            assert [a["seq"] for a in first.actions(rec)] == list(range(1, len(_actions(i)) + 1))
            fresh = stores()
            assert fresh.replay(fresh.table_record(rec.code)).history == tuple(_actions(i))

    def test_two_writers_of_one_table_never_take_the_same_seq(self, stores):
        """Two stores (two workers) append the same table's actions in turn, each with the
        record it read before the other wrote: every action lands once, in order, or is
        refused as a conflict; nothing is written twice or lost."""
        a, b = stores(), stores()
        rec = _table(a)
        acts = _actions(3, 16)
        written = []
        for i, action in enumerate(acts):
            st = (a, b)[i % 2]
            record = st.table_record(rec.code)
            try:
                written.append(st.append(record, action, None)[0])
            except IllegalPlacement as exc:           # SQLite: the seq was taken meanwhile
                assert "changed meanwhile" in str(exc)
                written.append(st.append(st.table_record(rec.code), action, None)[0])
        assert written == list(range(1, len(acts) + 1))
        assert a.replay(a.table_record(rec.code)).history == tuple(acts)
        assert b.state(b.table_record(rec.code))[1].history == tuple(acts)

    def test_a_log_from_before_the_keep_step_still_loads(self, stores):
        """A table played before the roller's keep step: B answered A's first attempt at
        once, which fixed the roll then. Its log loads as it was played."""
        st = stores()
        rec = _table(st)
        old = ['{"type": "roll", "roll": "orange:3"}',
               '{"type": "place", "seat": 1, "placement": "O3@2"}',
               '{"type": "place", "seat": 0, "placement": "fail"}']
        for seq, action in enumerate(old, 1):
            st.db.execute("INSERT INTO actions (table_id, seq, action, created, by_seat) "
                          "VALUES (?, ?, ?, 0, NULL)", (rec.id, seq, action))
        n, table = st.state(st.table_record(rec.code))
        assert n == 3 and table.turn_complete and table.sheets[1].rows[0][2] == 3

    def test_record_reads_seats_tokens_and_log_length(self, stores):
        st = stores()
        rec = _table(st, ("A", "B", "C"))
        token = st.join(rec, 1)
        rec = st.table_record(rec.code.lower())
        assert [s.name for s in rec.seats] == ["A", "B", "C"]
        assert [s.claimed for s in rec.seats] == [False, True, False]
        assert st.seat_of(rec, token) == 1 and st.seat_of(rec, "nope") is None
        assert rec.log_seen == 0
        st.append(rec, _actions(2)[0], None)
        assert st.table_record(rec.code).log_seen == 1
        with pytest.raises(S.UnknownTable):
            st.table_record("QQQQQ")

    def test_a_seat_is_claimed_once_and_moves_with_its_rejoin_code(self, stores):
        st = stores()
        rec = _table(st)
        first = st.join(rec, 0)
        with pytest.raises(S.SeatTaken):
            stores().join(rec, 0)
        with pytest.raises(InvalidInput):
            st.join(rec, 5)
        rec = st.table_record(rec.code)
        key = st.rejoin_key(rec, 0)
        with pytest.raises(InvalidInput):
            st.rejoin(rec, 0, "WRONG1")
        second = st.rejoin(rec, 0, key)
        rec = st.table_record(rec.code)
        assert st.seat_of(rec, second) == 0 and st.seat_of(rec, first) is None
        with pytest.raises(S.SeatTaken):         # the code was spent with the old token
            st.rejoin(S.TableRecord(rec.id, rec.code, rec.game, rec.layouts, rec.creator_token,
                                    rec.seats, (first, None), 0), 0, key)

    def test_idempotency_keys_write_once(self, stores):
        st = stores()
        rec = _table(st, key="new-table-key-0001")
        with pytest.raises(S.AlreadyMade) as made:
            _table(stores(), key="new-table-key-0001")
        assert made.value.code == rec.code
        act = _actions(4)[0]
        assert st.append(rec, act, None, key="action-key-00001")[0] == 1
        with pytest.raises(S.AlreadyDone) as done:
            stores().append(st.table_record(rec.code), act, None, key="action-key-00001")
        assert done.value.seq == 1 and len(st.actions(rec)) == 1

    def test_a_table_its_first_roller_and_the_creators_seat_are_one_write(self, stores):
        """A server killed while a table is made leaves all of it or nothing: the page's retry
        (the same key) then makes the whole table, not one with the wrong first roller and
        the creator standing."""
        st = stores()
        real = st.db

        class KilledBeforeTheLog:     # the connection dies at the first action's row
            def __getattr__(self, name):
                return getattr(real, name)

            def execute(self, sql, *args):
                if sql.startswith("INSERT INTO actions"):
                    raise RuntimeError("killed")
                return real.execute(sql, *args)

        made = dict(game="qwinto", players=["A", "B"], layouts=[_layout_data("qwinto")] * 2,
                    key="new-table-key-0002", first=1, claim=0)
        st.db = KilledBeforeTheLog()
        with pytest.raises(RuntimeError):
            st.create_table(**made)
        st.db = real
        again = stores()
        rec, table = again.create_table(**made)       # not AlreadyMade: nothing was kept
        rec = again.table_record(rec.code)
        assert table.next_roller == 1 and again.state(rec)[1].next_roller == 1
        assert again.seat_of(rec, rec.creator_token) == 0 and len(again.actions(rec)) == 1

    def test_an_overtaken_action_is_refused_and_a_refused_one_writes_nothing(self, stores):
        st = stores()
        rec = _table(st)
        acts = _actions(5)
        st.append(rec, acts[0], None)                 # the first roll
        st.append(rec, acts[1], None)
        with pytest.raises(S.Overtaken):              # made against the log before the roll
            stores().append(st.table_record(rec.code), acts[2], None, based_on=0)
        with pytest.raises(IllegalPlacement):
            st.append(st.table_record(rec.code), acts[0], None)   # a roll again: refused
        assert len(st.actions(rec)) == 2

    def test_teaching_log_keeps_photos_and_order(self, stores):
        st = stores()
        rec = _table(st)
        photo = bytes(range(256)) * 4
        assert st.teach_append(rec, "example", face="3", box=[1, 2, 30, 40], image=photo) == 1
        assert st.teach_append(rec, "withdraw", ref=1) == 2
        log = st.teach_log(rec)
        assert [(e["seq"], e["kind"], e["box"]) for e in log] == [
            (1, "example", [1, 2, 30, 40]), (2, "withdraw", None)]
        assert bytes(stores().teach_image(rec, 1)) == photo and st.teach_image(rec, 2) is None

    def test_one_example_withdrawn_by_two_devices_at_once_is_withdrawn_once(self, stores):
        """Two phones withdraw the same photo at the same moment: one withdrawal is logged,
        the other is refused (both were told they had done it, and the log had it twice)."""
        first = stores()
        rec = _table(first)
        first.teach_append(rec, "example", face="3", box=[1, 2, 30, 40], image=b"x")
        outcomes, start = [], threading.Barrier(4)

        def withdraw(st):
            start.wait()
            try:
                outcomes.append(st.teach_append(rec, "withdraw", ref=1))
            except S.AlreadyWithdrawn:
                outcomes.append("refused")
        threads = [threading.Thread(target=withdraw, args=(stores(),)) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(outcomes, key=str) == [2, "refused", "refused", "refused"]
        assert [e["kind"] for e in first.teach_log(rec)] == ["example", "withdraw"]

    def test_each_table_has_its_own_join_secret_read_with_its_record(self, stores):
        st = stores()
        first, second = _table(st), _table(st)
        assert len(first.join_key) == 16 and first.join_key != second.join_key
        assert stores().table_record(first.code).join_key == first.join_key


def _actions(seed, n=12):
    game = load_game("qwinto")
    rng = random.Random(seed)
    table = Table.new(game, ["A", "B"])
    while len(table.history) < n and not table.is_over:
        table = random_turn(table, rng)
    return list(table.history)[:n]


class TestSqliteGroupCommit:
    def test_concurrent_tables_share_commits(self, tmp_path):
        path = str(tmp_path / "g.sqlite")
        memory = S.StoreMemory(path)
        first = _store(path, memory)
        recs = [_table(first) for _ in range(8)]
        group = memory.group_commit
        before = (group.batches, group.rows)

        def play(i, rec):
            st = S.Store(S.connect(path), memory)    # one connection per thread, as in the app
            for action in _actions(i):
                st.append(rec, action, None)

        threads = [threading.Thread(target=play, args=(i, r)) for i, r in enumerate(recs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        rows = group.rows - before[1]
        assert rows == sum(len(_actions(i)) for i in range(8))
        assert group.batches - before[0] <= rows
        assert all(len(first.actions(r)) == len(_actions(i)) for i, r in enumerate(recs))

    def test_a_write_from_another_process_is_refused_and_others_written(self, tmp_path):
        path = str(tmp_path / "o.sqlite")
        st = _store(path)
        rec, _ = st.create_table("qwinto", ["A", "B"], [_layout_data("qwinto")] * 2)
        acts = _actions(1)
        st.append(rec, acts[0], None)
        # "another process": a second connection writes seq 2 behind this process's back
        other = S.connect(path)
        other.execute("INSERT INTO actions (table_id, seq, action, created, by_seat) "
                      "VALUES (?, 2, ?, 0, NULL)", (rec.id, '{"type": "undo", "seat": 0}'))
        stale = S.TableRecord(rec.id, rec.code, rec.game, rec.layouts, rec.creator_token,
                              rec.seats, rec.tokens, 1)
        with pytest.raises(IllegalPlacement, match="changed meanwhile"):
            st.append(stale, acts[1], None)
        # the other row survives; this process's cache is not advanced by the refusal
        assert [a["seq"] for a in st.actions(rec)] == [1, 2]

    def test_batch_with_one_taken_seq_writes_the_rest(self, tmp_path):
        path = str(tmp_path / "b.sqlite")
        st = _store(path)
        rec1, _ = st.create_table("qwinto", ["A", "B"], [_layout_data("qwinto")] * 2)
        rec2, _ = st.create_table("qwinto", ["A", "B"], [_layout_data("qwinto")] * 2)
        st.db.execute("INSERT INTO actions (table_id, seq, action, created, by_seat) "
                      "VALUES (?, 1, 'x', 0, NULL)", (rec1.id,))
        items = [S._Pending((rec1.id, 1, '{"a": 1}', 1.0, None, None)),
                 S._Pending((rec2.id, 1, '{"a": 2}', 2.0, None, None))]
        S.GroupCommit._write(st.db, items)
        assert all(i.done for i in items)
        assert isinstance(items[0].error, IllegalPlacement) and items[1].error is None
        assert st.db.execute("SELECT action FROM actions WHERE table_id=?",
                             (rec2.id,)).fetchone()[0] == '{"a": 2}'


def _layout_data(game):
    from companion.games import resolve_layout
    return resolve_layout(game, "standard" if game == "qwinto" else None, None)


class TestPostgres:
    def test_migrations_apply_once_in_order_and_a_newer_database_is_refused(self, postgres_url,
                                                                            tmp_path):
        shipped = P.migration_files()
        n = len(shipped)
        assert P.init_db(postgres_url) == 0
        assert P.init_db(postgres_url) == n           # found at n: nothing to do
        with P.connect(postgres_url) as conn:
            rows = conn.execute("SELECT version, name FROM schema_migrations").fetchall()
            assert rows == [(version, name) for version, name, _ in shipped]
            assert rows[0] == (1, "0001_action_log.sql")
            folder = tmp_path / "migrations"
            folder.mkdir()
            for version, name, sql in shipped:
                (folder / name).write_text(sql)
            (folder / f"{n + 1:04d}_note.sql").write_text(
                "ALTER TABLE tables ADD COLUMN note TEXT;")
            assert P.migrate(conn, folder) == n
            conn.execute("SELECT note FROM tables")
            with pytest.raises(RuntimeError, match="newer than this program"):
                P.migrate(conn)
            (folder / f"{n + 3:04d}_gap.sql").write_text("SELECT 1;")
            with pytest.raises(RuntimeError, match=f"expected number {n + 2:04d}"):
                P.migration_files(folder)

    def test_the_join_secret_migration_gives_every_older_table_its_own(self, postgres_url,
                                                                        tmp_path):
        folder = tmp_path / "migrations"
        folder.mkdir()
        first = P.migration_files()[0]
        (folder / first[1]).write_text(first[2])
        with P.connect(postgres_url) as conn:
            P.migrate(conn, folder)
            for code in ("AAAAA", "BBBBB"):
                conn.execute("INSERT INTO tables (code, game, layouts, creator_token, created) "
                             "VALUES (%s, 'qwinto', '[]', 't', 0)", (code,))
            P.migrate(conn)
            keys = [r[0] for r in conn.execute("SELECT join_key FROM tables")]
        assert len(set(keys)) == 2 and all(len(k) == 32 for k in keys)

    def test_workers_starting_at_once_migrate_once(self, postgres_url):
        found, errors = [], []

        def start():
            try:
                found.append(P.init_db(postgres_url))
            except Exception as exc:          # reported below
                errors.append(repr(exc))
        threads = [threading.Thread(target=start) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        n = len(P.migration_files())
        assert not errors and sorted(found) == [0, n, n, n]

    def test_the_logs_are_append_only(self, pg_stores):
        st = pg_stores()
        rec = _table(st)
        st.append(rec, _actions(7)[0], None)
        st.teach_append(rec, "use")
        import psycopg
        for sql in ("UPDATE actions SET action='{}'", "DELETE FROM actions",
                    "UPDATE teach_log SET kind='stop'", "DELETE FROM teach_log"):
            with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
                st.db.execute(sql)
        assert len(st.actions(rec)) == 1 and len(st.teach_log(rec)) == 1

    def test_a_write_by_another_worker_is_seen_before_checking(self, pg_stores):
        """PostgreSQL: the writer counts the log again under the table's lock, so an action
        written by another worker after this one read the record is applied first, and this
        action is checked against the table as it is now (SQLite refuses it: below)."""
        a, b = pg_stores(), pg_stores()
        rec = _table(a)
        acts = _actions(8)
        a.append(rec, acts[0], None)
        stale = a.table_record(rec.code)
        b.append(b.table_record(rec.code), acts[1], None)
        assert a.append(stale, acts[2], None)[0] == 3
        assert a.state(a.table_record(rec.code))[1].history == tuple(acts[:3])

    def test_one_table_made_for_a_key_sent_to_two_workers(self, pg_stores):
        made, errors = [], []

        def make():
            st = pg_stores()
            try:
                with st.creating("same-key-twice-0001"):
                    try:
                        made.append(_table(st, key="same-key-twice-0001").code)
                    except S.AlreadyMade as exc:
                        made.append(exc.code)
            except Exception as exc:          # reported below
                errors.append(repr(exc))
        threads = [threading.Thread(target=make) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert not errors and len(made) == 4 and len(set(made)) == 1

    def test_the_password_is_not_in_the_cache_key_or_the_printed_url(self):
        assert P.redacted("postgresql://dice:s3cret@db:5432/x") == "postgresql://dice:***@db:5432/x"
        assert P.redacted("postgresql://dice@db/x") == "postgresql://dice@db/x"
        assert P.is_url("postgres://h/x") and not P.is_url("/tmp/postgresql.sqlite")

    def test_an_action_is_written_in_two_round_trips_under_its_lock(self, pg_stores, tmp_path):
        """BEGIN, the table's lock, the log's length and the key's action go to the server
        together, then the row and COMMIT (which frees the lock): two round trips (libpq's
        trace: each turn from what the client sent to what the server answered is one)."""
        st = pg_stores()
        rec = _table(st)
        actions = _actions(3, 5)
        st.append(st.table_record(rec.code), actions[0], None)     # the table replayed once
        trace = tmp_path / "trace"
        for i, action in enumerate(actions[1:4], start=1):
            rec = st.table_record(rec.code)
            with open(trace, "w") as out:
                st.db.conn.pgconn.trace(out.fileno())
                st.append(rec, action, None, key=f"key-{i:012d}")
                st.db.conn.pgconn.untrace()
            sides = [line.split("\t")[1] for line in trace.read_text().splitlines()]
            assert sum(1 for a, b in zip(sides, sides[1:]) if (a, b) == ("F", "B")) == 2
        with pytest.raises(S.AlreadyDone):  # a key seen under the lock: nothing written
            st.append(st.table_record(rec.code), actions[4], None, key=f"key-{3:012d}")
        assert st.db.conn.info.transaction_status.name == "IDLE"     # and the lock freed
        assert [a["seq"] for a in st.actions(rec)] == [1, 2, 3, 4]

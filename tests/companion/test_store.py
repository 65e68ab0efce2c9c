"""The store's write path: group commit of concurrent actions, a write from another process
in between, and the replay cache (the kill -9 tests are in test_web_restart.py)."""
import random
import threading

import pytest

from companion import store as S
from engine.errors import IllegalPlacement
from engine.registry import load_game
from engine.simulate import random_turn
from engine.table import Table


def _store(path):
    S.migrate(S.connect(path))
    return S.Store(S.connect(path), path)


def _actions(seed, n=12):
    game = load_game("qwinto")
    rng = random.Random(seed)
    table = Table.new(game, ["A", "B"])
    while len(table.history) < n and not table.is_over:
        table = random_turn(table, rng)
    return list(table.history)[:n]


class TestGroupCommit:
    def test_concurrent_tables_all_written_in_order(self, tmp_path):
        path = str(tmp_path / "g.sqlite")
        first = _store(path)
        recs = [first.create_table("qwinto", ["A", "B"], [_layout_data("qwinto")] * 2)[0]
                for _ in range(8)]
        group = S.group_commit(path)
        before = (group.batches, group.rows)
        errors = []

        def play(i, rec):
            st = S.Store(S.connect(path), path)      # one connection per thread, as in the app
            try:
                for action in _actions(i):
                    st.append(rec, action, None)
            except Exception as exc:                  # reported below
                errors.append(repr(exc))

        threads = [threading.Thread(target=play, args=(i, r)) for i, r in enumerate(recs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not errors, errors
        for i, rec in enumerate(recs):
            log = first.actions(rec)
            assert [a["seq"] for a in log] == list(range(1, len(_actions(i)) + 1))
            fresh = first.replay(S.Store(S.connect(path), path).table_record(rec.code))
            assert fresh.history == tuple(_actions(i))
        rows = group.rows - before[1]
        assert rows == sum(len(_actions(i)) for i in range(8))
        assert group.batches - before[0] <= rows

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


class TestOldLogs:
    def test_a_log_from_before_the_keep_step_still_loads(self, tmp_path):
        """A table played before the roller's keep step: B answered A's first attempt at
        once, which fixed the roll then. Its log loads as it was played."""
        path = str(tmp_path / "old.sqlite")
        st = _store(path)
        rec, _ = st.create_table("qwinto", ["A", "B"], [_layout_data("qwinto")] * 2)
        old = ['{"type": "roll", "roll": "orange:3"}',
               '{"type": "place", "seat": 1, "placement": "O3@2"}',
               '{"type": "place", "seat": 0, "placement": "fail"}']
        for seq, action in enumerate(old, 1):
            st.db.execute("INSERT INTO actions (table_id, seq, action, created, by_seat) "
                          "VALUES (?, ?, ?, 0, NULL)", (rec.id, seq, action))
        n, table = st.state(st.table_record(rec.code))
        assert n == 3 and table.turn_complete and table.sheets[1].rows[0][2] == 3


class TestRecord:
    def test_record_reads_seats_tokens_and_log_length(self, tmp_path):
        path = str(tmp_path / "r.sqlite")
        st = _store(path)
        rec, _ = st.create_table("qwinto", ["A", "B", "C"], [_layout_data("qwinto")] * 3)
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


def _layout_data(game):
    from companion.games import resolve_layout
    return resolve_layout(game, "standard" if game == "qwinto" else None, None)

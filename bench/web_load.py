"""Load and crash figures for the companion's actions, against the real server (`serve`).

T tables x P players (default 50 x 4, every player listening to the table's event stream) play
seeded Qwinto games at once, each action posted with the token of the player who makes it
(`bench/web_latency.py`'s load): once paced (players' pauses of ~--think s between a table's
actions) and once closed loop (every table posts as soon as it is answered), each until the
games end or --seconds pass. For each run it prints the throughput, POST p50/p99, the errors,
and whether every acknowledged action is in the store (each table's log read back).

`--kill`: the closed-loop run is also done once more with a SIGKILL of the server once the log
holds --kill-at actions; the server is started again on the same database, and the figures say
whether every action answered 200 before the kill is in the log and what `PRAGMA
integrity_check` says. `--watch`: every 5 s of a run, the actions in the log, their rate, the
size of SQLite's WAL and the load average (each figure line ends with the load average too: the
machine these run on is shared).

    python bench/web_load.py [--tables 50 --players 4 --seconds 60 --think 0.25 --kill --watch]

Localhost only, bounded by --seconds per run.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from web_latency import Client, bench_load, free_port, start_server  # noqa: E402


def missing_in_store(client: Client, acked: dict[str, int]) -> int:
    """How many actions answered 200 are not in their table's log."""
    lost = 0
    for code, n in acked.items():
        status, body, _ = client.call("GET", f"/api/tables/{code}/log")
        logged = len(body["actions"]) if status == 200 else 0
        lost += max(0, n - logged)
    return lost


def stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


def run(args, think: float, kill: bool = False) -> dict:
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "load.sqlite")
        proc = start_server(port, db, tmp, args.threads)
        client = Client(port)
        try:
            killed = threading.Event()
            done = threading.Event()
            if args.watch:
                threading.Thread(target=watch, args=(db, done), daemon=True).start()
            if kill:        # SIGKILL once the log holds --kill-at actions: under load
                threading.Thread(target=kill_at, args=(db, args.kill_at, proc, killed),
                                 daemon=True).start()
            result = bench_load(client, port, args.tables, args.players, 100_000, args.seconds,
                                think)
            done.set()
            if killed.is_set():
                proc.wait(10)
                proc = start_server(port, db, tmp, args.threads)
                client = Client(port)
            result["lost"] = missing_in_store(client, result["acked"])
            stop(proc)
            with sqlite3.connect(db) as check:
                result["integrity"] = check.execute("PRAGMA integrity_check").fetchone()[0]
        finally:
            if proc.poll() is None:
                stop(proc)
    result["killed"] = killed.is_set()
    return result


def watch(db: str, done: threading.Event, every: float = 5.0) -> None:
    """Every `every` s while a run goes: the actions in the log (read-only), their rate, the
    size of SQLite's WAL and the load average."""
    start = last_t = time.monotonic()
    last_n = 0
    while not done.wait(every):
        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as ro:
                n = ro.execute("SELECT COUNT(*) FROM actions").fetchone()[0]
        except sqlite3.Error:
            continue
        wal = os.path.getsize(db + "-wal") if os.path.exists(db + "-wal") else 0
        now = time.monotonic()
        print(f"  {now - start:5.1f} s: {n} actions ({(n - last_n) / (now - last_t):.0f}/s), "
              f"WAL {wal / 1e6:.1f} MB, load average {os.getloadavg()[0]:.1f}", flush=True)
        last_t, last_n = now, n


def kill_at(db: str, actions: int, proc: subprocess.Popen, killed: threading.Event) -> None:
    """SIGKILL the server once the database's log holds `actions` actions (read-only polls)."""
    while proc.poll() is None:
        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as ro:
                if ro.execute("SELECT COUNT(*) FROM actions").fetchone()[0] >= actions:
                    proc.send_signal(signal.SIGKILL)
                    killed.set()
                    return
        except sqlite3.Error:
            pass
        time.sleep(0.02)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=50)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=60, help="time limit of each run")
    ap.add_argument("--threads", type=int, default=400, help="server worker threads (every "
                    "listening player holds one)")
    ap.add_argument("--think", type=float, default=0.25,
                    help="mean pause of a table between two actions in the paced run, seconds")
    ap.add_argument("--kill", action="store_true", help="also a closed-loop run with a SIGKILL")
    ap.add_argument("--kill-at", type=int, default=2000,
                    help="the SIGKILL lands once the log holds this many actions")
    ap.add_argument("--watch", action="store_true", help="every 5 s of a run: actions in the "
                    "log, their rate, the WAL's size, the load average")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    runs = [run(args, args.think), run(args, 0.0)] + ([run(args, 0.0, kill=True)] if args.kill
                                                     else [])
    if args.json:
        print(json.dumps([{k: v for k, v in r.items() if k != "acked"} for r in runs], indent=1))
    for r in runs:
        what = ("closed loop, SIGKILL under load and a restart" if r["killed"] else
                "closed loop" if not r["think_s"] else f"paced, ~{r['think_s']:.2f} s pauses")
        print(f"{r['tables']} tables x {r['players']} players, {what}: {r['posts']} actions in "
              f"{r['wall_s']:.1f} s ({r['posts_per_s']:.0f}/s); POST p50 {r['post_p50_ms']:.0f} "
              f"ms, p99 {r['post_p99_ms']:.0f} ms; errors {len(r['errors'])}; acknowledged but not "
              f"in the store {r['lost']}; integrity_check {r['integrity']}; load average "
              f"{r['load_average']:.1f} (1 min, at the run's end)")
        for e in r["errors"][:5]:
            print(f"    {e}")
    bad = any(r["lost"] or r["integrity"] != "ok" or (r["errors"] and not r["killed"])
              for r in runs)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

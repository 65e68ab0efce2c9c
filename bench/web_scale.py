"""Hosting many tables: T tables x P players against 1, 2 and 4 worker processes sharing one
PostgreSQL and one Redis (docs/companion.md, "Hosting many tables").

Each worker is a `dice-companion serve --no-https --db postgresql://... --redis redis://...`
process on a port of its own, so the benchmark knows which worker handled each request (a
gunicorn master would spread the connections itself): player p of table t posts to worker
(t + p) mod N and holds the table's event stream on worker (t + p + 1) mod N, so with two
workers or more every stream is on another worker than some of the table's posts. Every table
plays a seeded Qwinto game, each action posted with the token of the player who makes it after a
pause of ~--think s (people tap one after another). Every player's page listens (T x P
streams, read by one selector loop here). Printed per worker count: actions per second, POST
p50/p99, errors (any answer but 200), and the event delay from sending a POST to one worker
to its event arriving on a stream of another worker, p50/p99.

`--kill`: in the last run, worker 0 is killed with SIGKILL halfway, and Redis too; the figures
then count the actions answered 200 that are not in the log (read back from a live worker).

    nice -n 10 python3 bench/web_scale.py [--tables 200 --players 4 --workers 1,2,4
                                          --seconds 30 --think 1.0 --kill]

Loopback addresses only; the servers (PostgreSQL, Redis: tests/companion/live_servers.py) are
started in temporary folders and stopped at the end; every run is bounded by --seconds.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "companion"))

from live_servers import Postgres, Redis  # noqa: E402
from web_latency import ROOT, Client, free_port, pct, token_of  # noqa: E402

from engine.registry import load_game  # noqa: E402
from engine.simulate import random_turn  # noqa: E402
from engine.table import Table, action_to_json  # noqa: E402


def start_worker(port: int, db: str, redis: str, instance: str, threads: int):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    log = open(os.path.join(instance, f"worker-{port}.log"), "w+b")
    proc = subprocess.Popen([sys.executable, "-m", "companion.commands.serve", "--host",
                             "127.0.0.1", "--port", str(port), "--no-https", "--db", db,
                             "--redis", redis, "--instance", instance, "--threads",
                             str(threads), "--no-qr"],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    client = Client(port)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            client.call("GET", "/api/games")
            return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    log.seek(0)
    raise SystemExit("a worker did not start: " + log.read().decode()[-1500:])


class Streams(threading.Thread):
    """Every player's event stream, read by one selector loop: when each action's event
    (table, seq) arrived on each stream, and on which worker that stream is."""

    def __init__(self, limit: float) -> None:
        super().__init__(daemon=True)
        self.sel = selectors.DefaultSelector()
        self.limit = limit
        self.seen: list[tuple[str, int, int, float]] = []    # (code, seq, worker, time)
        self.open = 0
        self.hello = 0
        self.stop = threading.Event()

    def add(self, port: int, worker: int, code: str, token: str) -> None:
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall((f"GET /api/tables/{code}/events?limit={self.limit} HTTP/1.1\r\n"
                   f"Host: 127.0.0.1\r\nCookie: dc_{code}={token}\r\n\r\n").encode())
        s.setblocking(False)
        self.sel.register(s, selectors.EVENT_READ, [code, worker, b"", None])
        self.open += 1

    def run(self) -> None:
        while not self.stop.is_set() and self.open:
            for key, _ in self.sel.select(timeout=0.2):
                state = key.data
                try:
                    chunk = key.fileobj.recv(65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    self.sel.unregister(key.fileobj)
                    key.fileobj.close()
                    self.open -= 1
                    continue
                now = time.perf_counter()
                state[2] += chunk
                *lines, state[2] = state[2].split(b"\n")
                for line in lines:
                    if line.startswith(b"event: "):
                        state[3] = line[7:].strip()
                    elif line.startswith(b"data: ") and state[3] == b"action":
                        self.seen.append((state[0], json.loads(line[6:])["seq"], state[1], now))
                    elif line.startswith(b"data: ") and state[3] == b"hello":
                        self.hello += 1

    def close(self) -> None:
        self.stop.set()
        self.join(5)
        for key in list(self.sel.get_map().values()):
            key.fileobj.close()


def scripted_game(seed: int, players: int, actions: int = 400) -> list[dict]:
    rng = random.Random(seed)
    table = Table.new(load_game("qwinto"), [f"P{i + 1}" for i in range(players)])
    while len(table.history) < actions and not table.is_over:
        table = random_turn(table, rng)
    return [action_to_json(a) for a in table.history]


def run(args, n_workers: int, pg: Postgres, redis: Redis, kill: bool) -> dict:
    db = pg.new_database()
    instance = os.path.join(pg.dir, f"instance-{n_workers}")
    os.makedirs(instance, exist_ok=True)
    ports = [free_port() for _ in range(n_workers)]
    # as many threads as when every open stream held one (waitress), so that runs compare
    threads = (args.tables * args.players) // n_workers + 64
    procs = [start_worker(p, db, redis.url, instance, threads) for p in ports]
    try:
        return drive(args, ports, procs, redis, kill)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()


def drive(args, ports, procs, redis: Redis, kill: bool) -> dict:
    n = len(ports)
    clients = [Client(p) for p in ports]
    setups = []
    for t in range(args.tables):
        names = [f"P{i + 1}" for i in range(args.players)]
        host = clients[t % n]
        status, body, headers = host.call("POST", "/api/tables",
                                          {"game": "qwinto", "players": names, "claim": 0})
        code, join = body["code"], body["state"]["me"]["join"]     # the host's join link
        tokens = [token_of(headers, code)]
        for seat in range(1, args.players):
            status, body, headers = Client(ports[(t + seat) % n]).call(
                "POST", f"/api/tables/{code}/join", {"seat": seat, "join": join})
            tokens.append(token_of(headers, code))
        setups.append((code, tokens, scripted_game(t, args.players)))
    streams = Streams(args.seconds + 20)
    for t, (code, tokens, _) in enumerate(setups):
        for seat, token in enumerate(tokens):
            w = (t + seat + 1) % n
            streams.add(ports[w], w, code, token)
    streams.start()
    deadline = time.monotonic() + 20
    while streams.hello < streams.open and time.monotonic() < deadline:
        time.sleep(0.05)

    post_ms: list[float] = []
    answered: dict[tuple[str, int], tuple[float, int]] = {}   # (code, seq) -> (sent, worker)
    acked = {code: 0 for code, _, _ in setups}
    errors: list[str] = []
    lock = threading.Lock()
    start = time.monotonic()
    end = start + args.seconds
    killed = threading.Event()

    def play(t: int, code: str, tokens: list[str], actions: list[dict]) -> None:
        pause = random.Random(t + 1000)
        own = [Client(p) for p in ports]
        for seq, body in enumerate(actions, start=1):
            time.sleep(pause.uniform(0.5 * args.think, 1.5 * args.think))
            if time.monotonic() > end:
                return
            seat = body.get("seat", 0)
            w = (t + seat) % n
            t0 = time.perf_counter()
            for attempt in range(2):
                if killed.is_set() and w == 0 and n > 1:
                    w = 1                           # worker 0 is gone: the page uses another
                try:
                    status, reply, _ = own[w].call("POST", f"/api/tables/{code}/actions",
                                                   dict(body, key=f"{code}-{seq:05d}-bench"),
                                                   tokens[seat])
                    break
                except OSError as exc:
                    with lock:
                        errors.append(f"{code} #{seq} on worker {w}: {exc!r}")
                    if not (killed.wait(2) and attempt == 0):
                        return                      # retried once: the same key, another worker
            t1 = time.perf_counter()
            with lock:
                post_ms.append((t1 - t0) * 1000)
                if status != 200:
                    errors.append(f"{code} #{seq}: {status} {reply}")
                    return
                answered[(code, seq)] = (t0, w)
                acked[code] = seq

    def killer() -> None:
        time.sleep(args.seconds / 2)
        os.kill(procs[0].pid, signal.SIGKILL)
        redis.proc.kill()
        killed.set()

    players = [threading.Thread(target=play, args=(t, *s)) for t, s in enumerate(setups)]
    if kill:
        threading.Thread(target=killer, daemon=True).start()
    t_start = time.perf_counter()
    for p in players:
        p.start()
    for p in players:
        p.join(args.seconds + 60)
    wall = time.perf_counter() - t_start
    time.sleep(1.0)                                 # the last events
    streams.close()

    delays, cross = [], []
    for code, seq, worker, t_seen in streams.seen:
        hit = answered.get((code, seq))
        if hit is not None:
            d = max(0.0, (t_seen - hit[0]) * 1000)
            delays.append(d)
            if worker != hit[1]:
                cross.append(d)
    expected = sum(1 for _ in answered) * args.players
    live = Client(ports[-1])
    lost = 0
    for code, _, _ in setups:
        status, body, _ = live.call("GET", f"/api/tables/{code}/log")
        lost += max(0, acked[code] - (len(body["actions"]) if status == 200 else 0))
    return {"workers": n, "tables": args.tables, "players": args.players, "think_s": args.think,
            "killed": kill, "posts": len(answered), "wall_s": round(wall, 1),
            "posts_per_s": round(len(answered) / wall, 1),
            "post_p50_ms": round(pct(post_ms, 50), 1), "post_p99_ms": round(pct(post_ms, 99), 1),
            "errors": errors, "events_expected": expected, "events_seen": len(delays),
            "cross_worker_events": len(cross),
            "event_p50_ms": round(pct(cross or delays, 50), 1),
            "event_p99_ms": round(pct(cross or delays, 99), 1), "lost": lost}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--workers", default="1,2,4", help="worker counts to run, comma-separated")
    ap.add_argument("--seconds", type=float, default=30, help="time limit of each run")
    ap.add_argument("--think", type=float, default=1.0,
                    help="mean pause of a table between two actions, seconds")
    ap.add_argument("--kill", action="store_true",
                    help="in the last run: SIGKILL of worker 0 and of Redis halfway")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    counts = [int(x) for x in args.workers.split(",")]
    pg = Postgres()
    runs = []
    try:
        for i, n in enumerate(counts):
            redis = Redis()
            try:
                runs.append(run(args, n, pg, redis, args.kill and i == len(counts) - 1))
                print(json.dumps({k: v for k, v in runs[-1].items() if k != "errors"}),
                      file=sys.stderr, flush=True)
            finally:
                redis.stop()
    finally:
        pg.stop()
    if args.json:
        print(json.dumps(runs, indent=1))
    for r in runs:
        what = ", SIGKILL of worker 0 and of Redis halfway" if r["killed"] else ""
        print(f"{r['tables']} tables x {r['players']} players, {r['workers']} worker(s), "
              f"~{r['think_s']:.2f} s pauses{what}: {r['posts']} actions in {r['wall_s']:.1f} s "
              f"({r['posts_per_s']:.0f}/s); POST p50 {r['post_p50_ms']:.0f} ms, "
              f"p99 {r['post_p99_ms']:.0f} ms; errors {len(r['errors'])}; events seen "
              f"{r['events_seen']}/{r['events_expected']}, from another worker "
              f"{r['cross_worker_events']}: p50 {r['event_p50_ms']:.0f} ms, "
              f"p99 {r['event_p99_ms']:.0f} ms; acknowledged but not in the log {r['lost']}")
        for e in r["errors"][:3]:
            print(f"    {e}")
    return 1 if any(r["lost"] for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())

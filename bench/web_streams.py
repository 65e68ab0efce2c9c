"""Open pages and requests at once: S event streams held open against the real server (`serve`,
a subprocess, plain HTTP) while players' requests are timed, and every action's event timed to
every page of its table (issue 20, "Live streams must not starve the server").

1. T tables of Qwinto (4 players); the request load alone for --seconds: --clients players,
   each posting its table's next action (a seeded game) then fetching the table's state, with
   --think s between requests; POST and GET p50/p99.
2. S streams opened (table i % T, every fourth page seated, as phones are), one selector loop
   here reads them all (`tests/companion/sse_clients.Pages`; `--https`: through the HTTPS
   port, as phones hold them, the requests staying on HTTP); the time until every one has its
   `hello`; the server's CPU and memory with them open and idle for 10 s (heartbeats only).
3. The same request load again while they are open: POST and GET p50/p99; each action's event
   from its POST being sent to its arrival at each page of the table, p50/p99, and the events
   missed (an action answered 200 whose event a page of its table never got).
4. One action at every table at once (from --clients threads): the time until all S pages have
   their table's event.

This process and the server raise their soft limit of open files to the hard one (each page
holds one connection: S + the server's own files are needed; RLIMIT_NOFILE).

    nice -n 10 python3 bench/web_streams.py [--streams 2000 --tables 500 --seconds 20
                                             --clients 8 --think 0.05 --threads 100]
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import ssl
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "companion"))

from sse_clients import Pages  # noqa: E402
from web_latency import Client, free_port, pct, start_server, token_of  # noqa: E402
from web_scale import scripted_game  # noqa: E402


def raise_open_files(need: int) -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < need:
        raise SystemExit(f"this process may open {hard} files; {need} are needed "
                         f"(raise the hard limit: ulimit -Hn)")
    return hard


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Tables:
    """The tables, their tokens and scripted games; `next(i)`: table i's next action."""

    def __init__(self, client: Client, n: int) -> None:
        self.codes, self.tokens, self.games, self.done = [], [], [], []
        for i in range(n):
            status, body, headers = client.call("POST", "/api/tables", {
                "game": "qwinto", "players": ["A", "B", "C", "D"], "claim": 0})
            assert status == 201, body
            self.codes.append(body["code"])
            self.tokens.append(token_of(headers, body["code"]))
            self.games.append(scripted_game(i, 4))
            self.done.append(0)
        self.lock = threading.Lock()

    def next(self, i: int) -> dict | None:
        with self.lock:
            if self.done[i] >= len(self.games[i]):
                return None
            self.done[i] += 1
            return self.games[i][self.done[i] - 1]


def load(client: Client, tables: Tables, args, posted: dict) -> dict:
    """--clients players for --seconds: POST an action, GET the state, --think s apart.
    `posted[(code, seq)]`: when each answered action's POST was sent."""
    times = {"POST": [], "GET": []}
    errors: list[str] = []
    end = time.monotonic() + args.seconds

    def player(k: int) -> None:
        rng = random.Random(k)
        mine = list(range(k, len(tables.codes), args.clients))
        while time.monotonic() < end and mine:
            i = rng.choice(mine)
            action = tables.next(i)
            if action is None:
                mine.remove(i)
                continue
            code, token = tables.codes[i], tables.tokens[i]
            t0 = time.perf_counter()
            status, body, _ = client.call("POST", f"/api/tables/{code}/actions", action, token)
            t1 = time.perf_counter()
            if status != 200:
                errors.append(f"POST {status} {body}")
                continue
            posted[(code, body["seq"])] = t0
            times["POST"].append((t1 - t0) * 1000)
            time.sleep(args.think)
            t0 = time.perf_counter()
            status, _, _ = client.call("GET", f"/api/tables/{code}", token=token)
            times["GET"].append((time.perf_counter() - t0) * 1000)
            if status != 200:
                errors.append(f"GET {status}")
            time.sleep(args.think)

    threads = [threading.Thread(target=player, args=(k,)) for k in range(args.clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"post": times["POST"], "get": times["GET"], "errors": errors}


def deliveries(pages: Pages, where: list[str], posted: dict) -> tuple[list[float], int]:
    """(ms from each action's POST to its event at each page of its table, events missed)."""
    delays, missed = [], 0
    by_table: dict[str, list[int]] = {}
    for (code, seq) in posted:
        by_table.setdefault(code, []).append(seq)
    for i, code in enumerate(where):
        got = {d["seq"]: t for name, d, t in pages.events[i] if name == "action"}
        for seq in by_table.get(code, ()):
            if seq in got:
                delays.append((got[seq] - posted[(code, seq)]) * 1000)
            else:
                missed += 1
    return delays, missed


def line(name: str, values: list[float]) -> str:
    return (f"{name}: n {len(values)}, p50 {pct(values, 50):.1f} ms, "
            f"p99 {pct(values, 99):.1f} ms, max {max(values, default=float('nan')):.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--streams", type=int, default=2000)
    ap.add_argument("--tables", type=int, default=500)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--think", type=float, default=0.05)
    ap.add_argument("--threads", type=int, default=100)
    ap.add_argument("--https", action="store_true",
                    help="the streams over HTTPS (the server's port + 1, as phones hold them)")
    args = ap.parse_args()
    limit = raise_open_files(args.streams + 200)
    print(f"open files: {limit} may be open here; {args.streams} streams, {args.tables} tables, "
          f"{args.clients} players, {args.threads} server threads", flush=True)

    folder = tempfile.mkdtemp(prefix="web_streams_")
    port = free_port()
    proc = start_server(port, os.path.join(folder, "bench.sqlite"), folder, args.threads)
    client = Client(port)
    pages = None
    try:
        tables = Tables(client, args.tables)
        before = load(client, tables, args, {})
        print("without streams:", line("POST", before["post"]), "|", line("GET", before["get"]),
              "| errors", len(before["errors"]), flush=True)

        pages = Pages()
        where = []
        tls = None
        if args.https:
            tls = ssl.create_default_context()
            tls.check_hostname, tls.verify_mode = False, ssl.CERT_NONE
        t0 = time.perf_counter()
        for i in range(args.streams):
            k = i % args.tables
            where.append(tables.codes[k])
            pages.open(port + 1 if args.https else port, tables.codes[k],
                       tables.tokens[k] if i % 4 == 0 else None, limit=3600, tls=tls)
        opened = pages.wait_for("hello", args.streams, timeout=300)
        print(f"{opened} of {args.streams} streams open (hello) in "
              f"{time.perf_counter() - t0:.1f} s", flush=True)
        c0, w0 = cpu_seconds(proc.pid), time.monotonic()
        time.sleep(10)
        busy = (cpu_seconds(proc.pid) - c0) / (time.monotonic() - w0)
        print(f"idle with them open: server CPU {100 * busy:.1f} % of a core, "
              f"RSS {rss_mb(proc.pid):.0f} MB", flush=True)

        posted: dict = {}
        during = load(client, tables, args, posted)
        time.sleep(1.0)                                     # the last events
        delays, missed = deliveries(pages, where, posted)
        print("with streams open:", line("POST", during["post"]), "|",
              line("GET", during["get"]), "| errors", len(during["errors"]), flush=True)
        print(line("event, POST sent -> page", delays), f"| missed {missed}", flush=True)

        burst: dict = {}
        t0 = time.perf_counter()

        def post_all(k: int) -> None:
            for i in range(k, args.tables, args.clients):
                action = tables.next(i)
                if action is None:
                    continue
                sent = time.perf_counter()
                status, body, _ = client.call("POST", f"/api/tables/{tables.codes[i]}/actions",
                                              action, tables.tokens[i])
                if status == 200:
                    burst[(tables.codes[i], body["seq"])] = sent

        threads = [threading.Thread(target=post_all, args=(k,)) for k in range(args.clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        posted_in = time.perf_counter() - t0
        want = {key[0]: key[1] for key in burst}
        got = pages.wait_for("action", args.streams, timeout=60)   # (they all had one before)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            delays, missed = deliveries(pages, where, burst)
            if not missed:
                break
            time.sleep(0.1)
        last = max((t for i, code in enumerate(where) for name, d, t in pages.events[i]
                    if name == "action" and d["seq"] == want.get(code)), default=float("nan"))
        print(f"one action at each of {len(burst)} tables at once: posted in {posted_in:.2f} s; "
              f"every page had its event {last - t0:.2f} s after the first POST; "
              + line("POST -> page", delays) + f"; missed {missed}; pages closed by the "
              f"server {len(pages.ended)}; streams with an action {got}", flush=True)
        status, _, _ = client.call("GET", "/api/games")
        print(f"server CPU in all {cpu_seconds(proc.pid):.1f} s, RSS {rss_mb(proc.pid):.0f} MB, "
              f"load average {os.getloadavg()[0]:.1f}", flush=True)
    finally:
        if pages is not None:
            pages.close()
        proc.kill()
        proc.wait(10)


if __name__ == "__main__":
    main()

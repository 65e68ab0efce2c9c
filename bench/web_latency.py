"""Web latency of the companion on localhost, against the real server: a subprocess of
`python -m companion.commands.serve` (uvicorn and `companion.front.Front`), over plain HTTP.

1. frame: POST a 640x480 JPEG to /api/tables/CODE/frame -> JSON with the dice and the
   legal placements; p50/p99 over `--frames` uploads from one phone, one after another, and
   the first frame of the freshly started server on its own. Without a face-reader model the
   server answers 503 "camera reading unavailable" after decoding the frame: the figure
   is then printed as such (decode + answer only, no dice reading).
2. frames from many tables: `--tables` tables x `--phones` phones, each phone on its own
   connection and seat, post frames for `--frame-seconds`: once paced (every phone a frame each
   `--frame-every` s, the page's 0.4 s) and once back to back (every phone posts as soon as it is
   answered). Reports p50/p99 of the answers, frames read per second and how many were answered
   "superseded" (a newer frame of the same table came while the frame waited its turn).
3. load: `--tables` tables x `--players` players; every player listens to the table's
   event stream while the tables play seeded random games at once, each action posted with
   the token of the player who makes it. Reports p50/p99 of the POSTs, the delay from
   posting an action to its event arriving at every listener, and every error.

The load runs twice: with players' pauses between a table's actions (`--think`, the
realistic case) and with none (a flood, the worst case). Localhost only, bounded: each table
posts at most `--actions` actions and each run stops after `--seconds`. `--cpus 0` runs the
server on the named cores only (taskset), `--only frames` or `--only load` one part.

    python bench/web_latency.py [--tables 20 --players 4 --actions 60 --frames 100]
    python bench/web_latency.py --only frames --tables 10 --phones 4 [--cpus 0]
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.registry import load_game  # noqa: E402
from engine.simulate import random_turn  # noqa: E402
from engine.table import Table, action_to_json  # noqa: E402


def pct(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    k = min(len(values) - 1, max(0, int(round(p / 100 * (len(values) - 1)))))
    return values[k]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Client:
    def __init__(self, port: int) -> None:
        self.port = port
        self.local = threading.local()

    def conn(self) -> http.client.HTTPConnection:
        c = getattr(self.local, "c", None)
        if c is None:
            c = self.local.c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        return c

    def call(self, method, path, body=None, token=None, raw=None, ctype="application/json"):
        headers = {"Content-Type": ctype}
        if token:
            headers["X-Token"] = token
        data = raw if raw is not None else (None if body is None else json.dumps(body))
        for attempt in range(2):
            c = self.conn()
            try:
                c.request(method, path, body=data, headers=headers)
                resp = c.getresponse()
                payload = resp.read()
                return resp.status, json.loads(payload) if payload else None, resp.headers
            except (http.client.HTTPException, OSError):
                c.close()
                self.local.c = None
                if attempt:
                    raise


def start_server(port: int, db: str, instance: str, threads: int,
                 cpus: str | None = None) -> subprocess.Popen:
    """The companion's server on `port` (`cpus`: the cores it may run on, as taskset takes them)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    pin = ["taskset", "-c", cpus] if cpus else []
    proc = subprocess.Popen(pin + [sys.executable, "-m", "companion.commands.serve", "--host",
                                   "127.0.0.1", "--port", str(port), "--db", db, "--instance",
                                   instance, "--threads", str(threads), "--no-qr"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    client = Client(port)
    deadline = time.monotonic() + 60     # a loaded machine, one core: the models load first
    while time.monotonic() < deadline:
        try:
            client.call("GET", "/api/games")
            return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start")


def make_frame() -> bytes:
    import cv2
    import numpy as np
    pictures = sorted((ROOT / "sample_images").glob("*.jp*g"))
    if pictures:
        image = cv2.imread(str(pictures[0]))
        image = cv2.resize(image, (640, 480), interpolation=cv2.INTER_AREA)
    else:
        rng = np.random.default_rng(0)
        image = rng.integers(0, 255, (480, 640, 3), dtype=np.uint8)
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return jpeg.tobytes()


def token_of(headers, code) -> str:
    cookie = headers["Set-Cookie"]
    return cookie.split(f"dc_{code}=", 1)[1].split(";", 1)[0]


def bench_frames(client: Client, n: int) -> dict:
    status, body, headers = client.call("POST", "/api/tables",
                                        {"game": "qwinto", "players": ["A", "B"], "claim": 0})
    code = body["code"]
    token = token_of(headers, code)
    frame = make_frame()
    times, statuses, reading, dice = [], {}, [], []
    parts: dict[str, list[float]] = {}
    first_ms = None
    for _ in range(n):
        t0 = time.perf_counter()
        status, body, _ = client.call("POST", f"/api/tables/{code}/frame", raw=frame,
                                      token=token, ctype="image/jpeg")
        elapsed = (time.perf_counter() - t0) * 1000
        if first_ms is None:        # the freshly started server's first frame: on its own
            first_ms = elapsed
            continue
        times.append(elapsed)
        statuses[status] = statuses.get(status, 0) + 1
        if status == 200:
            reading.append(body["elapsed_ms"])
            dice.append(len(body["dice"]))
            timing = body.get("timing") or {}
            for k, v in timing.items():
                parts.setdefault(k, []).append(v)
            if "server" in timing:     # HTTP, uvicorn and Front, the client: outside
                parts.setdefault("outside", []).append(elapsed - timing["server"])
            if "server" in timing and "vision" in timing:
                parts.setdefault("not_vision", []).append(elapsed - timing["vision"])
    return {"n": n, "bytes": len(frame), "statuses": statuses, "first_ms": first_ms,
            "p50_ms": pct(times, 50), "p99_ms": pct(times, 99),
            "read_p50_ms": pct(reading, 50), "dice_per_frame": max(dice) if dice else 0,
            "parts_p50_ms": {k: round(pct(v, 50), 2) for k, v in parts.items()},
            "note": None if 200 in statuses else (body or {}).get("error")}


def seated_tables(client: Client, port: int, tables: int, players: int) -> list:
    """`tables` new Qwinto tables of `players` players, every seat joined from its own client:
    [(code, [each seat's token])]."""
    setups = []
    for _ in range(tables):
        names = [f"P{i + 1}" for i in range(players)]
        status, body, headers = client.call("POST", "/api/tables",
                                            {"game": "qwinto", "players": names, "claim": 0})
        code, join = body["code"], body["state"]["me"]["join"]     # the host's join link
        tokens = [token_of(headers, code)]
        for seat in range(1, players):
            status, body, headers = Client(port).call("POST", f"/api/tables/{code}/join",
                                                      {"seat": seat, "join": join})
            tokens.append(token_of(headers, code))
        setups.append((code, tokens))
    return setups


def bench_table_frames(port: int, tables: int, phones: int, seconds: float,
                       every: float) -> dict:
    """`tables` tables x `phones` phones posting frames at once for `seconds`: each phone a
    frame every `every` s (0: back to back), on its own connection with its own seat's token."""
    frame = make_frame()
    setups = seated_tables(Client(port), port, tables, phones)
    times: list[float] = []
    statuses: dict[int, int] = {}
    superseded = [0]
    errors: list[str] = []
    parts: dict[str, list[float]] = {}
    lock = threading.Lock()
    start = time.monotonic() + 0.5
    deadline = start + seconds

    def phone(code: str, token: str, phase: float) -> None:
        own = Client(port)
        at = start + phase          # phones of a table are not in step with each other
        while True:
            if every:
                time.sleep(max(0.0, at - time.monotonic()))
                at += every
            if time.monotonic() >= deadline:
                return
            t0 = time.perf_counter()
            try:
                status, reply, _ = own.call("POST", f"/api/tables/{code}/frame", raw=frame,
                                            token=token, ctype="image/jpeg")
            except OSError as exc:
                with lock:
                    errors.append(f"{code}: {exc!r}")
                return
            elapsed = (time.perf_counter() - t0) * 1000
            with lock:
                times.append(elapsed)
                statuses[status] = statuses.get(status, 0) + 1
                if status == 200 and reply.get("superseded"):
                    superseded[0] += 1
                elif status == 200:
                    for k, v in (reply.get("timing") or {}).items():
                        parts.setdefault(k, []).append(v)
                    parts.setdefault("outside", []).append(elapsed - reply["timing"]["server"])
                elif status not in (200, 503):
                    errors.append(f"{code}: {status} {reply}")

    rng = random.Random(0)
    threads = [threading.Thread(target=phone, args=(code, token, rng.uniform(0, every or 0.01)))
               for code, tokens in setups for token in tokens]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + 60)
    answered = len(times)
    return {"tables": tables, "phones": phones, "every_s": every, "seconds": seconds,
            "load_average": os.getloadavg()[0],
            "answered": answered, "statuses": statuses, "superseded": superseded[0],
            "read_per_s": (answered - superseded[0]) / seconds,
            "answered_per_s": answered / seconds,
            "p50_ms": pct(times, 50), "p99_ms": pct(times, 99), "errors": errors,
            "parts_p50_ms": {k: round(pct(v, 50), 2) for k, v in parts.items()}}


class Listener(threading.Thread):
    """Reads one table's event stream; records when each action's event arrived."""

    def __init__(self, port: int, code: str, limit: float) -> None:
        super().__init__(daemon=True)
        self.port, self.code, self.limit = port, code, limit
        self.seen: dict[int, float] = {}
        self.ready = threading.Event()
        self.error: str | None = None

    def run(self) -> None:
        try:
            c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.limit + 30)
            c.request("GET", f"/api/tables/{self.code}/events?limit={self.limit}")
            resp = c.getresponse()
            if resp.status != 200:
                self.error = f"events answered {resp.status}"
                return
            event = None
            while True:
                line = resp.fp.readline()
                if not line:
                    return
                line = line.decode().rstrip("\n")
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: "):
                    if event == "hello":
                        self.ready.set()
                    elif event == "action":
                        self.seen[json.loads(line[6:])["seq"]] = time.perf_counter()
        except Exception as exc:  # reported, not raised: the run goes on
            self.error = repr(exc)
        finally:
            self.ready.set()


def bench_load(client: Client, port: int, tables: int, players: int, actions: int,
               seconds: float, think: float = 0.0) -> dict:
    game = load_game("qwinto")
    setups = seated_tables(client, port, tables, players)
    listeners = {code: [Listener(port, code, seconds + 5) for _ in range(players)]
                 for code, _ in setups}
    for group in listeners.values():
        for lst in group:
            lst.start()
    for group in listeners.values():
        for lst in group:
            lst.ready.wait(10)

    post_ms: list[float] = []
    answered: dict[tuple[str, int], float] = {}
    acked: dict[str, int] = {code: 0 for code, _ in setups}   # actions answered 200, per table
    errors: list[str] = []
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def play(code: str, tokens: list[str], seed: int) -> None:
        rng = random.Random(seed)
        table = Table.new(game, [f"P{i + 1}" for i in range(players)])
        history: list = []
        while len(history) < actions and not table.is_over:
            table = random_turn(table, rng)
            history = list(table.history)
        own = Client(port)
        pause = random.Random(seed + 1000)
        for seq, action in enumerate(history[:actions], start=1):
            if time.monotonic() > deadline:
                return
            if think:     # people tap one after another, not all at the same instant
                time.sleep(pause.uniform(0.5 * think, 1.5 * think))
            body = action_to_json(action)
            token = tokens[body["seat"]] if "seat" in body else tokens[0]
            t0 = time.perf_counter()
            try:
                status, reply, _ = own.call("POST", f"/api/tables/{code}/actions", body, token)
            except OSError as exc:
                with lock:
                    errors.append(f"{code} #{seq}: {exc!r}")
                return
            t1 = time.perf_counter()
            with lock:
                post_ms.append((t1 - t0) * 1000)
                answered[(code, seq)] = t0
                if status != 200:
                    errors.append(f"{code} #{seq}: {status} {reply}")
                    return
                acked[code] = seq

    workers = [threading.Thread(target=play, args=(code, tokens, i))
               for i, (code, tokens) in enumerate(setups)]
    t_start = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join(seconds + 30)
    wall = time.perf_counter() - t_start
    time.sleep(0.5)   # let the last events arrive
    delays, missing = [], 0
    for (code, seq), t_answer in answered.items():
        for lst in listeners[code]:
            t_seen = lst.seen.get(seq)
            if t_seen is None:
                missing += 1
            else:
                delays.append(max(0.0, (t_seen - t_answer) * 1000))
    listener_errors = [lst.error for g in listeners.values() for lst in g if lst.error]
    return {"tables": tables, "players": players, "think_s": think, "posts": len(post_ms),
            "load_average": os.getloadavg()[0],
            "wall_s": wall, "posts_per_s": len(post_ms) / wall if wall else 0,
            "post_p50_ms": pct(post_ms, 50), "post_p99_ms": pct(post_ms, 99),
            "event_p50_ms": pct(delays, 50), "event_p99_ms": pct(delays, 99),
            "events_missing": missing, "errors": errors + listener_errors, "acked": acked}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--phones", type=int, default=4, help="phones posting frames per table")
    ap.add_argument("--actions", type=int, default=60, help="actions per table at most")
    ap.add_argument("--frames", type=int, default=100, help="frames of the one-phone run")
    ap.add_argument("--frame-seconds", type=float, default=20,
                    help="length of each many-table frame run")
    ap.add_argument("--frame-every", type=float, default=0.4,
                    help="a phone's pause between frames in the paced run, seconds (the page's)")
    ap.add_argument("--seconds", type=float, default=120, help="time limit of the load run")
    ap.add_argument("--threads", type=int, default=160, help="server worker threads")
    ap.add_argument("--cpus", help="the server's cores, as taskset -c takes them (0, 0-1)")
    ap.add_argument("--only", choices=("frames", "load"), help="run one part only")
    ap.add_argument("--think", type=float, default=0.25,
                    help="mean pause of a table between two actions, seconds (players "
                         "tapping); the run is repeated with no pause at all (a flood)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    def on_fresh_server(work):
        # every run gets its own server: event streams left open by a run hold threads
        port = free_port()
        with tempfile.TemporaryDirectory() as tmp:
            proc = start_server(port, os.path.join(tmp, "bench.sqlite"), tmp, args.threads,
                                args.cpus)
            try:
                return work(Client(port), port)
            finally:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()

    frames, many, loads = None, [], []
    if args.only != "load":
        frames = on_fresh_server(lambda client, port: bench_frames(client, args.frames))
        many = [on_fresh_server(lambda client, port, every=every: bench_table_frames(
            port, args.tables, args.phones, args.frame_seconds, every))
            for every in (args.frame_every, 0.0)]
    if args.only != "frames":
        loads = [on_fresh_server(lambda client, port, think=think: bench_load(
            client, port, args.tables, args.players, args.actions, args.seconds, think))
            for think in (args.think, 0.0)]
    if args.json:
        print(json.dumps({"frames": frames, "table_frames": many, "load": loads}, indent=1))
    else:
        if frames:
            print_frames(frames, many, args.cpus)
        print_loads(loads)
    bad = (any(run["errors"] or run["events_missing"] for run in loads)
           or any(m["errors"] for m in many))
    return 1 if bad else 0


PARTS = {"not_vision": "not vision (all but vision's reader + tracker)",
         "wait": "waiting for the table's earlier frame",
         "outside": "outside the handler (HTTP, server, client)",
         "decode": "decode", "vision": "vision (reader + tracker)",
         "read": "vision's reader alone", "rest": "legal placements + answer",
         "server": "in the handler"}


def print_frames(f: dict, many: list[dict], cpus: str | None) -> None:
    print(f"frame upload ({f['bytes']} byte 640x480 JPEG, one phone, {f['n']}x; server on "
          f"{'cores ' + cpus if cpus else 'every core'}): first frame {f['first_ms']:.1f} ms; "
          f"then p50 {f['p50_ms']:.1f} ms, p99 {f['p99_ms']:.1f} ms, statuses {f['statuses']}")
    if f["read_p50_ms"] == f["read_p50_ms"]:     # not nan: dice were read
        print(f"  of which reading (vision, in the server): p50 {f['read_p50_ms']:.1f} ms; "
              f"{f['dice_per_frame']} dice seen")
    if f.get("parts_p50_ms"):
        print("  p50 by part: " + ", ".join(f"{PARTS.get(k, k)} {v:.1f} ms"
                                            for k, v in f["parts_p50_ms"].items()))
    if f["note"]:
        print(f"  note: no dice read: {f['note']}")
    for m in many:
        pace = (f"each a frame every {m['every_s']:.1f} s" if m["every_s"]
                else "each posting back to back")
        print(f"frames from {m['tables']} tables x {m['phones']} phones at once ({pace}, "
              f"{m['seconds']:.0f} s): p50 {m['p50_ms']:.1f} ms, p99 {m['p99_ms']:.1f} ms; "
              f"{m['read_per_s']:.1f} frames read/s, {m['superseded']} of {m['answered']} "
              f"answered superseded; statuses {m['statuses']}; errors {len(m['errors'])}; "
              f"load average {m['load_average']:.1f}"
              + "".join(f"\n    {e}" for e in m["errors"][:5]))
        print("  p50 by part: " + ", ".join(f"{PARTS.get(k, k)} {v:.1f} ms"
                                            for k, v in m["parts_p50_ms"].items()))


def print_loads(loads: list[dict]) -> None:
    for run in loads:
        pace = f"a pause of ~{run['think_s']:.2f} s between a table's actions" \
            if run["think_s"] else "no pause: every table posts as fast as it can"
        print(f"load ({run['tables']} tables x {run['players']} players listening; {pace}): "
              f"{run['posts']} actions in {run['wall_s']:.1f} s ({run['posts_per_s']:.0f}/s; "
              f"load average {run['load_average']:.1f})")
        print(f"  POST action p50 {run['post_p50_ms']:.1f} ms, p99 {run['post_p99_ms']:.1f} ms")
        print(f"  action posted -> its event at every listener: p50 "
              f"{run['event_p50_ms']:.1f} ms, p99 {run['event_p99_ms']:.1f} ms, "
              f"missing {run['events_missing']}")
        print(f"  errors: {len(run['errors'])}" + "".join(f"\n    {e}" for e in run["errors"][:10]))


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Fuzz the HTTP API with schemathesis against a live server (`.ci/run` runs it).

Starts the companion on a free port of 127.0.0.1 (waitress, a temporary database, the demo
pictures as its camera) with one Qwinto table whose creator's token every request carries, so
that actions, teaching and advice reach their rules and not only 404 and 403. Then runs
`schemathesis run` on /api/openapi.json with a fixed seed and a fixed number of examples per
operation, checking that no answer is a 5xx and that every status, content type and body is
the one the description gives. The two streams (events, camera.mjpg) are left out: they end
only when the client goes (ordinary tests cover their limits).

    python3 .ci/fuzz_api.py [--examples N] [--seed S] [--workers W]

Exit code: schemathesis's (0: nothing found).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def serve(folder: str):
    """(server, base URL, the table's code, its creator's token), the server running."""
    from companion.app import create_app
    from companion.db import get_store
    from companion.frames import open_source
    from engine.layouts import builtin_layout_data

    app = create_app({"DATABASE": os.path.join(folder, "fuzz.sqlite"),
                      "FRAME_SOURCE": open_source(None, ROOT / "sample_images")})
    with app.app_context():
        store = get_store()
        layout = builtin_layout_data("qwinto", "standard")
        rec, _ = store.create_table("qwinto", ["Ann", "Bob"], [layout, layout])
        store.join(rec, 0, rec.creator_token)
    from companion.server import ServerThread
    server = ServerThread(app, threads=8)
    return server, server.url, rec.code, rec.creator_token


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=60,
                        help="examples per operation (60: about 2,000 requests)")
    parser.add_argument("--seed", type=int, default=20)
    # one worker: with two, schemathesis' threads parse Python source at once (hypothesis'
    # lambda descriptions), and CPython 3.11's ast.parse is not thread-safe ("AST constructor
    # recursion depth mismatch", a runtime error of the tool that failed a clean-clone run)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        server, url, code, token = serve(folder)
        config = Path(folder) / "schemathesis.toml"
        config.write_text(f'[parameters]\n"path.code" = "{code}"\n')
        command = [
            "schemathesis", "--config-file", str(config), "run", f"{url}/api/openapi.json",
            "--url", f"{url}/api", "--seed", str(args.seed), "--max-examples", str(args.examples),
            "--workers", str(args.workers), "--phases", "examples,coverage,fuzzing",
            "--checks", "not_a_server_error,status_code_conformance,content_type_conformance,"
                        "response_schema_conformance",
            "--exclude-path-regex", r"/events$|/camera\.mjpg$",
            "--header", f"X-Token: {token}", "--request-timeout", "30",
            "--generation-database", "none", "--suppress-health-check", "all",
            "--continue-on-failure", "--no-color",
        ]
        try:
            return subprocess.run(command, cwd=folder).returncode
        finally:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())

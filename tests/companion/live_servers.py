"""Real PostgreSQL and Redis servers for the tests of the hosting mode, each started on a free
port of 127.0.0.1 in a temporary folder and stopped after the tests (`.ci/run` installs
Debian's packages when they are missing; without them the tests that need them skip, saying
so). Modest settings: the machine is shared."""
from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pg_bin(name: str) -> str | None:
    """A PostgreSQL program: on PATH, else Debian's /usr/lib/postgresql/<version>/bin."""
    found = shutil.which(name)
    if found:
        return found
    versions = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
                      key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    return versions[-1] if versions else None


class Unavailable(Exception):
    """The server cannot be run here (the reason is the message)."""


class Postgres:
    """A PostgreSQL cluster of its own: `url(name)` for a database, `new_database()`."""

    def __init__(self) -> None:
        initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
        if not (initdb and pg_ctl):
            raise Unavailable("PostgreSQL is not installed (no initdb/pg_ctl; "
                              "`apt-get install postgresql`, as .ci/run does)")
        self.pg_ctl = pg_ctl
        self._migrated: str | None = None
        self.dir = tempfile.mkdtemp(prefix="dice-pg-")
        self.port = free_port()
        # PostgreSQL refuses to run as root: as root, the cluster belongs to user postgres
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            runuser = shutil.which("runuser")
            if runuser is None:
                raise Unavailable("running as root without runuser: cannot start PostgreSQL")
            shutil.chown(self.dir, "postgres")
            self.as_user = [runuser, "-u", "postgres", "--"]
        data = os.path.join(self.dir, "data")
        self._run([initdb, "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8",
                   "--no-instructions"])
        opts = (f"-c listen_addresses=127.0.0.1 -c port={self.port} "
                f"-c unix_socket_directories={self.dir} -c max_connections=200 "
                f"-c shared_buffers=32MB -c max_wal_size=256MB -c log_min_messages=warning")
        self.data = data
        self._run([pg_ctl, "-D", data, "-o", opts, "-l", os.path.join(self.dir, "log"),
                   "-w", "-t", "60", "start"])

    def _run(self, cmd: list[str]) -> None:
        done = subprocess.run(self.as_user + cmd, capture_output=True, text=True)
        if done.returncode != 0:
            log = Path(self.dir, "log")
            raise Unavailable(f"{Path(cmd[0]).name} failed: {done.stderr.strip()[-500:]} "
                              f"{log.read_text()[-500:] if log.exists() else ''}")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self, template: str | None = None) -> str:
        """A new database, empty or a copy of database `template`; its URL."""
        import psycopg
        name = "t_" + uuid.uuid4().hex[:12]
        copy = f" TEMPLATE {template}" if template else ""
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}{copy}")
        return self.url(name)

    def migrated(self) -> str:
        """The name of a database with the store's schema, made once, to copy (a copy costs
        less than migrating a new database)."""
        if self._migrated is None:
            from companion.store_pg import init_db
            url = self.new_database()
            init_db(url)
            self._migrated = url.rsplit("/", 1)[1]
        return self._migrated

    def drop_database(self, url: str) -> None:
        """Drop the database of `url`, ending its connections (pools the tests left open)."""
        import psycopg
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {url.rsplit('/', 1)[1]} WITH (FORCE)")

    def stop(self) -> None:
        subprocess.run(self.as_user + [self.pg_ctl, "-D", self.data, "-m", "fast", "-w",
                                       "stop"], capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)


class Redis:
    """A redis-server of its own, keeping nothing on disk."""

    def __init__(self) -> None:
        server = shutil.which("redis-server")
        if server is None:
            raise Unavailable("Redis is not installed (no redis-server; "
                              "`apt-get install redis-server`, as .ci/run does)")
        self.dir = tempfile.mkdtemp(prefix="dice-redis-")
        self.port = free_port()
        self.proc = subprocess.Popen(
            [server, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", self.dir, "--maxmemory", "64mb"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise Unavailable("redis-server did not start")
            time.sleep(0.05)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        shutil.rmtree(self.dir, ignore_errors=True)

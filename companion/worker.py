"""`Worker`: gunicorn's worker process for the companion (`-k companion.worker.Worker`):
uvicorn's gunicorn worker (the `uvicorn-worker` package, in the `server` extra) running
`companion.server.Server`, which ends the event streams before it waits for the requests in
flight when gunicorn stops or restarts the worker (the pages reconnect, to another worker).
The app is `companion.asgi:app`."""
from __future__ import annotations

import asyncio
import signal
import sys

from gunicorn.arbiter import Arbiter
from uvicorn_worker import UvicornWorker

from .server import STOP_SECONDS, Server, settle_gc


class Worker(UvicornWorker):
    CONFIG_KWARGS = {"loop": "asyncio", "http": "h11", "lifespan": "on",
                     "server_header": False, "headers": [("server", "dice-companion")],
                     "timeout_graceful_shutdown": STOP_SECONDS}

    async def _serve(self) -> None:
        self.config.app = self.wsgi
        server = Server(self.config, self.wsgi)
        settle_gc()
        asyncio.get_running_loop().add_signal_handler(signal.SIGQUIT, self.handle_exit,
                                                      signal.SIGQUIT, None)
        await server.serve(sockets=self.sockets)
        if not server.started:
            sys.exit(Arbiter.WORKER_BOOT_ERROR)

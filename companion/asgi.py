"""The app for an ASGI server of several worker processes (gunicorn with the companion's uvicorn
worker), configured from the environment (docs/companion.md, "Hosting many tables"):

    DICE_COMPANION_DB=postgresql://... DICE_COMPANION_REDIS=redis://... \\
        gunicorn -w 2 -k companion.worker.Worker -b 0.0.0.0:8000 'companion.asgi:app'

`companion.wsgi`'s app and variables, served by `companion.front.Front`: event streams hold no
thread; `DICE_COMPANION_THREADS` is the threads per worker answering requests (default 100).
"""
from __future__ import annotations

import os

from .server import front_for
from .wsgi import app as wsgi_app

app = front_for(wsgi_app, int(os.environ.get("DICE_COMPANION_THREADS") or 100))

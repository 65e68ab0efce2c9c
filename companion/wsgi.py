"""The app for a WSGI server, configured from the environment (docs/companion.md, "Hosting many
tables"), for example

    DICE_COMPANION_DB=postgresql://... DICE_COMPANION_REDIS=redis://... \\
        gunicorn -w 2 -k gthread --threads 256 -b 0.0.0.0:8000 'companion.wsgi:app'

where each open event stream holds one of the server's threads (`--threads` bounds the open
pages). The documented start serves it through `companion.asgi`, whose streams hold none.

- `DICE_COMPANION_DB`: the database (a postgresql:// URL, or a SQLite file);
- `DICE_COMPANION_REDIS`: Redis for live updates across the workers;
- `DICE_COMPANION_URL`: the address the pages' links and QR codes give;
- `DICE_COMPANION_INSTANCE`: the instance folder.

Each worker builds its own app (no `--preload`): its pool of database connections, its Redis
subscriber and its camera readers (ONNX sessions) are made in that worker, once.
"""
from __future__ import annotations

import os

from .app import create_app, hosting_config

app = create_app(hosting_config(os.environ),
                 instance_path=os.environ.get("DICE_COMPANION_INSTANCE"))

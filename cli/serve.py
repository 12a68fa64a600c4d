"""`negentropy serve`: runs the AG-UI server (server/app.py) with uvicorn."""
from __future__ import annotations

import asyncio
import logging
import os

import uvicorn

from cli.common import configure_logging, exit_on_termination, user_errors
from cli.console import err_console
from cli.discovery import ServeAddress, announced, database_fingerprint, local_url
from config import get_settings
from knowledge.db.pool import check_reachable
from knowledge.db.server import resolve_database_url
from server.app import create_app
from server.identity import ServeIdentity

logger = logging.getLogger(__name__)


def serve(host: str, port: int, identity: ServeIdentity) -> None:
    configure_logging(logging.INFO)
    exit_on_termination()  # `negentropy web` stops this server with SIGTERM: the embedded database must be released
    if identity.warning:
        err_console.print(f"[bold yellow]warning:[/] {identity.warning}")
    if identity.needs_tokens:
        logger.info("bound to %s beyond loopback: every request needs 'Authorization: Bearer <token>' "
                    "(negentropy token issue PERSON)", host)
    settings = get_settings()
    with user_errors():
        dsn = resolve_database_url(settings)
        # before uvicorn, whose failed start-up would print the lifespan's traceback
        asyncio.run(check_reachable(dsn))
        app = create_app(dsn=dsn, user_id=identity.user_id)
    # `negentropy search` finds this server by the file (cli/search.py) and checks /health before it trusts it
    address = ServeAddress(os.getpid(), local_url(host, port), identity.user_id,
                           database_fingerprint(settings.database_url))
    with announced(settings.data_dir, address):
        uvicorn.run(app, host=host, port=port, log_level="info")

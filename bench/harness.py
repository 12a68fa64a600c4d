"""Benchmark plumbing: a throwaway database on the embedded server, timing and table printing."""
from __future__ import annotations

import asyncio
import statistics
import subprocess
import tempfile
import time
import uuid
from contextlib import asynccontextmanager
from pathlib import Path
from typing import AsyncIterator, Sequence

import asyncpg
from rich.console import Console
from rich.table import Table

from config import Settings, get_settings
from knowledge.app import KnowledgeApp
from knowledge.db.server import resolve_database_url, with_database

console = Console(width=220)


def git_commit() -> str:
    """The checkout's short commit, for the results a bench writes ("unknown" outside a git checkout)."""
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).resolve().parents[1],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


@asynccontextmanager
async def scratch_app(settings: Settings | None = None, server_dsn: str | None = None, keep: str | None = None,
                      **open_kwargs) -> AsyncIterator[KnowledgeApp]:
    """A KnowledgeApp on a new database (on ``server_dsn`` or the configured server) dropped afterwards; with
    ``keep``, the database of that name, created if missing and kept (so a big load is paid once)."""
    settings = settings or get_settings()
    server_dsn = server_dsn or resolve_database_url(settings)
    name = keep or f"bench_{uuid.uuid4().hex[:10]}"
    admin = await asyncpg.connect(server_dsn)
    if not await admin.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name):
        await admin.execute(f'CREATE DATABASE "{name}"')
    await admin.close()
    app = await KnowledgeApp.open(settings, dsn=with_database(server_dsn, name), progress=False, **open_kwargs)
    try:
        yield app
    finally:
        await app.close()
        if keep is None:
            admin = await asyncpg.connect(server_dsn)
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            await admin.close()


async def stop_process(process: asyncio.subprocess.Process, grace_seconds: float) -> None:
    """Terminate a server the bench started; kill it when it has not exited within ``grace_seconds``."""
    if process.returncode is not None:
        return
    process.terminate()
    try:
        await asyncio.wait_for(process.wait(), grace_seconds)
    except asyncio.TimeoutError:
        process.kill()
        await process.wait()


def percentile(values: Sequence[float], pct: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[index]


def latency_summary(samples_ms: Sequence[float]) -> dict[str, float]:
    return {"p50": percentile(samples_ms, 50), "p95": percentile(samples_ms, 95), "p99": percentile(samples_ms, 99),
            "mean": statistics.fmean(samples_ms) if samples_ms else float("nan")}


class Timer:
    def __enter__(self) -> "Timer":
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.start


def print_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    table = Table(*columns, title=title)
    for row in rows:
        table.add_row(*(f"{c:.3f}" if isinstance(c, float) else str(c) for c in row))
    console.print(table)


def bench_data_dir() -> Path:
    return Path(tempfile.gettempdir()) / "negentropy-bench"

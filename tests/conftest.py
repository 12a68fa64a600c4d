"""Test fixtures: one real embedded PostgreSQL per session, a fresh database per test that writes."""
from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import AsyncIterator, Awaitable, Callable

import asyncpg
import pytest
import pytest_asyncio

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.pop("NE_MODEL", None)

from config import Settings  # noqa: E402
from config.settings import GatewaySettings  # noqa: E402
from knowledge.app import KnowledgeApp  # noqa: E402
from knowledge.db.server import start_embedded_server, with_database  # noqa: E402
from knowledge.embedding import get_embedder  # noqa: E402
from tests.replica_support import replica_cluster  # noqa: E402,F401 - session fixture: primary + hot standby

REPO_ROOT = Path(__file__).resolve().parents[1]
_db_counter = itertools.count()


@pytest.fixture(scope="session")
def pg_dsn(tmp_path_factory: pytest.TempPathFactory) -> str:
    external = os.environ.get("NE_TEST_DATABASE_URL")
    if external:
        return external
    server = start_embedded_server(tmp_path_factory.mktemp("pg") / "data")
    return server.get_uri()


@pytest.fixture(scope="session")
def new_database(pg_dsn: str) -> Callable[..., Awaitable[str]]:
    """Create an empty database (or a copy of the database ``template``, a DSN) and return its DSN."""

    async def create(prefix: str = "t", template: str | None = None) -> str:
        name = f"{prefix}_{os.getpid()}_{next(_db_counter)}"
        copy = f' TEMPLATE "{template.partition("?")[0].rsplit("/", 1)[1]}"' if template else ""
        conn = await asyncpg.connect(pg_dsn)
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            await conn.execute(f'CREATE DATABASE "{name}"{copy}')
        finally:
            await conn.close()
        return with_database(pg_dsn, name)

    return create


@pytest.fixture(scope="session")
def embedder():
    return get_embedder()


def make_settings(tmp: Path, **overrides) -> Settings:
    return Settings(data_dir=tmp, database_url=None, model=None, **overrides)


@pytest_asyncio.fixture
async def kapp(new_database, embedder, tmp_path) -> AsyncIterator[KnowledgeApp]:
    """A KnowledgeApp on a fresh, migrated database."""
    dsn = await new_database()
    app = await KnowledgeApp.open(make_settings(tmp_path), dsn=dsn, embedder=embedder, progress=False)
    try:
        yield app
    finally:
        await app.close()


@pytest_asyncio.fixture(scope="session")
async def demo_app(new_database, embedder, tmp_path_factory) -> AsyncIterator[tuple[KnowledgeApp, dict]]:
    """The demo corpora ingested once for the whole session; tests must only read from it."""
    from demo.build import build_demo_corpora

    dsn = await new_database("demo")
    # the whole session asks its questions as one person, back to back: far above a person's rate (gateway_support)
    unthrottled = GatewaySettings(rate_per_second=1000.0, rate_burst=1000)
    app = await KnowledgeApp.open(make_settings(tmp_path_factory.mktemp("demo"), gateway=unthrottled), dsn=dsn,
                                  embedder=embedder, progress=False)
    corpora = await build_demo_corpora(app)
    try:
        yield app, corpora
    finally:
        await app.close()

"""The application's handle on PostgreSQL: pool, migrations, and corpus-scoped read transactions (on a read
replica when ``NE_DATABASE_READ_URLS`` names any, see knowledge/db/replicas.py)."""
from __future__ import annotations

from contextlib import asynccontextmanager
from typing import AsyncIterator, Iterable
from uuid import UUID

import asyncpg

from config import Settings, get_settings
from knowledge.db.migrate import apply_migrations
from knowledge.db.pool import create_pool
from knowledge.db.replicas import ReplicaSet
from knowledge.db.server import resolve_database_url

READER_ROLE = "negentropy_reader"


class Database:
    def __init__(self, pool: asyncpg.Pool, settings: Settings, dsn: str, replicas: ReplicaSet | None = None) -> None:
        self.pool = pool
        self.settings = settings
        self.dsn = dsn
        self.replicas = replicas  # None: every read runs on the primary, exactly as without replica support

    @classmethod
    async def connect(cls, settings: Settings | None = None, *, dsn: str | None = None,
                      migrate: bool = True, max_size: int = 10) -> "Database":
        settings = settings or get_settings()
        dsn = dsn or resolve_database_url(settings)
        pool = await create_pool(dsn, max_size=max_size)
        db = cls(pool, settings, dsn)
        if migrate:
            async with pool.acquire() as conn:
                await apply_migrations(conn, settings.embedding_dimension)
        if settings.database_read_urls:
            db.replicas = await ReplicaSet.open(
                pool, settings.database_read_urls, max_lag_seconds=settings.database_read_max_lag_seconds,
                check_interval_seconds=settings.database_read_check_interval_seconds, max_size=max_size)
        return db

    async def close(self) -> None:
        if self.replicas is not None:
            await self.replicas.close()
        await self.pool.close()

    async def __aenter__(self) -> "Database":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[asyncpg.Connection]:
        async with self.pool.acquire() as conn:
            yield conn

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[asyncpg.Connection]:
        async with self.pool.acquire() as conn:
            async with conn.transaction():
                yield conn
            if self.replicas is not None:
                await self.replicas.note_write(conn)

    async def note_write(self) -> None:
        """After a write made through ``connection()`` that the next scoped read must see (``transaction()``
        does this itself): reads stay on the primary until a replica has replayed it."""
        if self.replicas is not None:
            async with self.pool.acquire() as conn:
                await self.replicas.note_write(conn)

    @asynccontextmanager
    async def scoped(self, accessible_corpus_ids: Iterable[UUID]) -> AsyncIterator[asyncpg.Connection]:
        """A read-only transaction as the RLS-bound reader role that sees only the given corpora."""
        ids = "{" + ",".join(str(UUID(str(i))) for i in accessible_corpus_ids) + "}"

        async def bind(conn: asyncpg.Connection) -> None:  # on a replica, and on the primary if it falls back
            await conn.execute(f"SET LOCAL ROLE {READER_ROLE}")
            await conn.execute("SELECT set_config('negentropy.accessible_corpus_ids', $1, true)", ids)

        if self.replicas is not None:
            async with self.replicas.read_transaction(bind) as reader:
                yield reader  # type: ignore[misc] - the asyncpg calls of a connection, see ReadConnection
            return
        async with self.pool.acquire() as conn, conn.transaction(readonly=True):
            await bind(conn)
            yield conn

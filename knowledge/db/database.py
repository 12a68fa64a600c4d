"""The application's handle on PostgreSQL: the owner's pool (migrations and writes), and corpus-scoped read
transactions over the retrieval login (knowledge/db/retrieval_role.py), on a read replica when
``NE_DATABASE_READ_URLS`` names any (knowledge/db/replicas.py)."""
from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Coroutine, Iterable
from uuid import UUID

import asyncpg

from config import Settings, get_settings
from knowledge.db.migrate import apply_migrations
from knowledge.db.queries.embeddings import adopt_unassigned_corpora
from knowledge.db.pool import create_pool, create_read_pool
from knowledge.db.replicas import ReplicaSet
from knowledge.db.retrieval_role import (BIND_SQL, RETRIEVAL_LOGIN, begin_bound_sql, binding_proof,
                                         check_retrieval_login, corpus_ids_text, read_binding_key,
                                         set_retrieval_password)
from knowledge.db.server import resolve_database_url, with_user


class Database:
    def __init__(self, pool: asyncpg.Pool, read_pool: asyncpg.Pool, binding_key: str, settings: Settings, dsn: str,
                 replicas: ReplicaSet | None = None) -> None:
        self.pool = pool  # the owner: migrations and writes
        self.read_pool = read_pool  # the retrieval login on the primary: scoped reads
        self._binding_key = binding_key
        self.settings = settings
        self.dsn = dsn
        self.replicas = replicas  # None: every read runs on the primary, exactly as without replica support
        self._later: set[asyncio.Future] = set()

    @classmethod
    async def connect(cls, settings: Settings | None = None, *, dsn: str | None = None,
                      migrate: bool = True, max_size: int = 10) -> "Database":
        settings = settings or get_settings()
        dsn = dsn or resolve_database_url(settings)
        pool = await create_pool(dsn, max_size=max_size)
        try:
            async with pool.acquire() as conn:
                if migrate:
                    applied = await apply_migrations(conn, settings.embedding_dimension)
                    await adopt_unassigned_corpora(conn, settings.embedding_model,
                                                   canonicals=any(m.version == 25 for m in applied))
                if settings.database_reader_password:
                    await set_retrieval_password(conn, settings.database_reader_password)
                binding_key = await read_binding_key(conn)
            read_pool = await create_read_pool(cls.retrieval_dsn(dsn, settings), max_size)
            async with read_pool.acquire() as conn:
                await check_retrieval_login(conn)
        except BaseException:
            await pool.close()
            raise
        db = cls(pool, read_pool, binding_key, settings, dsn)
        if settings.database_read_urls:
            db.replicas = await ReplicaSet.open(
                read_pool, [cls.retrieval_dsn(url, settings) for url in settings.database_read_urls],
                max_lag_seconds=settings.database_read_max_lag_seconds,
                check_interval_seconds=settings.database_read_check_interval_seconds, max_size=max_size)
        return db

    @staticmethod
    def retrieval_dsn(dsn: str, settings: Settings) -> str:
        """Where scoped reads log in: the same server and database as ``dsn``, as the retrieval login."""
        return with_user(dsn, RETRIEVAL_LOGIN, settings.database_reader_password)

    def write_later(self, write: Coroutine[Any, Any, None]) -> None:
        """Run a best-effort write (telemetry) without making the caller wait for it; ``drain`` and ``close``
        wait for every such write. ``write`` must handle its own errors."""
        task = asyncio.ensure_future(write)
        self._later.add(task)
        task.add_done_callback(self._later.discard)

    @property
    def pending_writes(self) -> int:
        return len(self._later)

    async def drain(self) -> None:
        while self._later:
            await asyncio.gather(*self._later, return_exceptions=True)

    async def close(self) -> None:
        await self.drain()
        if self.replicas is not None:
            await self.replicas.close()
        await self.read_pool.close()
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
    async def text_reader(self) -> AsyncIterator[asyncpg.Connection]:
        """A connection of the retrieval login for a query that reads no table (a text function such as
        ``to_tsvector``): no corpus binding, no transaction, and no reset round trip when it is taken back."""
        async with self.read_pool.acquire() as conn:
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
        """A read-only transaction of the retrieval login that row-level security lets see only the given corpora."""
        ids = corpus_ids_text(accessible_corpus_ids)

        async def bind(conn: asyncpg.Connection) -> None:  # on a replica, and on the primary if it falls back
            await conn.execute(BIND_SQL, ids, binding_proof(self._binding_key, conn.get_server_pid(), ids))

        if self.replicas is not None:
            async with self.replicas.read_transaction(bind) as reader:
                yield reader  # type: ignore[misc]  # the asyncpg calls of a connection, see ReadConnection
            return
        async with self.read_pool.acquire() as conn:
            await conn.execute(begin_bound_sql(ids, binding_proof(self._binding_key, conn.get_server_pid(), ids)))
            yield conn
            # a read that raised is rolled back when the pool takes the connection back (pool._end_read_session)
            await conn.execute("COMMIT")

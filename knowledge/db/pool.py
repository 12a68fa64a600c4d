"""asyncpg connection pool with the pgvector codec registered on every connection."""
from __future__ import annotations

import json

import asyncpg
from pgvector.asyncpg import register_vector

from knowledge.db.errors import DatabaseUnavailableError, connect_failure, unreachable

CONNECT_TIMEOUT_SECONDS = 10.0
# Filtered HNSW scans (corpus_id = ANY(...)) keep scanning until LIMIT rows pass the filter. Sent as startup
# parameters, so they are the session's defaults: a SET in the connection's init would be gone after the owner
# pool's RESET ALL on the first release, which brings these back instead of pgvector's ef_search 40 without
# iterative scan (the read pools keep no session state at all: _end_read_session).
SEARCH_SETTINGS = {"hnsw.iterative_scan": "strict_order", "hnsw.ef_search": "100"}


async def _init_connection(conn: asyncpg.Connection) -> None:
    await register_vector(conn)
    for json_type in ("json", "jsonb"):
        await conn.set_type_codec(json_type, encoder=json.dumps, decoder=json.loads, schema="pg_catalog")


async def ensure_vector_extension(dsn: str) -> None:
    """Create pgvector if possible; fail clearly when the server does not ship it."""
    conn = await _connect_once(dsn)
    try:
        available = await conn.fetchval("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
        if not available:
            raise DatabaseUnavailableError(
                "the PostgreSQL server has no pgvector extension ('vector'); install pgvector or unset "
                "NE_DATABASE_URL to use the embedded server"
            )
        await conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    finally:
        await conn.close()


async def _connect_once(dsn: str) -> asyncpg.Connection:
    try:
        return await _pool_connect(dsn, timeout=CONNECT_TIMEOUT_SECONDS)
    except (asyncpg.PostgresError, asyncpg.InterfaceError) as exc:  # reached, but refused: a wrong password...
        raise DatabaseUnavailableError(f"cannot connect to PostgreSQL at {redact_dsn(dsn)}: {exc}") from exc


async def check_reachable(dsn: str) -> None:
    """Raise DatabaseUnreachableError (or DatabaseUnavailableError) unless a connection to ``dsn`` opens."""
    conn = await _connect_once(dsn)
    await conn.close()


async def _pool_connect(*args, **kwargs) -> asyncpg.Connection:
    """How the pools open (and, after the server went away, reopen) connections: a refused connection is a
    DatabaseUnreachableError, not a bare OSError nobody could tell from a missing file."""
    try:
        return await asyncpg.connect(*args, **kwargs)
    except Exception as exc:
        if connect_failure(exc):
            dsn = args[0] if args else kwargs.get("dsn", "")
            raise unreachable(exc, f"cannot connect to PostgreSQL at {redact_dsn(dsn or '')}") from exc
        raise


async def create_pool(dsn: str, min_size: int = 1, max_size: int = 10) -> asyncpg.Pool:
    await ensure_vector_extension(dsn)
    try:
        return await asyncpg.create_pool(
            dsn, min_size=min_size, max_size=max_size, init=_init_connection, timeout=CONNECT_TIMEOUT_SECONDS,
            server_settings=SEARCH_SETTINGS, connect=_pool_connect,
        )
    except DatabaseUnavailableError:
        raise
    except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        raise DatabaseUnavailableError(f"cannot open a pool to {redact_dsn(dsn)}: {exc}") from exc


async def _end_read_session(conn: asyncpg.Connection) -> None:
    """How the read pools take a connection back. Their sessions keep nothing beyond a transaction (the corpus
    binding is transaction-local, the search settings are startup parameters), so asyncpg's reset query (advisory
    unlock, CLOSE ALL, UNLISTEN, RESET ALL: a round trip on every release, four to six per search) is replaced by
    rolling back a transaction that was left open."""
    if conn.is_in_transaction():
        await conn.execute("ROLLBACK")


async def create_read_pool(dsn: str, max_size: int = 10, timeout: float = CONNECT_TIMEOUT_SECONDS) -> asyncpg.Pool:
    """A pool on a hot standby: no extension check (a standby is read-only) and no connection up front, so an
    unreachable replica never stops start-up; the replica health check finds it."""
    pool = asyncpg.create_pool(dsn, min_size=0, max_size=max_size, init=_init_connection, timeout=timeout,
                               server_settings=SEARCH_SETTINGS, reset=_end_read_session, connect=_pool_connect)
    return await pool


def redact_dsn(dsn: str) -> str:
    """Hide the password part of a DSN in messages."""
    if "@" not in dsn or "://" not in dsn:
        return dsn
    scheme, rest = dsn.split("://", 1)
    credentials, host = rest.rsplit("@", 1)
    user = credentials.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}" if ":" in credentials else f"{scheme}://{user}@{host}"

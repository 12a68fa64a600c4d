"""ADK conversations persisted in the application's PostgreSQL (schema adk_session, migration 006)."""
from __future__ import annotations

import asyncpg
from google.adk.sessions.database_session_service import DatabaseSessionService

SESSION_SCHEMA = "adk_session"


def database_session_service(dsn: str) -> DatabaseSessionService:
    """ADK's DatabaseSessionService on ``dsn``, the same DSN the knowledge pool uses.

    SQLAlchemy gets its connections from asyncpg directly, so every DSN asyncpg accepts works unchanged,
    including the embedded server's unix-socket URI (``postgresql://postgres:@/db?host=/socket/dir``).
    """

    async def connect() -> asyncpg.Connection:
        return await asyncpg.connect(dsn, server_settings={"search_path": SESSION_SCHEMA})

    return DatabaseSessionService(db_url="postgresql+asyncpg://", async_creator=connect)

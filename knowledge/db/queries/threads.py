"""Named queries of the web app's thread list (table web_thread, migration 023): one row names a person's
conversation; its messages are ADK's session events."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import asyncpg


@dataclass(frozen=True)
class ThreadRow:
    thread_id: str
    title: str
    created_at: datetime
    updated_at: datetime

    def to_dict(self) -> dict[str, str]:
        return {"id": self.thread_id, "title": self.title, "createdAt": self.created_at.isoformat(),
                "updatedAt": self.updated_at.isoformat()}


def _row(record: asyncpg.Record) -> ThreadRow:
    return ThreadRow(record["thread_id"], record["title"], record["created_at"], record["updated_at"])


async def touch_thread(conn: asyncpg.Connection, app_name: str, user_id: str, thread_id: str, title: str) -> None:
    """A run in the thread: the row is created with ``title`` the first time, later runs only move it up."""
    await conn.execute(
        """INSERT INTO web_thread (app_name, user_id, thread_id, title) VALUES ($1, $2, $3, $4)
           ON CONFLICT (app_name, user_id, thread_id) DO UPDATE SET updated_at = now()""",
        app_name, user_id, thread_id, title)


async def select_threads(conn: asyncpg.Connection, app_name: str, user_id: str, limit: int) -> list[ThreadRow]:
    """The person's threads, the latest run first."""
    rows = await conn.fetch(
        """SELECT thread_id, title, created_at, updated_at FROM web_thread WHERE app_name = $1 AND user_id = $2
           ORDER BY updated_at DESC, thread_id LIMIT $3""", app_name, user_id, limit)
    return [_row(r) for r in rows]


async def rename_thread(conn: asyncpg.Connection, app_name: str, user_id: str, thread_id: str,
                        title: str) -> ThreadRow | None:
    """None: the person has no such thread."""
    row = await conn.fetchrow(
        """UPDATE web_thread SET title = $4 WHERE app_name = $1 AND user_id = $2 AND thread_id = $3
           RETURNING thread_id, title, created_at, updated_at""", app_name, user_id, thread_id, title)
    return None if row is None else _row(row)


async def delete_thread(conn: asyncpg.Connection, app_name: str, user_id: str, thread_id: str) -> bool:
    """False: the person has no such thread."""
    deleted = await conn.fetchval(
        "DELETE FROM web_thread WHERE app_name = $1 AND user_id = $2 AND thread_id = $3 RETURNING thread_id",
        app_name, user_id, thread_id)
    return deleted is not None

"""Named queries on ingest_buffer: chat ingests that failed and wait for `negentropy ingest retry-buffer`."""
from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

import asyncpg


@dataclass(frozen=True)
class BufferedIngest:
    app_name: str
    corpus_id: UUID
    corpus_name: str
    content: str
    title: str
    source_uri: str
    metadata: dict
    last_error: str

    def to_json(self) -> dict:
        return {**self.__dict__, "corpus_id": str(self.corpus_id)}

    @classmethod
    def from_json(cls, data: dict) -> "BufferedIngest":
        return cls(**{**data, "corpus_id": UUID(str(data["corpus_id"]))})


async def upsert_buffered(conn: asyncpg.Connection, item: BufferedIngest) -> int:
    """Buffer a failed ingest (the same note twice stays one pending row); returns its id."""
    return await conn.fetchval(
        """INSERT INTO ingest_buffer (app_name, corpus_id, corpus_name, content, title, source_uri, metadata,
                                      last_error)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
           ON CONFLICT (app_name, corpus_id, source_uri)
           DO UPDATE SET last_error = EXCLUDED.last_error, status = 'pending', done_at = NULL
           RETURNING id""",
        item.app_name, item.corpus_id, item.corpus_name, item.content, item.title, item.source_uri,
        item.metadata, item.last_error,
    )


async def select_pending(conn: asyncpg.Connection, app_name: str, limit: int) -> list[asyncpg.Record]:
    return await conn.fetch(
        """SELECT id, app_name, corpus_id, corpus_name, content, title, source_uri, metadata, last_error, attempts
           FROM ingest_buffer WHERE app_name = $1 AND status = 'pending' ORDER BY id LIMIT $2""",
        app_name, limit,
    )


async def mark_done(conn: asyncpg.Connection, buffer_id: int) -> None:
    await conn.execute(
        """UPDATE ingest_buffer SET status = 'done', attempts = attempts + 1, last_attempt_at = now(),
                                    done_at = now() WHERE id = $1""",
        buffer_id,
    )


async def mark_failed(conn: asyncpg.Connection, buffer_id: int, error: str) -> None:
    await conn.execute(
        """UPDATE ingest_buffer SET attempts = attempts + 1, last_attempt_at = now(), last_error = $2
           WHERE id = $1""",
        buffer_id, error,
    )


async def count_pending(conn: asyncpg.Connection, app_name: str) -> int:
    return await conn.fetchval(
        "SELECT count(*) FROM ingest_buffer WHERE app_name = $1 AND status = 'pending'", app_name)

"""Named queries on the corpus table."""
from __future__ import annotations

from uuid import UUID

import asyncpg

_COLUMNS = "id, app_name, name, label, description, created_at, updated_at"


async def insert_corpus(conn: asyncpg.Connection, app_name: str, name: str, label: str,
                        description: str, embedding_model: str) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"""INSERT INTO corpus (app_name, name, label, description, embedding_model) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (app_name, name) DO NOTHING RETURNING {_COLUMNS}""",
        app_name, name, label, description, embedding_model,
    )


async def select_corpus_by_name(conn: asyncpg.Connection, app_name: str, name: str) -> asyncpg.Record | None:
    return await conn.fetchrow(f"SELECT {_COLUMNS} FROM corpus WHERE app_name = $1 AND name = $2", app_name, name)


async def select_corpora(conn: asyncpg.Connection, app_name: str) -> list[asyncpg.Record]:
    return await conn.fetch(
        f"""SELECT {_COLUMNS}, (SELECT count(*) FROM knowledge k WHERE k.corpus_id = c.id) AS chunk_count
            FROM corpus c WHERE app_name = $1 ORDER BY name""",
        app_name,
    )


async def select_corpora_by_ids(conn: asyncpg.Connection, ids: list[UUID]) -> list[asyncpg.Record]:
    return await conn.fetch(f"SELECT {_COLUMNS} FROM corpus WHERE id = ANY($1::uuid[]) ORDER BY name", ids)


async def touch_corpus(conn: asyncpg.Connection, corpus_id: UUID) -> None:
    await conn.execute("UPDATE corpus SET updated_at = now() WHERE id = $1", corpus_id)


async def delete_corpus(conn: asyncpg.Connection, corpus_id: UUID) -> int:
    """Remove the corpus and, by cascade, its documents, chunks, graph and canonical links; its chunk count."""
    chunks = await conn.fetchval("SELECT count(*) FROM knowledge WHERE corpus_id = $1", corpus_id)
    await conn.execute("DELETE FROM corpus WHERE id = $1", corpus_id)
    return chunks


async def drop_corpus_vector_index(conn: asyncpg.Connection, corpus_id: UUID) -> None:
    """Drop the corpus's HNSW index (migration 024): a bulk load builds it once afterwards instead of row by row."""
    await conn.execute("SELECT ne_drop_corpus_vector_index($1)", corpus_id)


async def create_corpus_vector_index(conn: asyncpg.Connection, corpus_id: UUID) -> None:
    """(Re)build the corpus's HNSW index; a corpus gets it when it is created, this is for after a bulk load."""
    await conn.execute("SELECT ne_create_corpus_vector_index($1)", corpus_id)

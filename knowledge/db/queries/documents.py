"""Named queries on documents (migration 022): a document is its source URI within a corpus; it holds the chunks
of its current version (kb_document_chunk)."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Sequence
from uuid import UUID

import asyncpg


@dataclass(frozen=True)
class DocumentRow:
    id: int
    corpus_id: UUID
    source_uri: str
    title: str
    document_hash: str
    complete: bool
    chunk_count: int
    origin: str
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, r: asyncpg.Record) -> "DocumentRow":
        return cls(r["id"], r["corpus_id"], r["source_uri"], r["title"], r["document_hash"], r["complete"],
                   r["chunk_count"], r["origin"], r["created_at"], r["updated_at"])


_COLUMNS = "id, corpus_id, source_uri, title, document_hash, complete, chunk_count, origin, created_at, updated_at"


async def select_documents(conn: asyncpg.Connection, corpus_id: UUID,
                           source_uris: Sequence[str]) -> dict[str, DocumentRow]:
    rows = await conn.fetch(f"SELECT {_COLUMNS} FROM kb_document WHERE corpus_id = $1 AND source_uri = ANY($2::text[])",
                            corpus_id, list(source_uris))
    return {r["source_uri"]: DocumentRow.of(r) for r in rows}


async def list_documents(conn: asyncpg.Connection, corpus_id: UUID, origin: str | None = None,
                         contains: str = "", limit: int | None = None) -> list[DocumentRow]:
    """The corpus's documents by source URI (``origin``: only those last ingested from that folder)."""
    rows = await conn.fetch(
        f"""SELECT {_COLUMNS} FROM kb_document
            WHERE corpus_id = $1 AND ($2::text IS NULL OR origin = $2) AND strpos(source_uri, $3) > 0
            ORDER BY source_uri LIMIT $4""",
        corpus_id, origin, contains, limit)
    return [DocumentRow.of(r) for r in rows]


async def start_documents(conn: asyncpg.Connection, corpus_id: UUID, source_uris: Sequence[str],
                          titles: Sequence[str], origin: str) -> None:
    """Rows for documents an ingest is about to store, not complete until ``set_document_chunks``."""
    await conn.execute(
        """INSERT INTO kb_document (corpus_id, source_uri, title, origin)
           SELECT $1, u.source_uri, u.title, $4 FROM unnest($2::text[], $3::text[]) AS u(source_uri, title)
           ON CONFLICT (corpus_id, source_uri) DO NOTHING""",
        corpus_id, list(source_uris), list(titles), origin)


async def set_origin(conn: asyncpg.Connection, corpus_id: UUID, source_uris: Sequence[str], origin: str) -> None:
    await conn.execute(
        "UPDATE kb_document SET origin = $3 WHERE corpus_id = $1 AND source_uri = ANY($2::text[]) AND origin <> $3",
        corpus_id, list(source_uris), origin)


async def set_document_chunks(conn: asyncpg.Connection, corpus_id: UUID, source_uri: str, title: str,
                              document_hash: str, content_hashes: Sequence[str], origin: str) -> list[int]:
    """Make the document hold exactly the corpus's chunks with ``content_hashes`` (its current version) and mark it
    complete; returns the ids of the chunks it let go of."""
    document_id = await conn.fetchval(
        """INSERT INTO kb_document (corpus_id, source_uri, title, origin) VALUES ($1, $2, $3, $4)
           ON CONFLICT (corpus_id, source_uri) DO UPDATE SET title = excluded.title RETURNING id""",
        corpus_id, source_uri, title, origin)
    chunk_ids = [r["id"] for r in await conn.fetch(
        "SELECT id FROM knowledge WHERE corpus_id = $1 AND content_hash = ANY($2::text[])",
        corpus_id, list(content_hashes))]
    released = [r["chunk_id"] for r in await conn.fetch(
        """DELETE FROM kb_document_chunk WHERE document_id = $1 AND NOT (chunk_id = ANY($2::bigint[]))
           RETURNING chunk_id""", document_id, chunk_ids)]
    await conn.execute(
        """INSERT INTO kb_document_chunk (document_id, chunk_id, corpus_id)
           SELECT $1, unnest($2::bigint[]), $3 ON CONFLICT DO NOTHING""", document_id, chunk_ids, corpus_id)
    await conn.execute(
        """UPDATE kb_document SET document_hash = $2, complete = true, chunk_count = $3, origin = $4,
                                  updated_at = now() WHERE id = $1""",
        document_id, document_hash, len(chunk_ids), origin)
    return released


async def delete_document(conn: asyncpg.Connection, corpus_id: UUID, source_uri: str) -> list[int] | None:
    """Remove the document; returns the ids of the chunks it held (None: no such document)."""
    document_id = await conn.fetchval("SELECT id FROM kb_document WHERE corpus_id = $1 AND source_uri = $2",
                                      corpus_id, source_uri)
    if document_id is None:
        return None
    chunk_ids = [r["chunk_id"] for r in await conn.fetch(
        "DELETE FROM kb_document_chunk WHERE document_id = $1 RETURNING chunk_id", document_id)]
    await conn.execute("DELETE FROM kb_document WHERE id = $1", document_id)
    return chunk_ids


async def select_unheld_chunks(conn: asyncpg.Connection, chunk_ids: Sequence[int]) -> list[int]:
    """Those of the chunks no document holds any more."""
    return [r["id"] for r in await conn.fetch(
        """SELECT k.id FROM knowledge k WHERE k.id = ANY($1::bigint[])
             AND NOT EXISTS (SELECT 1 FROM kb_document_chunk l WHERE l.chunk_id = k.id) ORDER BY k.id""",
        list(chunk_ids))]


async def move_shared_chunks(conn: asyncpg.Connection, chunk_ids: Sequence[int]) -> None:
    """Chunks another document still holds are cited as that document's (the first by id) once theirs let go."""
    await conn.execute(
        """UPDATE knowledge k
           SET source_uri = d.source_uri,
               metadata = k.metadata || jsonb_build_object('source_uri', d.source_uri, 'title', d.title)
           FROM (SELECT DISTINCT ON (l.chunk_id) l.chunk_id, d.source_uri, d.title
                 FROM kb_document_chunk l JOIN kb_document d ON d.id = l.document_id
                 WHERE l.chunk_id = ANY($1::bigint[]) ORDER BY l.chunk_id, d.id) d
           WHERE k.id = d.chunk_id AND k.source_uri <> d.source_uri
             AND NOT EXISTS (SELECT 1 FROM kb_document_chunk l JOIN kb_document o ON o.id = l.document_id
                             WHERE l.chunk_id = k.id AND o.source_uri = k.source_uri)""",
        list(chunk_ids))


async def select_document_chunks(conn: asyncpg.Connection, document_id: int) -> list[asyncpg.Record]:
    return await conn.fetch(
        """SELECT k.id, k.chunk_index, k.content FROM kb_document_chunk l JOIN knowledge k ON k.id = l.chunk_id
           WHERE l.document_id = $1 ORDER BY k.chunk_index, k.id""", document_id)

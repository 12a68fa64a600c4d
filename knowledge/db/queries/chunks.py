"""Named queries on knowledge chunks: insert, lookup, and the four search modes."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence
from uuid import UUID

import asyncpg
import numpy as np
from pgvector import Vector


@dataclass(frozen=True)
class ChunkRow:
    corpus_id: UUID
    app_name: str
    content: str
    content_hash: str
    document_hash: str
    chunk_index: int
    source_uri: str
    metadata: dict
    embedding: np.ndarray
    search_text: str | None  # None: the content itself is what full-text search indexes


async def select_existing_hashes(conn: asyncpg.Connection, corpus_id: UUID, hashes: Sequence[str]) -> set[str]:
    rows = await conn.fetch(
        "SELECT content_hash FROM knowledge WHERE corpus_id = $1 AND content_hash = ANY($2::text[])",
        corpus_id, list(hashes),
    )
    return {r["content_hash"] for r in rows}


async def insert_chunks(conn: asyncpg.Connection, rows: Sequence[ChunkRow]) -> list[asyncpg.Record]:
    """Insert chunks, skipping content already in the corpus; returns (id, content_hash) of new rows."""
    if not rows:
        return []
    return await conn.fetch(
        """INSERT INTO knowledge (corpus_id, app_name, content, content_hash, document_hash, chunk_index,
                                  source_uri, metadata, embedding, search_text)
           SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[],
                                $7::text[], $8::jsonb[], $9::vector[], $10::text[])
           ON CONFLICT (corpus_id, content_hash) DO NOTHING
           RETURNING id, content_hash, content, corpus_id""",
        [r.corpus_id for r in rows], [r.app_name for r in rows], [r.content for r in rows],
        [r.content_hash for r in rows], [r.document_hash for r in rows], [r.chunk_index for r in rows],
        [r.source_uri for r in rows], [r.metadata for r in rows], [Vector(r.embedding) for r in rows],
        [r.search_text for r in rows],
    )


async def count_chunks(conn: asyncpg.Connection, corpus_ids: Sequence[UUID]) -> int:
    return await conn.fetchval("SELECT count(*) FROM knowledge WHERE corpus_id = ANY($1::uuid[])", list(corpus_ids))


async def select_chunks_by_ids(conn: asyncpg.Connection, chunk_ids: Sequence[int],
                               corpus_ids: Sequence[UUID]) -> list[asyncpg.Record]:
    return await conn.fetch(
        """SELECT id, corpus_id, content, source_uri, metadata, embedding FROM knowledge
           WHERE id = ANY($1::bigint[]) AND corpus_id = ANY($2::uuid[])""",
        list(chunk_ids), list(corpus_ids),
    )


async def hybrid_search(conn: asyncpg.Connection, embedding: np.ndarray, query_text: str,
                        corpus_ids: Sequence[UUID], limit: int, semantic_weight: float = 0.7) -> list[asyncpg.Record]:
    return await conn.fetch(
        "SELECT * FROM kb_hybrid_search($1, $2, $3::uuid[], $4, $5)",
        embedding, query_text, list(corpus_ids), limit, semantic_weight,
    )


async def rrf_search(conn: asyncpg.Connection, embedding: np.ndarray, query_text: str,
                     corpus_ids: Sequence[UUID], limit: int, rrf_k: int = 60) -> list[asyncpg.Record]:
    return await conn.fetch(
        "SELECT * FROM kb_rrf_search($1, $2, $3::uuid[], $4, $5)",
        embedding, query_text, list(corpus_ids), limit, rrf_k,
    )


async def dense_search(conn: asyncpg.Connection, embedding: np.ndarray, corpus_ids: Sequence[UUID],
                       limit: int) -> list[asyncpg.Record]:
    """The ``limit`` nearest chunks of all the corpora together, nearest first: each corpus's own nearest on its
    own index (ne_corpus_nearest, migration 024), merged. The distance comes from the index scan; the score is
    derived from it for the rows kept."""
    return await conn.fetch(
        """SELECT k.id, k.corpus_id, k.content, k.source_uri, k.metadata, (1 - h.dist)::float8 AS score
           FROM (SELECT h.id, h.dist FROM unnest($2::uuid[]) AS c(id), ne_corpus_nearest($1, c.id, $3) AS h
                 ORDER BY h.dist, h.id LIMIT $3) h
           JOIN knowledge k ON k.id = h.id
           ORDER BY h.dist, k.id""",
        embedding, list(corpus_ids), limit,
    )


async def dense_search_each(conn: asyncpg.Connection, embedding: np.ndarray, corpus_ids: Sequence[UUID],
                            limit: int) -> list[asyncpg.Record]:
    """The ``limit`` nearest chunks of every corpus, in one round trip. Rows: id, corpus_id, content, source_uri,
    metadata_json (the metadata as JSON text: the planner decodes only the results it shows), score (cosine
    similarity, as select_scored_chunks computes it), nearest first within each corpus. Each corpus is searched on
    its own index (ne_corpus_nearest, migration 024), which also gives the distance."""
    return await conn.fetch(
        """SELECT k.id, c.corpus_id, k.content, k.source_uri, k.metadata::text AS metadata_json,
                  (1 - h.dist)::float8 AS score
           FROM unnest($2::uuid[]) WITH ORDINALITY AS c(corpus_id, n)
           CROSS JOIN LATERAL ne_corpus_nearest($1, c.corpus_id, $3) AS h
           JOIN knowledge k ON k.id = h.id
           ORDER BY c.n, score DESC, k.id""",
        embedding, list(corpus_ids), limit,
    )


async def select_scored_chunks(conn: asyncpg.Connection, chunk_ids: Sequence[int], corpus_ids: Sequence[UUID],
                               embedding: np.ndarray) -> list[asyncpg.Record]:
    """The chunks with their cosine similarity to ``embedding`` computed in the database (no vector is sent back).
    Rows: id, corpus_id, content, source_uri, metadata_json (as dense_search_each), score."""
    return await conn.fetch(
        """SELECT id, corpus_id, content, source_uri, metadata::text AS metadata_json,
                  (1 - (embedding <=> $3))::float8 AS score
           FROM knowledge WHERE id = ANY($1::bigint[]) AND corpus_id = ANY($2::uuid[])""",
        list(chunk_ids), list(corpus_ids), embedding,
    )


async def select_chunks_with_embeddings(conn: asyncpg.Connection, chunk_ids: Sequence[int],
                                        corpus_ids: Sequence[UUID]) -> list[asyncpg.Record]:
    """The chunks with their embeddings, by id (what the planner's corpus snapshots keep to score them in memory).
    Rows: id, corpus_id, content, source_uri, metadata_json (as dense_search_each), embedding."""
    return await conn.fetch(
        """SELECT id, corpus_id, content, source_uri, metadata::text AS metadata_json, embedding
           FROM knowledge WHERE id = ANY($1::bigint[]) AND corpus_id = ANY($2::uuid[]) ORDER BY id""",
        list(chunk_ids), list(corpus_ids),
    )


async def rare_term_search(conn: asyncpg.Connection, query_text: str, corpus_ids: Sequence[UUID], max_df: int,
                           limit: int) -> list[asyncpg.Record]:
    """kb_rare_term_search (migration 026): the best keyword matches of the query among the chunks naming one of
    its rare terms (at most ``max_df`` chunks of ``corpus_ids`` contain it). Rows as dense_search_each, score =
    ts_rank_cd of the whole query, best first; none when the query has no rare term."""
    return await conn.fetch("SELECT * FROM kb_rare_term_search($1, $2::uuid[], $3, $4)",
                            query_text, list(corpus_ids), max_df, limit)


async def keyword_search(conn: asyncpg.Connection, query_text: str, corpus_ids: Sequence[UUID],
                         limit: int) -> list[asyncpg.Record]:
    return await conn.fetch(
        """SELECT id, corpus_id, content, source_uri, metadata,
                  ts_rank_cd(search_vector, ne_or_tsquery($1), 1)::float8 AS score
           FROM knowledge
           WHERE corpus_id = ANY($2::uuid[]) AND search_vector @@ ne_or_tsquery($1)
           ORDER BY score DESC, id LIMIT $3""",
        query_text, list(corpus_ids), limit,
    )


async def select_chunk_corpus(conn: asyncpg.Connection, chunk_id: int) -> UUID | None:
    """The corpus of a chunk whoever may read it (the owner's view, for an audit's reason); None: no such chunk."""
    return await conn.fetchval("SELECT corpus_id FROM knowledge WHERE id = $1", chunk_id)

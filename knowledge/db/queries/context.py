"""Named queries of the context layer: library statistics, entity lookups, and the deliberately unsafe
unfiltered search used as a test double of a misbehaving search engine."""
from __future__ import annotations

from typing import Sequence
from uuid import UUID

import asyncpg
import numpy as np


async def select_corpus_stats(conn: asyncpg.Connection, corpus_ids: Sequence[UUID]) -> list[asyncpg.Record]:
    """Chunk count, characters and last change of each corpus (for router cost and freshness)."""
    return await conn.fetch(
        """SELECT c.id, c.updated_at, count(k.id)::int AS chunk_count,
                  coalesce(sum(char_length(k.content)), 0)::bigint AS chars
           FROM corpus c LEFT JOIN knowledge k ON k.corpus_id = c.id
           WHERE c.id = ANY($1::uuid[])
           GROUP BY c.id, c.updated_at""",
        list(corpus_ids),
    )


async def select_entity_matches(conn: asyncpg.Connection, corpus_ids: Sequence[UUID],
                                normalized_names: Sequence[str], min_degree: int = 0) -> list[asyncpg.Record]:
    """Per corpus, the graph entities whose normalised name is one of ``normalized_names`` (and that take part in
    at least ``min_degree`` relations there)."""
    return await conn.fetch(
        """SELECT corpus_id, array_agg(DISTINCT canonical_name ORDER BY canonical_name) AS names
           FROM kg_entity
           WHERE corpus_id = ANY($1::uuid[]) AND name_normalized = ANY($2::text[]) AND degree >= $3
           GROUP BY corpus_id""",
        list(corpus_ids), list(normalized_names), min_degree,
    )


async def select_chunk_entities(conn: asyncpg.Connection, corpus_ids: Sequence[UUID],
                                chunk_ids: Sequence[int]) -> list[asyncpg.Record]:
    """The graph entities mentioned in ``chunk_ids`` (of ``corpus_ids`` only): normalised and display name, type."""
    return await conn.fetch(
        """SELECT DISTINCT e.name_normalized, e.canonical_name, e.entity_type
           FROM kg_entity_mention m JOIN kg_entity e ON e.id = m.entity_id
           WHERE m.corpus_id = ANY($1::uuid[]) AND m.chunk_id = ANY($2::bigint[])
           ORDER BY e.name_normalized""",
        list(corpus_ids), list(chunk_ids),
    )


async def unsafe_search_every_corpus(conn: asyncpg.Connection, embedding: np.ndarray,
                                     per_corpus: int) -> list[asyncpg.Record]:
    """UNSAFE on purpose: the top ``per_corpus`` chunks of *every* corpus of every app, no filter at all.

    Only the unsafe test connector calls this, to prove that the permission guard outside the connector
    drops every row the caller may not read.
    """
    return await conn.fetch(
        """SELECT id, corpus_id, content, source_uri, metadata, score FROM (
               SELECT k.id, k.corpus_id, k.content, k.source_uri, k.metadata,
                      (1 - (k.embedding <=> $1))::float8 AS score,
                      row_number() OVER (PARTITION BY k.corpus_id ORDER BY k.embedding <=> $1, k.id) AS rank
               FROM knowledge k) ranked
           WHERE rank <= $2
           ORDER BY score DESC, id""",
        embedding, per_corpus,
    )

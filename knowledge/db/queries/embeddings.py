"""Named queries of the embedding model migration (migration 025): the model each corpus is on, the staged vectors
of a migration and the switch that swaps them in."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Sequence
from uuid import UUID

import asyncpg
import numpy as np
from pgvector import Vector

from knowledge.embedding import EmbeddingError

_STAGED = ("knowledge_embedding_staged", "kg_entity_embedding_staged", "kg_community_embedding_staged")


@dataclass(frozen=True)
class CorpusSpace:
    """The model a corpus is on, and how many switches it has had (a search checks it did not change midway)."""

    model: str
    version: int


@dataclass(frozen=True)
class MigrationRow:
    corpus_id: UUID
    target_model: str
    previous_model: str
    started_at: datetime
    switched_at: datetime | None


@dataclass(frozen=True)
class StagingProgress:
    chunks: int
    chunks_staged: int
    entities: int
    entities_staged: int
    communities: int
    communities_staged: int

    @property
    def complete(self) -> bool:
        return (self.chunks_staged, self.entities_staged, self.communities_staged) == (
            self.chunks, self.entities, self.communities)


class CorpusModelChanged(EmbeddingError):
    """The corpus is on another embedding model than these vectors' (storing them would mix two spaces)."""


async def adopt_unassigned_corpora(conn: asyncpg.Connection, model: str, *, canonicals: bool) -> None:
    """Corpora created before migration 025 are on the model they were ingested with, the configured one, and so
    are the canonicals (``canonicals``: when 025 has just been applied; later ones get theirs from a refresh)."""
    await conn.execute("UPDATE corpus SET embedding_model = $1 WHERE embedding_model IS NULL", model)
    if canonicals:
        await conn.execute("UPDATE kg_entity_canonical SET embedding_model = $1 WHERE embedding_model IS NULL", model)


async def select_corpus_spaces(conn: asyncpg.Connection, corpus_ids: Sequence[UUID]) -> dict[UUID, CorpusSpace]:
    rows = await conn.fetch("SELECT id, embedding_model, embedding_version FROM corpus WHERE id = ANY($1::uuid[])",
                            list(corpus_ids))
    return {r["id"]: CorpusSpace(r["embedding_model"], r["embedding_version"]) for r in rows}


async def require_corpus_model(conn: asyncpg.Connection, corpus_id: UUID, model: str) -> None:
    """In a writing transaction: hold the corpus on ``model`` until commit (a switch waits), or raise
    CorpusModelChanged when it is on another one. The lock is the one the transaction's own touch of the corpus
    row takes (an UPDATE of no key column): two writers that took a shared one first would deadlock there."""
    current = await conn.fetchval("SELECT embedding_model FROM corpus WHERE id = $1 FOR NO KEY UPDATE", corpus_id)
    if current is not None and current != model:
        raise CorpusModelChanged(f"the corpus is on the embedding model {current!r} and this process embeds with "
                                 f"{model!r}: set NE_EMBEDDING_MODEL={current} to write to it; nothing was stored")


async def select_migrations(conn: asyncpg.Connection, corpus_ids: Sequence[UUID]) -> dict[UUID, MigrationRow]:
    rows = await conn.fetch(
        """SELECT corpus_id, target_model, previous_model, started_at, switched_at FROM embedding_migration
           WHERE corpus_id = ANY($1::uuid[])""", list(corpus_ids))
    return {r["corpus_id"]: MigrationRow(**dict(r)) for r in rows}


async def start_migration(conn: asyncpg.Connection, corpus_id: UUID, target_model: str, previous_model: str) -> None:
    await conn.execute(
        """INSERT INTO embedding_migration (corpus_id, target_model, previous_model) VALUES ($1, $2, $3)
           ON CONFLICT (corpus_id) DO UPDATE SET target_model = excluded.target_model,
               previous_model = excluded.previous_model, started_at = now(), switched_at = NULL""",
        corpus_id, target_model, previous_model)


async def drop_staged(conn: asyncpg.Connection, corpus_id: UUID) -> int:
    """Delete the corpus's staged vectors and its migration row; how many vectors went."""
    dropped = 0
    for table in _STAGED:
        status = await conn.execute(f"DELETE FROM {table} WHERE corpus_id = $1", corpus_id)
        dropped += int(status.split()[-1])
    await conn.execute("DELETE FROM embedding_migration WHERE corpus_id = $1", corpus_id)
    return dropped


async def select_staging_progress(conn: asyncpg.Connection, corpus_id: UUID) -> StagingProgress:
    row = await conn.fetchrow(
        """SELECT (SELECT count(*) FROM knowledge WHERE corpus_id = $1) AS chunks,
                  (SELECT count(*) FROM knowledge_embedding_staged WHERE corpus_id = $1) AS chunks_staged,
                  (SELECT count(*) FROM kg_entity WHERE corpus_id = $1 AND embedding IS NOT NULL) AS entities,
                  (SELECT count(*) FROM kg_entity_embedding_staged WHERE corpus_id = $1) AS entities_staged,
                  (SELECT count(*) FROM kg_community WHERE corpus_id = $1 AND embedding IS NOT NULL) AS communities,
                  (SELECT count(*) FROM kg_community_embedding_staged WHERE corpus_id = $1) AS communities_staged""",
        corpus_id)
    return StagingProgress(**dict(row))


async def select_unstaged_chunks(conn: asyncpg.Connection, corpus_id: UUID, limit: int) -> list[asyncpg.Record]:
    """Chunks without a staged vector, oldest first: id, content."""
    return await conn.fetch(
        """SELECT k.id, k.content FROM knowledge k
           WHERE k.corpus_id = $1
             AND NOT EXISTS (SELECT 1 FROM knowledge_embedding_staged s WHERE s.chunk_id = k.id)
           ORDER BY k.id LIMIT $2""", corpus_id, limit)


async def select_unstaged_entities(conn: asyncpg.Connection, corpus_id: UUID, limit: int | None,
                                   chunk_ids: Sequence[int] | None = None) -> list[asyncpg.Record]:
    """Entities with a vector but no staged one, and their first mention (the one the graph build pooled the vector
    from): id, name, chunk_id, content, start_offset, end_offset (the last four NULL without a mention).
    ``chunk_ids``: only those first mentioned in these chunks. ``limit`` None: all."""
    return await conn.fetch(
        """SELECT e.id, e.canonical_name AS name, m.chunk_id, k.content, m.start_offset, m.end_offset
           FROM kg_entity e
           LEFT JOIN LATERAL (SELECT chunk_id, start_offset, end_offset FROM kg_entity_mention
                              WHERE entity_id = e.id ORDER BY chunk_id, start_offset LIMIT 1) m ON true
           LEFT JOIN knowledge k ON k.id = m.chunk_id
           WHERE e.corpus_id = $1 AND e.embedding IS NOT NULL
             AND NOT EXISTS (SELECT 1 FROM kg_entity_embedding_staged s WHERE s.entity_id = e.id)
             AND ($3::bigint[] IS NULL OR m.chunk_id = ANY($3::bigint[]))
           ORDER BY m.chunk_id NULLS LAST, e.id LIMIT $2""",
        corpus_id, limit, None if chunk_ids is None else list(chunk_ids))


async def select_unstaged_communities(conn: asyncpg.Connection, corpus_id: UUID) -> list[asyncpg.Record]:
    """Communities with a vector but no staged one: id, title, summary, members (entity ids)."""
    return await conn.fetch(
        """SELECT c.id, c.title, c.summary, array_agg(m.entity_id ORDER BY m.entity_id) AS members
           FROM kg_community c JOIN kg_community_member m ON m.community_id = c.id
           WHERE c.corpus_id = $1 AND c.embedding IS NOT NULL
             AND NOT EXISTS (SELECT 1 FROM kg_community_embedding_staged s WHERE s.community_id = c.id)
           GROUP BY c.id ORDER BY c.id""", corpus_id)


async def select_relation_pairs(conn: asyncpg.Connection, corpus_id: UUID) -> list[tuple[int, int]]:
    rows = await conn.fetch("SELECT source_entity_id, target_entity_id FROM kg_relation WHERE corpus_id = $1",
                            corpus_id)
    return [(r[0], r[1]) for r in rows]


async def select_staged_entity_vectors(conn: asyncpg.Connection, entity_ids: Sequence[int]) -> dict[int, np.ndarray]:
    rows = await conn.fetch("SELECT entity_id, embedding FROM kg_entity_embedding_staged "
                            "WHERE entity_id = ANY($1::bigint[])", list(entity_ids))
    return {r["entity_id"]: r["embedding"].to_numpy() for r in rows}


async def insert_staged(conn: asyncpg.Connection, table: str, corpus_id: UUID, ids: Sequence[int],
                        vectors: Sequence[np.ndarray]) -> None:
    """Staged vectors of rows of ``table`` (one of the three staged tables); rows gone since are skipped."""
    key, source = {"knowledge_embedding_staged": ("chunk_id", "knowledge"),
                   "kg_entity_embedding_staged": ("entity_id", "kg_entity"),
                   "kg_community_embedding_staged": ("community_id", "kg_community")}[table]
    await conn.execute(
        f"""INSERT INTO {table} ({key}, corpus_id, embedding)
            SELECT v.id, $1, v.embedding FROM unnest($2::bigint[], $3::vector[]) AS v(id, embedding)
            WHERE EXISTS (SELECT 1 FROM {source} s WHERE s.id = v.id)
            ON CONFLICT ({key}) DO NOTHING""",
        corpus_id, list(ids), [Vector(v) for v in vectors])


async def lock_corpus_for_switch(conn: asyncpg.Connection, corpus_id: UUID) -> str:
    """Hold the corpus row until commit: writers of its chunks, entities and communities (their foreign keys
    lock it for key share) and ingests checking its model wait; returns the model it is on."""
    return await conn.fetchval("SELECT embedding_model FROM corpus WHERE id = $1 FOR UPDATE", corpus_id)


async def swap_staged_vectors(conn: asyncpg.Connection, corpus_id: UUID) -> None:
    """Live and staged vectors change places for every chunk, entity and community of the corpus (the statement's
    snapshot reads each live vector before the update overwrites it)."""
    for table, key, live in (("knowledge_embedding_staged", "chunk_id", "knowledge"),
                             ("kg_entity_embedding_staged", "entity_id", "kg_entity"),
                             ("kg_community_embedding_staged", "community_id", "kg_community")):
        await conn.execute(
            f"""WITH old AS (SELECT l.id, l.embedding FROM {live} l
                             JOIN {table} s ON s.{key} = l.id WHERE l.corpus_id = $1),
                     swapped AS (UPDATE {live} l SET embedding = s.embedding FROM {table} s
                                 WHERE s.{key} = l.id AND l.corpus_id = $1 RETURNING l.id)
                UPDATE {table} s SET embedding = old.embedding FROM old WHERE s.{key} = old.id""",
            corpus_id)


async def move_corpus_to_model(conn: asyncpg.Connection, corpus_id: UUID, model: str) -> None:
    await conn.execute("""UPDATE corpus SET embedding_model = $2, embedding_version = embedding_version + 1
                          WHERE id = $1""", corpus_id, model)
    await conn.execute("UPDATE embedding_migration SET switched_at = now() WHERE corpus_id = $1", corpus_id)


async def select_app_corpus_ids(conn: asyncpg.Connection, app_name: str) -> list[UUID]:
    return [r["id"] for r in await conn.fetch("SELECT id FROM corpus WHERE app_name = $1", app_name)]


async def select_canonicals_of_corpus(conn: asyncpg.Connection, corpus_id: UUID) -> list[int]:
    rows = await conn.fetch("SELECT DISTINCT canonical_id FROM kg_entity_alias WHERE corpus_id = $1", corpus_id)
    return [r["canonical_id"] for r in rows]

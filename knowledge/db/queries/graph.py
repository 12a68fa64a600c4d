"""Named queries on the per-corpus knowledge graph (kg_* tables). Every write is one unnest-based statement.

Read functions used by retrieval take explicit corpus ids as well, so they stay correct outside an RLS-scoped
transaction; inside ``Database.scoped`` row-level security filters them a second time.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Sequence
from uuid import UUID

import asyncpg
import numpy as np
from pgvector import Vector

_GRAPH_LOCK_NAMESPACE = 0x4B47  # "KG": first key of the per-corpus advisory lock


def _json_list(values: Sequence[object]) -> str:
    # Ragged lists cannot be bound as a 2-d array: each row's list travels as one JSON text.
    return json.dumps(list(values), ensure_ascii=False)


# -------------------- row types

@dataclass(frozen=True)
class NewEntityRow:
    canonical_name: str
    name_normalized: str
    entity_type: str
    description: str
    aliases: list[str]
    embedding: np.ndarray
    block_keys: list[str]
    mention_count: int
    degree: int


@dataclass(frozen=True)
class MentionRow:
    entity_id: int
    chunk_id: int
    start_offset: int
    end_offset: int
    surface: str
    entity_type: str  # the mention's own type (its group's), which may differ from the entity's after a merge


@dataclass(frozen=True)
class RelationRow:
    source_entity_id: int
    target_entity_id: int
    relation_type: str
    weight: float
    evidence_chunk_id: int
    evidence: str


@dataclass(frozen=True)
class CandidateRow:
    left_entity_id: int
    right_entity_id: int
    weight: float
    components: dict


@dataclass(frozen=True)
class ExtractedChunkRow:
    chunk_id: int
    entity_count: int
    relation_count: int


@dataclass(frozen=True)
class CommunityRow:
    level: int
    community_key: int
    title: str
    summary: str
    member_count: int
    embedding: np.ndarray
    signature: str
    component_signature: str
    representative_chunk_ids: list[int]
    search_text: str


# -------------------- build: locking and bookkeeping

async def lock_corpus_graph(conn: asyncpg.Connection, corpus_id: UUID) -> None:
    """Serialise graph writes of one corpus until the end of the current transaction."""
    await conn.execute("SELECT pg_advisory_xact_lock($1, hashtext($2::text))", _GRAPH_LOCK_NAMESPACE, str(corpus_id))


async def select_unextracted_chunk_ids(conn: asyncpg.Connection, corpus_id: UUID,
                                       among: Sequence[int] | None = None) -> list[int]:
    """Chunk ids of the corpus not yet in the graph (optionally only among ``among``), ascending."""
    return [r["id"] for r in await conn.fetch(
        """SELECT k.id FROM knowledge k
           WHERE k.corpus_id = $1 AND ($2::bigint[] IS NULL OR k.id = ANY($2::bigint[]))
             AND NOT EXISTS (SELECT 1 FROM kg_extracted_chunk e WHERE e.chunk_id = k.id)
           ORDER BY k.id""",
        corpus_id, None if among is None else list(among),
    )]


async def select_chunk_texts(conn: asyncpg.Connection, corpus_id: UUID,
                            chunk_ids: Sequence[int]) -> list[asyncpg.Record]:
    return await conn.fetch(
        "SELECT id, content FROM knowledge WHERE corpus_id = $1 AND id = ANY($2::bigint[]) ORDER BY id",
        corpus_id, list(chunk_ids),
    )


async def insert_extracted_chunks(conn: asyncpg.Connection, corpus_id: UUID, rows: Sequence[ExtractedChunkRow]) -> None:
    await conn.execute(
        """INSERT INTO kg_extracted_chunk (chunk_id, corpus_id, entity_count, relation_count)
           SELECT u.chunk_id, $1, u.entity_count, u.relation_count
           FROM unnest($2::bigint[], $3::int[], $4::int[]) AS u(chunk_id, entity_count, relation_count)
           ON CONFLICT (chunk_id) DO NOTHING""",
        corpus_id, [r.chunk_id for r in rows], [r.entity_count for r in rows], [r.relation_count for r in rows],
    )


async def delete_corpus_graph(conn: asyncpg.Connection, corpus_id: UUID) -> None:
    """Remove every graph row of the corpus (entities cascade to mentions, relations, members, candidates)."""
    await conn.execute("DELETE FROM kg_community WHERE corpus_id = $1", corpus_id)
    await conn.execute("DELETE FROM kg_entity WHERE corpus_id = $1", corpus_id)
    await conn.execute("DELETE FROM kg_extracted_chunk WHERE corpus_id = $1", corpus_id)


# -------------------- build: entities

# Up to this many keys the candidates come through the GIN index. For more, PostgreSQL's ``&&`` compares every key
# of a row with every wanted key (2.4 s for 22k keys over 10k MuSiQue entities, with or without the index), while
# reading the corpus's keys and testing them against a hashed set takes ~40 ms; no plan choice is involved.
GIN_KEY_LOOKUP = 256


async def select_resolution_candidates(conn: asyncpg.Connection, corpus_id: UUID,
                                       block_keys: Sequence[str]) -> list[asyncpg.Record]:
    """Existing entities of the corpus sharing at least one pre-filter key (no embeddings: rows stay small)."""
    if len(block_keys) <= GIN_KEY_LOOKUP:
        return await conn.fetch(
            """SELECT id, canonical_name, name_normalized, entity_type, block_keys FROM kg_entity
               WHERE corpus_id = $1 AND block_keys && $2::text[] ORDER BY id""",
            corpus_id, list(block_keys),
        )
    wanted = set(block_keys)
    rows = await conn.fetch(
        """SELECT id, canonical_name, name_normalized, entity_type, block_keys FROM kg_entity
           WHERE corpus_id = $1 ORDER BY id""",
        corpus_id,
    )
    return [r for r in rows if not wanted.isdisjoint(r[4])]


async def select_entity_embeddings(conn: asyncpg.Connection, entity_ids: Sequence[int]) -> dict[int, np.ndarray]:
    rows = await conn.fetch(
        "SELECT id, embedding FROM kg_entity WHERE id = ANY($1::bigint[]) AND embedding IS NOT NULL",
        list(entity_ids),
    )
    return {r["id"]: r["embedding"].to_numpy() for r in rows}


async def select_neighbour_keys(conn: asyncpg.Connection, entity_ids: Sequence[int]) -> dict[int, list[str]]:
    """normalised names of the entities related to each given entity (either direction)."""
    rows = await conn.fetch(
        """SELECT r.entity_id, array_agg(DISTINCT e.name_normalized) AS keys
           FROM (SELECT source_entity_id AS entity_id, target_entity_id AS other FROM kg_relation
                 WHERE source_entity_id = ANY($1::bigint[])
                 UNION ALL
                 SELECT target_entity_id, source_entity_id FROM kg_relation
                 WHERE target_entity_id = ANY($1::bigint[])) r
           JOIN kg_entity e ON e.id = r.other
           GROUP BY r.entity_id""",
        list(entity_ids),
    )
    return {r["entity_id"]: list(r["keys"]) for r in rows}


async def select_taken_names(conn: asyncpg.Connection, corpus_id: UUID, name_keys: Sequence[str]) -> set[str]:
    rows = await conn.fetch(
        "SELECT canonical_name FROM kg_entity WHERE corpus_id = $1 AND name_normalized = ANY($2::text[])",
        corpus_id, list(name_keys),
    )
    return {r["canonical_name"] for r in rows}


async def insert_entities(conn: asyncpg.Connection, corpus_id: UUID, app_name: str,
                          rows: Sequence[NewEntityRow]) -> dict[str, int]:
    """Insert new entities; returns canonical_name -> id."""
    if not rows:
        return {}
    records = await conn.fetch(
        """INSERT INTO kg_entity (corpus_id, app_name, canonical_name, name_normalized, entity_type, description,
                                  aliases, embedding, block_keys, mention_count, degree)
           SELECT $1, $2, u.canonical_name, u.name_normalized, u.entity_type, u.description,
                  ARRAY(SELECT jsonb_array_elements_text(u.aliases::jsonb)),
                  u.embedding, ARRAY(SELECT jsonb_array_elements_text(u.block_keys::jsonb)), u.mention_count,
                  u.degree
           FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::vector[], $9::text[],
                       $10::int[], $11::int[])
                AS u(canonical_name, name_normalized, entity_type, description, aliases, embedding, block_keys,
                     mention_count, degree)
           RETURNING id, canonical_name""",
        corpus_id, app_name, [r.canonical_name for r in rows], [r.name_normalized for r in rows],
        [r.entity_type for r in rows], [r.description for r in rows], [_json_list(r.aliases) for r in rows],
        [Vector(r.embedding) for r in rows], [_json_list(r.block_keys) for r in rows],
        [r.mention_count for r in rows], [r.degree for r in rows],
    )
    return {r["canonical_name"]: r["id"] for r in records}


async def add_entity_aliases(conn: asyncpg.Connection, aliases: dict[int, list[str]]) -> None:
    """Union new surface forms into existing entities' aliases."""
    if not aliases:
        return
    ids = list(aliases)
    await conn.execute(
        """UPDATE kg_entity e
           SET aliases = ARRAY(SELECT DISTINCT a FROM unnest(e.aliases || ARRAY(
                               SELECT jsonb_array_elements_text(u.aliases::jsonb))) AS a ORDER BY a),
               updated_at = now()
           FROM unnest($1::bigint[], $2::text[]) AS u(id, aliases)
           WHERE e.id = u.id""",
        ids, [_json_list(aliases[i]) for i in ids],
    )


async def refresh_entity_stats(conn: asyncpg.Connection, entity_ids: Sequence[int]) -> None:
    """Recompute mention_count and degree (distinct related entities) of the given entities."""
    await conn.execute(
        """WITH ids AS (SELECT DISTINCT unnest($1::bigint[]) AS id),
           mentions AS (SELECT entity_id, count(*) AS n FROM kg_entity_mention
                        WHERE entity_id = ANY($1::bigint[]) GROUP BY entity_id),
           ends AS (SELECT source_entity_id AS entity_id, target_entity_id AS other FROM kg_relation
                    WHERE source_entity_id = ANY($1::bigint[])
                    UNION ALL
                    SELECT target_entity_id, source_entity_id FROM kg_relation
                    WHERE target_entity_id = ANY($1::bigint[])),
           degrees AS (SELECT entity_id, count(DISTINCT other) AS n FROM ends GROUP BY entity_id)
           UPDATE kg_entity e
           SET mention_count = coalesce(m.n, 0), degree = coalesce(d.n, 0), updated_at = now()
           FROM ids LEFT JOIN mentions m ON m.entity_id = ids.id LEFT JOIN degrees d ON d.entity_id = ids.id
           WHERE e.id = ids.id""",
        list(entity_ids),
    )


# -------------------- build: mentions, relations, candidates

async def insert_mentions(conn: asyncpg.Connection, corpus_id: UUID, rows: Sequence[MentionRow]) -> int:
    if not rows:
        return 0
    result = await conn.execute(
        """INSERT INTO kg_entity_mention (corpus_id, entity_id, chunk_id, start_offset, end_offset, surface,
                                          entity_type)
           SELECT $1, u.entity_id, u.chunk_id, u.start_offset, u.end_offset, u.surface, u.entity_type
           FROM unnest($2::bigint[], $3::bigint[], $4::int[], $5::int[], $6::text[], $7::text[])
                AS u(entity_id, chunk_id, start_offset, end_offset, surface, entity_type)
           ON CONFLICT (entity_id, chunk_id, start_offset) DO NOTHING""",
        corpus_id, [r.entity_id for r in rows], [r.chunk_id for r in rows], [r.start_offset for r in rows],
        [r.end_offset for r in rows], [r.surface for r in rows], [r.entity_type for r in rows],
    )
    return int(result.split()[-1])


async def upsert_relations(conn: asyncpg.Connection, corpus_id: UUID, rows: Sequence[RelationRow]) -> int:
    """Insert relations; an existing (source, target, type) gains the new weight and keeps its first evidence.

    ``rows`` must not repeat a (source, target, type) key.
    """
    if not rows:
        return 0
    result = await conn.execute(
        """INSERT INTO kg_relation (corpus_id, source_entity_id, target_entity_id, relation_type, weight,
                                    evidence_chunk_id, evidence)
           SELECT $1, u.source_id, u.target_id, u.relation_type, u.weight, u.chunk_id, u.evidence
           FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::float8[], $6::bigint[], $7::text[])
                AS u(source_id, target_id, relation_type, weight, chunk_id, evidence)
           ON CONFLICT (source_entity_id, target_entity_id, relation_type)
           DO UPDATE SET weight = kg_relation.weight + excluded.weight""",
        corpus_id, [r.source_entity_id for r in rows], [r.target_entity_id for r in rows],
        [r.relation_type for r in rows], [r.weight for r in rows], [r.evidence_chunk_id for r in rows],
        [r.evidence for r in rows],
    )
    return int(result.split()[-1])


async def insert_relation_chunks(conn: asyncpg.Connection, corpus_id: UUID, rows: Sequence[RelationRow]) -> None:
    """Record what each chunk gave a relation (its weight and evidence there), after ``upsert_relations``."""
    if not rows:
        return
    await conn.execute(
        """INSERT INTO kg_relation_chunk (relation_id, chunk_id, corpus_id, weight, evidence)
           SELECT r.id, u.chunk_id, $1, u.weight, u.evidence
           FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::float8[], $6::bigint[], $7::text[])
                AS u(source_id, target_id, relation_type, weight, chunk_id, evidence)
           JOIN kg_relation r ON r.source_entity_id = u.source_id AND r.target_entity_id = u.target_id
                             AND r.relation_type = u.relation_type
           ON CONFLICT (relation_id, chunk_id) DO UPDATE SET weight = kg_relation_chunk.weight + excluded.weight""",
        corpus_id, [r.source_entity_id for r in rows], [r.target_entity_id for r in rows],
        [r.relation_type for r in rows], [r.weight for r in rows], [r.evidence_chunk_id for r in rows],
        [r.evidence for r in rows],
    )


async def insert_resolution_candidates(conn: asyncpg.Connection, corpus_id: UUID,
                                       rows: Sequence[CandidateRow]) -> int:
    """Queue POSSIBLE pairs for review; a pair already queued (or already decided) is left as it is."""
    if not rows:
        return 0
    result = await conn.execute(
        """INSERT INTO kg_resolution_candidate (corpus_id, left_entity_id, right_entity_id, weight, components)
           SELECT $1, u.left_id, u.right_id, u.weight, u.components
           FROM unnest($2::bigint[], $3::bigint[], $4::float8[], $5::jsonb[])
                AS u(left_id, right_id, weight, components)
           ON CONFLICT (left_entity_id, right_entity_id) DO NOTHING""",
        corpus_id, [r.left_entity_id for r in rows], [r.right_entity_id for r in rows], [r.weight for r in rows],
        [r.components for r in rows],
    )
    return int(result.split()[-1])


# -------------------- communities

async def select_graph_entity_ids(conn: asyncpg.Connection, corpus_id: UUID) -> list[int]:
    return [r["id"] for r in await conn.fetch("SELECT id FROM kg_entity WHERE corpus_id = $1 ORDER BY id", corpus_id)]


async def select_graph_edges(conn: asyncpg.Connection, corpus_id: UUID) -> list[asyncpg.Record]:
    """Every relation of the corpus without its evidence text (the community detection input)."""
    return await conn.fetch(
        """SELECT id, source_entity_id, target_entity_id, relation_type, weight, evidence_chunk_id
           FROM kg_relation WHERE corpus_id = $1 ORDER BY id""",
        corpus_id,
    )


async def select_relation_evidence(conn: asyncpg.Connection, relation_ids: Sequence[int]) -> dict[int, str]:
    rows = await conn.fetch("SELECT id, evidence FROM kg_relation WHERE id = ANY($1::bigint[])", list(relation_ids))
    return {r["id"]: r["evidence"] for r in rows}


async def select_member_details(conn: asyncpg.Connection, entity_ids: Sequence[int]) -> list[asyncpg.Record]:
    """Name, type, context and first mention chunk (representative evidence) of the given entities."""
    return await conn.fetch(
        """SELECT e.id, e.canonical_name, e.entity_type, e.description,
                  (SELECT min(m.chunk_id) FROM kg_entity_mention m WHERE m.entity_id = e.id) AS first_chunk_id
           FROM kg_entity e WHERE e.id = ANY($1::bigint[]) ORDER BY e.id""",
        list(entity_ids),
    )


async def select_community_signatures(conn: asyncpg.Connection, corpus_id: UUID) -> list[asyncpg.Record]:
    return await conn.fetch(
        "SELECT id, level, community_key, signature, component_signature FROM kg_community WHERE corpus_id = $1",
        corpus_id)


async def set_component_signatures(conn: asyncpg.Connection, community_ids: Sequence[int],
                                   component_signatures: Sequence[str]) -> None:
    """Re-tag kept communities whose connected component changed around them."""
    await conn.execute(
        """UPDATE kg_community c SET component_signature = u.signature
           FROM unnest($1::bigint[], $2::text[]) AS u(id, signature) WHERE c.id = u.id""",
        list(community_ids), list(component_signatures),
    )


async def delete_communities(conn: asyncpg.Connection, community_ids: Sequence[int]) -> None:
    await conn.execute("DELETE FROM kg_community WHERE id = ANY($1::bigint[])", list(community_ids))


async def insert_communities(conn: asyncpg.Connection, corpus_id: UUID, rows: Sequence[CommunityRow],
                             members: Sequence[Sequence[int]]) -> list[int]:
    """Insert communities with their members (``members[i]`` belongs to ``rows[i]``); returns their ids."""
    if not rows:
        return []
    records = await conn.fetch(
        """INSERT INTO kg_community (corpus_id, level, community_key, title, summary, member_count, embedding,
                                     signature, component_signature, representative_chunk_ids, search_text)
           SELECT $1, u.level, u.community_key, u.title, u.summary, u.member_count, u.embedding, u.signature,
                  u.component_signature, ARRAY(SELECT jsonb_array_elements_text(u.chunk_ids::jsonb)::bigint),
                  u.search_text
           FROM unnest($2::int[], $3::int[], $4::text[], $5::text[], $6::int[], $7::vector[], $8::text[],
                       $9::text[], $10::text[], $11::text[])
                AS u(level, community_key, title, summary, member_count, embedding, signature, component_signature,
                     chunk_ids, search_text)
           RETURNING id, level, community_key""",
        corpus_id, [r.level for r in rows], [r.community_key for r in rows], [r.title for r in rows],
        [r.summary for r in rows], [r.member_count for r in rows], [Vector(r.embedding) for r in rows],
        [r.signature for r in rows], [r.component_signature for r in rows],
        [_json_list(r.representative_chunk_ids) for r in rows], [r.search_text for r in rows],
    )
    by_key = {(r["level"], r["community_key"]): r["id"] for r in records}
    ids = [by_key[(r.level, r.community_key)] for r in rows]
    community_ids = [cid for cid, entities in zip(ids, members) for _ in entities]
    entity_ids = [e for entities in members for e in entities]
    await conn.execute(
        """INSERT INTO kg_community_member (community_id, entity_id, corpus_id)
           SELECT u.community_id, u.entity_id, $1
           FROM unnest($2::bigint[], $3::bigint[]) AS u(community_id, entity_id)""",
        corpus_id, community_ids, entity_ids,
    )
    return ids


async def set_community_parents(conn: asyncpg.Connection, child_ids: Sequence[int],
                                parent_ids: Sequence[int | None]) -> None:
    await conn.execute(
        """UPDATE kg_community c SET parent_id = u.parent_id
           FROM unnest($1::bigint[], $2::bigint[]) AS u(id, parent_id)
           WHERE c.id = u.id AND c.parent_id IS DISTINCT FROM u.parent_id""",
        list(child_ids), list(parent_ids),
    )


# -------------------- global search

async def search_communities(conn: asyncpg.Connection, embedding: np.ndarray, model: str, query_text: str,
                             corpus_ids: Sequence[UUID], candidate_limit: int) -> list[asyncpg.Record]:
    """Candidate communities: the nearest by embedding plus the best keyword matches (union), of the corpora on
    ``model``, the model ``embedding`` is of (one snapshot reads each corpus's model and its vectors)."""
    return await conn.fetch(
        """WITH q AS (SELECT ne_or_tsquery($2) AS tsq),
           in_space AS (SELECT array_agg(id) AS ids FROM corpus WHERE id = ANY($3::uuid[]) AND embedding_model = $5),
           semantic AS (
               SELECT c.id FROM kg_community c, in_space
               WHERE c.corpus_id = ANY(in_space.ids) AND c.embedding IS NOT NULL
               ORDER BY c.embedding <=> $1 LIMIT $4),
           keyword AS (
               SELECT c.id, ts_rank_cd(c.search_vector, q.tsq, 1) AS rank FROM kg_community c, q, in_space
               WHERE q.tsq IS NOT NULL AND c.corpus_id = ANY(in_space.ids) AND c.search_vector @@ q.tsq
               ORDER BY rank DESC LIMIT $4),
           candidates AS (SELECT id FROM semantic UNION SELECT id FROM keyword)
           SELECT c.id, c.corpus_id, c.level, c.parent_id, c.title, c.summary, c.member_count,
                  c.representative_chunk_ids, (1 - (c.embedding <=> $1))::float8 AS semantic_score,
                  coalesce(kw.rank, 0)::float8 AS keyword_rank
           FROM candidates JOIN kg_community c ON c.id = candidates.id
           LEFT JOIN keyword kw ON kw.id = c.id
           ORDER BY c.id""",
        embedding, query_text, list(corpus_ids), candidate_limit, model,
    )


async def select_community_members(conn: asyncpg.Connection, community_ids: Sequence[int],
                                   per_community: int) -> list[asyncpg.Record]:
    """The best-connected members of each community: (community_id, entity_id, canonical_name, entity_type, degree)."""
    return await conn.fetch(
        """SELECT m.community_id, e.id AS entity_id, e.canonical_name, e.entity_type, e.degree
           FROM unnest($1::bigint[]) AS c(id)
           CROSS JOIN LATERAL (
               SELECT cm.community_id, cm.entity_id FROM kg_community_member cm
               JOIN kg_entity e2 ON e2.id = cm.entity_id
               WHERE cm.community_id = c.id
               ORDER BY e2.degree DESC, e2.mention_count DESC, e2.id LIMIT $2) m
           JOIN kg_entity e ON e.id = m.entity_id
           ORDER BY m.community_id, e.degree DESC, e.mention_count DESC, e.id""",
        list(community_ids), per_community,
    )


# -------------------- inspection (CLI)

async def select_entities_named(conn: asyncpg.Connection, name_key: str, name: str,
                                corpus_ids: Sequence[UUID]) -> list[asyncpg.Record]:
    """Entities whose normalised name, canonical name or an alias matches, in the given corpora."""
    return await conn.fetch(
        """SELECT e.id, e.corpus_id, e.canonical_name, e.entity_type, e.description, e.aliases, e.degree,
                  e.mention_count
           FROM kg_entity e
           WHERE e.corpus_id = ANY($3::uuid[])
             AND (e.name_normalized = $1 OR lower(e.canonical_name) = lower($2) OR $2 = ANY(e.aliases))
           ORDER BY e.mention_count DESC, e.id""",
        name_key, name, list(corpus_ids),
    )


async def select_entity_relations(conn: asyncpg.Connection, entity_id: int, limit: int) -> list[asyncpg.Record]:
    """Relations of one entity with the other end's name; direction 'out' when the entity is the source."""
    return await conn.fetch(
        """SELECT r.relation_type, r.weight, r.evidence,
                  CASE WHEN r.source_entity_id = $1 THEN 'out' ELSE 'in' END AS direction,
                  o.canonical_name AS other_name, o.entity_type AS other_type
           FROM kg_relation r
           JOIN kg_entity o ON o.id = CASE WHEN r.source_entity_id = $1 THEN r.target_entity_id
                                           ELSE r.source_entity_id END
           WHERE r.source_entity_id = $1 OR r.target_entity_id = $1
           ORDER BY (r.relation_type = 'CO_OCCURS'), r.weight DESC, o.canonical_name LIMIT $2""",
        entity_id, limit,
    )


async def select_entity_communities(conn: asyncpg.Connection, entity_id: int) -> list[asyncpg.Record]:
    return await conn.fetch(
        """SELECT c.id, c.level, c.title, c.member_count FROM kg_community_member m
           JOIN kg_community c ON c.id = m.community_id
           WHERE m.entity_id = $1 ORDER BY c.level""",
        entity_id,
    )


async def select_communities(conn: asyncpg.Connection, corpus_id: UUID) -> list[asyncpg.Record]:
    return await conn.fetch(
        """SELECT id, level, community_key, parent_id, title, summary, member_count, representative_chunk_ids
           FROM kg_community WHERE corpus_id = $1 ORDER BY level, member_count DESC, community_key""",
        corpus_id,
    )


async def count_graph(conn: asyncpg.Connection, corpus_id: UUID) -> asyncpg.Record:
    return await conn.fetchrow(
        """SELECT (SELECT count(*) FROM kg_entity WHERE corpus_id = $1) AS entities,
                  (SELECT count(*) FROM kg_relation WHERE corpus_id = $1) AS relations,
                  (SELECT count(*) FROM kg_entity_mention WHERE corpus_id = $1) AS mentions,
                  (SELECT count(*) FROM kg_community WHERE corpus_id = $1) AS communities,
                  (SELECT count(*) FROM kg_resolution_candidate WHERE corpus_id = $1 AND status = 'pending')
                      AS pending_candidates""",
        corpus_id,
    )

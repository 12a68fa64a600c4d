"""Named queries that take chunks out of a corpus with their share of its graph (docs/design.md section 2,
"Documents change"): mentions and extraction records go with the chunk rows (cascade), each relation loses what
those chunks gave it (kg_relation_chunk) and goes when nothing is left, entities nothing mentions any more go, and
the survivors get their counts, degrees and surface forms recomputed. Callers hold the corpus graph lock."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence
from uuid import UUID

import asyncpg

from knowledge.db.queries.graph import refresh_entity_stats


@dataclass(frozen=True)
class RemovedChunks:
    chunks: int
    entities_removed: int
    relations_removed: int
    entities_changed: list[int]  # surviving entities that lost mentions (their name may need to follow)
    names_freed: list[str] = field(default_factory=list)  # normalised names of the entities removed


@dataclass(frozen=True)
class EntitySurfaces:
    id: int
    canonical_name: str
    name_normalized: str
    entity_type: str
    surfaces: list[tuple[str, str | None, int]]  # (surface form, the mention's type, remaining mentions)


async def remove_chunks(conn: asyncpg.Connection, corpus_id: UUID, chunk_ids: Sequence[int]) -> RemovedChunks:
    ids = list(chunk_ids)
    if not ids:
        return RemovedChunks(0, 0, 0, [])
    touched = [r["entity_id"] for r in await conn.fetch(
        "SELECT DISTINCT entity_id FROM kg_entity_mention WHERE corpus_id = $1 AND chunk_id = ANY($2::bigint[])",
        corpus_id, ids)]
    relations = await conn.fetch(
        """SELECT DISTINCT r.id, r.source_entity_id, r.target_entity_id
           FROM kg_relation_chunk c JOIN kg_relation r ON r.id = c.relation_id
           WHERE c.corpus_id = $1 AND c.chunk_id = ANY($2::bigint[])""",
        corpus_id, ids)
    relation_ids = [r["id"] for r in relations]
    removed = await conn.execute("DELETE FROM knowledge WHERE corpus_id = $1 AND id = ANY($2::bigint[])",
                                 corpus_id, ids)
    relations_removed = await conn.execute(
        """DELETE FROM kg_relation r WHERE r.id = ANY($1::bigint[])
             AND NOT EXISTS (SELECT 1 FROM kg_relation_chunk c WHERE c.relation_id = r.id)""", relation_ids)
    # the evidence moves to the first chunk still supporting the relation when its own chunk went
    await conn.execute(
        """UPDATE kg_relation r
           SET weight = s.weight,
               evidence_chunk_id = coalesce(r.evidence_chunk_id, s.first_chunk),
               evidence = CASE WHEN r.evidence_chunk_id IS NULL THEN s.first_evidence ELSE r.evidence END
           FROM (SELECT relation_id, sum(weight) AS weight, min(chunk_id) AS first_chunk,
                        (array_agg(evidence ORDER BY chunk_id))[1] AS first_evidence
                 FROM kg_relation_chunk WHERE relation_id = ANY($1::bigint[]) GROUP BY relation_id) s
           WHERE r.id = s.relation_id""", relation_ids)
    deleted = await conn.fetch(
        """DELETE FROM kg_entity e WHERE e.id = ANY($1::bigint[])
             AND NOT EXISTS (SELECT 1 FROM kg_entity_mention m WHERE m.entity_id = e.id)
           RETURNING e.id, e.name_normalized""", touched)
    gone = {r["id"] for r in deleted}
    changed = sorted(set(touched) - gone)
    ends = {r[end] for r in relations for end in ("source_entity_id", "target_entity_id")}
    await refresh_entity_stats(conn, sorted((set(changed) | ends) - gone))
    await conn.execute(
        """UPDATE kg_entity e
           SET aliases = ARRAY(SELECT DISTINCT m.surface FROM kg_entity_mention m WHERE m.entity_id = e.id
                               ORDER BY m.surface)
           WHERE e.id = ANY($1::bigint[])""", changed)
    return RemovedChunks(int(removed.split()[-1]), len(gone), int(relations_removed.split()[-1]), changed,
                         sorted({r["name_normalized"] for r in deleted}))


async def select_entity_surfaces(conn: asyncpg.Connection, entity_ids: Sequence[int]) -> list[EntitySurfaces]:
    rows = await conn.fetch(
        """SELECT e.id, e.canonical_name, e.name_normalized, e.entity_type,
                  array_agg(m.surface ORDER BY m.surface, m.entity_type) AS surfaces,
                  array_agg(m.entity_type ORDER BY m.surface, m.entity_type) AS types,
                  array_agg(m.n ORDER BY m.surface, m.entity_type) AS counts
           FROM kg_entity e
           JOIN (SELECT entity_id, surface, entity_type, count(*) AS n FROM kg_entity_mention
                 WHERE entity_id = ANY($1::bigint[]) GROUP BY entity_id, surface, entity_type) m ON m.entity_id = e.id
           GROUP BY e.id ORDER BY e.id""",
        list(entity_ids))
    return [EntitySurfaces(r["id"], r["canonical_name"], r["name_normalized"], r["entity_type"],
                           list(zip(r["surfaces"], r["types"], r["counts"]))) for r in rows]


async def select_namesakes(conn: asyncpg.Connection, corpus_id: UUID,
                           names_normalized: Sequence[str]) -> list[asyncpg.Record]:
    """Entities of the corpus with these normalised names, most mentioned first (as a build names them)."""
    return await conn.fetch(
        """SELECT id, canonical_name, entity_type FROM kg_entity
           WHERE corpus_id = $1 AND name_normalized = ANY($2::text[])
           ORDER BY mention_count DESC, canonical_name, entity_type""",
        corpus_id, list(names_normalized))


async def rename_entity(conn: asyncpg.Connection, entity_id: int, corpus_id: UUID, names: Sequence[str],
                        name_normalized: str, entity_type: str, block_keys: Sequence[str]) -> bool:
    """Give an entity the first of ``names`` no other entity of the corpus has, with its normalised name, type and
    blocking keys; False (kept as it was) when every one is taken."""
    result = await conn.execute(
        """UPDATE kg_entity e
           SET canonical_name = n.name, name_normalized = $4, entity_type = $5, block_keys = $6::text[],
               updated_at = now()
           FROM (SELECT u.name FROM unnest($3::text[]) WITH ORDINALITY AS u(name, i)
                 WHERE NOT EXISTS (SELECT 1 FROM kg_entity o WHERE o.corpus_id = $2 AND o.canonical_name = u.name
                                                             AND o.id <> $1)
                 ORDER BY u.i LIMIT 1) n
           WHERE e.id = $1""",
        entity_id, corpus_id, list(names), name_normalized, entity_type, list(block_keys))
    return result.endswith(" 1")


async def mark_communities_stale(conn: asyncpg.Connection, corpus_id: UUID) -> None:
    """The next ingest stage recomputes the corpus's communities; with no entity left there are none to keep."""
    await conn.execute("DELETE FROM corpus_graph_build WHERE corpus_id = $1", corpus_id)
    await conn.execute(
        """DELETE FROM kg_community c WHERE c.corpus_id = $1
             AND NOT EXISTS (SELECT 1 FROM kg_entity e WHERE e.corpus_id = $1)""", corpus_id)

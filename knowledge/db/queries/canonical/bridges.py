"""Cross-corpus bridges (``kg_cross_corpus_bridge``): materialised per app, read through a corpus filter."""
from __future__ import annotations

from typing import Iterable, NamedTuple, Sequence
from uuid import UUID

import asyncpg

from knowledge.db.queries.canonical.corpus_filter import require_corpus_filter


class EntityBridge(NamedTuple):  # a named tuple: a search can read thousands
    canonical_id: int
    canonical_name: str
    source_entity_id: int
    source_corpus_id: UUID
    target_entity_id: int
    target_corpus_id: UUID
    bridge_type: str  # "shared_entity" | "relation_path"
    hops: int  # 1 for a shared entity, 2 for a relation path
    confidence: float


async def rebuild_bridges(conn: asyncpg.Connection, app_scope: str, canonical_ids: Sequence[int],
                          corpus_ids: Iterable[object]) -> int:
    """Re-materialise every bridge that starts or ends at one of ``canonical_ids``; returns bridges written."""
    corpora = require_corpus_filter(corpus_ids)
    ids = list(set(canonical_ids))
    if not ids:
        return 0
    await conn.execute(
        """DELETE FROM kg_cross_corpus_bridge
           WHERE app_scope = $1
             AND (canonical_source_id = ANY($2::bigint[]) OR canonical_target_id = ANY($2::bigint[]))""",
        app_scope, ids,
    )
    if await _count_corpora_with_members(conn, corpora) < 2:
        return 0  # both kinds of bridge join members in two corpora (the first corpus of an app: 2.4 s saved)
    shared = await conn.fetchval(_INSERT_SHARED_ENTITY_BRIDGES, app_scope, ids, corpora)
    related = await conn.fetchval(_INSERT_RELATION_PATH_BRIDGES, app_scope, ids, corpora)
    return (shared or 0) + (related or 0)


async def _count_corpora_with_members(conn: asyncpg.Connection, corpus_ids: Sequence[UUID]) -> int:
    return await conn.fetchval(
        """SELECT count(*) FROM unnest($1::uuid[]) AS c(id)
           WHERE EXISTS (SELECT 1 FROM kg_entity_alias a WHERE a.corpus_id = c.id)""",
        list(corpus_ids),
    )


_BRIDGEABLE = "c.app_scope = $1 AND NOT c.is_stopword_like AND NOT c.is_under_review"

_INSERT_SHARED_ENTITY_BRIDGES = f"""
WITH per_corpus AS (
    SELECT a.canonical_id, a.corpus_id, min(a.confidence) AS confidence
    FROM kg_entity_alias a JOIN kg_entity_canonical c ON c.id = a.canonical_id
    WHERE a.canonical_id = ANY($2::bigint[]) AND a.corpus_id = ANY($3) AND {_BRIDGEABLE}
    GROUP BY a.canonical_id, a.corpus_id),
shared AS (
    SELECT canonical_id, array_agg(corpus_id) AS corpora, min(confidence) AS confidence
    FROM per_corpus GROUP BY canonical_id HAVING count(*) >= 2),
inserted AS (
    INSERT INTO kg_cross_corpus_bridge (app_scope, canonical_source_id, canonical_target_id, bridge_type, hops,
                                        confidence)
    SELECT $1, canonical_id, canonical_id, 'shared_entity', 1, confidence FROM shared
    RETURNING id, canonical_source_id),
endpoints AS (
    INSERT INTO kg_cross_corpus_bridge_corpus (bridge_id, corpus_id, role)
    SELECT i.id, corpus.id, role.name
    FROM inserted i JOIN shared s ON s.canonical_id = i.canonical_source_id
    CROSS JOIN LATERAL unnest(s.corpora) AS corpus(id)
    CROSS JOIN (VALUES ('source'), ('target')) AS role(name)
    RETURNING bridge_id)
SELECT count(DISTINCT bridge_id) FROM endpoints
"""

# A relation between members of canonicals S and T inside corpus X gives the path
# S@X -[relation in X]-> T@X == T@Y for every other corpus Y holding a member of T.
_INSERT_RELATION_PATH_BRIDGES = f"""
WITH touched AS (
    SELECT r.id, r.corpus_id, r.source_entity_id, r.target_entity_id
    FROM kg_entity_alias a JOIN kg_relation r ON r.source_entity_id = a.local_entity_id
    WHERE a.canonical_id = ANY($2::bigint[]) AND a.corpus_id = ANY($3) AND r.corpus_id = ANY($3)
    UNION
    SELECT r.id, r.corpus_id, r.source_entity_id, r.target_entity_id
    FROM kg_entity_alias a JOIN kg_relation r ON r.target_entity_id = a.local_entity_id
    WHERE a.canonical_id = ANY($2::bigint[]) AND a.corpus_id = ANY($3) AND r.corpus_id = ANY($3)),
ends AS (
    SELECT t.corpus_id, s.canonical_id AS source_canonical, g.canonical_id AS target_canonical
    FROM touched t
    JOIN kg_entity_alias s ON s.local_entity_id = t.source_entity_id AND s.corpus_id = ANY($3)
    JOIN kg_entity_alias g ON g.local_entity_id = t.target_entity_id AND g.corpus_id = ANY($3)
    WHERE s.canonical_id <> g.canonical_id),
oriented AS (
    SELECT corpus_id, source_canonical, target_canonical FROM ends
    UNION
    SELECT corpus_id, target_canonical, source_canonical FROM ends),
pairs AS (
    SELECT o.source_canonical, o.target_canonical, array_agg(DISTINCT o.corpus_id) AS source_corpora
    FROM oriented o
    JOIN kg_entity_canonical c ON c.id = o.source_canonical AND {_BRIDGEABLE}
    JOIN kg_entity_canonical tc ON tc.id = o.target_canonical
        AND tc.app_scope = $1 AND NOT tc.is_stopword_like AND NOT tc.is_under_review
    GROUP BY o.source_canonical, o.target_canonical),
targets AS (
    SELECT a.canonical_id, array_agg(DISTINCT a.corpus_id) AS corpora, min(a.confidence) AS confidence
    FROM kg_entity_alias a
    WHERE a.canonical_id IN (SELECT target_canonical FROM pairs) AND a.corpus_id = ANY($3)
    GROUP BY a.canonical_id),
bridges AS (
    SELECT p.source_canonical, p.target_canonical, p.source_corpora, t.corpora AS target_corpora, t.confidence
    FROM pairs p JOIN targets t ON t.canonical_id = p.target_canonical
    WHERE EXISTS (SELECT 1 FROM unnest(p.source_corpora) AS s(id), unnest(t.corpora) AS g(id) WHERE s.id <> g.id)),
inserted AS (
    INSERT INTO kg_cross_corpus_bridge (app_scope, canonical_source_id, canonical_target_id, bridge_type, hops,
                                        confidence)
    SELECT $1, source_canonical, target_canonical, 'relation_path', 2, confidence FROM bridges
    RETURNING id, canonical_source_id, canonical_target_id),
endpoints AS (
    INSERT INTO kg_cross_corpus_bridge_corpus (bridge_id, corpus_id, role)
    SELECT i.id, s.id, 'source' FROM inserted i
    JOIN bridges b ON b.source_canonical = i.canonical_source_id AND b.target_canonical = i.canonical_target_id
    CROSS JOIN LATERAL unnest(b.source_corpora) AS s(id)
    UNION ALL
    SELECT i.id, g.id, 'target' FROM inserted i
    JOIN bridges b ON b.source_canonical = i.canonical_source_id AND b.target_canonical = i.canonical_target_id
    CROSS JOIN LATERAL unnest(b.target_corpora) AS g(id)
    RETURNING bridge_id)
SELECT count(DISTINCT bridge_id) FROM endpoints
"""


async def select_bridges_from_entities(conn: asyncpg.Connection, local_entity_ids: Sequence[int],
                                       corpus_ids: Sequence[UUID]) -> list[EntityBridge]:
    """Local entities of other corpora in ``corpus_ids`` that share the canonical of a source entity (hops 1)
    or are one relation away from it through the canonical layer (hops 2).

    Source entities outside ``corpus_ids`` are ignored, hubs (is_stopword_like) and canonicals under review
    are skipped, and every returned entity, corpus and bridge lies inside ``corpus_ids``, in those of them the
    caller may read (ne_entity_bridges, migration 018, reads as the owner and filters by them).
    """
    corpora = require_corpus_filter(corpus_ids)
    entity_ids = [int(i) for i in local_entity_ids]
    if not entity_ids:
        return []
    rows = await conn.fetch("SELECT * FROM ne_entity_bridges($1::bigint[], $2::uuid[])", entity_ids, corpora)
    # the function's columns are EntityBridge's fields, in order; read by position (unpacking a Record is slower)
    return [EntityBridge(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8]) for r in rows]


async def select_bridges(conn: asyncpg.Connection, app_scope: str, corpus_ids: Iterable[object],
                         limit: int = 50) -> list[asyncpg.Record]:
    """Bridges linking two different corpora of the filter, with only the filter's corpora listed; each row's
    ``total_matching`` counts every bridge the filter matches, however many ``limit`` lets through."""
    corpora = require_corpus_filter(corpus_ids)
    return await conn.fetch(
        """WITH ends AS (
               SELECT b.id,
                      array_agg(DISTINCT e.corpus_id) FILTER (WHERE e.role = 'source') AS source_corpus_ids,
                      array_agg(DISTINCT e.corpus_id) FILTER (WHERE e.role = 'target') AS target_corpus_ids
               FROM kg_cross_corpus_bridge b
               JOIN kg_cross_corpus_bridge_corpus e ON e.bridge_id = b.id AND e.corpus_id = ANY($2)
               WHERE b.app_scope = $1
               GROUP BY b.id)
           SELECT b.id, b.bridge_type, b.hops, b.confidence, b.canonical_source_id, b.canonical_target_id,
                  cs.canonical_name AS source_name, ct.canonical_name AS target_name,
                  ends.source_corpus_ids, ends.target_corpus_ids, count(*) OVER () AS total_matching
           FROM ends
           JOIN kg_cross_corpus_bridge b ON b.id = ends.id
           JOIN kg_entity_canonical cs ON cs.id = b.canonical_source_id
           JOIN kg_entity_canonical ct ON ct.id = b.canonical_target_id
           WHERE EXISTS (SELECT 1 FROM unnest(ends.source_corpus_ids) AS s(id), unnest(ends.target_corpus_ids) AS t(id)
                         WHERE s.id <> t.id)
           ORDER BY b.bridge_type DESC, b.confidence DESC, b.id
           LIMIT $3""",
        app_scope, corpora, limit,
    )


async def count_bridges_by_type(conn: asyncpg.Connection, app_scope: str,
                                corpus_ids: Iterable[object]) -> dict[str, int]:
    corpora = require_corpus_filter(corpus_ids)
    rows = await conn.fetch(
        """SELECT b.bridge_type, count(*) AS n FROM kg_cross_corpus_bridge b
           WHERE b.app_scope = $1
             AND EXISTS (SELECT 1 FROM kg_cross_corpus_bridge_corpus s JOIN kg_cross_corpus_bridge_corpus t
                           ON t.bridge_id = s.bridge_id AND t.role = 'target' AND t.corpus_id <> s.corpus_id
                         WHERE s.bridge_id = b.id AND s.role = 'source'
                           AND s.corpus_id = ANY($2) AND t.corpus_id = ANY($2))
           GROUP BY b.bridge_type""",
        app_scope, corpora,
    )
    return {r["bridge_type"]: r["n"] for r in rows}

"""Named queries of the HybridPlanner: entity neighbourhoods for graph expansion and the retrieval run log.

Every graph read takes the corpus ids it may touch and filters by them in SQL; callers run them inside
``Database.scoped(...)`` so row-level security enforces the same set a second time.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence
from uuid import UUID

import asyncpg


async def select_seed_chunk_entities(conn: asyncpg.Connection, chunk_ids: Sequence[int],
                                     corpus_ids: Sequence[UUID]) -> list[asyncpg.Record]:
    """The entities the given chunks mention, one row per (chunk, entity), both of ``corpus_ids``.
    Rows: chunk_id, entity_id, corpus_id, canonical_name, degree, mention_count."""
    return await conn.fetch(
        """SELECT DISTINCT m.chunk_id, e.id AS entity_id, e.corpus_id, e.canonical_name, e.degree, e.mention_count
           FROM kg_entity_mention m JOIN kg_entity e ON e.id = m.entity_id
           WHERE m.chunk_id = ANY($1::bigint[]) AND m.corpus_id = ANY($2::uuid[]) AND e.corpus_id = ANY($2::uuid[])
           ORDER BY m.chunk_id, e.id""",
        list(chunk_ids), list(corpus_ids),
    )


async def select_relation_facts(conn: asyncpg.Connection, entity_ids: Sequence[int], corpus_ids: Sequence[UUID],
                                query_text: str, limit: int) -> list[asyncpg.Record]:
    """Relations touching the entities whose evidence sentence matches the query's words, best first
    (ne_relation_facts, migration 018). Rows: id, corpus_id, source_entity_id, target_entity_id, relation_type,
    score (ts_rank_cd)."""
    return await conn.fetch("SELECT * FROM ne_relation_facts($1::bigint[], $2::uuid[], $3, $4)",
                            list(entity_ids), list(corpus_ids), query_text, limit)


async def select_query_lexemes(conn: asyncpg.Connection, query_text: str) -> list[str]:
    """The lexemes of ne_or_tsquery(query_text): the words plainto_tsquery('english') keeps, stemmed, each once."""
    return list(await conn.fetchval("SELECT tsvector_to_array(to_tsvector('english', $1))", query_text))


async def select_corpus_relation_evidence(conn: asyncpg.Connection, corpus_id: UUID, after_id: int,
                                          limit: int) -> list[asyncpg.Record]:
    """The relations of a corpus with a non-empty evidence vector, by id from ``after_id`` (keyset pages), each
    with what ts_rank_cd reads of it: its lexemes, each lexeme's number of positions, and the vector's length
    (positions, a lexeme without positions counting one). Rows: id, source_entity_id, target_entity_id,
    relation_type, lexemes, position_counts, length."""
    return await conn.fetch(
        """SELECT r.id, r.source_entity_id, r.target_entity_id, r.relation_type, v.lexemes, v.position_counts,
                  v.length
           FROM kg_relation r
           CROSS JOIN LATERAL (
               SELECT array_agg(u.lexeme ORDER BY u.lexeme) AS lexemes,
                      array_agg(coalesce(cardinality(u.positions), 0) ORDER BY u.lexeme) AS position_counts,
                      sum(coalesce(cardinality(u.positions), 1))::int AS length
               FROM unnest(r.evidence_vector) u
           ) v
           WHERE r.corpus_id = $1 AND r.id > $2 AND v.lexemes IS NOT NULL
           ORDER BY r.id
           LIMIT $3""",
        corpus_id, after_id, limit)


async def select_entity_neighbours(conn: asyncpg.Connection, entity_ids: Sequence[int], corpus_ids: Sequence[UUID],
                                   per_entity_limit: int, hub_degree_threshold: int) -> list[asyncpg.Record]:
    """Relation neighbours of each entity (both directions), strongest first, at most ``per_entity_limit`` each.

    Neighbours whose degree exceeds ``hub_degree_threshold`` (stopword-like hubs) are skipped. Rows:
    entity_id, neighbour_id, corpus_id, name, weight (sum over relation types).
    """
    return await conn.fetch(
        """SELECT f.entity_id, nb.neighbour_id, nb.corpus_id, nb.name, nb.weight
           FROM unnest($1::bigint[]) AS f(entity_id)
           CROSS JOIN LATERAL (
               SELECT e.id AS neighbour_id, e.corpus_id, e.canonical_name AS name, sum(x.weight)::float8 AS weight
               FROM (SELECT r.target_entity_id AS other_id, r.weight FROM kg_relation r
                     WHERE r.source_entity_id = f.entity_id AND r.corpus_id = ANY($2::uuid[])
                     UNION ALL
                     SELECT r.source_entity_id, r.weight FROM kg_relation r
                     WHERE r.target_entity_id = f.entity_id AND r.corpus_id = ANY($2::uuid[])) x
               JOIN kg_entity e ON e.id = x.other_id
               WHERE e.corpus_id = ANY($2::uuid[]) AND e.degree <= $4
               GROUP BY e.id
               ORDER BY sum(x.weight) DESC, e.id
               LIMIT $3
           ) nb""",
        list(entity_ids), list(corpus_ids), per_entity_limit, hub_degree_threshold,
    )


async def select_chunk_ids_for_entities(conn: asyncpg.Connection, entity_ids: Sequence[int],
                                        corpus_ids: Sequence[UUID], limit_per_entity: int) -> list[asyncpg.Record]:
    """Up to ``limit_per_entity`` chunks mentioning each entity (most mentions of it first), ids only: the graph
    expansion ranks them by walk mass and the rerank reads the text of the few it keeps.
    Rows: entity_id, id, corpus_id."""
    return await conn.fetch(
        """SELECT m.entity_id, m.chunk_id AS id, m.corpus_id
           FROM unnest($1::bigint[]) AS e(id)
           CROSS JOIN LATERAL (
               SELECT km.entity_id, km.chunk_id, km.corpus_id, count(*) AS mentions FROM kg_entity_mention km
               WHERE km.entity_id = e.id AND km.corpus_id = ANY($2::uuid[])
               GROUP BY km.entity_id, km.chunk_id, km.corpus_id
               ORDER BY count(*) DESC, km.chunk_id LIMIT $3) m
           ORDER BY m.entity_id, m.mentions DESC, m.chunk_id""",
        list(entity_ids), list(corpus_ids), limit_per_entity,
    )


async def select_corpus_chunk_ids(conn: asyncpg.Connection, corpus_id: UUID) -> list[int]:
    """Every chunk of the corpus, by id (what the planner's graph snapshot holds: the entities of those some entity
    mention points at, and the text and embedding of all, which the seed guess scans)."""
    rows = await conn.fetch("SELECT id FROM knowledge WHERE corpus_id = $1 ORDER BY id", corpus_id)
    return [r[0] for r in rows]


async def select_corpus_graph_size(conn: asyncpg.Connection, corpus_id: UUID) -> tuple[int, ...]:
    """(mentions, relations, entities, evidence lexemes, chunks, bytes of their text and vectors) of the corpus:
    bounds the rows of its graph snapshot before it is read."""
    row = await conn.fetchrow(
        """SELECT (SELECT count(*) FROM kg_entity_mention WHERE corpus_id = $1) AS mentions,
                  (SELECT count(*) FROM kg_relation WHERE corpus_id = $1) AS relations,
                  (SELECT count(*) FROM kg_entity WHERE corpus_id = $1) AS entities,
                  (SELECT coalesce(sum(length(evidence_vector)), 0) FROM kg_relation WHERE corpus_id = $1) AS lexemes,
                  c.chunks, c.chunk_bytes
           FROM (SELECT count(*) AS chunks,
                        coalesce(sum(octet_length(content) + 4 * vector_dims(embedding)), 0) AS chunk_bytes
                 FROM knowledge WHERE corpus_id = $1) c""",
        corpus_id)
    return tuple(int(v) for v in row.values())


async def select_corpus_hop_entities(conn: asyncpg.Connection, entity_ids: Sequence[int],
                                     corpus_id: UUID) -> list[asyncpg.Record]:
    """What select_entity_hops reads of each linked entity of a corpus: its canonical entity (name, hub flag), its
    mention count and the chunks of the corpus mentioning it. Rows: entity_id, canonical_id, canonical_name,
    is_stopword_like, mention_count, chunk_ids (ascending)."""
    return await conn.fetch(
        """SELECT e.id, a.canonical_id, c.canonical_name, c.is_stopword_like, e.mention_count,
                  ARRAY(SELECT DISTINCT m.chunk_id FROM kg_entity_mention m
                        WHERE m.entity_id = e.id AND m.corpus_id = $2 ORDER BY m.chunk_id) AS chunk_ids
           FROM kg_entity e
           JOIN kg_entity_alias a ON a.local_entity_id = e.id AND a.corpus_id = $2
           JOIN kg_entity_canonical c ON c.id = a.canonical_id
           WHERE e.id = ANY($1::bigint[]) AND e.corpus_id = $2
           ORDER BY e.id""",
        list(entity_ids), corpus_id)


async def select_entity_hops(conn: asyncpg.Connection, chunk_ids: Sequence[int], corpus_ids: Sequence[UUID],
                             max_mentions: int, max_chunks: int, embedding=None) -> list[asyncpg.Record]:
    """Chunks sharing a specific entity with the given chunks: the same local entity, or through the canonical
    layer one of its copies in another of ``corpus_ids``.

    An entity is specific when its copies are mentioned at most ``max_mentions`` times (a cheap bound read
    from kg_entity) and in at most ``max_chunks`` chunks of ``corpus_ids``; stopword-like canonicals never are.
    Rows: from_chunk_id, canonical_id, name, chunk_id, corpus_id, chunk_count, query_similarity (cosine of the
    canonical entity's embedding and ``embedding``; NULL without one, or with one of another model). Rows that tie
    on the order may come in any order of canonical_id.
    """
    return await conn.fetch(
        """WITH source AS (
               SELECT DISTINCT m.chunk_id AS from_chunk_id, a.canonical_id
               FROM kg_entity_mention m JOIN kg_entity_alias a ON a.local_entity_id = m.entity_id
               WHERE m.chunk_id = ANY($1::bigint[]) AND m.corpus_id = ANY($2::uuid[])
           ), specific AS (
               SELECT a.canonical_id
               FROM kg_entity_alias a
               JOIN kg_entity e ON e.id = a.local_entity_id
               JOIN kg_entity_canonical c ON c.id = a.canonical_id
               WHERE a.canonical_id IN (SELECT canonical_id FROM source) AND a.corpus_id = ANY($2::uuid[])
                 AND NOT c.is_stopword_like
               GROUP BY a.canonical_id
               HAVING sum(e.mention_count) <= $3
           ), reached AS (
               SELECT DISTINCT a.canonical_id, m.chunk_id, m.corpus_id
               FROM kg_entity_alias a JOIN kg_entity_mention m ON m.entity_id = a.local_entity_id
               WHERE a.canonical_id IN (SELECT canonical_id FROM specific) AND a.corpus_id = ANY($2::uuid[])
                 AND m.corpus_id = ANY($2::uuid[])
           ), sized AS (
               SELECT canonical_id, count(*)::int AS chunk_count FROM reached
               GROUP BY canonical_id HAVING count(*) <= $4
           )
           SELECT s.from_chunk_id, r.canonical_id, c.canonical_name AS name, r.chunk_id, r.corpus_id, z.chunk_count,
                  -- a centroid of another model than the question's (a corpus mid-way) is not compared
                  CASE WHEN c.embedding_model IS NULL OR c.embedding_model = co.embedding_model
                       THEN (1 - (c.primary_embedding <=> $5::vector))::float8 END AS query_similarity
           FROM source s
           JOIN sized z ON z.canonical_id = s.canonical_id
           JOIN reached r ON r.canonical_id = s.canonical_id AND r.chunk_id <> s.from_chunk_id
           JOIN kg_entity_canonical c ON c.id = s.canonical_id
           JOIN corpus co ON co.id = r.corpus_id
           ORDER BY s.from_chunk_id, z.chunk_count, r.chunk_id""",
        list(chunk_ids), list(corpus_ids), max_mentions, max_chunks, embedding,
    )


async def select_query_linked_hops(conn: asyncpg.Connection, embedding, corpus_ids: Sequence[UUID], links: int,
                                   max_chunks: int) -> list[asyncpg.Record]:
    """HippoRAG 2's query-to-entity linking: the ``links`` entities whose name embedding is nearest the query, and
    the chunks mentioning their canonical entity (entities in more than ``max_chunks`` chunks are left out).
    Rows: canonical_id, name, similarity, chunk_id, corpus_id, chunk_count."""
    return await conn.fetch(
        """WITH near AS (
               SELECT a.canonical_id, max(1 - (e.embedding <=> $1))::float8 AS similarity
               FROM (SELECT id, embedding FROM kg_entity WHERE corpus_id = ANY($2::uuid[]) AND embedding IS NOT NULL
                     ORDER BY embedding <=> $1 LIMIT $3) e
               JOIN kg_entity_alias a ON a.local_entity_id = e.id
               GROUP BY a.canonical_id
           ), reached AS (
               SELECT DISTINCT a.canonical_id, m.chunk_id, m.corpus_id
               FROM kg_entity_alias a JOIN kg_entity_mention m ON m.entity_id = a.local_entity_id
               WHERE a.canonical_id IN (SELECT canonical_id FROM near) AND a.corpus_id = ANY($2::uuid[])
                 AND m.corpus_id = ANY($2::uuid[])
           ), sized AS (
               SELECT canonical_id, count(*)::int AS chunk_count FROM reached
               GROUP BY canonical_id HAVING count(*) <= $4
           )
           SELECT n.canonical_id, c.canonical_name AS name, n.similarity, r.chunk_id, r.corpus_id, z.chunk_count
           FROM near n JOIN sized z USING (canonical_id) JOIN reached r USING (canonical_id)
           JOIN kg_entity_canonical c ON c.id = n.canonical_id AND NOT c.is_stopword_like
           ORDER BY n.similarity DESC, r.chunk_id""",
        embedding, list(corpus_ids), links, max_chunks,
    )


async def select_fact_canonicals(conn: asyncpg.Connection, chunk_ids: Sequence[int], corpus_ids: Sequence[UUID],
                                 query_text: str) -> list[asyncpg.Record]:
    """Seed fact filtering (HippoRAG 2): the canonical entities at either end of a relation found in one of the
    chunks whose evidence sentence shares a word with the query. Rows: chunk_id, canonical_id."""
    return await conn.fetch(
        """SELECT DISTINCT r.evidence_chunk_id AS chunk_id, a.canonical_id
           FROM kg_relation r
           CROSS JOIN LATERAL (VALUES (r.source_entity_id), (r.target_entity_id)) AS ends(entity_id)
           JOIN kg_entity_alias a ON a.local_entity_id = ends.entity_id,
           (SELECT ne_or_tsquery($3) AS tsq) q
           WHERE q.tsq IS NOT NULL AND r.evidence_chunk_id = ANY($1::bigint[]) AND r.corpus_id = ANY($2::uuid[])
             AND to_tsvector('english', r.evidence) @@ q.tsq""",
        list(chunk_ids), list(corpus_ids), query_text,
    )


@dataclass(frozen=True)
class PlannerRunRow:
    app_name: str
    mode: str
    query_kind: str
    corpus_count: int
    expansion_used: bool
    hit_count: int
    expanded_hit_count: int
    path_lengths: list[int]
    fallback_reason: str | None
    stage_seconds: dict[str, float]
    total_seconds: float
    rollout_path: str = "planner"


async def insert_planner_run(conn: asyncpg.Connection, row: PlannerRunRow) -> None:
    await conn.execute(
        """INSERT INTO planner_run (app_name, mode, query_kind, corpus_count, expansion_used, hit_count,
                                    expanded_hit_count, path_lengths, fallback_reason, stage_seconds, total_seconds,
                                    rollout_path)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8::int[], $9, $10::jsonb, $11, $12)""",
        row.app_name, row.mode, row.query_kind, row.corpus_count, row.expansion_used, row.hit_count,
        row.expanded_hit_count, row.path_lengths, row.fallback_reason, row.stage_seconds, row.total_seconds,
        row.rollout_path,
    )


@dataclass(frozen=True)
class PlannerRunStats:
    runs: int
    runs_by_mode: dict[str, int]
    routed_to_planner: int  # runs the planner handled or fell back from
    fallbacks: int
    planner_runs: int
    expansion_runs: int
    runs_with_expanded_evidence: int
    path_length_p50: float | None
    path_length_p99: float | None
    stage_p50: dict[str, float] = field(default_factory=dict)
    stage_p95: dict[str, float] = field(default_factory=dict)


async def select_planner_run_stats(conn: asyncpg.Connection, app_name: str, window: int) -> PlannerRunStats:
    """Aggregates over the latest ``window`` runs of ``app_name``."""
    recent = """SELECT * FROM planner_run WHERE app_name = $1 ORDER BY created_at DESC, id DESC LIMIT $2"""
    totals = await conn.fetchrow(
        f"""WITH recent AS ({recent})
            SELECT count(*) AS runs,
                   count(*) FILTER (WHERE mode IN ('planner', 'fallback')) AS routed,
                   count(*) FILTER (WHERE mode = 'fallback') AS fallbacks,
                   count(*) FILTER (WHERE mode = 'planner') AS planner_runs,
                   count(*) FILTER (WHERE mode = 'planner' AND expansion_used) AS expansion_runs,
                   count(*) FILTER (WHERE mode = 'planner' AND expanded_hit_count > 0) AS expanded_runs,
                   coalesce((SELECT jsonb_object_agg(mode, n) FROM (SELECT mode, count(*) AS n FROM recent
                                                                    GROUP BY mode) m), '{{}}'::jsonb) AS by_mode
            FROM recent""",
        app_name, window,
    )
    paths = await conn.fetchrow(
        f"""WITH recent AS ({recent})
            SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY h) AS p50,
                   percentile_cont(0.99) WITHIN GROUP (ORDER BY h) AS p99
            FROM recent, unnest(recent.path_lengths) AS h""",
        app_name, window,
    )
    stages = await conn.fetch(
        f"""WITH recent AS ({recent})
            SELECT s.key AS stage,
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY s.value::float8) AS p50,
                   percentile_cont(0.95) WITHIN GROUP (ORDER BY s.value::float8) AS p95
            FROM recent, jsonb_each_text(recent.stage_seconds) AS s
            GROUP BY s.key ORDER BY s.key""",
        app_name, window,
    )
    return PlannerRunStats(
        runs=totals["runs"], runs_by_mode=dict(totals["by_mode"]), routed_to_planner=totals["routed"],
        fallbacks=totals["fallbacks"], planner_runs=totals["planner_runs"], expansion_runs=totals["expansion_runs"],
        runs_with_expanded_evidence=totals["expanded_runs"], path_length_p50=paths["p50"],
        path_length_p99=paths["p99"], stage_p50={r["stage"]: r["p50"] for r in stages},
        stage_p95={r["stage"]: r["p95"] for r in stages},
    )


@dataclass(frozen=True)
class RolloutPathStats:
    path: str
    runs: int
    planner_runs: int
    runs_with_expanded_evidence: int
    fallbacks: int
    routed_to_planner: int
    total_p99: float | None


async def select_rollout_path_stats(conn: asyncpg.Connection, app_name: str, window: int) -> list[RolloutPathStats]:
    """The latest ``window`` runs of ``app_name`` per rollout path (planner first)."""
    rows = await conn.fetch(
        """WITH recent AS (SELECT * FROM planner_run WHERE app_name = $1 ORDER BY created_at DESC, id DESC LIMIT $2)
           SELECT rollout_path, count(*) AS runs,
                  count(*) FILTER (WHERE mode = 'planner') AS planner_runs,
                  count(*) FILTER (WHERE mode = 'planner' AND expanded_hit_count > 0) AS expanded_runs,
                  count(*) FILTER (WHERE mode = 'fallback') AS fallbacks,
                  count(*) FILTER (WHERE mode IN ('planner', 'fallback')) AS routed,
                  percentile_cont(0.99) WITHIN GROUP (ORDER BY total_seconds) AS total_p99
           FROM recent GROUP BY rollout_path ORDER BY rollout_path DESC""",
        app_name, window,
    )
    return [RolloutPathStats(r["rollout_path"], r["runs"], r["planner_runs"], r["expanded_runs"], r["fallbacks"],
                             r["routed"], r["total_p99"]) for r in rows]



# Tables the planner's reads plan against; their statistics must not lag behind a bulk ingest.
PLANNER_READ_TABLES = ("knowledge", "kg_entity", "kg_relation", "kg_entity_mention", "kg_entity_alias",
                       "kg_entity_canonical", "kg_cross_corpus_bridge", "kg_cross_corpus_bridge_corpus")


async def select_tables_needing_analyze(conn: asyncpg.Connection) -> list[str]:
    """Planner tables never analysed, or changed more than autovacuum's own analyze threshold (50 rows + 10%)."""
    rows = await conn.fetch(
        """SELECT relname FROM pg_stat_user_tables
           WHERE schemaname = current_schema() AND relname = ANY($1::text[])
             AND (n_mod_since_analyze > 50 + 0.1 * n_live_tup
                  OR (last_analyze IS NULL AND last_autoanalyze IS NULL AND n_live_tup > 0))
           ORDER BY relname""",
        list(PLANNER_READ_TABLES),
    )
    return [r["relname"] for r in rows]


async def analyze_table(conn: asyncpg.Connection, table: str) -> None:
    if table not in PLANNER_READ_TABLES:
        raise ValueError(f"not a planner table: {table!r}")
    await conn.execute(f'ANALYZE "{table}"')

"""Canonical entities (``kg_entity_canonical``, app-scoped): keys, centroids, nearest neighbours, refresh."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence
from uuid import UUID

import asyncpg
import numpy as np
from pgvector import Vector

from knowledge.db.queries.canonical.corpus_filter import require_corpus_filter
from knowledge.names import normalize_name


@dataclass(frozen=True)
class Nearest:
    canonical_id: int
    similarity: float
    key: tuple[str, str]  # (canonical_name_normalized, canonical_type)


async def select_app_corpus_ids(conn: asyncpg.Connection, app_scope: str) -> list[UUID]:
    """Every corpus of the app: the filter the linker works with (canonical rows never leave their app)."""
    rows = await conn.fetch("SELECT id FROM corpus WHERE app_name = $1 ORDER BY name", app_scope)
    return [r["id"] for r in rows]


async def lock_app_scope(conn: asyncpg.Connection, app_scope: str) -> None:
    """Serialise canonical-layer writers of one app until the transaction ends."""
    await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended('ne_canonical:' || $1, 0))", app_scope)


async def select_canonical_ids_by_names(conn: asyncpg.Connection, app_scope: str,
                                        names_normalized: Sequence[str]) -> dict[tuple[str, str], int]:
    """(normalised name, type) -> id of the app's canonicals with any of these keys, whatever their type."""
    if not names_normalized:
        return {}
    rows = await conn.fetch(
        """SELECT id, canonical_name_normalized, canonical_type FROM kg_entity_canonical
           WHERE app_scope = $1 AND canonical_name_normalized = ANY($2::text[])""",
        app_scope, list(names_normalized),
    )
    return {(r["canonical_name_normalized"], r["canonical_type"]): r["id"] for r in rows}


async def retype_canonical(conn: asyncpg.Connection, canonical_id: int, canonical_type: str) -> None:
    await conn.execute("UPDATE kg_entity_canonical SET canonical_type = $2, updated_at = now() WHERE id = $1",
                       canonical_id, canonical_type)


async def insert_canonical(conn: asyncpg.Connection, app_scope: str, name: str, name_normalized: str,
                           canonical_type: str, founder_embedding: np.ndarray | None, founder_degree: int) -> int:
    """Create the canonical with this key as its founding member will make it (or return the existing one's id)."""
    row_id = await conn.fetchval(
        """INSERT INTO kg_entity_canonical (app_scope, canonical_name, canonical_name_normalized, canonical_type,
                                            primary_embedding, member_count, degree)
           VALUES ($1, $2, $3, $4, CASE WHEN $5::vector IS NULL THEN NULL ELSE l2_normalize($5::vector) END, 1, $6)
           ON CONFLICT (app_scope, canonical_name_normalized, canonical_type) DO NOTHING RETURNING id""",
        app_scope, name, name_normalized, canonical_type, founder_embedding, founder_degree,
    )
    if row_id is None:
        row_id = await conn.fetchval(
            """SELECT id FROM kg_entity_canonical
               WHERE app_scope = $1 AND canonical_name_normalized = $2 AND canonical_type = $3""",
            app_scope, name_normalized, canonical_type,
        )
    return row_id


@dataclass(frozen=True)
class NewCanonical:
    name: str
    name_normalized: str
    canonical_type: str
    founder_embedding: np.ndarray | None
    founder_degree: int


async def insert_canonicals(conn: asyncpg.Connection, app_scope: str,
                            rows: Sequence[NewCanonical]) -> dict[tuple[str, str], int]:
    """Create many canonicals in one statement, each as its founding member makes it (an existing key keeps
    its row). Returns (normalised name, type) -> id for every row asked for."""
    if not rows:
        return {}
    records = await conn.fetch(
        """WITH wanted AS (
               SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::vector[], $6::bigint[])
                   AS u(name, name_normalized, canonical_type, embedding, degree)),
           inserted AS (
               INSERT INTO kg_entity_canonical (app_scope, canonical_name, canonical_name_normalized,
                                                canonical_type, primary_embedding, member_count, degree)
               SELECT $1, w.name, w.name_normalized, w.canonical_type,
                      CASE WHEN w.embedding IS NULL THEN NULL ELSE l2_normalize(w.embedding) END, 1, w.degree
               FROM wanted w
               ON CONFLICT (app_scope, canonical_name_normalized, canonical_type) DO NOTHING
               RETURNING id, canonical_name_normalized, canonical_type)
           SELECT id, canonical_name_normalized, canonical_type FROM inserted
           UNION ALL
           SELECT c.id, c.canonical_name_normalized, c.canonical_type
           FROM kg_entity_canonical c JOIN wanted w
             ON c.app_scope = $1 AND c.canonical_name_normalized = w.name_normalized
            AND c.canonical_type = w.canonical_type""",
        app_scope, [r.name for r in rows], [r.name_normalized for r in rows], [r.canonical_type for r in rows],
        [None if r.founder_embedding is None else Vector(r.founder_embedding) for r in rows],
        [r.founder_degree for r in rows],
    )
    # the second half sees only rows that existed before the statement (one snapshot), so no key repeats
    return {(r["canonical_name_normalized"], r["canonical_type"]): r["id"] for r in records}


NEAREST_CANDIDATES = 16


async def select_nearest_canonicals_many(conn: asyncpg.Connection, app_scope: str,
                                         queries: Sequence[tuple[str, np.ndarray, UUID]]) -> list[list[Nearest]]:
    """For each (type, embedding, excluded corpus) query, in order: the ``NEAREST_CANDIDATES`` closest canonical
    centroids of the same app and type, closest first, minus those with a member in the excluded corpus.

    Inside one corpus the entity resolver already decided what is the same entity; the linker only merges
    across corpora by embedding. The membership check runs on the few nearest rows only (an anti-join over
    all canonicals degrades to canonicals x corpus aliases when statistics are stale, as in a rebuild).
    Centroids not yet in the HNSW index (migration 019) are compared exactly and merged with the index's answer.
    """
    if not queries:
        return []
    corpora = require_corpus_filter({corpus_id for _, _, corpus_id in queries})
    rows = await conn.fetch(
        """SELECT q.ord, n.id, n.canonical_name_normalized, n.canonical_type, n.similarity
           FROM (SELECT u.*, co.embedding_model AS model  -- centroids of other models are not comparable
                 FROM unnest($2::text[], $3::vector[], $4::uuid[]) WITH ORDINALITY AS u(canonical_type, embedding,
                                                                                       corpus_id, ord)
                 JOIN corpus co ON co.id = u.corpus_id) q
           CROSS JOIN LATERAL (
               SELECT u.id, u.canonical_name_normalized, u.canonical_type, (1 - u.distance)::float8 AS similarity
               FROM ((SELECT c.id, c.canonical_name_normalized, c.canonical_type,
                             c.primary_embedding <=> q.embedding AS distance
                      FROM kg_entity_canonical c
                      WHERE c.app_scope = $1 AND c.canonical_type = q.canonical_type
                        AND c.primary_embedding IS NOT NULL AND c.in_vector_index
                        AND (c.embedding_model IS NULL OR c.embedding_model = q.model)
                      ORDER BY c.primary_embedding <=> q.embedding
                      LIMIT $5)
                     UNION ALL
                     (SELECT c.id, c.canonical_name_normalized, c.canonical_type,
                             c.primary_embedding <=> q.embedding AS distance
                      FROM kg_entity_canonical c
                      WHERE c.app_scope = $1 AND c.canonical_type = q.canonical_type
                        AND c.primary_embedding IS NOT NULL AND NOT c.in_vector_index
                        AND (c.embedding_model IS NULL OR c.embedding_model = q.model)
                      ORDER BY distance
                      LIMIT $5)) u
               ORDER BY u.distance
               LIMIT $5) n
           WHERE q.corpus_id = ANY($6)
             AND NOT EXISTS (SELECT 1 FROM kg_entity_alias a WHERE a.canonical_id = n.id AND a.corpus_id = q.corpus_id)
           ORDER BY q.ord, n.similarity DESC, n.id""",
        app_scope, [t for t, _, _ in queries], [Vector(e) for _, e, _ in queries], [c for _, _, c in queries],
        NEAREST_CANDIDATES, corpora,
    )
    found: list[list[Nearest]] = [[] for _ in queries]
    for r in rows:
        found[r["ord"] - 1].append(Nearest(r["id"], r["similarity"], (r["canonical_name_normalized"],
                                                                      r["canonical_type"])))
    return found


async def select_searchable_types(conn: asyncpg.Connection, app_scope: str, corpus_ids: Iterable[object],
                                  canonical_types: Sequence[str]) -> set[tuple[UUID, str]]:
    """(corpus, type) pairs for which ``select_nearest_canonicals_many`` can find anything: the app has a canonical
    of that type with a centroid and no member in that corpus. For the others every nearest canonical would be
    filtered out (the first corpus of an app, or types only that corpus has), so the linker skips the search."""
    corpora = require_corpus_filter(corpus_ids)
    if not canonical_types:
        return set()
    rows = await conn.fetch(
        """SELECT x.corpus_id, t.canonical_type
           FROM unnest($2::uuid[]) AS x(corpus_id) CROSS JOIN unnest($3::text[]) AS t(canonical_type)
           WHERE EXISTS (SELECT 1 FROM kg_entity_canonical c
                         WHERE c.app_scope = $1 AND c.canonical_type = t.canonical_type
                           AND c.primary_embedding IS NOT NULL
                           AND NOT EXISTS (SELECT 1 FROM kg_entity_alias a
                                           WHERE a.canonical_id = c.id AND a.corpus_id = x.corpus_id))""",
        app_scope, corpora, sorted(set(canonical_types)),
    )
    return {(r["corpus_id"], r["canonical_type"]) for r in rows}


async def select_canonicals_needing_refresh(conn: asyncpg.Connection, app_scope: str) -> list[int]:
    rows = await conn.fetch("SELECT id FROM kg_entity_canonical WHERE app_scope = $1 AND needs_refresh", app_scope)
    return [r["id"] for r in rows]


async def refresh_canonicals(conn: asyncpg.Connection, canonical_ids: Sequence[int], corpus_ids: Iterable[object],
                             hub_degree_threshold: int, generic_names: Sequence[str] = ()) -> list[int]:
    """Recompute centroid (renormalised mean of member embeddings), degree, member count, hub and review
    flags; delete canonicals left without members. Returns the ids of the canonicals that still exist.
    A hub: degree above ``hub_degree_threshold``, or a normalised name in ``generic_names``."""
    corpora = require_corpus_filter(corpus_ids)
    ids = list(set(canonical_ids))
    if not ids:
        return []
    await conn.execute(
        """DELETE FROM kg_entity_canonical c
           WHERE c.id = ANY($1::bigint[])
             AND NOT EXISTS (SELECT 1 FROM kg_entity_alias a
                             WHERE a.canonical_id = c.id AND a.corpus_id = ANY($2))""",
        ids, corpora,
    )
    # a pending item whose candidate (or provisional canonical) was just deleted can no longer be decided
    orphaned = await conn.fetch(
        """DELETE FROM kg_canonical_review
           WHERE status = 'pending' AND corpus_id = ANY($1)
             AND (canonical_id IS NULL OR candidate_canonical_id IS NULL)
           RETURNING canonical_id""",
        corpora,
    )
    ids = sorted(set(ids) | {r["canonical_id"] for r in orphaned if r["canonical_id"] is not None})
    rows = await conn.fetch(
        """WITH member_rows AS (
               SELECT a.canonical_id, e.embedding, e.degree, co.embedding_model AS model
               FROM kg_entity_alias a JOIN kg_entity e ON e.id = a.local_entity_id JOIN corpus co ON co.id = a.corpus_id
               WHERE a.canonical_id = ANY($1::bigint[]) AND a.corpus_id = ANY($2)),
           -- members on other models than most of them (a corpus mid-way through a model change) stay out
           space AS (
               SELECT canonical_id, mode() WITHIN GROUP (ORDER BY model) AS model
               FROM member_rows WHERE embedding IS NOT NULL GROUP BY canonical_id),
           members AS (
               SELECT r.canonical_id, s.model,
                      l2_normalize(avg(r.embedding) FILTER (WHERE r.model = s.model)) AS centroid,
                      sum(r.degree)::bigint AS degree, count(*)::int AS member_count,
                      EXISTS (SELECT 1 FROM kg_canonical_review rv
                              WHERE rv.canonical_id = r.canonical_id AND rv.status = 'pending') AS under_review
               FROM member_rows r LEFT JOIN space s ON s.canonical_id = r.canonical_id
               GROUP BY r.canonical_id, s.model),
           changed AS (
               -- rows whose values did not change are not rewritten (an HNSW entry per rewrite is costly)
               UPDATE kg_entity_canonical c
               SET primary_embedding = m.centroid, embedding_model = coalesce(m.model, c.embedding_model),
                   degree = m.degree, member_count = m.member_count,
                   is_stopword_like = m.degree > $3 OR c.canonical_name_normalized = ANY($4::text[]),
                   is_under_review = m.under_review,
                   needs_refresh = false, updated_at = now()
               FROM members m
               WHERE c.id = m.canonical_id
                 AND (c.primary_embedding IS DISTINCT FROM m.centroid OR c.degree <> m.degree
                      OR c.embedding_model IS DISTINCT FROM coalesce(m.model, c.embedding_model)
                      OR c.member_count <> m.member_count
                      OR c.is_stopword_like <> (m.degree > $3 OR c.canonical_name_normalized = ANY($4::text[]))
                      OR c.is_under_review <> m.under_review OR c.needs_refresh)
               RETURNING c.id)
           SELECT canonical_id FROM members""",
        ids, corpora, hub_degree_threshold, sorted(generic_names),
    )
    return [r["canonical_id"] for r in rows]


async def delete_app_scope_canonicals(conn: asyncpg.Connection, app_scope: str) -> int:
    """Drop the whole canonical layer of an app (aliases and bridges cascade, pending review items go, decided
    ones stay as history); the durable decisions stay and are re-applied by the relink."""
    await conn.execute("DELETE FROM kg_canonical_review WHERE app_scope = $1 AND status = 'pending'", app_scope)
    status = await conn.execute("DELETE FROM kg_entity_canonical WHERE app_scope = $1", app_scope)
    return int(status.split()[-1])


async def select_canonicals_by_reference(conn: asyncpg.Connection, app_scope: str, reference: str,
                                         corpus_ids: Iterable[object]) -> list[asyncpg.Record]:
    """Canonicals of the app with a member in the filter, by id (digits) or by normalised name (any type)."""
    corpora = require_corpus_filter(corpus_ids)
    return await conn.fetch(
        """SELECT c.id, c.canonical_name, c.canonical_name_normalized, c.canonical_type, c.member_count, c.degree,
                  c.is_under_review, c.is_stopword_like
           FROM kg_entity_canonical c
           WHERE c.app_scope = $1
             AND (CASE WHEN $2 ~ '^[0-9]+$' THEN c.id = $2::bigint ELSE c.canonical_name_normalized = $3 END)
             AND EXISTS (SELECT 1 FROM kg_entity_alias a WHERE a.canonical_id = c.id AND a.corpus_id = ANY($4))
           ORDER BY c.id""",
        app_scope, reference.strip(), normalize_name(reference), corpora,
    )

"""THE data-access module of the federated canonical layer (canonicals, aliases, bridges, review, decisions).

Permission layer 2 (DESIGN.md section 2): every function that reads ``kg_entity_alias`` or the bridge tables
takes a corpus filter and raises PermissionError when it is missing or holds no valid corpus id; the filter
is applied inside the SQL. Row-level security on the same tables is the defense in depth.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence
from uuid import UUID

import asyncpg
import numpy as np

from knowledge.graph.normalize import normalize_name
from knowledge.retrieval.scope import parse_corpus_id

LINK_METHODS = ("auto_string", "auto_embedding", "review", "manual", "new_canonical")


def require_corpus_filter(corpus_ids: Iterable[object] | None) -> list[UUID]:
    """The corpus filter as UUIDs; PermissionError when absent or without one valid id.

    Malformed ids are dropped (they can match no row); a filter of nothing but malformed ids is refused.
    """
    if corpus_ids is None or isinstance(corpus_ids, (str, bytes)):
        raise PermissionError("canonical-layer queries need a corpus filter (a list of corpus ids)")
    parsed = list(dict.fromkeys(i for i in (parse_corpus_id(c) for c in corpus_ids) if i is not None))
    if not parsed:
        raise PermissionError("canonical-layer queries need a non-empty corpus filter of valid corpus ids")
    return parsed


@dataclass(frozen=True)
class EntityBridge:
    canonical_id: int
    canonical_name: str
    source_entity_id: int
    source_corpus_id: UUID
    target_entity_id: int
    target_corpus_id: UUID
    bridge_type: str  # "shared_entity" | "relation_path"
    hops: int  # 1 for a shared entity, 2 for a relation path
    confidence: float


@dataclass(frozen=True)
class LinkableEntity:
    """A corpus-local entity the linker has to (re)link, with its current alias if any."""

    id: int
    corpus_id: UUID
    app_name: str
    name: str
    entity_type: str
    embedding: np.ndarray | None
    degree: int
    alias_canonical_id: int | None
    linked_name: str | None
    linked_type: str | None

    @property
    def key_unchanged(self) -> bool:
        linked = (self.linked_name, self.linked_type)
        return self.alias_canonical_id is not None and linked == (self.name, self.entity_type)


@dataclass(frozen=True)
class Nearest:
    canonical_id: int
    similarity: float
    key: tuple[str, str]  # (canonical_name_normalized, canonical_type)


@dataclass(frozen=True)
class Decision:
    target_name: str
    target_name_normalized: str
    target_type: str
    decided_by: str  # "manual" | "review"


# --- canonical entities (app-scoped) ---------------------------------------------------------------------

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


NEAREST_CANDIDATES = 16


async def select_nearest_canonicals(conn: asyncpg.Connection, app_scope: str, canonical_type: str,
                                    embedding: np.ndarray, exclude_corpus_id: UUID) -> list[Nearest]:
    """The ``NEAREST_CANDIDATES`` closest canonical centroids of the same app and type, closest first, minus
    those with a member in ``exclude_corpus_id``.

    Inside one corpus the entity resolver already decided what is the same entity; the linker only merges
    across corpora by embedding. The membership check runs on the few nearest rows only (an anti-join over
    all canonicals degrades to canonicals x corpus aliases when statistics are stale, as in a rebuild).
    """
    [corpus_id] = require_corpus_filter([exclude_corpus_id])
    rows = await conn.fetch(
        """SELECT n.id, n.canonical_name_normalized, n.canonical_type, n.similarity
           FROM (SELECT c.id, c.canonical_name_normalized, c.canonical_type,
                        (1 - (c.primary_embedding <=> $3))::float8 AS similarity
                 FROM kg_entity_canonical c
                 WHERE c.app_scope = $1 AND c.canonical_type = $2 AND c.primary_embedding IS NOT NULL
                 ORDER BY c.primary_embedding <=> $3
                 LIMIT $5) n
           WHERE NOT EXISTS (SELECT 1 FROM kg_entity_alias a WHERE a.canonical_id = n.id AND a.corpus_id = $4)
           ORDER BY n.similarity DESC, n.id""",
        app_scope, canonical_type, embedding, corpus_id, NEAREST_CANDIDATES,
    )
    return [Nearest(r["id"], r["similarity"], (r["canonical_name_normalized"], r["canonical_type"])) for r in rows]


async def select_canonicals_needing_refresh(conn: asyncpg.Connection, app_scope: str) -> list[int]:
    rows = await conn.fetch("SELECT id FROM kg_entity_canonical WHERE app_scope = $1 AND needs_refresh", app_scope)
    return [r["id"] for r in rows]


async def refresh_canonicals(conn: asyncpg.Connection, canonical_ids: Sequence[int], corpus_ids: Iterable[object],
                             hub_degree_threshold: int) -> list[int]:
    """Recompute centroid (renormalised mean of member embeddings), degree, member count, hub and review
    flags; delete canonicals left without members. Returns the ids of the canonicals that still exist."""
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
        """WITH members AS (
               SELECT a.canonical_id, l2_normalize(avg(e.embedding)) AS centroid,
                      sum(e.degree)::bigint AS degree, count(*)::int AS member_count,
                      EXISTS (SELECT 1 FROM kg_canonical_review r
                              WHERE r.canonical_id = a.canonical_id AND r.status = 'pending') AS under_review
               FROM kg_entity_alias a JOIN kg_entity e ON e.id = a.local_entity_id
               WHERE a.canonical_id = ANY($1::bigint[]) AND a.corpus_id = ANY($2)
               GROUP BY a.canonical_id),
           changed AS (
               -- rows whose values did not change are not rewritten (an HNSW entry per rewrite is costly)
               UPDATE kg_entity_canonical c
               SET primary_embedding = m.centroid, degree = m.degree, member_count = m.member_count,
                   is_stopword_like = m.degree > $3, is_under_review = m.under_review,
                   needs_refresh = false, updated_at = now()
               FROM members m
               WHERE c.id = m.canonical_id
                 AND (c.primary_embedding IS DISTINCT FROM m.centroid OR c.degree <> m.degree
                      OR c.member_count <> m.member_count OR c.is_stopword_like <> (m.degree > $3)
                      OR c.is_under_review <> m.under_review OR c.needs_refresh)
               RETURNING c.id)
           SELECT canonical_id FROM members""",
        ids, corpora, hub_degree_threshold,
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


# --- aliases ----------------------------------------------------------------------------------------------

def _linkable(row: asyncpg.Record) -> LinkableEntity:
    return LinkableEntity(
        id=row["id"], corpus_id=row["corpus_id"], app_name=row["app_name"], name=row["canonical_name"],
        entity_type=row["entity_type"], embedding=None if row["embedding"] is None else row["embedding"].to_numpy(),
        degree=row["degree"], alias_canonical_id=row["alias_canonical_id"], linked_name=row["linked_name"],
        linked_type=row["linked_type"],
    )


async def select_entities_to_link(conn: asyncpg.Connection, corpus_ids: Iterable[object]) -> list[LinkableEntity]:
    """Entities of the corpora that have no alias yet or whose row changed since they were linked."""
    corpora = require_corpus_filter(corpus_ids)
    rows = await conn.fetch(
        """SELECT e.id, e.corpus_id, e.app_name, e.canonical_name, e.entity_type, e.embedding, e.degree,
                  a.canonical_id AS alias_canonical_id, a.linked_name, a.linked_type
           FROM kg_entity e
           LEFT JOIN kg_entity_alias a ON a.local_entity_id = e.id AND a.corpus_id = ANY($1)
           WHERE e.corpus_id = ANY($1)
             AND (a.id IS NULL OR a.entity_updated_at <> e.updated_at
                  OR a.linked_name <> e.canonical_name OR a.linked_type <> e.entity_type)
           ORDER BY e.id""",
        corpora,
    )
    return [_linkable(r) for r in rows]


@dataclass(frozen=True)
class NewAlias:
    canonical_id: int
    local_entity_id: int
    confidence: float
    link_method: str


async def insert_aliases(conn: asyncpg.Connection, aliases: Sequence[NewAlias]) -> None:
    """Link entities; corpus and app come from the entity rows, so an alias can never cross app_scope."""
    if not aliases:
        return
    unknown = sorted({a.link_method for a in aliases} - set(LINK_METHODS))
    if unknown:
        raise ValueError(f"unknown link_method {', '.join(unknown)}; expected one of {', '.join(LINK_METHODS)}")
    inserted = await conn.fetchval(
        """WITH inserted AS (
               INSERT INTO kg_entity_alias (canonical_id, local_entity_id, corpus_id, app_name, confidence,
                                            link_method, linked_name, linked_type, entity_updated_at)
               SELECT c.id, e.id, e.corpus_id, e.app_name, n.confidence, n.link_method, e.canonical_name,
                      e.entity_type, e.updated_at
               FROM unnest($1::bigint[], $2::bigint[], $3::float8[], $4::text[])
                    AS n(canonical_id, local_entity_id, confidence, link_method)
               JOIN kg_entity e ON e.id = n.local_entity_id
               JOIN kg_entity_canonical c ON c.id = n.canonical_id AND c.app_scope = e.app_name
               RETURNING 1)
           SELECT count(*) FROM inserted""",
        [a.canonical_id for a in aliases], [a.local_entity_id for a in aliases],
        [min(max(float(a.confidence), 0.0), 1.0) for a in aliases], [a.link_method for a in aliases],
    )
    if inserted != len(aliases):
        raise ValueError(f"{len(aliases) - inserted} of {len(aliases)} links refused: no such entity, or the "
                         "canonical belongs to another app")


async def move_aliases(conn: asyncpg.Connection, local_entity_ids: Sequence[int], canonical_id: int,
                       link_method: str, corpus_ids: Iterable[object]) -> int:
    """Re-point aliases to another canonical of the same app (the composite key refuses other apps)."""
    corpora = require_corpus_filter(corpus_ids)
    status = await conn.execute(
        """UPDATE kg_entity_alias SET canonical_id = $2, link_method = $3, confidence = 1.0,
                                      linked_at = clock_timestamp()
           WHERE local_entity_id = ANY($1::bigint[]) AND corpus_id = ANY($4)""",
        list(local_entity_ids), canonical_id, link_method, corpora,
    )
    return int(status.split()[-1])


async def delete_aliases(conn: asyncpg.Connection, local_entity_ids: Sequence[int],
                         corpus_ids: Iterable[object]) -> list[int]:
    """Unlink entities; returns the canonical ids they were linked to."""
    corpora = require_corpus_filter(corpus_ids)
    rows = await conn.fetch(
        """DELETE FROM kg_entity_alias WHERE local_entity_id = ANY($1::bigint[]) AND corpus_id = ANY($2)
           RETURNING canonical_id""",
        list(local_entity_ids), corpora,
    )
    return [r["canonical_id"] for r in rows]


async def touch_aliases(conn: asyncpg.Connection, local_entity_ids: Sequence[int],
                        corpus_ids: Iterable[object]) -> None:
    corpora = require_corpus_filter(corpus_ids)
    await conn.execute(
        """UPDATE kg_entity_alias a SET linked_at = clock_timestamp(), entity_updated_at = e.updated_at
           FROM kg_entity e
           WHERE e.id = a.local_entity_id AND a.local_entity_id = ANY($1::bigint[]) AND a.corpus_id = ANY($2)""",
        list(local_entity_ids), corpora,
    )


async def select_members(conn: asyncpg.Connection, canonical_id: int,
                         corpus_ids: Iterable[object]) -> list[asyncpg.Record]:
    """Members of a canonical inside the filter, with their entity and corpus."""
    corpora = require_corpus_filter(corpus_ids)
    return await conn.fetch(
        """SELECT a.local_entity_id, a.corpus_id, co.name AS corpus_name, a.app_name, a.link_method, a.confidence,
                  e.canonical_name AS entity_name, e.entity_type, e.degree
           FROM kg_entity_alias a
           JOIN kg_entity e ON e.id = a.local_entity_id
           JOIN corpus co ON co.id = a.corpus_id
           WHERE a.canonical_id = $1 AND a.corpus_id = ANY($2)
           ORDER BY co.name, e.canonical_name, a.local_entity_id""",
        canonical_id, corpora,
    )


async def select_alias_of_entity(conn: asyncpg.Connection, local_entity_id: int,
                                 corpus_ids: Iterable[object]) -> asyncpg.Record | None:
    corpora = require_corpus_filter(corpus_ids)
    return await conn.fetchrow(
        """SELECT a.canonical_id, a.local_entity_id, a.corpus_id, co.name AS corpus_name, a.app_name, a.link_method,
                  e.canonical_name AS entity_name, e.entity_type,
                  c.canonical_name, c.canonical_name_normalized, c.canonical_type
           FROM kg_entity_alias a
           JOIN kg_entity e ON e.id = a.local_entity_id
           JOIN corpus co ON co.id = a.corpus_id
           JOIN kg_entity_canonical c ON c.id = a.canonical_id
           WHERE a.local_entity_id = $1 AND a.corpus_id = ANY($2)""",
        local_entity_id, corpora,
    )


async def select_entity_ids_by_name(conn: asyncpg.Connection, name: str,
                                    corpus_ids: Iterable[object]) -> list[asyncpg.Record]:
    """Linked entities inside the filter named ``name`` (case-insensitive)."""
    corpora = require_corpus_filter(corpus_ids)
    return await conn.fetch(
        """SELECT e.id, e.corpus_id, e.canonical_name, e.entity_type
           FROM kg_entity e JOIN kg_entity_alias a ON a.local_entity_id = e.id AND a.corpus_id = ANY($2)
           WHERE e.corpus_id = ANY($2) AND lower(e.canonical_name) = lower($1)
           ORDER BY e.id""",
        name.strip(), corpora,
    )


async def count_links_by_method(conn: asyncpg.Connection, corpus_ids: Iterable[object]) -> dict[str, int]:
    corpora = require_corpus_filter(corpus_ids)
    rows = await conn.fetch(
        "SELECT link_method, count(*) AS n FROM kg_entity_alias WHERE corpus_id = ANY($1) GROUP BY link_method",
        corpora,
    )
    return {r["link_method"]: r["n"] for r in rows}


async def select_layer_summary(conn: asyncpg.Connection, app_scope: str,
                               corpus_ids: Iterable[object]) -> asyncpg.Record:
    """Canonical counts of the app as seen through the filter."""
    corpora = require_corpus_filter(corpus_ids)
    return await conn.fetchrow(
        """WITH visible AS (
               SELECT a.canonical_id, count(DISTINCT a.corpus_id) AS corpora
               FROM kg_entity_alias a JOIN kg_entity_canonical c ON c.id = a.canonical_id
               WHERE a.corpus_id = ANY($2) AND c.app_scope = $1
               GROUP BY a.canonical_id)
           SELECT count(*) AS canonicals,
                  count(*) FILTER (WHERE v.corpora >= 2) AS cross_corpus,
                  count(*) FILTER (WHERE c.is_stopword_like) AS hubs,
                  count(*) FILTER (WHERE c.is_under_review) AS under_review
           FROM visible v JOIN kg_entity_canonical c ON c.id = v.canonical_id""",
        app_scope, corpora,
    )


async def select_canonical_ids_of_corpora(conn: asyncpg.Connection, corpus_ids: Iterable[object]) -> list[int]:
    corpora = require_corpus_filter(corpus_ids)
    rows = await conn.fetch("SELECT DISTINCT canonical_id FROM kg_entity_alias WHERE corpus_id = ANY($1)", corpora)
    return [r["canonical_id"] for r in rows]


async def select_seconds_since_chunks_landed(conn: asyncpg.Connection, chunk_ids: Sequence[int],
                                            corpus_id: UUID) -> float | None:
    """Seconds between the commit of an ingest batch (its chunks' created_at) and now, on the database clock."""
    return await conn.fetchval(
        """SELECT extract(epoch FROM clock_timestamp() - max(created_at))::float8
           FROM knowledge WHERE id = ANY($1::bigint[]) AND corpus_id = $2""",
        list(chunk_ids), corpus_id,
    )


# --- review queue -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class NewReview:
    corpus_id: UUID
    local_entity_id: int
    canonical_id: int  # the entity's provisional canonical
    candidate: Nearest


async def insert_reviews(conn: asyncpg.Connection, app_scope: str, reviews: Sequence[NewReview]) -> None:
    if not reviews:
        return
    await conn.execute(
        """INSERT INTO kg_canonical_review (app_scope, corpus_id, local_entity_id, canonical_id,
                                            candidate_canonical_id, similarity)
           SELECT $1, * FROM unnest($2::uuid[], $3::bigint[], $4::bigint[], $5::bigint[], $6::float8[])""",
        app_scope, [r.corpus_id for r in reviews], [r.local_entity_id for r in reviews],
        [r.canonical_id for r in reviews], [r.candidate.canonical_id for r in reviews],
        [r.candidate.similarity for r in reviews],
    )


async def delete_pending_reviews_of_entities(conn: asyncpg.Connection, local_entity_ids: Sequence[int],
                                             corpus_ids: Iterable[object]) -> list[int]:
    """Drop pending items of entities being relinked or decided by hand; returns their provisional canonicals."""
    corpora = require_corpus_filter(corpus_ids)
    rows = await conn.fetch(
        """DELETE FROM kg_canonical_review
           WHERE local_entity_id = ANY($1::bigint[]) AND corpus_id = ANY($2) AND status = 'pending'
           RETURNING canonical_id""",
        list(local_entity_ids), corpora,
    )
    return [r["canonical_id"] for r in rows]


_REVIEW_COLUMNS = """r.id, r.app_scope, r.corpus_id, co.name AS corpus_name, r.local_entity_id,
                     e.canonical_name AS entity_name, e.entity_type, r.canonical_id, r.candidate_canonical_id,
                     cand.canonical_name AS candidate_name, cand.canonical_type AS candidate_type,
                     cand.canonical_name_normalized AS candidate_name_normalized,
                     r.similarity, r.status, r.created_at, r.resolved_at"""
_REVIEW_FROM = """kg_canonical_review r
                  JOIN corpus co ON co.id = r.corpus_id
                  JOIN kg_entity e ON e.id = r.local_entity_id
                  LEFT JOIN kg_entity_canonical cand ON cand.id = r.candidate_canonical_id"""


async def select_reviews(conn: asyncpg.Connection, app_scope: str, corpus_ids: Iterable[object],
                         status: str = "pending", limit: int = 100) -> list[asyncpg.Record]:
    corpora = require_corpus_filter(corpus_ids)
    return await conn.fetch(
        f"""SELECT {_REVIEW_COLUMNS} FROM {_REVIEW_FROM}
            WHERE r.app_scope = $1 AND r.corpus_id = ANY($2) AND r.status = $3
            ORDER BY r.similarity DESC, r.id LIMIT $4""",
        app_scope, corpora, status, limit,
    )


async def select_review(conn: asyncpg.Connection, review_id: int, app_scope: str,
                        corpus_ids: Iterable[object]) -> asyncpg.Record | None:
    corpora = require_corpus_filter(corpus_ids)
    return await conn.fetchrow(
        f"""SELECT {_REVIEW_COLUMNS} FROM {_REVIEW_FROM}
            WHERE r.id = $1 AND r.app_scope = $2 AND r.corpus_id = ANY($3)""",
        review_id, app_scope, corpora,
    )


async def resolve_review(conn: asyncpg.Connection, review_id: int, status: str) -> None:
    if status not in ("accepted", "rejected"):
        raise ValueError(f"a review is resolved as accepted or rejected, not {status!r}")
    await conn.execute(
        "UPDATE kg_canonical_review SET status = $2, resolved_at = now() WHERE id = $1 AND status = 'pending'",
        review_id, status,
    )


async def repoint_review_candidates(conn: asyncpg.Connection, from_canonical_id: int, to_canonical_id: int) -> None:
    await conn.execute(
        """UPDATE kg_canonical_review SET candidate_canonical_id = $2
           WHERE candidate_canonical_id = $1 AND status = 'pending' AND canonical_id <> $2""",
        from_canonical_id, to_canonical_id,
    )


async def count_pending_reviews(conn: asyncpg.Connection, app_scope: str, corpus_ids: Iterable[object]) -> int:
    corpora = require_corpus_filter(corpus_ids)
    return await conn.fetchval(
        "SELECT count(*) FROM kg_canonical_review WHERE app_scope = $1 AND corpus_id = ANY($2) AND status = 'pending'",
        app_scope, corpora,
    )


# --- durable decisions ------------------------------------------------------------------------------------

async def upsert_decisions(conn: asyncpg.Connection, app_scope: str,
                           entity_keys: Sequence[tuple[UUID, str, str]], target: Decision) -> None:
    """Record that the entities with these (corpus, normalised name, type) keys belong to the target canonical."""
    if not entity_keys:
        return
    await conn.execute(
        """INSERT INTO kg_canonical_decision (app_scope, corpus_id, entity_name_normalized, entity_type,
                                              target_name, target_name_normalized, target_type, decided_by)
           SELECT $1, k.corpus_id, k.name_normalized, k.entity_type, $5, $6, $7, $8
           FROM unnest($2::uuid[], $3::text[], $4::text[]) AS k(corpus_id, name_normalized, entity_type)
           ON CONFLICT (app_scope, corpus_id, entity_name_normalized, entity_type) DO UPDATE
           SET target_name = excluded.target_name, target_name_normalized = excluded.target_name_normalized,
               target_type = excluded.target_type, decided_by = excluded.decided_by, updated_at = now()""",
        app_scope, [k[0] for k in entity_keys], [k[1] for k in entity_keys], [k[2] for k in entity_keys],
        target.target_name, target.target_name_normalized, target.target_type, target.decided_by,
    )


async def select_decisions(conn: asyncpg.Connection, app_scope: str,
                           corpus_ids: Iterable[object]) -> dict[tuple[UUID, str, str], Decision]:
    corpora = require_corpus_filter(corpus_ids)
    rows = await conn.fetch(
        """SELECT corpus_id, entity_name_normalized, entity_type, target_name, target_name_normalized, target_type,
                  decided_by
           FROM kg_canonical_decision WHERE app_scope = $1 AND corpus_id = ANY($2)""",
        app_scope, corpora,
    )
    return {(r["corpus_id"], r["entity_name_normalized"], r["entity_type"]):
            Decision(r["target_name"], r["target_name_normalized"], r["target_type"], r["decided_by"]) for r in rows}


async def insert_rejection(conn: asyncpg.Connection, app_scope: str, corpus_id: UUID, entity_key: tuple[str, str],
                           candidate_key: tuple[str, str]) -> None:
    await conn.execute(
        """INSERT INTO kg_canonical_rejection (app_scope, corpus_id, entity_name_normalized, entity_type,
                                               candidate_name_normalized, candidate_type)
           VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING""",
        app_scope, corpus_id, *entity_key, *candidate_key,
    )


async def select_rejections(conn: asyncpg.Connection, app_scope: str,
                            corpus_ids: Iterable[object]) -> set[frozenset[tuple[str, str]]]:
    """Rejected pairs of (normalised name, type) keys, direction-free."""
    corpora = require_corpus_filter(corpus_ids)
    rows = await conn.fetch(
        """SELECT entity_name_normalized, entity_type, candidate_name_normalized, candidate_type
           FROM kg_canonical_rejection WHERE app_scope = $1 AND corpus_id = ANY($2)""",
        app_scope, corpora,
    )
    return {frozenset({(r["entity_name_normalized"], r["entity_type"]),
                       (r["candidate_name_normalized"], r["candidate_type"])}) for r in rows}


# --- bridges ----------------------------------------------------------------------------------------------

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
    shared = await conn.fetchval(_INSERT_SHARED_ENTITY_BRIDGES, app_scope, ids, corpora)
    related = await conn.fetchval(_INSERT_RELATION_PATH_BRIDGES, app_scope, ids, corpora)
    return (shared or 0) + (related or 0)


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
    are skipped, and every returned entity, corpus and bridge lies inside ``corpus_ids``.
    """
    corpora = require_corpus_filter(corpus_ids)
    entity_ids = [int(i) for i in local_entity_ids]
    if not entity_ids:
        return []
    rows = await conn.fetch(_SELECT_BRIDGES_FROM_ENTITIES, entity_ids, corpora)
    return [EntityBridge(
        canonical_id=r["canonical_id"], canonical_name=r["canonical_name"], source_entity_id=r["source_entity_id"],
        source_corpus_id=r["source_corpus_id"], target_entity_id=r["target_entity_id"],
        target_corpus_id=r["target_corpus_id"], bridge_type=r["bridge_type"], hops=r["hops"],
        confidence=float(r["confidence"]),
    ) for r in rows]


_BRIDGE_ENDPOINTS = """
    AND EXISTS (SELECT 1 FROM kg_cross_corpus_bridge_corpus bs
                WHERE bs.bridge_id = b.id AND bs.role = 'source' AND bs.corpus_id = s.corpus_id)
    AND EXISTS (SELECT 1 FROM kg_cross_corpus_bridge_corpus bt
                WHERE bt.bridge_id = b.id AND bt.role = 'target' AND bt.corpus_id = t.corpus_id)"""

_SELECT_BRIDGES_FROM_ENTITIES = f"""
WITH src AS (
    SELECT a.local_entity_id, a.corpus_id, a.canonical_id, a.confidence
    FROM kg_entity_alias a
    WHERE a.local_entity_id = ANY($1::bigint[]) AND a.corpus_id = ANY($2)),
shared AS (
    SELECT c.id AS canonical_id, c.canonical_name, s.local_entity_id AS source_entity_id,
           s.corpus_id AS source_corpus_id, t.local_entity_id AS target_entity_id, t.corpus_id AS target_corpus_id,
           'shared_entity'::text AS bridge_type, 1 AS hops, s.confidence * t.confidence AS confidence
    FROM src s
    JOIN kg_entity_canonical c ON c.id = s.canonical_id AND NOT c.is_stopword_like AND NOT c.is_under_review
    JOIN kg_cross_corpus_bridge b ON b.canonical_source_id = c.id AND b.canonical_target_id = c.id
                                 AND b.bridge_type = 'shared_entity'
    JOIN kg_entity_alias t ON t.canonical_id = c.id AND t.corpus_id = ANY($2) AND t.corpus_id <> s.corpus_id
    WHERE TRUE {_BRIDGE_ENDPOINTS}),
adjacent AS (
    SELECT s.local_entity_id, s.corpus_id, s.canonical_id, r.target_entity_id AS neighbour_id
    FROM src s JOIN kg_relation r ON r.source_entity_id = s.local_entity_id AND r.corpus_id = s.corpus_id
    UNION
    SELECT s.local_entity_id, s.corpus_id, s.canonical_id, r.source_entity_id
    FROM src s JOIN kg_relation r ON r.target_entity_id = s.local_entity_id AND r.corpus_id = s.corpus_id),
neighbours AS (
    SELECT j.local_entity_id, j.corpus_id, j.canonical_id AS source_canonical, n.canonical_id, n.confidence
    FROM adjacent j
    JOIN kg_entity_alias n ON n.local_entity_id = j.neighbour_id AND n.corpus_id = j.corpus_id),
related AS (
    SELECT c.id AS canonical_id, c.canonical_name, s.local_entity_id AS source_entity_id,
           s.corpus_id AS source_corpus_id, t.local_entity_id AS target_entity_id, t.corpus_id AS target_corpus_id,
           'relation_path'::text AS bridge_type, 2 AS hops, s.confidence * t.confidence AS confidence
    FROM neighbours s
    JOIN kg_entity_canonical c ON c.id = s.canonical_id AND NOT c.is_stopword_like AND NOT c.is_under_review
    JOIN kg_cross_corpus_bridge b ON b.canonical_source_id = s.source_canonical AND b.canonical_target_id = c.id
                                 AND b.bridge_type = 'relation_path'
    JOIN kg_entity_alias t ON t.canonical_id = c.id AND t.corpus_id = ANY($2) AND t.corpus_id <> s.corpus_id
    WHERE TRUE {_BRIDGE_ENDPOINTS}),
paths AS (SELECT * FROM shared UNION ALL SELECT * FROM related)
SELECT DISTINCT ON (source_entity_id, target_entity_id) *
FROM paths
ORDER BY source_entity_id, target_entity_id, hops, confidence DESC, canonical_id
"""


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

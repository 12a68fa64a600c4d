"""The review queue (``kg_canonical_review``): possible matches waiting for a person."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence
from uuid import UUID

import asyncpg

from knowledge.db.queries.canonical.corpus_filter import require_corpus_filter
from knowledge.db.queries.canonical.entities import Nearest


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

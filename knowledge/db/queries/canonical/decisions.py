"""Durable decisions (``kg_canonical_decision``, ``kg_canonical_rejection``): they survive a rebuild."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence
from uuid import UUID

import asyncpg

from knowledge.db.queries.canonical.corpus_filter import require_corpus_filter


@dataclass(frozen=True)
class Decision:
    target_name: str
    target_name_normalized: str
    target_type: str
    decided_by: str  # "manual" | "review"


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

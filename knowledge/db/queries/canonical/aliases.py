"""Aliases (``kg_entity_alias``): corpus-local entity -> canonical links and the counts read through them."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence
from uuid import UUID

import asyncpg
import numpy as np

from knowledge.db.queries.canonical.corpus_filter import require_corpus_filter

LINK_METHODS = ("auto_string", "auto_embedding", "review", "manual", "new_canonical")


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

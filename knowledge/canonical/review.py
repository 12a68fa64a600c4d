"""Human decisions on the canonical layer: the review queue (accept / reject) and manual merge / split.

Accept, merge and split are written to ``kg_canonical_decision`` under the entities' stable keys (corpus,
normalised name, type), a reject to ``kg_canonical_rejection`` as a pair of keys, so the linker re-applies
them after a corpus graph rebuild or ``canonical rebuild``.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Sequence
from uuid import UUID

import asyncpg

from config.settings import LinkerSettings
from knowledge.canonical.linker import UNTYPED, entity_key
from knowledge.canonical.upkeep import settle
from knowledge.db.database import Database
from knowledge.db.queries import canonical as q


class CanonicalNotFoundError(ValueError):
    """No canonical entity, alias or review item matches the reference (a bad argument, not a crash)."""


@dataclass(frozen=True)
class ReviewItem:
    id: int
    corpus_name: str
    entity_id: int
    entity_name: str
    entity_type: str
    canonical_id: int | None  # None once a decided item's canonicals are gone
    candidate_canonical_id: int | None
    candidate_name: str | None
    similarity: float
    status: str
    created_at: datetime

    @classmethod
    def from_record(cls, row: asyncpg.Record) -> "ReviewItem":
        return cls(id=row["id"], corpus_name=row["corpus_name"], entity_id=row["local_entity_id"],
                   entity_name=row["entity_name"], entity_type=row["entity_type"], canonical_id=row["canonical_id"],
                   candidate_canonical_id=row["candidate_canonical_id"], candidate_name=row["candidate_name"],
                   similarity=row["similarity"], status=row["status"], created_at=row["created_at"])


@dataclass(frozen=True)
class Outcome:
    """What a decision did: the canonical the entities now belong to and how many moved."""

    canonical_id: int
    canonical_name: str
    moved: int
    message: str


class CanonicalReview:
    def __init__(self, db: Database, settings: LinkerSettings) -> None:
        self.db = db
        self.settings = settings

    async def queue(self, app_scope: str, status: str = "pending", limit: int = 100) -> list[ReviewItem]:
        async with self.db.connection() as conn:
            corpora = await q.select_app_corpus_ids(conn, app_scope)
            if not corpora:
                return []
            return [ReviewItem.from_record(r) for r in await q.select_reviews(conn, app_scope, corpora, status, limit)]

    async def accept(self, app_scope: str, review_id: int) -> Outcome:
        """Merge the entity's provisional canonical into the candidate it was compared with."""
        async with self.db.transaction() as conn:
            await q.lock_app_scope(conn, app_scope)
            corpora = await q.select_app_corpus_ids(conn, app_scope)
            item = await self._pending_item(conn, app_scope, review_id, corpora)
            await q.resolve_review(conn, review_id, "accepted")
            return await self._merge(conn, app_scope, corpora, item["candidate_canonical_id"], item["canonical_id"],
                                     decided_by="review")

    async def reject(self, app_scope: str, review_id: int) -> Outcome:
        """Keep the entity apart from the candidate: its own canonical stops being under review, and the two
        keys are never merged or queued against each other again."""
        async with self.db.transaction() as conn:
            await q.lock_app_scope(conn, app_scope)
            corpora = await q.select_app_corpus_ids(conn, app_scope)
            item = await self._pending_item(conn, app_scope, review_id, corpora)
            await q.resolve_review(conn, review_id, "rejected")
            await q.insert_rejection(conn, app_scope, item["corpus_id"],
                                     (entity_key(item["entity_name"]), item["entity_type"]),
                                     (item["candidate_name_normalized"], item["candidate_type"]))
            await settle(conn, app_scope, corpora, [item["canonical_id"]], self.settings.canonical_hub_degree_threshold)
        return Outcome(item["canonical_id"], item["entity_name"], 0,
                       f"kept {item['entity_name']} ({item['corpus_name']}) apart from {item['candidate_name']}")

    async def merge(self, app_scope: str, into: str, other: str, *, allow_type_conflict: bool = False) -> Outcome:
        """Move every member of canonical ``other`` into canonical ``into`` (ids or names)."""
        async with self.db.transaction() as conn:
            await q.lock_app_scope(conn, app_scope)
            corpora = await q.select_app_corpus_ids(conn, app_scope)
            target = await self._canonical(conn, app_scope, into, corpora)
            source = await self._canonical(conn, app_scope, other, corpora)
            if target["id"] == source["id"]:
                raise ValueError(f"{into!r} and {other!r} are the same canonical entity (id {target['id']})")
            types = {target["canonical_type"], source["canonical_type"]} - {UNTYPED}
            if len(types) > 1 and not allow_type_conflict:
                raise ValueError(
                    f"type conflict: {target['canonical_name']} is {target['canonical_type']} and "
                    f"{source['canonical_name']} is {source['canonical_type']}; "
                    "pass --allow-type-conflict to merge anyway")
            return await self._merge(conn, app_scope, corpora, target["id"], source["id"], decided_by="manual")

    async def split(self, app_scope: str, entity: str, corpus_name: str | None = None) -> Outcome:
        """Detach one local entity (id, or name plus corpus) from its canonical into a canonical of its own."""
        async with self.db.transaction() as conn:
            await q.lock_app_scope(conn, app_scope)
            corpora = await q.select_app_corpus_ids(conn, app_scope)
            alias = await self._alias(conn, entity, corpus_name, corpora)
            members = await q.select_members(conn, alias["canonical_id"], corpora)
            if len(members) == 1:
                raise ValueError(f"entity {alias['local_entity_id']} ({alias['entity_name']}) is already the only "
                                 f"member of canonical {alias['canonical_id']}")
            key = entity_key(alias["entity_name"])
            # "<key>@<corpus>" never collides with a normalised name (those hold no '@').
            split_key = f"{key}@{alias['corpus_name']}"
            new_id = await q.insert_canonical(conn, app_scope, alias["entity_name"], split_key, alias["entity_type"],
                                              None, 0)  # settle() below computes centroid and degree
            await q.delete_pending_reviews_of_entities(conn, [alias["local_entity_id"]], corpora)
            await q.move_aliases(conn, [alias["local_entity_id"]], new_id, "manual", corpora)
            await q.upsert_decisions(conn, app_scope, [(alias["corpus_id"], key, alias["entity_type"])],
                                     q.Decision(alias["entity_name"], split_key, alias["entity_type"], "manual"))
            await settle(conn, app_scope, corpora, [alias["canonical_id"], new_id],
                         self.settings.canonical_hub_degree_threshold)
        return Outcome(new_id, alias["entity_name"], 1,
                       f"split {alias['entity_name']} ({alias['corpus_name']}) into canonical {new_id}")

    async def _merge(self, conn: asyncpg.Connection, app_scope: str, corpora: Sequence[UUID], target_id: int,
                     source_id: int, *, decided_by: str) -> Outcome:
        target = (await q.select_canonicals_by_reference(conn, app_scope, str(target_id), corpora))[0]
        members = await q.select_members(conn, source_id, corpora)
        entity_ids = [m["local_entity_id"] for m in members]
        await q.delete_pending_reviews_of_entities(conn, entity_ids, corpora)
        await q.repoint_review_candidates(conn, source_id, target_id)
        await q.move_aliases(conn, entity_ids, target_id, decided_by, corpora)
        await q.upsert_decisions(conn, app_scope,
                                 [(m["corpus_id"], entity_key(m["entity_name"]), m["entity_type"]) for m in members],
                                 q.Decision(target["canonical_name"], target["canonical_name_normalized"],
                                            target["canonical_type"], decided_by))
        await settle(conn, app_scope, corpora, [target_id, source_id], self.settings.canonical_hub_degree_threshold)
        return Outcome(target_id, target["canonical_name"], len(members),
                       f"merged {len(members)} entities into {target['canonical_name']} (canonical {target_id})")

    @staticmethod
    async def _pending_item(conn: asyncpg.Connection, app_scope: str, review_id: int,
                            corpora: Sequence[UUID]) -> asyncpg.Record:
        item = await q.select_review(conn, review_id, app_scope, corpora) if corpora else None
        if item is None:
            raise CanonicalNotFoundError(f"no review item {review_id} in app {app_scope!r}")
        if item["status"] != "pending":
            raise ValueError(f"review item {review_id} is already {item['status']}")
        return item

    @staticmethod
    async def _canonical(conn: asyncpg.Connection, app_scope: str, reference: str,
                         corpora: Sequence[UUID]) -> asyncpg.Record:
        found = await q.select_canonicals_by_reference(conn, app_scope, reference, corpora) if corpora else []
        if not found:
            raise CanonicalNotFoundError(f"no canonical entity {reference!r} in app {app_scope!r}")
        if len(found) > 1:
            choices = ", ".join(f"{r['id']} ({r['canonical_name']}, {r['canonical_type']})" for r in found)
            raise ValueError(f"{reference!r} names several canonical entities: {choices}; use an id")
        return found[0]

    @staticmethod
    async def _alias(conn: asyncpg.Connection, entity: str, corpus_name: str | None,
                     corpora: Sequence[UUID]) -> asyncpg.Record:
        reference = entity.strip()
        if not corpora:
            raise CanonicalNotFoundError("the app has no corpora")
        if reference.isdigit():
            alias = await q.select_alias_of_entity(conn, int(reference), corpora)
            if alias is None:
                raise CanonicalNotFoundError(f"no linked entity with id {reference}")
            return alias
        matches = [await q.select_alias_of_entity(conn, r["id"], corpora)
                   for r in await q.select_entity_ids_by_name(conn, reference, corpora)]
        if corpus_name is not None:
            matches = [m for m in matches if m["corpus_name"] == corpus_name]
        if not matches:
            where = f" in corpus {corpus_name!r}" if corpus_name else ""
            raise CanonicalNotFoundError(f"no linked entity named {reference!r}{where}")
        if len(matches) > 1:
            choices = ", ".join(f"{m['local_entity_id']} ({m['corpus_name']}, {m['entity_type']})" for m in matches)
            raise ValueError(f"{reference!r} names several entities: {choices}; use an id or --corpus")
        return matches[0]

"""The federated canonical layer as KnowledgeApp exposes it (``kapp.canonical``): incremental linking after
each ingest, rebuild, the review commands, and the layer's statistics and metrics."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Awaitable, Callable, Sequence, TypeVar
from uuid import UUID

from config.settings import LinkerSettings
from knowledge.canonical.linker import CanonicalLinker, LinkReport
from knowledge.canonical.review import CanonicalReview, Outcome, ReviewItem
from knowledge.corpora import Corpus
from knowledge.db.database import Database
from knowledge.db.queries import canonical as q
from knowledge.ingest.pipeline import NewChunk
from knowledge.metrics import (canonical_build_lag_seconds, canonical_review_queue_depth, canonical_review_share,
                                ingest_stage_seconds)

logger = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True)
class CanonicalStats:
    app_scope: str
    links: dict[str, int] = field(default_factory=dict)  # link_method -> aliases in the database
    pending_reviews: int = 0
    canonicals: int = 0
    cross_corpus_canonicals: int = 0
    hubs: int = 0
    under_review: int = 0
    bridges: dict[str, int] = field(default_factory=dict)  # bridge_type -> bridges

    @property
    def total_links(self) -> int:
        return sum(self.links.values())

    @property
    def merge_decisions(self) -> int:
        """Links that attached an entity to a canonical rather than founding one."""
        return self.total_links - self.links.get("new_canonical", 0)

    def share(self, link_method: str) -> float:
        """Share of all aliases linked by ``link_method``."""
        return self.links.get(link_method, 0) / self.total_links if self.total_links else 0.0

    def decision_share(self, link_method: str) -> float:
        """Share of merge decisions (founding links excluded) made by ``link_method``."""
        return self.links.get(link_method, 0) / self.merge_decisions if self.merge_decisions else 0.0

    @property
    def review_share(self) -> float:
        return self.share("review")


class CanonicalLayer:
    def __init__(self, db: Database, settings: LinkerSettings, app_scope: str,
                 on_change: Callable[[], Awaitable[None]] | None = None) -> None:
        self.db = db
        self.app_scope = app_scope
        self.linker = CanonicalLinker(db, settings)
        self.review = CanonicalReview(db, settings)
        # told after a relink, rebuild or review decision (the planner drops its cached neighbourhoods)
        self.on_change = on_change

    async def after_ingest(self, corpus: Corpus, new_chunks: list[NewChunk], *, finished: bool = True) -> None:
        """Post-ingest step (after the graph step): link the corpus's new and changed entities. ``finished`` is
        false for the runs on the chunks stored while the model embeds the rest."""
        with ingest_stage_seconds.labels(stage="canonical_linking").time():
            report = await self.link_corpus(corpus, ingest_finished=finished)
        if new_chunks:
            async with self.db.connection() as conn:
                lag = await q.select_seconds_since_chunks_landed(conn, [c.id for c in new_chunks], corpus.id)
                if lag is not None:
                    await q.insert_build_lag(conn, corpus.app_name, max(lag, 0.0))
            if lag is not None:
                canonical_build_lag_seconds.observe(max(lag, 0.0))
        logger.info("canonical links for %s: %s (%d kept, %d bridges written)", corpus.name, dict(report.links),
                    report.kept, report.bridges_written)

    async def link_corpus(self, corpus: Corpus, *, ingest_finished: bool = True) -> LinkReport:
        report = await self.linker.link_corpora(corpus.app_name, [corpus.id], ingest_finished=ingest_finished)
        await self.refresh_gauges(corpus.app_name)
        return report

    async def link_corpora(self, corpora: Sequence[Corpus]) -> LinkReport:
        return await self._after(await self.linker.link_corpora(self.app_scope, [c.id for c in corpora]))

    async def rebuild(self) -> LinkReport:
        return await self._after(await self.linker.rebuild(self.app_scope))

    async def review_queue(self, limit: int = 100) -> list[ReviewItem]:
        return await self.review.queue(self.app_scope, limit=limit)

    async def accept(self, review_id: int) -> Outcome:
        return await self._after(await self.review.accept(self.app_scope, review_id))

    async def reject(self, review_id: int) -> Outcome:
        return await self._after(await self.review.reject(self.app_scope, review_id))

    async def merge(self, into: str, other: str, *, allow_type_conflict: bool = False) -> Outcome:
        return await self._after(await self.review.merge(self.app_scope, into, other,
                                                         allow_type_conflict=allow_type_conflict))

    async def split(self, entity: str, corpus_name: str | None = None) -> Outcome:
        return await self._after(await self.review.split(self.app_scope, entity, corpus_name))

    async def _after(self, outcome: T) -> T:
        await self.refresh_gauges()
        if self.on_change is not None:
            await self.on_change()
        return outcome

    async def stats(self, app_scope: str | None = None) -> CanonicalStats:
        scope = app_scope or self.app_scope
        async with self.db.connection() as conn:
            corpora = await q.select_app_corpus_ids(conn, scope)
            if not corpora:
                return CanonicalStats(scope)
            summary = await q.select_layer_summary(conn, scope, corpora)
            return CanonicalStats(
                app_scope=scope, links=await q.count_links_by_method(conn, corpora),
                pending_reviews=await q.count_pending_reviews(conn, scope, corpora),
                canonicals=summary["canonicals"], cross_corpus_canonicals=summary["cross_corpus"],
                hubs=summary["hubs"], under_review=summary["under_review"],
                bridges=await q.count_bridges_by_type(conn, scope, corpora),
            )

    async def refresh_gauges(self, app_scope: str | None = None) -> CanonicalStats:
        """Set the queue-depth and review-share gauges from the database."""
        stats = await self.stats(app_scope)
        canonical_review_queue_depth.set(stats.pending_reviews)
        canonical_review_share.set(stats.review_share)
        return stats

    async def members(self, reference: str) -> list[tuple[dict, list[dict]]]:
        """Canonicals matching an id or name, each with its members (for ``canonical show``)."""
        async with self.db.connection() as conn:
            corpora = await q.select_app_corpus_ids(conn, self.app_scope)
            if not corpora:
                return []
            found = await q.select_canonicals_by_reference(conn, self.app_scope, reference, corpora)
            return [(dict(c), [dict(m) for m in await q.select_members(conn, c["id"], corpora)]) for c in found]

    async def bridges(self, corpus_ids: Sequence[UUID] | None = None, limit: int = 50) -> list[dict]:
        """Bridges between corpora of ``corpus_ids`` (None: every corpus of the app)."""
        async with self.db.connection() as conn:
            if corpus_ids is None:
                corpus_ids = await q.select_app_corpus_ids(conn, self.app_scope)
                if not corpus_ids:
                    return []
            return [dict(r) for r in await q.select_bridges(conn, self.app_scope, corpus_ids, limit)]

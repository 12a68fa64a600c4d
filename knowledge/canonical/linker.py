"""Canonical linker: every corpus-local entity of an app gets an alias to one canonical entity.

Per entity, first rule that applies (docs/design.md section 2):

1. a durable human decision for its (corpus, normalised name, type) -> that canonical (``manual`` / ``review``);
2. a canonical of the same app with the same normalised name and type -> ``auto_string``;
3. the nearest same-type centroid of a canonical without members in the entity's corpus:
   cosine >= ``auto_embedding_threshold`` (0.88) -> ``auto_embedding``;
   cosine >= ``review_threshold`` (0.75) -> a new provisional canonical plus a review item (``review``);
   a pair of keys a reviewer rejected is neither merged nor queued again: a new canonical (``review``);
4. otherwise a new canonical whose founding member it is (``new_canonical``).

Types never mix: rules 2 and 3 only consider canonicals of the entity's own type. ``OTHER`` is the
extractor's "type unknown" and conflicts with nothing in rule 2: an OTHER entity joins the one canonical of
its name (if there is exactly one), and a typed entity joins an OTHER canonical of its name, which then takes
the entity's type. Linking is incremental: only entities without an alias or whose row changed since they
were linked are processed.
"""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Sequence
from uuid import UUID

import asyncpg

from config.settings import LinkerSettings
from knowledge.canonical.centroid_index import index_new_centroids
from knowledge.canonical.run_canonicals import RunCanonicals
from knowledge.canonical.upkeep import settle
from knowledge.db.database import Database
from knowledge.db.queries import canonical as q
from knowledge.metrics import canonical_link_total
from knowledge.names import normalize_name

UNTYPED = "OTHER"


def entity_key(name: str) -> str:
    """The exact-match key of an entity name (normalize_name, or the case-folded name if that is empty)."""
    return normalize_name(name) or name.casefold().strip()


@dataclass
class LinkReport:
    app_scope: str
    links: Counter = field(default_factory=Counter)  # link_method -> entities linked by this run
    kept: int = 0  # entities whose row changed but whose name and type did not: link kept, centroid refreshed
    reviews_created: int = 0
    canonicals_refreshed: int = 0
    bridges_written: int = 0
    seconds: float = 0.0

    @property
    def linked(self) -> int:
        return sum(self.links.values())


class _CanonicalIndex:
    """The app's canonicals by (normalised name, type) for the names one link run deals with."""

    def __init__(self, by_key: dict[tuple[str, str], int]) -> None:
        self._by_name: dict[str, dict[str, int]] = {}
        for (name, canonical_type), canonical_id in by_key.items():
            self.add(name, canonical_type, canonical_id)

    def get(self, name: str, canonical_type: str) -> int | None:
        return self._by_name.get(name, {}).get(canonical_type)

    def types_of(self, name: str) -> dict[str, int]:
        return self._by_name.get(name, {})

    def add(self, name: str, canonical_type: str, canonical_id: int) -> None:
        self._by_name.setdefault(name, {})[canonical_type] = canonical_id

    def retype(self, name: str, old_type: str, new_type: str) -> int:
        canonical_id = self._by_name[name].pop(old_type)
        self.add(name, new_type, canonical_id)
        return canonical_id


@dataclass(frozen=True)
class _Target:
    canonical_id: int
    link_method: str
    confidence: float
    review_candidate: q.Nearest | None = None


class CanonicalLinker:
    def __init__(self, db: Database, settings: LinkerSettings) -> None:
        self.db = db
        self.settings = settings

    async def link_corpora(self, app_scope: str, corpus_ids: Sequence[UUID], *,
                           ingest_finished: bool = True) -> LinkReport:
        """Incrementally link the given corpora of ``app_scope`` (one transaction). ``ingest_finished`` is false
        for the runs during an ingest, after which more entities follow (see centroid_index)."""
        started = time.perf_counter()
        async with self.db.transaction() as conn:
            await q.lock_app_scope(conn, app_scope)
            app_corpora = await q.select_app_corpus_ids(conn, app_scope)
            foreign = [str(c) for c in corpus_ids if c not in app_corpora]
            if foreign:
                raise PermissionError(f"corpora {', '.join(foreign)} are not corpora of app {app_scope!r}")
            report = await self._link(conn, app_scope, app_corpora, list(corpus_ids))
        await self._index_centroids(ingest_finished)
        return self._finish(report, started)

    async def rebuild(self, app_scope: str) -> LinkReport:
        """Drop the app's canonical layer and relink every entity; durable decisions are re-applied."""
        started = time.perf_counter()
        async with self.db.transaction() as conn:
            await q.lock_app_scope(conn, app_scope)
            app_corpora = await q.select_app_corpus_ids(conn, app_scope)
            await q.delete_app_scope_canonicals(conn, app_scope)
            report = (await self._link(conn, app_scope, app_corpora, app_corpora) if app_corpora
                      else LinkReport(app_scope))
        await self._index_centroids(ingest_finished=True)
        return self._finish(report, started)

    async def _index_centroids(self, ingest_finished: bool) -> None:
        # its own transaction: a rebuild must not wait for locks while holding the link run's
        async with self.db.transaction() as conn:
            await index_new_centroids(conn, ingest_finished)

    @staticmethod
    def _finish(report: LinkReport, started: float) -> LinkReport:
        for method, count in report.links.items():
            canonical_link_total.labels(link_method=method).inc(count)
        report.seconds = time.perf_counter() - started
        return report

    async def _link(self, conn: asyncpg.Connection, app_scope: str, app_corpora: list[UUID],
                    corpus_ids: list[UUID]) -> LinkReport:
        report = LinkReport(app_scope)
        if not corpus_ids:
            return report
        entities = await q.select_entities_to_link(conn, corpus_ids)
        touched: set[int] = set()

        kept = [e for e in entities if e.key_unchanged]
        if kept:
            await q.touch_aliases(conn, [e.id for e in kept], corpus_ids)
            touched.update(e.alias_canonical_id for e in kept)  # type: ignore[misc]
            report.kept = len(kept)
        relinked = [e.id for e in entities if e.alias_canonical_id is not None and not e.key_unchanged]
        if relinked:
            touched.update(await q.delete_pending_reviews_of_entities(conn, relinked, corpus_ids))
            touched.update(await q.delete_aliases(conn, relinked, corpus_ids))

        decisions = await q.select_decisions(conn, app_scope, corpus_ids)
        rejections = await q.select_rejections(conn, app_scope, app_corpora)
        corpus_rank = {c: i for i, c in enumerate(app_corpora)}
        pending = [(e, entity_key(e.name)) for e in entities if not e.key_unchanged]
        # Entities carrying a decision go first so the canonicals those decisions name exist before exact
        # matching and embedding search run for everyone else (a rebuild then reproduces the decided layout).
        pending.sort(key=lambda item: ((item[0].corpus_id, item[1], item[0].entity_type) not in decisions,
                                       corpus_rank.get(item[0].corpus_id, 0), item[0].id))
        names = {key for _, key in pending} | {d.target_name_normalized for d in decisions.values()}
        index = _CanonicalIndex(await q.select_canonical_ids_by_names(conn, app_scope, sorted(names)))

        run = RunCanonicals()
        # nearest existing canonicals of every entity in one statement (the run's own canonicals are searched
        # in memory), skipped where it could only come back empty; an entity that turns out to match by name
        # just does not use its candidates
        wanted = [(e, key) for e, key in pending if e.embedding is not None
                  and (e.corpus_id, key, e.entity_type) not in decisions]
        searchable = await q.select_searchable_types(conn, app_scope, corpus_ids,
                                                     sorted({e.entity_type for e, _ in wanted}))
        searched = [(e, key) for e, key in wanted if (e.corpus_id, e.entity_type) in searchable]
        nearest_of = dict(zip((e.id for e, _ in searched), await q.select_nearest_canonicals_many(
            conn, app_scope, [(e.entity_type, e.embedding, e.corpus_id) for e, _ in searched])))
        choice = _Choice(self.settings, decisions, rejections, index, run, nearest_of,
                         multi_corpus=len(corpus_ids) > 1)

        aliases: list[q.NewAlias] = []
        reviews: list[q.NewReview] = []
        joined: dict[UUID, set[int]] = {}  # corpus -> canonicals this run gave a member of that corpus
        for entity, key in pending:
            target = await choice.choose(conn, entity, key, joined.setdefault(entity.corpus_id, set()))
            aliases.append(q.NewAlias(target.canonical_id, entity.id, target.confidence, target.link_method))
            if target.review_candidate is not None:
                reviews.append(q.NewReview(entity.corpus_id, entity.id, target.canonical_id, target.review_candidate))
            joined[entity.corpus_id].add(target.canonical_id)
            report.links[target.link_method] += 1
        await run.write(conn, app_scope)
        aliases = [replace(a, canonical_id=run.resolve(a.canonical_id)) for a in aliases]
        reviews = [replace(r, canonical_id=run.resolve(r.canonical_id),
                           candidate=replace(r.candidate, canonical_id=run.resolve(r.candidate.canonical_id)))
                   for r in reviews]
        touched.update(a.canonical_id for a in aliases)
        await q.insert_aliases(conn, aliases)
        await q.insert_reviews(conn, app_scope, reviews)
        report.reviews_created = len(reviews)

        upkeep = await settle(conn, app_scope, app_corpora, touched, self.settings.canonical_hub_degree_threshold)
        report.canonicals_refreshed = upkeep.canonicals_refreshed
        report.bridges_written = upkeep.bridges_written
        return report



class _Choice:
    """The rules of the module docstring for one entity at a time, over what the run has decided so far."""

    def __init__(self, settings: LinkerSettings, decisions: dict[tuple[UUID, str, str], q.Decision],
                 rejections: set[frozenset[tuple[str, str]]], index: _CanonicalIndex, run: RunCanonicals,
                 nearest_of: dict[int, list[q.Nearest]], multi_corpus: bool) -> None:
        self.settings = settings
        self.decisions = decisions
        self.rejections = rejections
        self.index = index
        self.run = run
        self.nearest_of = nearest_of
        self.multi_corpus = multi_corpus
        self.retyped: dict[int, str] = {}  # existing canonicals this run gave a type (they were OTHER)

    def canonical_for(self, entity: q.LinkableEntity, name: str, name_normalized: str, canonical_type: str) -> int:
        canonical_id = self.index.get(name_normalized, canonical_type)
        if canonical_id is None:
            canonical_id = self.run.add(name, name_normalized, canonical_type, entity.embedding, entity.degree)
            self.index.add(name_normalized, canonical_type, canonical_id)
        return canonical_id

    def nearest(self, entity: q.LinkableEntity, joined_by_corpus: set[int]) -> q.Nearest | None:
        if entity.embedding is None:
            return None
        found = [c for c in self.nearest_of.get(entity.id, ())
                 if c.canonical_id not in joined_by_corpus
                 and self.retyped.get(c.canonical_id, c.key[1]) == entity.entity_type]
        best = found[0] if found else None
        if self.multi_corpus:
            own = self.run.nearest(entity.entity_type, entity.embedding, joined_by_corpus)
            if own is not None and (best is None or own.similarity > best.similarity):
                best = own
        return best

    async def choose(self, conn: asyncpg.Connection, entity: q.LinkableEntity, key: str,
                     joined_by_corpus: set[int]) -> _Target:
        decision = self.decisions.get((entity.corpus_id, key, entity.entity_type))
        if decision is not None:
            canonical_id = self.canonical_for(entity, decision.target_name, decision.target_name_normalized,
                                              decision.target_type)
            return _Target(canonical_id, decision.decided_by, 1.0)
        same_name = await self._same_name(conn, key, entity.entity_type)
        if same_name is not None:
            return _Target(same_name, "auto_string", 1.0)
        nearest = self.nearest(entity, joined_by_corpus)
        settings = self.settings
        if nearest is None or nearest.similarity < settings.review_threshold:
            return _Target(self.canonical_for(entity, entity.name, key, entity.entity_type), "new_canonical", 1.0)
        if frozenset({(key, entity.entity_type), nearest.key}) in self.rejections:
            return _Target(self.canonical_for(entity, entity.name, key, entity.entity_type), "review", 1.0)
        if nearest.similarity >= settings.auto_embedding_threshold:
            return _Target(nearest.canonical_id, "auto_embedding", nearest.similarity)
        return _Target(self.canonical_for(entity, entity.name, key, entity.entity_type), "review",
                       nearest.similarity, review_candidate=nearest)

    async def _same_name(self, conn: asyncpg.Connection, key: str, entity_type: str) -> int | None:
        """The canonical an exact name match links to, under the type rules above (None: no match)."""
        index = self.index
        exact = index.get(key, entity_type)
        if exact is not None:
            return exact
        if entity_type != UNTYPED and index.get(key, UNTYPED) is not None:
            canonical_id = index.retype(key, UNTYPED, entity_type)
            if canonical_id < 0:
                self.run.retype(canonical_id, entity_type)
            else:
                await q.retype_canonical(conn, canonical_id, entity_type)
                self.retyped[canonical_id] = entity_type
            return canonical_id
        if entity_type == UNTYPED and len(index.types_of(key)) == 1:
            return next(iter(index.types_of(key).values()))
        return None

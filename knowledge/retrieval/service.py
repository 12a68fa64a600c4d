"""UnifiedRetrievalService: the one retrieval entry point (permission scope, routing, timeout, fallback).

Routing (docs/design.md section 3): feature flag off (or the person outside its rollout) or no corpus mentioned ->
legacy search; one corpus ->
planner, dense seeds and entity hops inside the corpus; several -> planner with per-corpus seeds, entity hops
and cross-corpus graph expansion. Only overview questions skip the graph; whether graph evidence makes the
results is decided at rerank, where dense's best chunks keep their places. Callers only say which corpora;
nobody can force the graph. Any planner failure or the pipeline timeout (settings.planner.timeout_seconds, over
every stage after the query embedding) gives the legacy result (mode "fallback").

Embedding spaces (docs/design.md section 7): the question is embedded with the model each corpus is on, once per
model. The planner compares one question vector with chunks, entities and centroids of many corpora, so it runs
over corpora of one model: those of another model are left out of expansion, and mentioned corpora on two
models (a migration under way) get the per-corpus legacy search (mode "fallback", reason "embedding_models").
A corpus switched while a search ran (its version changed) has the search run again.
"""
from __future__ import annotations

import asyncio
import logging
import time
from typing import Awaitable, Callable, Iterable, TypeVar
from uuid import UUID

import asyncpg
import numpy as np

from config import Settings
from knowledge.corpora import KnownCorpora
from knowledge.corpus_ids import parse_corpus_id
from knowledge.db.database import Database
from knowledge.db.errors import is_connection_failure, unreachable
from knowledge.db.queries import planner as planner_queries
from knowledge.db.queries.embeddings import CorpusSpace
from knowledge.embedding import QueryEmbeddingCache
from knowledge.retrieval.embedding_spaces import EmbeddingSpaces, read_spaces
from knowledge.metrics import (cross_corpus_expansion_total, cross_corpus_path_length, observe_planner_run,
                               planner_fallback_total, planner_requests_total)
from knowledge.pg_text import clean_text
from knowledge.retrieval.legacy import legacy_search
from knowledge.retrieval.planner import HybridPlanner, NeighbourhoodCache, PlanRequest, PlanState, StageFailed
from knowledge.retrieval.planner.graph_reads import read_limits
from knowledge.retrieval.planner.run_log import record_run
from knowledge.retrieval.planner.snapshot_store import GraphSnapshots
from knowledge.retrieval.query_intent import QueryKind, classify_query, follows_entities
from knowledge.retrieval.results import BridgePath, RetrievalResponse, SearchHit, StageTrace
from knowledge.retrieval.rollout import rollout_path
from knowledge.retrieval.scope import Scope, effective_scope

logger = logging.getLogger(__name__)

_SPACE_ATTEMPTS = 3  # a search runs again when a corpus switched model meanwhile; a third switch in a row is not
_Result = TypeVar("_Result")


class _MixedSpaces(Exception):
    """The mentioned corpora are on more than one embedding model."""


class UnifiedRetrievalService:
    def __init__(self, db: Database, query_cache: QueryEmbeddingCache, *, settings: Settings | None = None,
                 planner: HybridPlanner | None = None, graph_snapshots: GraphSnapshots | None = None,
                 spaces: EmbeddingSpaces | None = None) -> None:
        """``graph_snapshots``: another service's, to share its loads (it serves only the read limits it was
        built with, so a service with other limits reads SQL)."""
        self.db = db
        self.settings = settings or db.settings
        self.query_cache = query_cache
        self.spaces = spaces or EmbeddingSpaces(query_cache, self.settings)
        self._spaces_seen: dict[UUID, CorpusSpace] = {}
        self.corpora = KnownCorpora(db)
        self.neighbourhoods = NeighbourhoodCache(self.settings.planner.cache_size)
        self.graph_snapshots = graph_snapshots or GraphSnapshots(db, read_limits(self.settings),
                                                                 self.settings.planner.graph_snapshot_rows)
        self.planner = planner or HybridPlanner.default(db, self.spaces, self.neighbourhoods, self.settings,
                                                        self.graph_snapshots)

    async def close(self) -> None:
        """Stop a graph snapshot load under way (before the database closes)."""
        await self.graph_snapshots.close()

    async def on_graph_updated(self) -> None:
        """After an ingest has changed chunks, the corpus graph and canonical bridges: drop cached
        neighbourhoods and corpus graph snapshots, and refresh the statistics the planner's queries are planned
        with (until autovacuum gets to a freshly loaded bridge table, a bridge lookup can take seconds instead of
        milliseconds)."""
        self.neighbourhoods.clear()
        self.graph_snapshots.clear()
        try:
            async with self.db.connection() as conn:
                for table in await planner_queries.select_tables_needing_analyze(conn):
                    await planner_queries.analyze_table(conn, table)
        except asyncpg.PostgresError as exc:  # stale statistics slow searches down; they must not fail an ingest
            logger.warning("could not refresh planner table statistics: %s: %s", type(exc).__name__, exc)

    async def search(self, query: str, corpus_ids: Iterable[object] | None, accessible_corpus_ids: Iterable[object],
                     *, limit: int = 10, strict_scope: bool = False, person_id: str | None = None
                     ) -> RetrievalResponse:
        """Search ``corpus_ids`` ∩ ``accessible_corpus_ids`` (``corpus_ids`` None: every accessible corpus).

        ``strict_scope``: graph expansion stays inside the mentioned corpora. Without it, expansion may also
        bring graph-expanded evidence (never primary) from accessible corpora that were not mentioned.
        ``person_id``: who searches, for the rollout flags' choice of path (knowledge/retrieval/rollout.py).
        Never raises for retrieval failures; only for a missing ``accessible_corpus_ids``, a bad ``limit``, or
        a database that cannot be reached (DatabaseUnreachableError: an empty answer would read as a gap).
        """
        if accessible_corpus_ids is None:
            raise TypeError("accessible_corpus_ids is required")
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit must be a positive integer, got {limit!r}")
        started = time.perf_counter()
        query = clean_text(query).text  # a NUL or lone surrogate would fail every SQL stage
        accessible = list(accessible_corpus_ids)
        requested = None if corpus_ids is None else list(corpus_ids)
        scope = effective_scope(requested, accessible)
        kind = classify_query(query)
        path = rollout_path(self.settings.knowledge_feature_flags, self.settings.app_name, person_id)
        if scope.is_empty or not query.strip():
            response = RetrievalResponse(hits=[], mode="empty", query_kind=kind.value)
        else:
            readable = [*scope.effective, *(c for c in map(parse_corpus_id, accessible) if c is not None)]
            ids = list(dict.fromkeys(readable))
            if requested is None or path == "legacy":
                response = await self._in_current_spaces(ids, lambda spaces: self._legacy(query, kind, scope, limit,
                                                                                           spaces))
            else:
                response = await self._in_current_spaces(ids, lambda spaces: self._planned(
                    query, kind, scope, accessible, limit, strict_scope, spaces))
        response.rejected_corpus_ids = list(scope.rejected)
        response.rollout_path = path
        self._observe(response)
        self.db.write_later(record_run(self.db, response, len(scope.effective), time.perf_counter() - started))
        return response

    async def _in_current_spaces(self, ids: list[UUID],
                                 search: Callable[[dict[UUID, CorpusSpace]], Awaitable[_Result]]) -> _Result:
        """``search`` with the corpora's current models, run again when one switched model meanwhile (its
        question vectors may then have met the other model's vectors)."""
        for _ in range(_SPACE_ATTEMPTS):
            spaces = await self._current_spaces(ids)
            result = await search(spaces)
            if await read_spaces(self.db, ids) == spaces:
                break
        return result

    async def _current_spaces(self, ids: list[UUID]) -> dict[UUID, CorpusSpace]:
        """The corpora's models now; cached graph snapshots (they hold chunk vectors) go when any switched."""
        spaces = await read_spaces(self.db, ids)
        if any(self._spaces_seen.get(c, space) != space for c, space in spaces.items()):
            self.neighbourhoods.clear()
            self.graph_snapshots.clear()
        self._spaces_seen.update(spaces)
        return spaces

    async def _question_vectors(self, query: str, corpus_ids: Iterable[UUID],
                                spaces: dict[UUID, CorpusSpace]) -> dict[UUID, np.ndarray]:
        """The question in the space of each corpus, embedded once per model."""
        wanted = [c for c in corpus_ids if c in spaces]
        models = dict.fromkeys(spaces[c].model for c in wanted)
        by_model = {m: await self.spaces.queries(m).embed(query) for m in models}
        return {c: by_model[spaces[c].model] for c in wanted}

    async def legacy_search(self, query: str, corpus_ids: Iterable[object] | None,
                            accessible_corpus_ids: Iterable[object], limit: int = 10) -> list[SearchHit]:
        """The legacy search alone (no routing, no fallback), each corpus in its own space."""
        scope = effective_scope(corpus_ids, accessible_corpus_ids)
        if scope.is_empty:
            return []

        async def search(spaces: dict[UUID, CorpusSpace]) -> list[SearchHit]:
            vectors = await self._question_vectors(query, scope.effective, spaces)
            return await legacy_search(self.db, self.corpora, vectors, query, limit)

        return await self._in_current_spaces(list(scope.effective), search)

    async def _legacy_hits(self, query: str, scope: Scope, limit: int,
                           spaces: dict[UUID, CorpusSpace]) -> tuple[list[SearchHit], StageTrace]:
        started = time.perf_counter()
        vectors = await self._question_vectors(query, scope.effective, spaces)
        hits = await legacy_search(self.db, self.corpora, vectors, query, limit)
        return hits, StageTrace("legacy", time.perf_counter() - started,
                                {"hits": len(hits), "models": sorted({spaces[c].model for c in vectors})})

    async def _legacy(self, query: str, kind: QueryKind, scope: Scope, limit: int,
                      spaces: dict[UUID, CorpusSpace]) -> RetrievalResponse:
        try:
            hits, trace = await self._legacy_hits(query, scope, limit, spaces)
        except Exception as exc:  # noqa: BLE001 - the caller gets an empty answer and the reason, never a crash
            if is_connection_failure(exc):  # an outage, not an empty corpus: callers must not report a gap
                raise unreachable(exc) from exc
            logger.error("legacy search failed: %s: %s", type(exc).__name__, exc)
            return RetrievalResponse(hits=[], mode="legacy", query_kind=kind.value,
                                     fallback_reason=f"legacy search failed: {type(exc).__name__}: {exc}")
        return RetrievalResponse(hits=hits, mode="legacy", query_kind=kind.value, trace=[trace])

    async def _plan_request(self, query: str, kind: QueryKind, scope: Scope, accessible: list[object], limit: int,
                            strict_scope: bool, spaces: dict[UUID, CorpusSpace]) -> PlanRequest:
        models = {spaces[c].model for c in scope.effective if c in spaces}
        if len(models) > 1:
            raise _MixedSpaces(", ".join(sorted(models)))
        model = models.pop() if models else self.settings.embedding_model
        if strict_scope:
            reachable = list(scope.effective)
        else:
            unmentioned = (parse_corpus_id(a) for a in accessible)
            reachable = list(dict.fromkeys([*scope.effective, *(c for c in unmentioned if c is not None)]))
        # a corpus on another model cannot be compared with this question vector
        reachable = [c for c in reachable if c in spaces and spaces[c].model == model]
        corpora = await self.corpora.by_ids(reachable)
        effective = tuple(c for c in scope.effective if c in corpora)
        expansion_scope = tuple(c for c in reachable if c in corpora)
        return PlanRequest(query=query, kind=kind, effective=effective, expansion_scope=expansion_scope,
                           corpora=corpora, limit=limit, expand=len(effective) >= 2 and follows_entities(kind),
                           strict_scope=strict_scope, embedding_model=model)

    async def _planned(self, query: str, kind: QueryKind, scope: Scope, accessible: list[object], limit: int,
                       strict_scope: bool, spaces: dict[UUID, CorpusSpace]) -> RetrievalResponse:
        state: PlanState | None = None
        timeout = self.settings.planner.timeout_seconds
        try:
            state = PlanState(await self._plan_request(query, kind, scope, accessible, limit, strict_scope, spaces))
            await self.planner.prepare(state)
            async with asyncio.timeout(timeout):
                await self.planner.run(state)
        except _MixedSpaces as exc:
            return await self._fallback(query, kind, scope, limit, state, "embedding_models", spaces,
                                        f"the corpora are on different embedding models ({exc}): searched one by one")
        except StageFailed as exc:
            return await self._fallback(query, kind, scope, limit, state, exc.stage, spaces, str(exc))
        except TimeoutError:
            return await self._fallback(query, kind, scope, limit, state, "timeout", spaces,
                                        f"planner exceeded the {timeout:g} s timeout")
        except Exception as exc:  # noqa: BLE001 - e.g. the corpus lookup before the first stage
            return await self._fallback(query, kind, scope, limit, state, "internal", spaces,
                                        f"{type(exc).__name__}: {exc}")
        finally:
            if state is not None:
                await state.close()
        return RetrievalResponse(hits=state.hits, mode="planner", query_kind=kind.value,
                                 graph_expansion=state.request.expand, bridges=_bridges_of(state.hits),
                                 trace=state.trace)

    async def _fallback(self, query: str, kind: QueryKind, scope: Scope, limit: int, state: PlanState | None,
                        reason: str, spaces: dict[UUID, CorpusSpace], message: str) -> RetrievalResponse:
        # corpora on two models are expected all through a migration: not a warning on every search
        logger.log(logging.INFO if reason == "embedding_models" else logging.WARNING,
                   "planner fell back to legacy search (%s): %s", reason, message)
        planner_fallback_total.labels(reason=reason).inc()
        trace = list(state.trace) if state is not None else []
        try:
            hits, legacy_trace = await self._legacy_hits(query, scope, limit, spaces)
            trace.append(legacy_trace)
        except Exception as exc:  # noqa: BLE001 - nothing left to fall back to: empty answer with both reasons
            if is_connection_failure(exc):
                raise unreachable(exc) from exc
            logger.error("legacy fallback failed too: %s: %s", type(exc).__name__, exc)
            hits = []
            message = f"{message}; legacy search failed too: {type(exc).__name__}: {exc}"
        return RetrievalResponse(hits=hits, mode="fallback", query_kind=kind.value, trace=trace,
                                 fallback_reason=f"{reason}: {message}")

    @staticmethod
    def _observe(response: RetrievalResponse) -> None:
        planner_requests_total.labels(mode=response.mode).inc()
        if response.mode != "planner":
            return
        expanded = [h for h in response.hits if h.evidence_type == "graph_expanded"] if response.graph_expansion else []
        if response.graph_expansion:
            cross_corpus_expansion_total.labels(added_evidence=str(bool(expanded)).lower()).inc()
            for hit in expanded:
                cross_corpus_path_length.observe(hit.bridge.hops)
        observe_planner_run(added_evidence=bool(expanded))


def _bridges_of(hits: list[SearchHit]) -> list[BridgePath]:
    seen: dict[tuple[UUID, UUID, str, int], BridgePath] = {}
    for hit in hits:
        if hit.bridge is not None:
            key = (hit.bridge.source_corpus_id, hit.bridge.target_corpus_id, hit.bridge.via_entity, hit.bridge.hops)
            seen.setdefault(key, hit.bridge)
    return list(seen.values())

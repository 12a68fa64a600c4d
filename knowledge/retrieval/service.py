"""UnifiedRetrievalService: the one retrieval entry point (permission scope, routing, fallback)."""
from __future__ import annotations

import logging
from typing import Iterable

from knowledge.db.database import Database
from knowledge.embedding import QueryEmbeddingCache
from knowledge.metrics import planner_requests_total
from knowledge.retrieval.legacy import legacy_search
from knowledge.retrieval.query_intent import classify_query
from knowledge.retrieval.results import RetrievalResponse
from knowledge.retrieval.scope import effective_scope

logger = logging.getLogger(__name__)


class UnifiedRetrievalService:
    def __init__(self, db: Database, query_cache: QueryEmbeddingCache) -> None:
        self.db = db
        self.settings = db.settings
        self.query_cache = query_cache

    async def search(self, query: str, corpus_ids: Iterable[object] | None, accessible_corpus_ids: Iterable[object],
                     *, limit: int = 10, strict_scope: bool = False) -> RetrievalResponse:
        """Search ``corpus_ids`` ∩ ``accessible_corpus_ids`` (``corpus_ids`` None: every accessible corpus)."""
        if accessible_corpus_ids is None:
            raise TypeError("accessible_corpus_ids is required")
        requested = None if corpus_ids is None else list(corpus_ids)
        scope = effective_scope(requested, list(accessible_corpus_ids))
        kind = classify_query(query).value
        if scope.is_empty or not query.strip():
            planner_requests_total.labels(mode="empty").inc()
            return RetrievalResponse(hits=[], mode="empty", query_kind=kind, rejected_corpus_ids=list(scope.rejected))
        hits = await legacy_search(self.db, self.query_cache.embed_query(query), query, scope.effective,
                                   scope.effective, limit)
        planner_requests_total.labels(mode="legacy").inc()
        return RetrievalResponse(hits=hits, mode="legacy", query_kind=kind, rejected_corpus_ids=list(scope.rejected))

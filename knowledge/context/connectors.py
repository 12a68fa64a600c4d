"""The SearchConnector contract (docs/design.md section 8): one search engine behind one interface.

A connector gets a request that already says which corpora to search and which the caller may read, and
returns hits that name their chunk ids. Connectors are not trusted: :class:`~knowledge.context.guard.
PermissionGuard` re-checks every row they return. Two implementations:

* :class:`PostgresConnector` - the production engine: ``UnifiedRetrievalService.search`` (planner / legacy hybrid
  search over pgvector + full-text, row-level security inside the database);
* :class:`UnsafeUnfilteredConnector` - a deliberately misbehaving engine that ignores every filter, used
  by the scope evaluation and tests to show that the guard alone keeps forbidden rows out.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol
from uuid import UUID

from knowledge.corpora import Corpus
from knowledge.db.database import Database
from knowledge.db.queries import context as context_queries
from knowledge.db.queries import corpora as corpus_queries
from knowledge.embedding import QueryEmbeddingCache
from knowledge.retrieval.legacy import hit_from_record
from knowledge.retrieval.results import RetrievalResponse, SearchHit
from knowledge.retrieval.service import UnifiedRetrievalService


@dataclass(frozen=True)
class ConnectorRequest:
    query: str
    corpus_ids: tuple[UUID, ...]             # what to search: requested ∩ accessible, never empty
    accessible_corpus_ids: tuple[UUID, ...]  # what the caller may read (graph expansion stays inside it)
    limit: int
    strict_scope: bool = False
    person_id: str | None = None             # who searches (the rollout's choice of path); None: the operator


@dataclass
class ConnectorResult:
    hits: list[SearchHit]
    response: RetrievalResponse | None = None  # the retrieval trace, when the engine is the retrieval service


class SearchConnector(Protocol):
    name: str

    async def search(self, request: ConnectorRequest) -> ConnectorResult: ...


class PostgresConnector:
    name = "postgres"

    def __init__(self, retrieval: UnifiedRetrievalService) -> None:
        self.retrieval = retrieval

    async def search(self, request: ConnectorRequest) -> ConnectorResult:
        response = await self.retrieval.search(
            request.query, list(request.corpus_ids), list(request.accessible_corpus_ids), limit=request.limit,
            strict_scope=request.strict_scope, person_id=request.person_id)
        return ConnectorResult(response.hits, response)


class UnsafeUnfilteredConnector:
    """Ignores ``corpus_ids`` and ``accessible_corpus_ids``: returns the nearest chunks of every corpus in
    the database (``limit`` per corpus) with raw SQL as the owner role, bypassing row-level security."""

    name = "unsafe"

    def __init__(self, db: Database, query_cache: QueryEmbeddingCache) -> None:
        self.db = db
        self.query_cache = query_cache

    async def search(self, request: ConnectorRequest) -> ConnectorResult:
        embedding = await self.query_cache.embed(request.query)
        async with self.db.connection() as conn:
            rows = await context_queries.unsafe_search_every_corpus(conn, embedding, request.limit)
            ids = list({r["corpus_id"] for r in rows})
            corpora = {r["id"]: Corpus.from_record(r) for r in await corpus_queries.select_corpora_by_ids(conn, ids)}
        return ConnectorResult([hit_from_record(row, corpora[row["corpus_id"]]) for row in rows])


# The engines the scope evaluation can run (``negentropy eval scope --connector``).
CONNECTOR_NAMES = (PostgresConnector.name, UnsafeUnfilteredConnector.name)

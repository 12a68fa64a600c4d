"""The permission guard: sits outside every SearchConnector, so a connector that ignores its filters (a
bug, a stale index, a misconfigured scale-out engine) still cannot hand a caller a forbidden row.

1. The connector is asked only for ``requested ∩ accessible`` (empty -> it is not called at all).
2. Every returned row is re-read by chunk id from PostgreSQL in a read-only transaction as the RLS-bound
   reader role scoped to the allowed corpora. Rows that do not come back, or come back from another
   corpus than the connector claimed, are dropped. Primary evidence must come from the searched corpora;
   graph-expanded evidence may come from other accessible corpora unless the scope is strict.
3. Content, source and metadata are taken from the database row, never from the connector.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterable
from uuid import UUID

import numpy as np

from knowledge.context.connectors import ConnectorRequest, SearchConnector
from knowledge.corpora import CorpusRegistry
from knowledge.corpus_ids import parse_corpus_id
from knowledge.db.database import Database
from knowledge.db.queries import chunks as chunk_queries
from knowledge.metrics import context_guard_dropped_total
from knowledge.retrieval.citations import assign_citations
from knowledge.retrieval.results import RetrievalResponse, SearchHit
from knowledge.retrieval.scope import effective_scope


@dataclass
class GuardedResult:
    hits: list[SearchHit]
    connector: str
    returned: int = 0                      # rows the connector handed back
    dropped: int = 0                       # of those, rows the guard refused
    dropped_corpus_ids: set[UUID] = field(default_factory=set)
    embeddings: dict[int, np.ndarray] = field(default_factory=dict)  # verified chunk embeddings
    response: RetrievalResponse | None = None
    searched_corpus_ids: tuple[UUID, ...] = ()
    rejected_corpus_ids: tuple[str, ...] = ()


class PermissionGuard:
    def __init__(self, db: Database, connector: SearchConnector) -> None:
        self.db = db
        self.connector = connector

    async def search(self, query: str, corpus_ids: Iterable[object] | None, accessible_corpus_ids: Iterable[object],
                     *, limit: int = 10, strict_scope: bool = False, person_id: str | None = None) -> GuardedResult:
        """Search ``corpus_ids`` ∩ ``accessible_corpus_ids`` (None: every accessible corpus) through the connector."""
        if accessible_corpus_ids is None:
            raise TypeError("accessible_corpus_ids is required")
        accessible = tuple(dict.fromkeys(i for i in (parse_corpus_id(a) for a in accessible_corpus_ids) if i))
        scope = effective_scope(None if corpus_ids is None else list(corpus_ids), accessible)
        name = self.connector.name
        if scope.is_empty or not query.strip():
            return GuardedResult([], name, rejected_corpus_ids=scope.rejected)
        result = await self.connector.search(ConnectorRequest(query, scope.effective, accessible, limit, strict_scope,
                                                                person_id))
        primary_allowed = set(scope.effective)
        expanded_allowed = primary_allowed if strict_scope else set(accessible)
        hits, embeddings, dropped = await self._verify(result.hits, primary_allowed, expanded_allowed)
        if dropped:
            context_guard_dropped_total.labels(connector=name).inc(len(dropped))
        response = result.response
        if response is not None:
            response = replace(response, hits=hits, bridges=[
                b for b in response.bridges
                if b.source_corpus_id in expanded_allowed and b.target_corpus_id in expanded_allowed])
        return GuardedResult(hits, name, len(result.hits), len(dropped), {h.corpus_id for h in dropped}, embeddings,
                             response, scope.effective, scope.rejected)

    async def _verify(self, hits: list[SearchHit], primary_allowed: set[UUID], expanded_allowed: set[UUID]
                      ) -> tuple[list[SearchHit], dict[int, np.ndarray], list[SearchHit]]:
        if not hits:
            return [], {}, []
        readable = sorted(expanded_allowed | primary_allowed, key=str)
        async with self.db.scoped(readable) as conn:
            rows = {r["id"]: r for r in await chunk_queries.select_chunks_by_ids(
                conn, list({h.chunk_id for h in hits}), readable)}
        corpora = {c.id: c for c in await CorpusRegistry(self.db).by_ids(list({r["corpus_id"] for r in rows.values()}))}
        kept: list[SearchHit] = []
        embeddings: dict[int, np.ndarray] = {}
        dropped: list[SearchHit] = []
        for hit in hits:
            row = rows.get(hit.chunk_id)
            allowed = expanded_allowed if hit.evidence_type == "graph_expanded" else primary_allowed
            bridge_ok = hit.bridge is None or (hit.bridge.source_corpus_id in expanded_allowed
                                               and hit.bridge.target_corpus_id in expanded_allowed)
            if (row is None or row["corpus_id"] != hit.corpus_id or row["corpus_id"] not in allowed
                    or row["corpus_id"] not in corpora or not bridge_ok or hit.chunk_id in embeddings):
                if hit.chunk_id not in embeddings:
                    dropped.append(hit)
                continue
            corpus = corpora[row["corpus_id"]]
            kept.append(replace(hit, content=row["content"], source_uri=row["source_uri"],
                                metadata=dict(row["metadata"] or {}), corpus_name=corpus.name,
                                corpus_label=corpus.label))
            embeddings[hit.chunk_id] = _as_array(row["embedding"])
        return assign_citations(kept), embeddings, dropped


def _as_array(value: object) -> np.ndarray:
    """pgvector decodes ``vector`` columns to ``Vector`` (newer releases) or numpy arrays (older)."""
    to_numpy = getattr(value, "to_numpy", None)
    return np.asarray(to_numpy() if to_numpy else value, dtype=np.float32)

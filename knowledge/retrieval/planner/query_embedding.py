"""Stage: embed the query (through the LRU query-embedding cache), off the event loop so the timeout holds."""
from __future__ import annotations

from typing import Any

from knowledge.embedding import QueryEmbeddingCache
from knowledge.retrieval.planner.context import PlanState


class QueryEmbeddingStage:
    name = "embed"
    graph_only = False

    def __init__(self, query_cache: QueryEmbeddingCache) -> None:
        self.query_cache = query_cache

    async def run(self, state: PlanState) -> dict[str, Any]:
        state.embedding = await self.query_cache.embed(state.request.query)
        return {"dimension": int(state.embedding.shape[0])}

"""Stage: embed the query with the model of the request's corpora (through its LRU query-embedding cache), off the
event loop so the timeout holds."""
from __future__ import annotations

from typing import Any

from knowledge.retrieval.embedding_spaces import EmbeddingSpaces
from knowledge.retrieval.planner.context import PlanState


class QueryEmbeddingStage:
    name = "embed"
    graph_only = False

    def __init__(self, spaces: EmbeddingSpaces) -> None:
        self.spaces = spaces

    async def run(self, state: PlanState) -> dict[str, Any]:
        model = state.request.embedding_model or self.spaces.settings.embedding_model
        state.embedding = await self.spaces.queries(model).embed(state.request.query)
        return {"dimension": int(state.embedding.shape[0]), "model": model}

"""Query embeddings in the space of each corpus: one embedder and query cache per model, and the model each corpus
is on, read afresh for every search (another process may switch a corpus at any time)."""
from __future__ import annotations

import threading
from typing import Sequence
from uuid import UUID

from config import Settings
from knowledge.db.database import Database
from knowledge.db.queries import embeddings as q
from knowledge.db.queries.embeddings import CorpusSpace
from knowledge.embedding import Embedder, QueryEmbeddingCache, load_embedder


class EmbeddingSpaces:
    """``default`` is the query cache of the configured model (NE_EMBEDDING_MODEL); other models load on first use."""

    def __init__(self, default: QueryEmbeddingCache, settings: Settings) -> None:
        self.settings = settings
        self._caches = {settings.embedding_model: default}
        self._lock = threading.Lock()

    def embedder(self, model: str) -> Embedder:
        return self.queries(model).embedder

    def queries(self, model: str) -> QueryEmbeddingCache:
        with self._lock:
            cache = self._caches.get(model)
            if cache is None:
                embedder = load_embedder(model, self.settings.embedding_dimension, self.settings.embedding_batch_size)
                cache = self._caches[model] = QueryEmbeddingCache(embedder, self.settings.planner.cache_size)
            return cache

    def clear(self) -> None:
        with self._lock:
            for cache in self._caches.values():
                cache.clear()


async def read_spaces(db: Database, corpus_ids: Sequence[UUID]) -> dict[UUID, CorpusSpace]:
    """The model and switch count of each corpus the caller may read."""
    if not corpus_ids:
        return {}
    async with db.scoped(corpus_ids) as conn:
        return await q.select_corpus_spaces(conn, corpus_ids)

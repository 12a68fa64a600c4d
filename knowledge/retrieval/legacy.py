"""The legacy multi-corpus path: search each corpus (one round trip for all), concatenate, sort globally. Kept
forever as fallback."""
from __future__ import annotations

from typing import Iterable, Sequence
from uuid import UUID

import numpy as np

from knowledge.corpora import Corpus, CorpusRegistry
from knowledge.db.database import Database
from knowledge.db.queries import chunks as q
from knowledge.retrieval.citations import assign_citations
from knowledge.retrieval.results import SearchHit
from knowledge.retrieval.scope import effective_scope


def hit_from_record(row, corpus: Corpus, score: float | None = None, **scores: float) -> SearchHit:
    return SearchHit(
        chunk_id=row["id"], corpus_id=row["corpus_id"], corpus_name=corpus.name, corpus_label=corpus.label,
        content=row["content"], source_uri=row["source_uri"], metadata=dict(row["metadata"] or {}),
        score=float(row["score"] if score is None else score), scores=dict(scores),
    )


async def corpora_by_id(db: Database, ids: Sequence[UUID]) -> dict[UUID, Corpus]:
    return {c.id: c for c in await CorpusRegistry(db).by_ids(list(ids))}


async def legacy_search(db: Database, query_embedding: np.ndarray, query: str, corpus_ids: Iterable[object] | None,
                        accessible_corpus_ids: Iterable[object], limit: int = 10) -> list[SearchHit]:
    scope = effective_scope(corpus_ids, accessible_corpus_ids)
    if scope.is_empty or not query.strip():
        return []
    corpora = await corpora_by_id(db, scope.effective)
    async with db.scoped(scope.effective) as conn:
        rows = await q.hybrid_search_each(conn, query_embedding, query, [c for c in scope.effective if c in corpora],
                                          limit)
    hits = [hit_from_record(row, corpora[row["corpus_id"]], semantic=row["semantic_score"], keyword=row["keyword_score"])
            for row in rows]
    hits.sort(key=lambda h: (-h.score, h.chunk_id))
    return assign_citations(hits[:limit])

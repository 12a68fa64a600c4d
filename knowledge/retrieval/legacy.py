"""The legacy multi-corpus path: search each corpus (in parallel, one connection each), concatenate, sort globally.
Kept forever as fallback."""
from __future__ import annotations

import asyncio
from typing import Iterable
from uuid import UUID

import numpy as np

from knowledge.corpora import Corpus, KnownCorpora
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


async def legacy_search(db: Database, known_corpora: KnownCorpora, query_embedding: np.ndarray, query: str,
                        corpus_ids: Iterable[object] | None, accessible_corpus_ids: Iterable[object],
                        limit: int = 10) -> list[SearchHit]:
    scope = effective_scope(corpus_ids, accessible_corpus_ids)
    if scope.is_empty or not query.strip():
        return []

    async def search(corpus_id: UUID) -> list:
        async with db.scoped(scope.effective) as conn:
            return await q.hybrid_search(conn, query_embedding, query, [corpus_id], limit)

    # one connection per corpus, in parallel: the corpora share the cores (the planner's seeds do the same); the
    # corpus lookup runs beside them (rows of a corpus it does not know are dropped below)
    corpora, *per_corpus = await asyncio.gather(known_corpora.by_ids(scope.effective),
                                                *(search(c) for c in scope.effective))
    rows = [row for corpus_rows in per_corpus for row in corpus_rows if row["corpus_id"] in corpora]
    hits = [hit_from_record(row, corpora[row["corpus_id"]], semantic=row["semantic_score"],
                            keyword=row["keyword_score"])
            for row in rows]
    hits.sort(key=lambda h: (-h.score, h.chunk_id))
    return assign_citations(hits[:limit])

"""The legacy multi-corpus path: search each corpus (in parallel, one connection each), concatenate, sort globally.
Kept forever as fallback."""
from __future__ import annotations

import asyncio
from typing import Mapping
from uuid import UUID

import numpy as np

from knowledge.corpora import Corpus, KnownCorpora
from knowledge.db.database import Database
from knowledge.db.queries import chunks as q
from knowledge.retrieval.citations import assign_citations
from knowledge.retrieval.results import SearchHit


def hit_from_record(row, corpus: Corpus, score: float | None = None, **scores: float) -> SearchHit:
    return SearchHit(
        chunk_id=row["id"], corpus_id=row["corpus_id"], corpus_name=corpus.name, corpus_label=corpus.label,
        content=row["content"], source_uri=row["source_uri"], metadata=dict(row["metadata"] or {}),
        score=float(row["score"] if score is None else score), scores=dict(scores),
    )


async def legacy_search(db: Database, known_corpora: KnownCorpora, question_vectors: Mapping[UUID, np.ndarray],
                        query: str, limit: int = 10) -> list[SearchHit]:
    """Search each corpus of ``question_vectors`` (the question embedded in that corpus's space; the caller has
    checked the reader may see them) and rank the hits together."""
    if not question_vectors or not query.strip():
        return []
    readable = list(question_vectors)

    async def search(corpus_id: UUID) -> list:
        async with db.scoped(readable) as conn:
            return await q.hybrid_search(conn, question_vectors[corpus_id], query, [corpus_id], limit)

    # one connection per corpus, in parallel: the corpora share the cores (the planner's seeds do the same); the
    # corpus lookup runs beside them (rows of a corpus it does not know are dropped below)
    corpora, *per_corpus = await asyncio.gather(known_corpora.by_ids(readable), *(search(c) for c in readable))
    rows = [row for corpus_rows in per_corpus for row in corpus_rows if row["corpus_id"] in corpora]
    hits = [hit_from_record(row, corpora[row["corpus_id"]], semantic=row["semantic_score"],
                            keyword=row["keyword_score"])
            for row in rows]
    hits.sort(key=lambda h: (-h.score, h.chunk_id))
    return assign_citations(hits[:limit])

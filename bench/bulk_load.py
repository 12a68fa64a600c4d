"""Corpora big enough to measure search at 5 x 20k and 5 x 100k chunks without hours of ingest.

The first ``pipeline_chunks`` texts of each corpus go through the normal ingest pipeline (embeddings, graph
extraction, canonical linking), so the planner's graph stages have a real graph to walk. The rest of each corpus
is **bulk-loaded**: the same synthetic sentences, written straight into ``knowledge`` through the same insert
query (whose trigger fills the narrow full-text table of migration 015), with the corpora's HNSW indexes and the
GIN indexes dropped during the load and rebuilt after it (as a restore would; the HNSW indexes two at a time).
Bulk rows get the embedding of one of ``distinct_vectors`` embedded texts plus a little Gaussian noise, so the
vector space has the clustered shape of real text instead of uniform noise; they are not in the graph.
"""
from __future__ import annotations

import asyncio
import hashlib
from typing import Sequence

import numpy as np

from bench.harness import Timer
from bench.synthetic import synthetic_chunks
from knowledge.app import KnowledgeApp
from knowledge.corpora import Corpus
from knowledge.db.queries import chunks as q
from knowledge.db.queries import corpora as corpus_queries
from knowledge.ingest.documents import documents_from_texts
from knowledge.ingest.segmentation import search_text_for

BATCH = 2000
NOISE = 0.04
INDEX_BUILDERS = 2  # the machine's cores
INDEXES = {  # the definitions of migrations 009 / 015
    "knowledge_search_gin": "CREATE INDEX knowledge_search_gin ON knowledge USING gin (search_vector)",
    "knowledge_keyword_search_gin": "CREATE INDEX knowledge_keyword_search_gin ON knowledge_keyword "
                                    "USING gin (search_vector)",
}


async def load_bench_corpora(kapp: KnowledgeApp, corpus_count: int, size: int, *, pipeline_chunks: int = 300,
                             distinct_vectors: int = 2000) -> tuple[list[Corpus], dict[str, float]]:
    """``corpus_count`` corpora of ``size`` chunks each; returns them and the load timings (seconds, chunks/s)."""
    corpora = [await kapp.corpora.create(f"bench_{i}") for i in range(corpus_count)]
    head = min(pipeline_chunks, size)
    if await _loaded(kapp, corpora, size):  # a kept database (bench.planner --database) from an earlier run
        return corpora, {"pipeline_chunks_per_corpus": head, "reused_database": True}
    texts = [synthetic_chunks(size, seed=1000 + i) for i in range(corpus_count)]
    with Timer() as ingest:
        for i, corpus in enumerate(corpora):
            await kapp.ingest_documents(corpus, documents_from_texts(
                (f"c{i}-{j}", t) for j, t in enumerate(texts[i][:head])))
    with Timer() as bulk:
        await _bulk_rows(kapp, corpora, [t[head:] for t in texts], distinct_vectors)
    timings = {"pipeline_chunks_per_corpus": head, "pipeline_chunks_per_s": head * corpus_count / ingest.seconds,
               "bulk_seconds": bulk.seconds}
    return corpora, timings


async def _loaded(kapp: KnowledgeApp, corpora: Sequence[Corpus], size: int) -> bool:
    async with kapp.db.connection() as conn:
        counts = await conn.fetch("SELECT corpus_id, count(*) AS n FROM knowledge WHERE corpus_id = ANY ($1) "
                                  "GROUP BY corpus_id", [c.id for c in corpora])
    return len(counts) == len(corpora) and all(r["n"] == size for r in counts)


async def _bulk_rows(kapp: KnowledgeApp, corpora: Sequence[Corpus], texts: Sequence[Sequence[str]],
                     distinct_vectors: int) -> None:
    if not any(texts):
        return
    rng = np.random.default_rng(5)
    pool = [t for corpus_texts in texts for t in corpus_texts[:distinct_vectors // len(texts) + 1]][:distinct_vectors]
    base = np.asarray(kapp.embedder.embed(pool), dtype=np.float32)
    async with kapp.db.connection() as conn:
        for name in INDEXES:
            await conn.execute(f"DROP INDEX IF EXISTS {name}")
        for corpus in corpora:
            await corpus_queries.drop_corpus_vector_index(conn, corpus.id)
        for corpus, corpus_texts in zip(corpora, texts):
            for start in range(0, len(corpus_texts), BATCH):
                batch = corpus_texts[start:start + BATCH]
                vectors = (base[rng.integers(0, len(base), len(batch))]
                           + rng.normal(0, NOISE, (len(batch), base.shape[1])))
                vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
                await q.insert_chunks(conn, [_row(corpus, text, vector) for text, vector in zip(batch, vectors)])
        await conn.execute("SET maintenance_work_mem = '512MB'")
        for statement in INDEXES.values():
            await conn.execute(statement)
        await conn.execute("ANALYZE knowledge; ANALYZE knowledge_keyword")
    await _build_vector_indexes(kapp, corpora)


async def _build_vector_indexes(kapp: KnowledgeApp, corpora: Sequence[Corpus]) -> None:
    pending = list(corpora)

    async def builder() -> None:
        async with kapp.db.connection() as conn:
            await conn.execute("SET maintenance_work_mem = '512MB'")
            while pending:
                await corpus_queries.create_corpus_vector_index(conn, pending.pop().id)

    await asyncio.gather(*(builder() for _ in range(INDEX_BUILDERS)))


def _row(corpus: Corpus, text: str, vector: np.ndarray) -> q.ChunkRow:
    digest = hashlib.sha256(text.encode()).hexdigest()
    return q.ChunkRow(corpus_id=corpus.id, app_name=corpus.app_name, content=text, content_hash=digest,
                      document_hash=digest, chunk_index=0, source_uri=f"bulk://{corpus.name}/{digest[:12]}",
                      metadata={"bulk": True}, embedding=vector.astype(np.float32), search_text=search_text_for(text))

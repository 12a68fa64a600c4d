"""Ingest throughput (chunks/s) and hybrid search throughput (queries/s) at 1k and 10k chunks.

Run: ``python -m bench.ingest [--sizes 1000 10000]``.
"""
from __future__ import annotations

import argparse
import asyncio

from bench.harness import Timer, print_table, scratch_app
from bench.synthetic import synthetic_chunks, synthetic_queries
from knowledge.db.queries import chunks as q
from knowledge.ingest.documents import documents_from_texts


async def measure(size: int, query_count: int) -> list[object]:
    async with scratch_app() as kapp:
        corpus = await kapp.corpora.create("bench")
        documents = documents_from_texts((f"doc-{i}", text) for i, text in enumerate(synthetic_chunks(size)))
        with Timer() as ingest_timer:
            report = await kapp.ingest_documents(corpus, documents)
        queries = synthetic_queries(query_count)
        embeddings = kapp.embedder.embed(queries)
        async with kapp.db.connection() as conn:
            with Timer() as hybrid_timer:
                for text, vector in zip(queries, embeddings):
                    await q.hybrid_search(conn, vector, text, [corpus.id], 10)
            with Timer() as rrf_timer:
                for text, vector in zip(queries, embeddings):
                    await q.rrf_search(conn, vector, text, [corpus.id], 10)
    return [size, report.chunks_added, report.chunks_added / ingest_timer.seconds,
            query_count / hybrid_timer.seconds, query_count / rrf_timer.seconds]


async def main(sizes: list[int], query_count: int) -> None:
    rows = [await measure(size, query_count) for size in sizes]
    base = rows[0]
    print_table("Ingest and hybrid search throughput (embedding included in ingest)",
                ["chunks", "added", "ingest chunks/s", "kb_hybrid q/s", "kb_rrf q/s", "hybrid q/s vs smallest"],
                [r + [r[3] / base[3]] for r in rows])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    asyncio.run(main(args.sizes, args.queries))

"""Retrieval latency of the legacy path vs the HybridPlanner over 5 corpora, P50 / P95 / P99 and the ratio.

Each corpus gets ``size`` synthetic chunks (team updates, design notes, abstracts sharing people, systems and
organisations, so the canonical layer links them) through the normal ingest pipeline: embeddings, graph
extraction, canonical linking. Queries mix fact questions (planner: parallel hybrid only) and relational
ones (planner: graph expansion). Query embeddings are computed before timing, so both paths are timed on
retrieval alone. Run: ``python -m bench.planner [--sizes 2000 20000] [--queries 100]``.
"""
from __future__ import annotations

import argparse
import asyncio
from collections import Counter
from typing import Sequence

from bench.harness import Timer, latency_summary, print_table, scratch_app
from bench.synthetic import synthetic_chunks, synthetic_queries
from knowledge.app import KnowledgeApp
from knowledge.ingest.documents import documents_from_texts

CORPUS_COUNT = 5
LIMIT = 10


async def load_corpora(kapp: KnowledgeApp, texts_per_corpus: Sequence[Sequence[str]]) -> tuple[list, float]:
    """One corpus per list of texts, through the normal ingest pipeline; returns the corpora and chunks/s."""
    corpora = [await kapp.corpora.create(f"bench_{i}") for i in range(len(texts_per_corpus))]
    with Timer() as timer:
        for i, (corpus, texts) in enumerate(zip(corpora, texts_per_corpus)):
            await kapp.ingest_documents(corpus, documents_from_texts((f"c{i}-{j}", t) for j, t in enumerate(texts)))
    return corpora, sum(len(t) for t in texts_per_corpus) / timer.seconds


async def time_queries(kapp: KnowledgeApp, corpus_ids: list, queries: Sequence[str]) -> tuple[dict, Counter]:
    for query in queries:
        kapp.query_cache.embed_query(query)
    samples: dict[str, list[float]] = {"legacy": [], "planner": []}
    modes: Counter = Counter()
    for i, query in enumerate(queries):
        async def legacy() -> None:
            with Timer() as timer:
                await kapp.legacy_search(query, corpus_ids, corpus_ids, limit=LIMIT)
            samples["legacy"].append(1000 * timer.seconds)

        async def planner() -> None:
            with Timer() as timer:
                response = await kapp.retrieval.search(query, corpus_ids, corpus_ids, limit=LIMIT)
            samples["planner"].append(1000 * timer.seconds)
            modes[response.mode] += 1
            modes["expanded" if response.graph_expansion else "hybrid only"] += 1

        for run in ((legacy, planner) if i % 2 == 0 else (planner, legacy)):  # alternate: no warm-cache bias
            await run()
    return {name: latency_summary(values) for name, values in samples.items()}, modes


async def measure(size: int, query_count: int) -> list[object]:
    async with scratch_app() as kapp:
        corpora, ingest_rate = await load_corpora(
            kapp, [synthetic_chunks(size, seed=1000 + i) for i in range(CORPUS_COUNT)])
        stats, modes = await time_queries(kapp, [c.id for c in corpora], synthetic_queries(query_count))
    legacy, planner = stats["legacy"], stats["planner"]
    return [f"{CORPUS_COUNT} x {size}", ingest_rate,
            legacy["p50"], legacy["p95"], legacy["p99"], planner["p50"], planner["p95"], planner["p99"],
            planner["p50"] / legacy["p50"], planner["p95"] / legacy["p95"], planner["p99"] / legacy["p99"],
            f"{modes['expanded']}/{query_count}", str(modes["fallback"])]


async def main(sizes: list[int], query_count: int) -> None:
    rows = [await measure(size, query_count) for size in sizes]
    print_table(f"Legacy vs HybridPlanner latency (ms), {CORPUS_COUNT} corpora, top {LIMIT}, {query_count} queries",
                ["corpora x chunks", "ingest chunks/s", "legacy P50", "legacy P95", "legacy P99", "planner P50",
                 "planner P95", "planner P99", "P50 ratio", "P95 ratio", "P99 ratio", "expanded", "fallbacks"], rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 20000], help="chunks per corpus")
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    if min(args.sizes) < 1 or args.queries < 1:
        parser.error("--sizes and --queries must be positive")
    asyncio.run(main(args.sizes, args.queries))

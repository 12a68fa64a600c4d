"""Retrieval latency (P50/P95/P99) of legacy vs planner at growing sizes over 5 corpora, with ingest throughput.

The real MuSiQue passages come first; synthetic chunks pad each size. Run: ``negentropy bench latency``
or ``python -m bench.latency [--sizes 1000 10000 50000] [--queries 100]``.
"""
from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Sequence

from bench.harness import Timer, latency_summary, print_table, scratch_app
from bench.multihop import DEFAULT_DATA
from bench.multihop_data import load_dataset
from bench.synthetic import synthetic_chunks
from knowledge.app import KnowledgeApp
from knowledge.ingest.documents import Document

CORPUS_COUNT = 5


def corpus_texts(size: int, real: Sequence[str]) -> list[str]:
    texts = list(real[:size])
    return texts + synthetic_chunks(size - len(texts), seed=size)


async def load_corpora(kapp: KnowledgeApp, texts: Sequence[str]) -> tuple[list, float]:
    corpora = [await kapp.corpora.create(f"lat_{i}") for i in range(CORPUS_COUNT)]
    with Timer() as timer:
        for i, corpus in enumerate(corpora):
            part = texts[i::CORPUS_COUNT]
            await kapp.ingest_documents(corpus, [Document(source_uri=f"c{i}-{j}", text=t, title=f"c{i}-{j}")
                                                 for j, t in enumerate(part)])
    return corpora, len(texts) / timer.seconds


async def time_queries(kapp: KnowledgeApp, corpora: list, queries: Sequence[str]) -> dict[str, dict[str, float]]:
    ids = [c.id for c in corpora]
    samples: dict[str, list[float]] = {"legacy": [], "planner": []}
    for query in queries:
        kapp.query_cache.embed_query(query)  # both paths read the same cached query embedding
        with Timer() as legacy_timer:
            await kapp.legacy_search(query, ids, ids, limit=10)
        with Timer() as planner_timer:
            await kapp.retrieval.search(query, ids, ids, limit=10)
        samples["legacy"].append(1000 * legacy_timer.seconds)
        samples["planner"].append(1000 * planner_timer.seconds)
    return {name: latency_summary(values) for name, values in samples.items()}


async def run(sizes: Sequence[int], query_count: int, data_dir: Path = DEFAULT_DATA,
              server_dsn: str | None = None) -> list[list[object]]:
    dataset = load_dataset(data_dir / "questions_dev.json", data_dir / "corpus.json")
    real = [f"{p.title}\n\n{p.text}" for p in dataset.passages]
    queries = [q.question for q in dataset.questions][:query_count]
    rows = []
    for size in sizes:
        async with scratch_app(server_dsn=server_dsn) as kapp:
            corpora, throughput = await load_corpora(kapp, corpus_texts(size, real))
            await time_queries(kapp, corpora, queries[:3])  # warm-up: model, pool, caches of the plan
            stats = await time_queries(kapp, corpora, queries)
        rows.append([size, throughput, stats["legacy"]["p50"], stats["legacy"]["p95"], stats["legacy"]["p99"],
                     stats["planner"]["p50"], stats["planner"]["p95"], stats["planner"]["p99"]])
    base = rows[0]
    table = [row + [row[3] / base[3], row[6] / base[6], row[6] / row[3]] for row in rows]
    print_table(f"Latency over {CORPUS_COUNT} corpora, {len(queries)} multi-hop questions (ms)",
                ["chunks", "ingest chunks/s", "legacy P50", "legacy P95", "legacy P99", "planner P50",
                 "planner P95", "planner P99", "legacy P95 vs smallest", "planner P95 vs smallest",
                 "planner/legacy P95"], table)
    return table


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 50000])
    parser.add_argument("--queries", type=int, default=50)
    args = parser.parse_args(argv)
    asyncio.run(run(args.sizes, args.queries))


if __name__ == "__main__":
    main()

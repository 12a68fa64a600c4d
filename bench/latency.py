"""Retrieval latency (P50/P95/P99) of legacy vs planner at growing sizes over 5 corpora, with ingest throughput,
next to raw pgvector kNN and raw full-text baselines from the same run (bench/search_variants.py).

The real MuSiQue passages come first; synthetic chunks pad each size; everything goes through the full ingest
pipeline. Run: ``negentropy bench latency`` or ``python -m bench.latency [--sizes 1000 10000 50000] [--queries 100]``.
"""
from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Sequence

from bench.harness import Timer, console, print_table, scratch_app
from bench.multihop import DEFAULT_DATA
from bench.multihop_data import PAIRED_CORPUS, load_dataset
from bench.search_variants import (STAGE_COLUMNS, VARIANT_COLUMNS, knn_recall, recall_text, stage_rows,
                                   time_variants, variant_rows)
from bench.synthetic import synthetic_chunks
from knowledge.app import KnowledgeApp
from knowledge.ingest.documents import documents_from_texts

CORPUS_COUNT = 5


async def load_corpora(kapp: KnowledgeApp, texts_per_corpus: Sequence[Sequence[str]]) -> tuple[list, float]:
    """One corpus per list of texts, through the normal ingest pipeline; returns the corpora and chunks/s."""
    corpora = [await kapp.corpora.create(f"bench_{i}") for i in range(len(texts_per_corpus))]
    with Timer() as timer:
        for i, (corpus, texts) in enumerate(zip(corpora, texts_per_corpus)):
            await kapp.ingest_documents(corpus, documents_from_texts((f"c{i}-{j}", t) for j, t in enumerate(texts)))
    return corpora, sum(len(t) for t in texts_per_corpus) / timer.seconds


def corpus_texts(size: int, real: Sequence[str]) -> list[str]:
    texts = list(real[:size])
    return texts + synthetic_chunks(size - len(texts), seed=size)


async def run(sizes: Sequence[int], query_count: int, data_dir: Path = DEFAULT_DATA,
              server_dsn: str | None = None) -> list[list[object]]:
    dataset = load_dataset(data_dir / "questions_dev.json", data_dir / PAIRED_CORPUS)
    real = [f"{p.title}\n\n{p.text}" for p in dataset.passages]
    queries = [q.question for q in dataset.questions][:query_count]
    rows = []
    for size in sizes:
        async with scratch_app(server_dsn=server_dsn) as kapp:
            texts = corpus_texts(size, real)
            corpora, throughput = await load_corpora(kapp, [texts[i::CORPUS_COUNT] for i in range(CORPUS_COUNT)])
            ids = [c.id for c in corpora]
            await time_variants(kapp, ids, queries[:3])  # warm-up: model, pool, caches of the plan
            stats, stages = await time_variants(kapp, ids, queries)
            recall = await knn_recall(kapp, ids, queries)
        print_table(f"{size} chunks over {CORPUS_COUNT} corpora, {len(queries)} questions (all variants interleaved)",
                    VARIANT_COLUMNS, variant_rows(stats))
        print_table(f"Planner stages, {size} chunks", STAGE_COLUMNS, stage_rows(stages))
        console.print(f"Dense search recall@10 against exact search (RLS login): {recall_text(recall)}")
        legacy = next(s for n, s in stats.items() if n.startswith("legacy"))
        planner = next(s for n, s in stats.items() if n.startswith("planner"))
        rows.append([size, throughput, legacy["p50"], legacy["p95"], legacy["p99"],
                     planner["p50"], planner["p95"], planner["p99"]])
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

"""Retrieval latency (P50/P95/P99) of legacy vs planner at growing sizes over 5 corpora, with ingest throughput.

The real MuSiQue passages come first; synthetic chunks pad each size. Run: ``negentropy bench latency``
or ``python -m bench.latency [--sizes 1000 10000 50000] [--queries 100]``.
"""
from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Sequence

from bench.harness import print_table, scratch_app
from bench.multihop import DEFAULT_DATA
from bench.multihop_data import load_dataset
from bench.planner import CORPUS_COUNT, load_corpora, time_queries
from bench.synthetic import synthetic_chunks


def corpus_texts(size: int, real: Sequence[str]) -> list[str]:
    texts = list(real[:size])
    return texts + synthetic_chunks(size - len(texts), seed=size)


async def run(sizes: Sequence[int], query_count: int, data_dir: Path = DEFAULT_DATA,
              server_dsn: str | None = None) -> list[list[object]]:
    dataset = load_dataset(data_dir / "questions_dev.json", data_dir / "corpus.json")
    real = [f"{p.title}\n\n{p.text}" for p in dataset.passages]
    queries = [q.question for q in dataset.questions][:query_count]
    rows = []
    for size in sizes:
        async with scratch_app(server_dsn=server_dsn) as kapp:
            texts = corpus_texts(size, real)
            corpora, throughput = await load_corpora(kapp, [texts[i::CORPUS_COUNT] for i in range(CORPUS_COUNT)])
            ids = [c.id for c in corpora]
            await time_queries(kapp, ids, queries[:3])  # warm-up: model, pool, caches of the plan
            stats, _ = await time_queries(kapp, ids, queries)
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

"""Search latency over 5 corpora at growing sizes: raw pgvector kNN and raw full-text baselines, the SQL search
functions (retrieval login under RLS and owner), legacy and the planner, in one interleaved run per size.

Each corpus gets ``size`` synthetic chunks (team updates, design notes, abstracts sharing people, systems and
organisations): the first 300 through the normal ingest pipeline (so the planner has a graph and canonical links
to expand over), the rest bulk-loaded (bench/bulk_load.py says how). Queries mix fact questions (planner: parallel
hybrid only) and relational ones (planner: graph expansion); query embeddings are computed before timing.
Results go to ``bench/results/search-latency.json``, one object per size.
Run: ``python -m bench.planner [--sizes 2000 20000 100000] [--queries 100]``.
"""
from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Sequence

from bench.bulk_load import load_bench_corpora
from bench.harness import console, git_commit, print_table, scratch_app
from bench.multihop import RESULTS_DIR
from bench.search_variants import (BASELINE, STAGE_COLUMNS, VARIANT_COLUMNS, knn_recall, recall_text, stage_rows,
                                   time_variants, variant_rows)
from bench.synthetic import synthetic_queries

CORPUS_COUNT = 5
WARM_UP = 5
RESULTS_FILE = RESULTS_DIR / "search-latency.json"


def loadavg() -> str:
    """The machine's 1/5/15-minute load (shared 2-core machine: the numbers are read beside it)."""
    path = Path("/proc/loadavg")
    return " ".join(path.read_text().split()[:3]) if path.exists() else "n/a"


def summary(size: int, stats: dict, stages: dict, recall: dict[str, float], load: dict, query_count: int) -> dict:
    """The JSON object of one size (the fields issue 20 asks for, then the whole tables)."""
    legacy = next(s for n, s in stats.items() if n.startswith("legacy"))
    planner = next(s for n, s in stats.items() if n.startswith("planner"))
    return {"corpora": CORPUS_COUNT, "chunks_per_corpus": size, "queries": query_count, "commit": git_commit(),
            "knn_p50_ms": stats[BASELINE]["p50"], "fts_p50_ms": stats["raw FTS OR ranked, 1 corpus"]["p50"],
            "fts_and_p50_ms": stats["raw FTS AND ranked, 1 corpus"]["p50"],
            "legacy_p50_ms": legacy["p50"], "legacy_p95_ms": legacy["p95"], "legacy_p99_ms": legacy["p99"],
            "planner_p50_ms": planner["p50"], "planner_p95_ms": planner["p95"], "planner_p99_ms": planner["p99"],
            "knn_recall_at_10": recall["1 corpus"],
            f"knn_recall_at_10_{CORPUS_COUNT}_corpora": recall[f"{CORPUS_COUNT} corpora"],
            "load": load, "loadavg_after": loadavg(), "bulk_loaded": size > load["pipeline_chunks_per_corpus"],
            "variants_ms": stats, "planner_stages_ms": stages}


async def measure(size: int, query_count: int, database: str | None = None) -> dict:
    queries = synthetic_queries(query_count)
    async with scratch_app(keep=database and f"{database}_{size}") as kapp:
        corpora, load = await load_bench_corpora(kapp, CORPUS_COUNT, size)
        ids = [c.id for c in corpora]
        await time_variants(kapp, ids, synthetic_queries(WARM_UP, seed=3))  # model, pools, plan caches
        load["loadavg_before"] = loadavg()
        async with kapp.db.connection() as conn:
            load["shared_buffers"] = await conn.fetchval("SHOW shared_buffers")
        stats, stages = await time_variants(kapp, ids, queries)
        recall = await knn_recall(kapp, ids, queries)
    title = f"{CORPUS_COUNT} x {size} chunks, {query_count} queries, top 10"
    print_table(f"Search latency, {title} (all variants interleaved)", VARIANT_COLUMNS, variant_rows(stats))
    print_table(f"Planner stages, {title}", STAGE_COLUMNS, stage_rows(stages))
    console.print(f"Dense search recall@10 against exact search (RLS login): {recall_text(recall)}; load: {load}; "
                  f"loadavg now {loadavg()}")
    return summary(size, stats, stages, recall, load, query_count)


def write_results(results: Sequence[dict], path: Path = RESULTS_FILE) -> None:
    """Merge by size into the results file, so sizes measured in separate runs sit side by side."""
    existing = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
    by_size = {(r["corpora"], r["chunks_per_corpus"]): r for r in existing}
    by_size.update({(r["corpora"], r["chunks_per_corpus"]): r for r in results})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(sorted(by_size.values(), key=lambda r: r["chunks_per_corpus"]), indent=2) + "\n",
                    encoding="utf-8")


async def main(sizes: list[int], query_count: int, write: bool, database: str | None = None) -> None:
    results = [await measure(size, query_count, database) for size in sizes]
    if write:
        write_results(results)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 20000], help="chunks per corpus")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--database", help="keep the loaded corpora in database <name>_<size> and reuse them")
    parser.add_argument("--no-write", action="store_true", help="print only, leave bench/results alone")
    args = parser.parse_args()
    if min(args.sizes) < 1 or args.queries < 1:
        parser.error("--sizes and --queries must be positive")
    asyncio.run(main(args.sizes, args.queries, not args.no_write, args.database))

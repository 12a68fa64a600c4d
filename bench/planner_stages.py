"""Where the planner's time goes on a multi-hop dev set: mean / P50 / P95 ms of every stage, next to dense.

Run: ``python -m bench.planner_stages [--set musique|hotpotqa] [--splits 3] [--rounds 2] [--dump FILE]
[--profile FILE]`` on the databases ``bench multihop --cache-db`` keeps (ingested on first use). Planner and dense
alternate question by question in the same process, after two unscored warm-up questions and the graph snapshots
they queued (the wait for them is printed); the stage times are the response trace's. The run-log row each search
writes in the background is waited for outside both timings (it used to run inside the next dense search's).
``--dump`` writes every question's top-20 planner passage keys, so two versions of the code can be checked for
identical results; ``--profile`` writes a pyinstrument HTML profile of the planner calls.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Sequence

import numpy as np

from bench.harness import console, print_table
from bench.multihop_data import dev_sets_by_name
from bench.multihop_ingest import ingested_app
from bench.multihop_methods import unique_keys
from knowledge.db.queries import chunks as chunk_queries

FETCH = 20  # what bench multihop asks for (depth 10 x 2)


def _percentiles(values: Sequence[float]) -> tuple[float, float, float]:
    ms = 1000 * np.asarray(values, dtype=float)
    return float(ms.mean()), float(np.percentile(ms, 50)), float(np.percentile(ms, 95))


async def profile_split(source, corpus_count: int, rounds: int, profiler=None) -> dict:
    from knowledge.embedding import get_embedder

    dataset = source.load()
    async with ingested_app(dataset, corpus_count, embedder=get_embedder(), cache=True) as (kapp, corpora):
        ids = [c.id for c in corpora]
        key_of_hit = lambda h: h.metadata.get("passage_key")  # noqa: E731
        vectors = [kapp.query_cache.embed_query(q.question) for q in dataset.questions]
        for question in dataset.questions[:2]:  # warm-up: pools, plan caches
            await kapp.retrieval.search(question.question, ids, ids, limit=FETCH)
        started = time.perf_counter()  # and the graph snapshots the warm-up queued (loaded in the background)
        await kapp.retrieval.graph_snapshots.load(ids)
        snapshot_s = time.perf_counter() - started
        stages: dict[str, list[float]] = {}
        planner_s, dense_s, ranked = [], [], {}
        for _ in range(rounds):
            for question, vector in zip(dataset.questions, vectors):
                started = time.perf_counter()
                async with kapp.db.scoped(ids) as conn:
                    await chunk_queries.dense_search(conn, vector, ids, FETCH)
                dense_s.append(time.perf_counter() - started)
                if profiler is not None:
                    profiler.start()
                started = time.perf_counter()
                response = await kapp.retrieval.search(question.question, ids, ids, limit=FETCH)
                planner_s.append(time.perf_counter() - started)
                await kapp.db.drain()  # the run-log row written in the background: not the next dense search's time
                if profiler is not None:
                    profiler.stop()
                for trace in response.trace:
                    stages.setdefault(trace.stage, []).append(trace.seconds)
                ranked[question.id] = unique_keys(response.hits, key_of_hit)
        runs = len(planner_s)
        rows = {name: _percentiles(seconds + [0.0] * (runs - len(seconds))) for name, seconds in stages.items()}
        return {"set": dataset.name, "corpora": corpus_count, "questions": len(dataset.questions), "rounds": rounds,
                "planner": _percentiles(planner_s), "dense": _percentiles(dense_s), "stages": rows,
                "ranked": ranked, "snapshot_wait_ms": 1000 * snapshot_s,
                "snapshot_rows": kapp.retrieval.graph_snapshots.rows}


def _print(result: dict) -> None:
    planner, dense = result["planner"], result["dense"]
    rows = [[name, f"{mean:.1f}", f"{p50:.1f}", f"{p95:.1f}"] for name, (mean, p50, p95) in result["stages"].items()]
    rows += [["planner (whole search)", *(f"{v:.1f}" for v in planner)], ["dense", *(f"{v:.1f}" for v in dense)],
             ["planner / dense (mean)", f"{planner[0] / dense[0]:.1f}x", "", ""]]
    print_table(f"{result['set']} N = {result['corpora']}: {result['questions']} questions x {result['rounds']}",
                ["stage", "mean ms", "P50 ms", "P95 ms"], rows)
    console.print(f"graph snapshots: {result['snapshot_rows']} rows, waited {result['snapshot_wait_ms']:.0f} ms for "
                  "them after the warm-up")


async def run(sets: Sequence[str], splits: Sequence[int], rounds: int, dump: Path | None,
              profile: Path | None) -> None:
    profiler = None
    if profile is not None:
        from pyinstrument import Profiler

        profiler = Profiler(async_mode="disabled")
    sources = [source for name, source in dev_sets_by_name().items() if name in sets]
    dumped = {}
    for source in sources:
        for corpus_count in splits:
            result = await profile_split(source, corpus_count, rounds, profiler)
            _print(result)
            dumped[f"{result['set']}/{corpus_count}"] = result["ranked"]
    if dump is not None:
        dump.write_text(json.dumps(dumped, indent=1), encoding="utf-8")
        console.print(f"wrote {dump}")
    if profiler is not None:
        profile.write_text(profiler.output_html(), encoding="utf-8")
        console.print(profiler.output_text(unicode=False, color=False, show_all=False))
        console.print(f"wrote {profile}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", nargs="+", default=["musique", "hotpotqa"], choices=["musique", "hotpotqa"])
    parser.add_argument("--splits", type=int, nargs="+", default=[3])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--dump", type=Path, default=None)
    parser.add_argument("--profile", type=Path, default=None)
    args = parser.parse_args(argv)
    asyncio.run(run(args.set, args.splits, args.rounds, args.dump, args.profile))


if __name__ == "__main__":
    main()

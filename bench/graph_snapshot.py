"""What the planner's graph snapshots cost: how long a kept database's corpus graphs and corpus-pair bridges take
to load and how many rows they hold, and the planner's latency right after an ingest clears them (searches read
SQL while the snapshots load in the background) against the same with snapshots off (SQL only, as before them)
and once they are loaded.

Run: ``python -m bench.graph_snapshot --database NAME [--queries 40]`` on a database another bench keeps (e.g.
``lat20kc_20000`` of ``bench planner --database lat20kc``, or an ``mh_...`` database of ``bench multihop
--cache-db``). It changes no rows: the "ingest" is the step an ingest ends with (``on_graph_updated``: the caches
and snapshots cleared, statistics refreshed where stale).
"""
from __future__ import annotations

import argparse
import asyncio
import time
from typing import Sequence

from bench.harness import console, latency_summary, print_table, scratch_app
from bench.planner import loadavg
from bench.synthetic import synthetic_queries
from knowledge.retrieval.planner.graph_reads import read_limits
from knowledge.retrieval.planner.snapshot_store import GraphSnapshots

LIMIT = 10


async def run(database: str, query_count: int) -> None:
    async with scratch_app(keep=database) as kapp:
        async with kapp.db.connection() as conn:
            ids = [r[0] for r in await conn.fetch("SELECT id FROM corpus ORDER BY created_at, id")]
        console.print(f"{database}: {len(ids)} corpora, load average {loadavg()}")
        loader = GraphSnapshots(kapp.db, read_limits(kapp.settings), kapp.settings.planner.graph_snapshot_rows)
        started = time.perf_counter()
        await loader.load(ids, bridges=False)
        graphs_s, graph_rows = time.perf_counter() - started, loader.rows
        started = time.perf_counter()
        await loader.load(ids)
        pairs_s = time.perf_counter() - started
        print_table("snapshot loads", ["units", "rows", "ms"],
                    [[f"{len(ids)} corpus graphs", str(graph_rows), f"{1000 * graphs_s:.0f}"],
                     [f"{len(ids) * (len(ids) - 1) // 2} corpus-pair bridges", str(loader.rows - graph_rows),
                      f"{1000 * pairs_s:.0f}"]])
        await loader.close()

        queries = synthetic_queries(query_count)
        search = kapp.retrieval.search
        for query in synthetic_queries(5, seed=3):  # model, pools, plan caches
            await search(query, ids, ids, limit=LIMIT)
        for query in queries:  # embedded before timing: every phase below finds them in the query cache
            kapp.query_cache.embed_query(query)
        snapshots = kapp.retrieval.graph_snapshots
        capacity, snapshots.capacity = snapshots.capacity, 0
        await kapp.retrieval.on_graph_updated()  # what an ingest ends with: caches and snapshots dropped
        sql_only = await _timed(search, queries, ids)
        snapshots.capacity = capacity
        await kapp.retrieval.on_graph_updated()
        after_clear = await _timed(search, queries, ids)
        await snapshots.load(ids)
        loaded = await _timed(search, queries, ids)
        rows = []
        for name, ms in (("after a clear, snapshots off (SQL, as main)", sql_only),
                         ("after a clear, snapshots loading meanwhile", after_clear), ("snapshots loaded", loaded)):
            s = latency_summary(ms)
            rows.append([name, f"{ms[0]:.1f}", f"{s['p50']:.1f}", f"{s['p95']:.1f}", f"{max(ms):.1f}"])
        print_table(f"planner over {len(ids)} corpora, {query_count} queries (load average after {loadavg()})",
                    ["searches", "first ms", "P50 ms", "P95 ms", "max ms"], rows)


async def _timed(search, queries: Sequence[str], ids: list) -> list[float]:
    ms = []
    for query in queries:
        started = time.perf_counter()
        await search(query, ids, ids, limit=LIMIT)
        ms.append(1000 * (time.perf_counter() - started))
    return ms


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database", required=True)
    parser.add_argument("--queries", type=int, default=40)
    args = parser.parse_args(argv)
    asyncio.run(run(args.database, args.queries))


if __name__ == "__main__":
    main()

"""The expansion's graph growth at the DESIGN caps: Python over neighbour lists vs compiled over a neighbour table.

Run: ``python -m bench.graph_growth [--entities 20000] [--seeds 100] [--searches 20]``. A synthetic corpus whose
every entity has the most neighbours a snapshot keeps (``graph_neighbors_per_hop``), so each search offers
``seeds x cap + cap x cap`` neighbours (20,000 at the defaults): the growth's worst case, which the multi-hop dev
sets (about 1,100 offers a search) stay far below. The Python growth reads the lists of named tuples the snapshots
held before the table (as ``build_entity_graph`` still does for graph reads that go to SQL); both grow the same
graph, which is checked. No database: this is the growth alone.
"""
from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from typing import Sequence

import numpy as np

from bench.harness import console, latency_summary, print_table
from config import get_settings
from knowledge.retrieval.planner.context import SeedEntity
from knowledge.retrieval.planner.entity_graph import build_entity_graph
from knowledge.retrieval.planner.growth_kernel import grow_over_table
from knowledge.retrieval.planner.neighbour_table import NeighbourTable


def synthetic_table(entities: int, per_entity: int, rng: np.random.Generator) -> NeighbourTable:
    corpus_id = uuid.uuid4()
    neighbours = {e: [(int(o), f"entity {o}", float(w)) for o, w in
                      zip(rng.choice(entities, per_entity, replace=False), np.sort(rng.random(per_entity))[::-1])]
                  for e in range(entities)}
    return NeighbourTable.of_corpus(corpus_id, range(entities), neighbours)


async def run(entity_count: int, seed_count: int, searches: int) -> None:
    planner = get_settings().planner
    depth, cap = planner.graph_max_depth, planner.graph_neighbors_per_hop
    rng = np.random.default_rng(0)
    table = synthetic_table(entity_count, cap, rng)
    corpus_id = table.corpora[0]
    lists = {e: table.neighbours(e) for e in range(entity_count)}  # what a snapshot held per entity before

    async def fetch(ids: list[int]):
        return {e: lists[e] for e in ids}

    python_ms, compiled_ms, nodes = [], [], 0
    grow_over_table({0: SeedEntity(0, corpus_id, "warm-up", 1.0, True)}, [], depth, cap, table)  # compiles
    for _ in range(searches):
        picked = rng.choice(entity_count, seed_count, replace=False).tolist()
        seeds = {e: SeedEntity(e, corpus_id, f"entity {e}", float(rng.random()), True) for e in picked}
        started = time.perf_counter()
        expected = await build_entity_graph(seeds, [], depth, cap, fetch)
        python_ms.append(1000 * (time.perf_counter() - started))
        started = time.perf_counter()
        grown = grow_over_table(seeds, [], depth, cap, table)
        compiled_ms.append(1000 * (time.perf_counter() - started))
        if grown is None or grown.nodes != expected.nodes or grown.relation_edges != expected.relation_edges:
            raise AssertionError("the compiled growth grew another graph than the Python growth")
        nodes = len(grown.nodes)
    python, compiled = latency_summary(python_ms), latency_summary(compiled_ms)
    rows = [[name, f"{s['mean']:.2f}", f"{s['p50']:.2f}", f"{s['p95']:.2f}", f"{python['mean'] / s['mean']:.1f}x"]
            for name, s in (("Python over neighbour lists", python), ("compiled over the table", compiled))]
    print_table(f"graph growth at depth {depth}, {cap} a hop: {entity_count} entities x {cap} neighbours, "
                f"{seed_count} seeds, {nodes} nodes a graph, {searches} searches",
                ["growth", "mean ms", "P50 ms", "P95 ms", "speed-up"], rows)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entities", type=int, default=20_000)
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--searches", type=int, default=20)
    args = parser.parse_args(argv)
    console.print(f"building a synthetic graph of {args.entities} entities")
    asyncio.run(run(args.entities, args.seeds, args.searches))


if __name__ == "__main__":
    main()

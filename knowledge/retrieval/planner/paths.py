"""Bridge paths: how graph-expanded evidence is reached from primary evidence of another corpus.

A path starts at an entity of primary evidence (a top-``limit`` seed chunk), crosses one canonical bridge
into another corpus (1 hop for a shared entity, 2 for a relation path) and may continue along relations
inside that corpus, never longer than ``max_depth`` hops in total.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Collection, Mapping

import numpy as np
from numba import njit

from knowledge.retrieval.planner.adjacency import undirected_adjacency
from knowledge.retrieval.planner.context import EntityBridge, SeedEntity
from knowledge.retrieval.planner.entity_graph import EntityGraph


@dataclass(frozen=True)
class Origin:
    bridge: EntityBridge
    hops: int
    source_weight: float

    def sort_key(self) -> tuple:
        return origin_key(self.hops, self.source_weight, self.bridge)


def origin_key(hops: int, source_weight: float, bridge: EntityBridge) -> tuple:
    """Fewest hops first, then the most relevant source, the surest bridge, the name."""
    return (hops, -source_weight, -bridge.confidence, bridge.canonical_name)


def bridge_origins(graph: EntityGraph, seeds: Mapping[int, SeedEntity], max_depth: int,
                   wanted: Collection[int] | None = None) -> dict[int, Origin]:
    """The best origin (fewest hops, then most relevant source) of every entity a bridge path reaches (only of
    the ``wanted`` ones when given: the expansion asks about the entities of its candidate chunks)."""
    node_at = graph.node_at
    usable = [(b, source) for b in graph.bridge_edges
              if (source := seeds.get(b.source_entity_id)) is not None and source.primary and b.hops <= max_depth]
    if not usable:
        return {}
    name_rank = {name: rank for rank, name in enumerate(sorted({b.canonical_name for b, _ in usable}))}
    wanted_nodes = (np.ones(len(node_at), np.bool_) if wanted is None else
                    np.fromiter((e in wanted for e in node_at), np.bool_, len(node_at)))
    best, distance = _best_origins(
        len(node_at), graph.relation_ends(), np.array([node_at[b.target_entity_id] for b, _ in usable], np.int64),
        np.array([max_depth - b.hops for b, _ in usable], np.int64), np.array([b.hops for b, _ in usable], np.int64),
        np.array([source.weight for _, source in usable], np.float64),
        np.array([b.confidence for b, _ in usable], np.float64),
        np.array([name_rank[b.canonical_name] for b, _ in usable], np.int64), wanted_nodes)
    origins: dict[int, Origin] = {}
    for at in np.flatnonzero(best >= 0).tolist():
        bridge, source = usable[best[at]]
        origins[graph.node_ids[at]] = Origin(bridge, bridge.hops + int(distance[at]), source.weight)
    return origins


@njit(cache=True)
def _best_origins(size, ends, targets, budgets, hops, source_weights, confidences, name_ranks,
                  wanted):  # pragma: no cover - compiled; tested through bridge_origins
    """For every wanted node, the bridge (by index) of the smallest origin_key that reaches it within the bridge's
    budget of relation hops (breadth first from the bridge's target; the first bridge of equal keys), and the
    distance; -1 where none does."""
    indptr, adjacent, _ = undirected_adjacency(size, ends)
    best = np.full(size, -1, np.int64)
    best_distance = np.zeros(size, np.int64)
    seen_by = np.full(size, -1, np.int64)  # the last bridge whose search reached a node
    frontier = np.empty(size, np.int64)
    for i in range(targets.shape[0]):
        frontier[0] = targets[i]
        seen_by[targets[i]] = i
        level_start, level_end, depth = 0, 1, 0
        while True:
            for k in range(level_start, level_end):
                node = frontier[k]
                if wanted[node] and _before(i, depth, best[node], best_distance[node], hops, source_weights,
                                            confidences, name_ranks):
                    best[node], best_distance[node] = i, depth
            if depth == budgets[i]:
                break
            count = level_end
            for k in range(level_start, level_end):
                node = frontier[k]
                for j in range(indptr[node], indptr[node + 1]):
                    if seen_by[adjacent[j]] != i:
                        seen_by[adjacent[j]] = i
                        frontier[count] = adjacent[j]
                        count += 1
            if count == level_end:
                break
            level_start, level_end, depth = level_end, count, depth + 1
    return best, best_distance


@njit(cache=True)
def _before(i, distance, other, other_distance, hops, source_weights, confidences,
            name_ranks):  # pragma: no cover - compiled
    """Whether bridge ``i`` at ``distance`` makes a smaller origin_key than bridge ``other`` (-1: none yet) at its."""
    if other < 0:
        return True
    mine = (hops[i] + distance, -source_weights[i], -confidences[i], name_ranks[i])
    theirs = (hops[other] + other_distance, -source_weights[other], -confidences[other], name_ranks[other])
    return mine < theirs

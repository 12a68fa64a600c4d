"""Hierarchical Leiden communities over one corpus graph (igraph + leidenalg). Pure: no database.

Level 0 is Leiden (modularity, weighted) on the whole graph, so it covers every entity; isolated entities
are communities of one. Level 1 runs Leiden again inside each level-0 community of at least
``SPLIT_MIN_MEMBERS`` members and keeps the split when it yields two or more parts; each level-1 community
points at its level-0 parent. A fixed seed and sorted inputs make the result deterministic.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Sequence

import igraph as ig
import leidenalg

SPLIT_MIN_MEMBERS = 12
LEIDEN_SEED = 42


@dataclass(frozen=True)
class Community:
    level: int
    key: int  # unique within (corpus, level)
    members: tuple[int, ...]  # entity ids, ascending
    parent_key: int | None = None  # level-0 key of a level-1 community


def _undirected_weights(edges: Sequence[tuple[int, int, float]], nodes: set[int]) -> dict[tuple[int, int], float]:
    weights: dict[tuple[int, int], float] = defaultdict(float)
    for source, target, weight in edges:
        if source != target and source in nodes and target in nodes:
            weights[(min(source, target), max(source, target))] += max(float(weight), 0.0)
    return weights


def _leiden(nodes: Sequence[int], weights: dict[tuple[int, int], float]) -> list[tuple[int, ...]]:
    """Partition ``nodes`` (ascending ids); parts sorted by size descending, then smallest member."""
    index = {node: i for i, node in enumerate(nodes)}
    pairs = sorted(weights)
    graph = ig.Graph(n=len(nodes), edges=[(index[a], index[b]) for a, b in pairs])
    graph.es["weight"] = [weights[p] for p in pairs]
    if graph.ecount() == 0:
        parts = [(node,) for node in nodes]
    else:
        partition = leidenalg.find_partition(graph, leidenalg.ModularityVertexPartition, weights="weight",
                                             seed=LEIDEN_SEED, n_iterations=-1)
        grouped: dict[int, list[int]] = defaultdict(list)
        for vertex, part in enumerate(partition.membership):
            grouped[part].append(nodes[vertex])
        parts = [tuple(members) for members in grouped.values()]
    return sorted(parts, key=lambda members: (-len(members), members[0]))


def detect_communities(entity_ids: Sequence[int], edges: Sequence[tuple[int, int, float]],
                       split_min_members: int = SPLIT_MIN_MEMBERS) -> list[Community]:
    nodes = sorted(set(entity_ids))
    if not nodes:
        return []
    weights = _undirected_weights(edges, set(nodes))
    level0 = [Community(0, key, members) for key, members in enumerate(_leiden(nodes, weights))]
    level1: list[Community] = []
    for parent in level0:
        if len(parent.members) < split_min_members:
            continue
        inside = set(parent.members)
        sub_weights = {pair: w for pair, w in weights.items() if pair[0] in inside and pair[1] in inside}
        parts = _leiden(list(parent.members), sub_weights)
        if len(parts) < 2:
            continue
        base = len(level1)
        level1.extend(Community(1, base + i, part, parent.key) for i, part in enumerate(parts))
    return level0 + level1

"""Hierarchical Leiden communities over one corpus graph (igraph + leidenalg). Pure: no database.

Level 0 partitions every entity: Leiden (weighted modularity) runs over the corpus graph one connected
component at a time, each component scored by its own modularity. Leiden never puts disconnected entities
in one community anyway; scoring per component additionally keeps one component's communities independent
of the rest of the graph, so ingesting an unrelated document leaves them (and their summaries) untouched,
and an unchanged component does not need to be partitioned again. Isolated entities are communities of one.

Level 1 runs Leiden again inside each level-0 community of at least ``SPLIT_MIN_MEMBERS`` members and keeps
the split when it yields two or more parts; each level-1 community points at its level-0 parent. A fixed
seed and sorted inputs make the result deterministic.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Sequence

import igraph as ig
import leidenalg

SPLIT_MIN_MEMBERS = 12
LEIDEN_SEED = 42
LEIDEN_ITERATIONS = 2

Pair = tuple[int, int]


@dataclass(frozen=True)
class Community:
    level: int
    key: int  # unique within (level, one detection run)
    members: tuple[int, ...]  # entity ids, ascending
    parent_key: int | None = None  # level-0 key of a level-1 community


@dataclass(frozen=True)
class Component:
    members: tuple[int, ...]  # ascending
    weights: dict[Pair, float]  # undirected edges inside the component, (low id, high id) -> summed weight


def undirected_weights(edges: Sequence[tuple[int, int, float]], nodes: set[int]) -> dict[Pair, float]:
    weights: dict[Pair, float] = defaultdict(float)
    for source, target, weight in edges:
        if source != target and source in nodes and target in nodes:
            weights[(min(source, target), max(source, target))] += max(float(weight), 0.0)
    return dict(weights)


def _graph(nodes: Sequence[int], weights: dict[Pair, float]) -> ig.Graph:
    index = {node: i for i, node in enumerate(nodes)}
    pairs = sorted(weights)
    graph = ig.Graph(n=len(nodes), edges=[(index[a], index[b]) for a, b in pairs])
    graph.es["weight"] = [weights[p] for p in pairs]
    return graph


def connected_components(entity_ids: Sequence[int], edges: Sequence[tuple[int, int, float]]) -> list[Component]:
    """Components sorted by size (descending), then smallest member."""
    nodes = sorted(set(entity_ids))
    weights = undirected_weights(edges, set(nodes))
    membership = _graph(nodes, weights).connected_components().membership
    grouped: dict[int, list[int]] = defaultdict(list)
    for vertex, part in enumerate(membership):
        grouped[part].append(nodes[vertex])
    component_of = {node: part for part, members in grouped.items() for node in members}
    inside: dict[int, dict[Pair, float]] = defaultdict(dict)
    for pair, weight in weights.items():
        inside[component_of[pair[0]]][pair] = weight
    components = [Component(tuple(members), inside[part]) for part, members in grouped.items()]
    return sorted(components, key=lambda c: (-len(c.members), c.members[0]))


def _leiden(nodes: Sequence[int], weights: dict[Pair, float]) -> list[tuple[int, ...]]:
    """Partition ``nodes`` (ascending ids); parts sorted by size descending, then smallest member."""
    if len(nodes) <= 2 or not weights:
        return [tuple(nodes)] if weights else [(node,) for node in nodes]
    partition = leidenalg.find_partition(_graph(nodes, weights), leidenalg.ModularityVertexPartition,
                                         weights="weight", seed=LEIDEN_SEED, n_iterations=LEIDEN_ITERATIONS)
    grouped: dict[int, list[int]] = defaultdict(list)
    for vertex, part in enumerate(partition.membership):
        grouped[part].append(nodes[vertex])
    return sorted((tuple(m) for m in grouped.values()), key=lambda members: (-len(members), members[0]))


def partition_component(component: Component, split_min_members: int = SPLIT_MIN_MEMBERS) -> list[Community]:
    """Level-0 and level-1 communities of one component; keys are local to this call."""
    level0 = [Community(0, key, members) for key, members in enumerate(_leiden(component.members, component.weights))]
    level1: list[Community] = []
    for parent in level0:
        if len(parent.members) < split_min_members:
            continue
        inside = set(parent.members)
        weights = {p: w for p, w in component.weights.items() if p[0] in inside and p[1] in inside}
        parts = _leiden(parent.members, weights)
        if len(parts) < 2:
            continue
        base = len(level1)
        level1.extend(Community(1, base + i, part, parent.key) for i, part in enumerate(parts))
    return level0 + level1

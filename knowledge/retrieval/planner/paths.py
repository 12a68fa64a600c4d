"""Bridge paths: how graph-expanded evidence is reached from primary evidence of another corpus.

A path starts at an entity of primary evidence (a top-``limit`` seed chunk), crosses one canonical bridge
into another corpus (1 hop for a shared entity, 2 for a relation path) and may continue along relations
inside that corpus, never longer than ``max_depth`` hops in total.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Collection, Iterable, Mapping

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


def within(adjacency: Mapping[int, set[int]], start: int, cutoff: int) -> dict[int, int]:
    """Entities at most ``cutoff`` relation hops from ``start``, with their distance (breadth first)."""
    distance = {start: 0}
    frontier = [start]
    for depth in range(1, cutoff + 1):
        frontier = [n for e in frontier for n in adjacency.get(e, ()) if n not in distance]
        for n in frontier:
            distance.setdefault(n, depth)
    return distance


def adjacency_near(edges: Iterable[tuple[int, int]], starts: Iterable[int], reach: int) -> dict[int, set[int]]:
    """The relation neighbours of every entity fewer than ``reach`` hops from one of ``starts``: what a breadth-first
    search from them up to ``reach`` hops reads (the graph's other entities are not looked at)."""
    adjacency: dict[int, set[int]] = {}
    level = set(starts)
    edges = list(edges)
    for _ in range(reach):
        found: dict[int, set[int]] = {e: set() for e in level}
        for a, b in edges:
            if a in found:
                found[a].add(b)
            if b in found:
                found[b].add(a)
        adjacency |= found
        level = {n for neighbours in found.values() for n in neighbours} - adjacency.keys()
    return adjacency


def bridge_origins(graph: EntityGraph, seeds: Mapping[int, SeedEntity], max_depth: int,
                   wanted: Collection[int] | None = None) -> dict[int, Origin]:
    """The best origin (fewest hops, then most relevant source) of every entity a bridge path reaches (only of
    the ``wanted`` ones when given: the expansion asks about the entities of its candidate chunks)."""
    reach = max((max_depth - b.hops for b in graph.bridge_edges), default=0)
    adjacency = adjacency_near(graph.relation_edges, {b.target_entity_id for b in graph.bridge_edges}, reach)
    best: dict[int, Origin] = {}
    keys: dict[int, tuple] = {}
    for bridge in graph.bridge_edges:
        source = seeds.get(bridge.source_entity_id)
        budget = max_depth - bridge.hops
        if source is None or not source.primary or budget < 0:
            continue
        for entity_id, distance in within(adjacency, bridge.target_entity_id, budget).items():
            if wanted is not None and entity_id not in wanted:
                continue
            key = origin_key(bridge.hops + distance, source.weight, bridge)
            current = keys.get(entity_id)
            if current is None or key < current:
                best[entity_id], keys[entity_id] = Origin(bridge, bridge.hops + distance, source.weight), key
    return best

"""Bridge paths: how graph-expanded evidence is reached from primary evidence of another corpus.

A path starts at an entity of primary evidence (a top-``limit`` seed chunk), crosses one canonical bridge
into another corpus (1 hop for a shared entity, 2 for a relation path) and may continue along relations
inside that corpus, never longer than ``max_depth`` hops in total.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import networkx as nx

from knowledge.retrieval.planner.context import EntityBridge, SeedEntity
from knowledge.retrieval.planner.entity_graph import EntityGraph


@dataclass(frozen=True)
class Origin:
    bridge: EntityBridge
    hops: int
    source_weight: float

    def sort_key(self) -> tuple:
        return (self.hops, -self.source_weight, -self.bridge.confidence, self.bridge.canonical_name)


def bridge_origins(graph: EntityGraph, seeds: Mapping[int, SeedEntity], max_depth: int) -> dict[int, Origin]:
    """The best origin (fewest hops, then most relevant source) of every entity a bridge path reaches."""
    local = nx.Graph()
    local.add_nodes_from(graph.nodes)
    local.add_edges_from(graph.relation_edges)
    best: dict[int, Origin] = {}
    for bridge in graph.bridge_edges:
        source = seeds.get(bridge.source_entity_id)
        budget = max_depth - bridge.hops
        if source is None or not source.primary or budget < 0:
            continue
        reached = nx.single_source_shortest_path_length(local, bridge.target_entity_id, cutoff=budget)
        for entity_id, distance in reached.items():
            origin = Origin(bridge, bridge.hops + distance, source.weight)
            current = best.get(entity_id)
            if current is None or origin.sort_key() < current.sort_key():
                best[entity_id] = origin
    return best

"""Bounded breadth-first growth of the entity graph around the seed entities.

Hop by hop (at most ``max_depth``), each frontier entity offers its relation neighbours and the seeds offer
their bridged counterparts (a bridge of ``hops`` h lands at depth h); at most ``per_hop`` new entities join
per hop, the most promising first (parent priority x edge weight).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from itertools import chain
from typing import Awaitable, Callable, Container, Mapping, NamedTuple, Sequence
from uuid import UUID

import numpy as np
from numba import njit

from knowledge.retrieval.planner.context import EntityBridge, SeedEntity

SHARED_ENTITY = "shared_entity"


class Neighbour(NamedTuple):  # named tuples: thousands are made per search, several times cheaper than dataclasses
    entity_id: int
    corpus_id: UUID
    name: str
    weight: float


class GraphNode(NamedTuple):
    entity_id: int
    corpus_id: UUID
    name: str
    depth: int
    priority: float


@dataclass
class EntityGraph:
    """The grown graph: its nodes in the order they joined (the seeds, then each hop's choice) as columns, the
    relation edges between them as arrays, and the bridges between them."""
    node_ids: list[int]
    node_corpora: Sequence[UUID]   # the corpus each node was recorded with
    node_names: Sequence[str]
    node_depths: list[int]
    node_priorities: list[float]
    edge_ids: np.ndarray           # (edges, 2) int64: relation edges between nodes as (low id, high id), each once
    edge_weights: np.ndarray       # float64, > 0
    bridge_edges: list[EntityBridge]  # both ends in nodes, hops <= max depth
    added_per_hop: list[int] = field(default_factory=list)
    # edge_ids as places among the nodes, when the growth had them at hand (the compiled one does); otherwise
    # relation_ends() looks them up once
    edge_nodes: np.ndarray | None = None
    bridge_nodes: np.ndarray | None = None  # bridge_edges' ends as places, once bridge_ends() looked them up

    @classmethod
    def of(cls, nodes: Mapping[int, GraphNode], relation_edges: Mapping[tuple[int, int], float],
           bridge_edges: Sequence[EntityBridge], added_per_hop: Sequence[int] = ()) -> "EntityGraph":
        """The graph of ``nodes`` (in their order) and ``relation_edges`` ((low id, high id) -> weight)."""
        columns = [list(column) for column in zip(*nodes.values())] or [[] for _ in GraphNode._fields]
        return cls(*columns, edge_ids=np.array(list(relation_edges), dtype=np.int64).reshape(-1, 2),
                   edge_weights=np.fromiter(relation_edges.values(), float, len(relation_edges)),
                   bridge_edges=list(bridge_edges), added_per_hop=list(added_per_hop))

    @property
    def nodes(self) -> dict[int, GraphNode]:
        """Node -> GraphNode, in the order they joined (built on demand: the search reads the columns)."""
        return dict(zip(self.node_ids, map(GraphNode._make, zip(self.node_ids, self.node_corpora, self.node_names,
                                                               self.node_depths, self.node_priorities))))

    @property
    def relation_edges(self) -> dict[tuple[int, int], float]:
        """(low id, high id) -> weight (built on demand)."""
        return dict(zip(map(tuple, self.edge_ids.tolist()), self.edge_weights.tolist()))

    @functools.cached_property
    def node_at(self) -> dict[int, int]:
        """Node -> its place among the nodes."""
        return {entity_id: i for i, entity_id in enumerate(self.node_ids)}

    def relation_ends(self) -> np.ndarray:
        """The relation edges' ends as places among the nodes, one row per edge."""
        if self.edge_nodes is None:
            node_at = self.node_at
            self.edge_nodes = np.fromiter(map(node_at.__getitem__, self.edge_ids.ravel().tolist()), np.int64,
                                          self.edge_ids.size).reshape(-1, 2)
        return self.edge_nodes

    def bridge_ends(self) -> np.ndarray:
        """The bridges' (source, target) as places among the nodes, one row per bridge."""
        if self.bridge_nodes is None:
            node_at = self.node_at
            self.bridge_nodes = np.fromiter(chain.from_iterable(
                (node_at[b.source_entity_id], node_at[b.target_entity_id]) for b in self.bridge_edges), np.int64,
                2 * len(self.bridge_edges)).reshape(-1, 2)
        return self.bridge_nodes

    def same_entity_places(self) -> tuple[np.ndarray, int]:
        """A place for every node (in node order) and the number of places: copies of one canonical entity in
        different corpora (joined by shared_entity bridges, transitively) share one, so the walk treats them as the
        one entity they are; places are numbered in the order their first node joined."""
        shared = np.fromiter((b.bridge_type == SHARED_ENTITY for b in self.bridge_edges), np.bool_,
                             len(self.bridge_edges))
        return _group_places(len(self.node_ids), self.bridge_ends()[shared])

    def edge_arrays(self, node_places: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Relation edges, then bridges, as rows of their two ends' places (``node_places``: a place for every node,
        in node order), and their weights. Copies of one entity share a place: an edge between them is a loop,
        which the walk skips."""
        weights = np.concatenate((self.edge_weights, np.fromiter((b.confidence for b in self.bridge_edges), float,
                                                                 len(self.bridge_edges))))
        return node_places[np.concatenate((self.relation_ends(), self.bridge_ends()))], weights


@njit(cache=True)
def _group_places(size, joined):  # pragma: no cover - compiled; tested through same_entity_places
    """Union-find over the node pairs ``joined``; each group's place is the order of its first node."""
    parent = np.arange(size)
    for k in range(joined.shape[0]):
        a, b = joined[k, 0], joined[k, 1]
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        if a != b:
            parent[max(a, b)] = min(a, b)
    places = np.empty(size, np.int64)
    place_of_root = np.full(size, -1, np.int64)
    count = 0
    for n in range(size):
        root = n
        while parent[root] != root:
            root = parent[root]
        if place_of_root[root] < 0:
            place_of_root[root] = count
            count += 1
        places[n] = place_of_root[root]
    return places, count


NeighbourFetch = Callable[[list[int]], Awaitable[Mapping[int, Sequence[Neighbour]]]]


def usable_bridges(seeds: Mapping[int, SeedEntity], bridges: Sequence[EntityBridge], max_depth: int,
                   per_hop: int) -> list[EntityBridge]:
    """The bridges the growth starts from: those from a seed, within the depth."""
    if max_depth < 0 or per_hop < 0:
        raise ValueError(f"graph_max_depth and graph_neighbors_per_hop must be >= 0, got {max_depth}, {per_hop}")
    return [b for b in bridges if b.hops <= max_depth and b.source_entity_id in seeds]


def bridges_between(usable: Sequence[EntityBridge], nodes: Container[int]) -> list[EntityBridge]:
    """The ``usable`` bridges that reach one of the grown ``nodes`` (and carry weight)."""
    return [b for b in usable if b.target_entity_id in nodes and b.confidence > 0]


async def build_entity_graph(seeds: Mapping[int, SeedEntity], bridges: Sequence[EntityBridge], max_depth: int,
                             per_hop: int, fetch_neighbours: NeighbourFetch) -> EntityGraph:
    """The growth in Python, neighbours fetched hop by hop (growth_kernel.py runs it compiled over a snapshot)."""
    usable = usable_bridges(seeds, bridges, max_depth, per_hop)
    nodes = {e: GraphNode(s.entity_id, s.corpus_id, s.name, 0, s.weight) for e, s in seeds.items()}
    arrivals: dict[int, list[GraphNode]] = {}  # each bridge's target, at the depth of its hops, in bridge order
    for b in usable:
        arrivals.setdefault(b.hops, []).append(GraphNode(b.target_entity_id, b.target_corpus_id, b.canonical_name,
                                                         b.hops, seeds[b.source_entity_id].weight * b.confidence))
    edges: dict[tuple[int, int], float] = {}
    added_per_hop: list[int] = []
    frontier = list(nodes)
    for depth in range(1, max_depth + 1):
        # candidate -> its best priority so far, and the corpus and name it came with (the first of equal priority)
        priority_of: dict[int, float] = {}
        came_with: dict[int, tuple[UUID, str]] = {}
        if frontier:
            neighbourhoods = await fetch_neighbours(frontier)
            edge_weight, best_priority = edges.get, priority_of.get
            for entity_id in frontier:
                parent = nodes[entity_id]
                parent_corpus, parent_priority = parent.corpus_id, parent.priority
                # unpacked: thousands of neighbours a search, and a named tuple's attributes cost a call each
                for other, corpus_id, name, weight in neighbourhoods.get(entity_id, ()):
                    if corpus_id != parent_corpus or other == entity_id:
                        continue  # relations never leave their corpus; only bridges cross
                    key = (entity_id, other) if entity_id < other else (other, entity_id)
                    if weight > edge_weight(key, 0.0):
                        edges[key] = weight
                    if other not in nodes:
                        priority = parent_priority * weight
                        if priority > best_priority(other, -math.inf):
                            priority_of[other] = priority
                            came_with[other] = corpus_id, name
        for node in arrivals.get(depth, ()):
            if node.entity_id not in nodes and node.priority > priority_of.get(node.entity_id, -math.inf):
                priority_of[node.entity_id] = node.priority
                came_with[node.entity_id] = node.corpus_id, node.name
        chosen = [e for _, e in sorted([(-priority, e) for e, priority in priority_of.items()])[:per_hop]]
        for entity_id in chosen:
            nodes[entity_id] = GraphNode(entity_id, *came_with[entity_id], depth, priority_of[entity_id])
        added_per_hop.append(len(chosen))
        frontier = chosen
    return EntityGraph.of(nodes, {k: w for k, w in edges.items() if k[0] in nodes and k[1] in nodes},
                          bridges_between(usable, nodes), added_per_hop)

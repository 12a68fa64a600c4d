"""The personalized PageRank walk over the entity graph, split by the corpus it starts from.

Copies of one canonical entity (shared_entity bridges) are walked as one node. PageRank is linear in the
restart distribution, so the walk from all seeds is the weighted sum of one walk per source corpus; keeping
them apart tells how much of an entity's mass arrives from *other* corpora, i.e. through the bridges.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping
from uuid import UUID

import numpy as np

from knowledge.retrieval.planner.context import SeedEntity
from knowledge.retrieval.planner.entity_graph import EntityGraph
from knowledge.retrieval.planner.ppr import pagerank_of_edge_arrays


@dataclass
class Walk:
    places: Mapping[int, int]                      # entity -> its place in the mass arrays (one per same-entity group)
    size: int                                      # places in the mass arrays
    by_source: Mapping[UUID, np.ndarray]           # source corpus -> mass of every place (all sources sum to 1)
    total: np.ndarray = field(init=False)
    _others: dict[UUID, list[float]] = field(default_factory=dict)  # by_source summed without one corpus

    def __post_init__(self) -> None:
        self.total = self._sum(self.by_source.values())

    def _sum(self, arrays: Iterable[np.ndarray]) -> np.ndarray:
        total = np.zeros(self.size)
        for masses in arrays:  # added one source after the other, as a sum() of the floats would
            total = total + masses
        return total

    def top(self, count: int) -> list[tuple[int, float]]:
        """The ``count`` entities of most mass (mass > 0), most first, then by entity id, with their mass."""
        ids = np.fromiter(self.places, np.int64, len(self.places))
        mass = self.total[np.fromiter(self.places.values(), np.int64, len(self.places))]
        reached = np.flatnonzero(mass > 0)
        order = reached[np.lexsort((ids[reached], -mass[reached]))][:count]
        return list(zip(ids[order].tolist(), mass[order].tolist()))

    def masses_from_other_corpora(self, corpus_id: UUID) -> list[float]:
        """By place in the mass arrays: the mass every group gets from the seeds of the other corpora."""
        others = self._others.get(corpus_id)
        if others is None:
            others = self._others[corpus_id] = self._sum(m for source, m in self.by_source.items()
                                                         if source != corpus_id).tolist()
        return others


def walk_from_seeds(graph: EntityGraph, seeds: Mapping[int, SeedEntity], damping: float) -> Walk:
    node_places, size = graph.same_entity_places()
    places = dict(zip(graph.node_ids, node_places.tolist()))
    restart: dict[UUID, dict[int, float]] = {}
    for entity in seeds.values():
        if entity.weight > 0 and (place := places.get(entity.entity_id)) is not None:
            per_place = restart.setdefault(entity.corpus_id, {})
            per_place[place] = per_place.get(place, 0.0) + entity.weight
    total = sum(sum(p.values()) for p in restart.values())
    ends, weights = graph.edge_arrays(node_places)
    ranks = pagerank_of_edge_arrays(size, ends, weights, restart, damping)
    by_source = {corpus_id: sum(restart[corpus_id].values()) / total * ranks[corpus_id] for corpus_id in restart
                 if ranks[corpus_id] is not None}
    return Walk(places=places, size=size, by_source=by_source)

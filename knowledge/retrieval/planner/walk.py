"""The personalized PageRank walk over the entity graph, split by the corpus it starts from.

Copies of one canonical entity (shared_entity bridges) are walked as one node. PageRank is linear in the
restart distribution, so the walk from all seeds is the weighted sum of one walk per source corpus; keeping
them apart tells how much of an entity's mass arrives from *other* corpora, i.e. through the bridges.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence
from uuid import UUID

import numpy as np

from knowledge.retrieval.planner.context import SeedEntity
from knowledge.retrieval.planner.entity_graph import EntityGraph
from knowledge.retrieval.planner.ppr import pagerank_of_edge_arrays


@dataclass
class Walk:
    groups: Mapping[int, int]                      # entity -> its same-entity group
    index: Mapping[int, int]                       # group -> its place in the mass arrays
    by_source: Mapping[UUID, np.ndarray]           # source corpus -> mass of every group (all sources sum to 1)
    total: np.ndarray = field(init=False)
    _others: dict[UUID, list[float]] = field(default_factory=dict)  # by_source summed without one corpus

    def __post_init__(self) -> None:
        self.total = self._sum(self.by_source.values())

    def _sum(self, arrays: Iterable[np.ndarray]) -> np.ndarray:
        total = np.zeros(len(self.index))  # added one source after the other, as a sum() of the floats would
        for masses in arrays:
            total = total + masses
        return total

    def masses(self, entity_ids: Sequence[int]) -> dict[int, float]:
        at = [self.index[self.groups[e]] for e in entity_ids]
        return dict(zip(entity_ids, self.total[at].tolist()))

    def masses_from_other_corpora(self, corpus_id: UUID) -> list[float]:
        """By place in the mass arrays (``index``): the mass every group gets from the seeds of the other corpora."""
        others = self._others.get(corpus_id)
        if others is None:
            others = self._others[corpus_id] = self._sum(m for source, m in self.by_source.items()
                                                         if source != corpus_id).tolist()
        return others


def walk_from_seeds(graph: EntityGraph, seeds: Mapping[int, SeedEntity], damping: float) -> Walk:
    groups = graph.same_entity_groups()
    restart: dict[UUID, dict[int, float]] = {}
    for entity in seeds.values():
        if entity.weight > 0 and entity.entity_id in groups:
            per_group = restart.setdefault(entity.corpus_id, {})
            group = groups[entity.entity_id]
            per_group[group] = per_group.get(group, 0.0) + entity.weight
    total = sum(sum(p.values()) for p in restart.values())
    index = {group: i for i, group in enumerate(set(groups.values()))}
    ends, weights = graph.edge_arrays({entity: index[group] for entity, group in groups.items()})
    ranks = pagerank_of_edge_arrays(index, ends, weights, restart, damping)
    by_source = {corpus_id: sum(restart[corpus_id].values()) / total * ranks[corpus_id] for corpus_id in restart
                 if ranks[corpus_id] is not None}
    return Walk(groups=groups, index=index, by_source=by_source)

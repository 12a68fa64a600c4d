"""The personalized PageRank walk over the entity graph, split by the corpus it starts from.

Copies of one canonical entity (shared_entity bridges) are walked as one node. PageRank is linear in the
restart distribution, so the walk from all seeds is the weighted sum of one walk per source corpus; keeping
them apart tells how much of an entity's mass arrives from *other* corpora, i.e. through the bridges.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping
from uuid import UUID

from knowledge.retrieval.planner.context import SeedEntity
from knowledge.retrieval.planner.entity_graph import EntityGraph
from knowledge.retrieval.planner.ppr import personalized_pagerank_many


@dataclass(frozen=True)
class Walk:
    groups: Mapping[int, int]                      # entity -> its same-entity group
    by_source: Mapping[UUID, Mapping[int, float]]  # source corpus -> group -> mass (all sources sum to 1)

    def mass(self, entity_id: int) -> float:
        group = self.groups[entity_id]
        return sum(masses.get(group, 0.0) for masses in self.by_source.values())

    def mass_from_other_corpora(self, entity_id: int, corpus_id: UUID) -> float:
        group = self.groups[entity_id]
        return sum(m.get(group, 0.0) for source, m in self.by_source.items() if source != corpus_id)


def walk_from_seeds(graph: EntityGraph, seeds: Mapping[int, SeedEntity], damping: float) -> Walk:
    groups = graph.same_entity_groups()
    restart: dict[UUID, dict[int, float]] = {}
    for entity in seeds.values():
        if entity.weight > 0 and entity.entity_id in groups:
            per_group = restart.setdefault(entity.corpus_id, {})
            group = groups[entity.entity_id]
            per_group[group] = per_group.get(group, 0.0) + entity.weight
    total = sum(sum(p.values()) for p in restart.values())
    ranks = personalized_pagerank_many(set(groups.values()), graph.weighted_edges(groups), restart, damping)
    by_source = {corpus_id: {group: sum(restart[corpus_id].values()) / total * mass
                             for group, mass in ranks[corpus_id].items()} for corpus_id in restart}
    return Walk(groups=groups, by_source=by_source)

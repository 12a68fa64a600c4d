"""Decide, for the entity groups of one ingest batch, which existing entity each joins and which are new.

Pure: the builder fetches candidates from the database and writes the plan. The Fellegi-Sunter decisions
are the EntityResolver's: MATCH merges (into an existing entity when the cluster matched one, else into one
new entity), POSSIBLE goes to the review queue, NON_MATCH stays apart.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence, Union

import numpy as np

from knowledge.graph.collect import EntityGroup, GroupRef
from knowledge.graph.naming import display_name
from knowledge.graph.resolution import FIELD_LEVELS, Decision, EntityRecord, EntityResolver, PairScore, level_weight

# A review-pair end: an existing entity id, or a batch group whose id is only known after it is written.
EndPoint = Union[int, GroupRef]


@dataclass(frozen=True)
class ExistingEntity:
    id: int
    canonical_name: str
    name_normalized: str
    type: str
    embedding: np.ndarray | None = field(default=None, compare=False, repr=False)
    neighbours: frozenset[str] = frozenset()

    def record(self) -> EntityRecord:
        return EntityRecord(self.id, display_name(self.canonical_name, self.type), self.type, self.embedding,
                            self.neighbours)


@dataclass
class NewEntity:
    groups: list[EntityGroup]  # representative first

    @property
    def representative(self) -> EntityGroup:
        return self.groups[0]

    @property
    def mention_count(self) -> int:
        """Distinct mention spans (the rows kg_entity_mention will hold for this entity)."""
        return len({(m.chunk_id, m.start) for g in self.groups for m in g.mentions})

    @property
    def surfaces(self) -> set[str]:
        return set().union(*(g.surfaces for g in self.groups))


@dataclass(frozen=True)
class ReviewPair:
    left: EndPoint
    right: EndPoint
    weight: float
    components: dict[str, float]


@dataclass
class MergePlan:
    into_existing: dict[GroupRef, int] = field(default_factory=dict)
    new_entities: list[NewEntity] = field(default_factory=list)
    review: list[ReviewPair] = field(default_factory=list)
    decisions: Counter = field(default_factory=Counter)  # exact_match / match / merged_in_batch / new / possible


def exact_match_is_decisive(resolver: EntityResolver) -> bool:
    """True when an exact name with the same type is a MATCH whatever the embeddings and neighbours say."""
    floor = level_weight("name", "exact") + level_weight("type", "same")
    for name, levels in FIELD_LEVELS.items():
        if name not in ("name", "type"):
            floor += min(0.0, min(level_weight(name, level) for level in levels))
    return floor >= resolver.match_threshold


def find_exact_matches(groups: Sequence[EntityGroup], existing: Sequence[ExistingEntity],
                       resolver: EntityResolver) -> dict[GroupRef, int]:
    """Groups whose name and type agree exactly (resolver's comparison levels) with an existing entity.

    These are MATCHes on strings alone, so they skip embedding and scoring; empty when the resolver's
    weights would let other fields overturn an exact name.
    """
    if not exact_match_is_decisive(resolver):
        return {}
    by_key: dict[str, list[ExistingEntity]] = {}
    for entity in sorted(existing, key=lambda e: e.id):
        by_key.setdefault(entity.name_normalized, []).append(entity)
    matches: dict[GroupRef, int] = {}
    for group in groups:
        probe = EntityRecord(group.ref, group.name, group.type)
        for entity in by_key.get(group.key, ()):
            target = entity.record()
            if resolver.name_level(probe, target) == "exact" and resolver.type_level(probe, target) == "same":
                matches[group.ref] = entity.id
                break
    return matches


def new_records(groups: Sequence[EntityGroup], embeddings: dict[GroupRef, np.ndarray]) -> list[EntityRecord]:
    """Resolver records for batch groups; ids are strings so they never collide with existing (int) ids."""
    return [EntityRecord(f"g{i}", g.name, g.type, embeddings.get(g.ref), frozenset(g.neighbours))
            for i, g in enumerate(groups)]


def _representative_first(groups: list[EntityGroup]) -> list[EntityGroup]:
    return sorted(groups, key=lambda g: (-len(g.mentions), g.name, g.type))


def plan_merges(groups: Sequence[EntityGroup], records: Sequence[EntityRecord], existing: Sequence[ExistingEntity],
                resolver: EntityResolver, exact: dict[GroupRef, int]) -> MergePlan:
    """``groups``/``records`` are the batch groups not in ``exact`` and their resolver records (same order)."""
    plan = MergePlan(into_existing=dict(exact))
    plan.decisions["exact_match"] = len(exact)
    group_of = {r.id: g for r, g in zip(records, groups)}
    scores = resolver.resolve(list(records), [e.record() for e in existing], keep_non_matches=False)
    within_batch: list[PairScore] = []
    to_existing: dict[str, list[PairScore]] = {}
    for score in scores:
        if isinstance(score.right_id, str):
            within_batch.append(score)
        elif score.decision is Decision.MATCH:
            to_existing.setdefault(str(score.left_id), []).append(score)
        if score.decision is Decision.POSSIBLE:
            right = score.right_id if isinstance(score.right_id, int) else group_of[score.right_id].ref
            plan.review.append(ReviewPair(group_of[score.left_id].ref, right, score.weight, score.components))
    plan.decisions["possible"] = len(plan.review)

    for cluster in resolver.clusters(list(records), within_batch, existing_ids=()):
        members = [group_of[r.id] for r in cluster]
        matches = sorted((s for r in cluster for s in to_existing.get(str(r.id), ())),
                         key=lambda s: (-s.weight, s.right_id))
        if not matches:
            plan.new_entities.append(NewEntity(_representative_first(members)))
            plan.decisions["new"] += 1
            plan.decisions["merged_in_batch"] += len(members) - 1
            continue
        target = int(matches[0].right_id)
        for group in members:
            plan.into_existing[group.ref] = target
        plan.decisions["match"] += len(members)
        # the cluster also matched other existing entities: they were kept apart before, so ask a reviewer
        others: dict[int, PairScore] = {}
        for score in matches[1:]:
            if int(score.right_id) != target:
                others.setdefault(int(score.right_id), score)
        for other, score in others.items():
            plan.review.append(ReviewPair(target, other, score.weight, score.components))
    return plan

"""In-memory snapshot of the canonical bridges between two corpora: every bridge from an entity of either corpus
to an entity of the other, by the planner's bridge lookup (ne_entity_bridges) under ``db.scoped([X, Y])``.

A bridge row is per pair of corpora: its source alias lies in X, its target alias in Y, and everything else it
checks (the canonical's hub and review flags, the bridge, the bridge's source corpus X and target corpus Y, the
relations of the source entity in X) concerns X, Y or neither; the lookup keeps one row per (source, target).
So for a source entity of X under a scope S, the lookup returns the union over the other corpora Y of S of what
it returns under {X, Y}, ordered by target entity, and nothing for a source outside S.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain
from typing import Sequence
from uuid import UUID

from knowledge.db.database import Database
from knowledge.db.queries import canonical as canonical_queries
from knowledge.db.queries import graph as graph_queries
from knowledge.retrieval.planner.context import EntityBridge
from knowledge.retrieval.planner.graph_snapshot import batches


@dataclass
class PairBridges:
    corpus_ids: frozenset[UUID]
    by_source: dict[int, list[EntityBridge]] = field(default_factory=dict)
    rows: int = 0


async def load_pair_bridges(db: Database, first: UUID, second: UUID, room: int) -> PairBridges | None:
    """The bridges between the two corpora, or None once they would exceed ``room`` rows."""
    scope = [first, second]
    pair = PairBridges(frozenset(scope))
    async with db.scoped(scope) as conn:
        entity_ids = [*await graph_queries.select_graph_entity_ids(conn, first),
                      *await graph_queries.select_graph_entity_ids(conn, second)]
    for batch in batches(entity_ids):
        async with db.scoped(scope) as conn:
            found = await canonical_queries.select_bridges_from_entities(conn, batch, scope)
        pair.rows += len(found)
        if pair.rows > room:
            return None
        for bridge in found:
            pair.by_source.setdefault(bridge.source_entity_id, []).append(bridge)
    return pair


class BridgesBySource:
    """The bridges of a scope's pairs by source entity, each entity's merged from the pairs (ordered by target
    entity, as the lookup orders a scope's) when first asked for and kept: the entities of one corpus's evidence
    come back question after question, and merging them all at once costs a search 5-15 ms."""

    def __init__(self, pairs: Sequence[PairBridges]) -> None:
        self.pairs = pairs
        self._merged: dict[int, list[EntityBridge]] = {}

    def of(self, entity_id: int) -> list[EntityBridge]:
        merged = self._merged.get(entity_id)
        if merged is None:
            merged = self._merged[entity_id] = by_target([p.by_source[entity_id] for p in self.pairs
                                                          if entity_id in p.by_source])
        return merged


def by_target(lists: list[list[EntityBridge]]) -> list[EntityBridge]:
    """One entity's bridges of several corpus pairs, each list ordered by target entity, as one list so ordered."""
    if len(lists) <= 1:
        return lists[0] if lists else []
    lists.sort(key=lambda bridges: bridges[0].target_entity_id)
    if all(a[-1].target_entity_id < b[0].target_entity_id for a, b in zip(lists, lists[1:])):
        return list(chain.from_iterable(lists))  # the usual case: each corpus's entity ids form one range
    return sorted(chain.from_iterable(lists), key=lambda b: b.target_entity_id)

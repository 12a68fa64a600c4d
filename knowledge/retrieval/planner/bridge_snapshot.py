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


def bridges_by_source(pairs: Sequence[PairBridges]) -> dict[int, list[EntityBridge]]:
    """The bridges of ``pairs`` by source entity, each entity's ordered by target entity (as the lookup orders a
    scope's): what a search of the scope of these pairs reads, one dictionary lookup an entity."""
    sources = dict.fromkeys(chain.from_iterable(p.by_source for p in pairs))
    return {e: by_target([p.by_source[e] for p in pairs if e in p.by_source]) for e in sources}


def by_target(lists: list[list[EntityBridge]]) -> list[EntityBridge]:
    """One entity's bridges of several corpus pairs, each list ordered by target entity, as one list so ordered."""
    if len(lists) <= 1:
        return lists[0] if lists else []
    lists.sort(key=lambda bridges: bridges[0].target_entity_id)
    if all(a[-1].target_entity_id < b[0].target_entity_id for a, b in zip(lists, lists[1:])):
        return list(chain.from_iterable(lists))  # the usual case: each corpus's entity ids form one range
    return sorted(chain.from_iterable(lists), key=lambda b: b.target_entity_id)

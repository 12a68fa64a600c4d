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

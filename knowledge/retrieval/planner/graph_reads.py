"""Per-entity graph reads of the cross-corpus stages: canonical bridges and relation neighbours, through the
neighbourhood cache. What the cache lacks is read on the caller's connection or, without one, in a transaction
scoped to ``scope`` opened only then."""
from __future__ import annotations

from typing import Awaitable, Callable, Sequence, TypeVar
from uuid import UUID

import asyncpg

from config import Settings
from knowledge.db.database import Database
from knowledge.db.queries import canonical as canonical_queries
from knowledge.db.queries import planner as planner_queries
from knowledge.retrieval.planner.context import EntityBridge
from knowledge.retrieval.planner.entity_graph import Neighbour
from knowledge.retrieval.planner.neighbourhood_cache import NeighbourhoodCache

T = TypeVar("T")


class GraphReads:
    def __init__(self, db: Database, settings: Settings, cache: NeighbourhoodCache) -> None:
        self.db = db
        self.settings = settings
        self.cache = cache

    async def bridges(self, entity_ids: Sequence[int], scope: Sequence[UUID]) -> dict[int, list[EntityBridge]]:
        async def load(reader: asyncpg.Connection, ids: list[int]) -> dict[int, list[EntityBridge]]:
            grouped: dict[int, list[EntityBridge]] = {}
            for bridge in await canonical_queries.select_bridges_from_entities(reader, ids, scope):
                grouped.setdefault(bridge.source_entity_id, []).append(bridge)
            return grouped

        return await self._cached("bridges", entity_ids, scope, None, load)

    async def neighbours(self, entity_ids: Sequence[int], scope: Sequence[UUID],
                         conn: asyncpg.Connection | None = None) -> dict[int, list[Neighbour]]:
        per_hop = self.settings.planner.graph_neighbors_per_hop
        hub_degree = self.settings.linker.canonical_hub_degree_threshold

        async def load(reader: asyncpg.Connection, ids: list[int]) -> dict[int, list[Neighbour]]:
            grouped: dict[int, list[Neighbour]] = {}
            # rows are read by position: unpacking an asyncpg Record is several times slower
            for r in await planner_queries.select_entity_neighbours(reader, ids, scope, per_hop, hub_degree):
                grouped.setdefault(r[0], []).append(Neighbour(r[1], r[2], r[3], r[4]))
            return grouped

        return await self._cached("neighbours", entity_ids, scope, (per_hop, hub_degree), load, conn)

    async def _cached(self, kind: str, entity_ids: Sequence[int], scope: Sequence[UUID], variant: object,
                      load: Callable[[asyncpg.Connection, list[int]], Awaitable[dict[int, list[T]]]],
                      conn: asyncpg.Connection | None = None) -> dict[int, list[T]]:
        async def scoped_load(ids: list[int]) -> dict[int, list[T]]:
            if conn is not None:
                return await load(conn, ids)
            async with self.db.scoped(scope) as scoped:
                return await load(scoped, ids)

        return await self.cache.get_or_load(kind, entity_ids, scope, variant, scoped_load)

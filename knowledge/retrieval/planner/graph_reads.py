"""Graph reads of the planner's stages: the entities of seed chunks, the chunks of entities, relation neighbours,
the relation facts a question matches, entity hops, canonical bridges, and the rerank's candidate chunks scored
against the question.

The per-corpus reads are served from the corpus graph snapshots when every corpus of the scope has one
(graph_snapshot.py), the bridges when every pair of corpora of the scope has one (bridge_snapshot.py); otherwise
they are read by the named queries, the neighbours and bridges through the neighbourhood cache. What SQL reads
runs on the caller's connection or, without one, in a transaction scoped to ``scope`` opened only then.
"""
from __future__ import annotations

from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Awaitable, Callable, Mapping, Sequence, TypeVar
from uuid import UUID

import asyncpg
import numpy as np

from config import Settings
from knowledge.db.database import Database
from knowledge.db.queries import canonical as canonical_queries
from knowledge.db.queries import chunks as chunk_queries
from knowledge.db.queries import planner as planner_queries
from knowledge.retrieval.planner.context import EntityBridge
from knowledge.retrieval.planner.entity_graph import Neighbour
from knowledge.retrieval.planner.graph_rows import (ChunkEntity, EntityChunk, HopRow, RelationFact, chunk_entities,
                                                    entity_chunks, hop_rows, relation_facts)
from knowledge.retrieval.planner.graph_snapshot import CorpusGraph, ReadLimits
from knowledge.retrieval.planner.neighbour_table import NeighbourTable
from knowledge.retrieval.planner.neighbourhood_cache import NeighbourhoodCache
from knowledge.retrieval.planner.relation_evidence import rank_relation_facts
from knowledge.retrieval.planner.snapshot_hops import hops_from_snapshots
from knowledge.retrieval.planner.snapshot_store import GraphSnapshots

T = TypeVar("T")


class GraphReads:
    def __init__(self, db: Database, settings: Settings, cache: NeighbourhoodCache,
                 snapshots: GraphSnapshots | None = None) -> None:
        self.db = db
        self.settings = settings
        self.cache = cache
        self.snapshots = snapshots

    @property
    def limits(self) -> ReadLimits:
        return read_limits(self.settings)

    def snapshots_of(self, scope: Sequence[UUID]) -> tuple[CorpusGraph, ...] | None:
        """The graph snapshot of every corpus of ``scope``, None unless all are loaded."""
        return None if self.snapshots is None else self.snapshots.covering(scope, self.limits)

    @asynccontextmanager
    async def transaction(self, scope: Sequence[UUID]) -> AsyncIterator[asyncpg.Connection | None]:
        """A transaction scoped to ``scope`` for the reads of a stage, or None when the snapshots serve them."""
        if self.snapshots_of(scope) is not None:
            yield None
            return
        async with self.db.scoped(scope) as conn:
            yield conn

    async def seed_chunk_entities(self, chunk_ids: Sequence[int], scope: Sequence[UUID],
                                  conn: asyncpg.Connection | None = None) -> list[ChunkEntity]:
        """planner_queries.select_seed_chunk_entities: one row per (chunk, entity), by chunk id then entity id."""
        graphs = self.snapshots_of(scope)
        if graphs is not None:
            rows: list[ChunkEntity] = []
            for chunk_id in sorted(set(chunk_ids)):
                for graph in graphs:
                    rows.extend(graph.chunk_entities.get(chunk_id, ()))
            return rows
        return chunk_entities(await self._sql(conn, scope, lambda c: planner_queries.select_seed_chunk_entities(
            c, chunk_ids, scope)))

    async def chunk_ids_for_entities(self, entity_ids: Sequence[int], scope: Sequence[UUID], limit_per_entity: int,
                                     conn: asyncpg.Connection | None = None) -> list[EntityChunk]:
        """planner_queries.select_chunk_ids_for_entities: by entity id, most mentions first."""
        graphs = self.snapshots_of(scope)
        if graphs is not None and limit_per_entity == self.limits.chunks_per_entity:
            rows: list[EntityChunk] = []
            for entity_id in sorted(entity_ids):
                for graph in graphs:
                    rows.extend(graph.entity_chunks.get(entity_id, ()))
            return rows
        return entity_chunks(await self._sql(conn, scope, lambda c: planner_queries.select_chunk_ids_for_entities(
            c, entity_ids, scope, limit_per_entity)))

    async def query_lexemes(self, query_text: str) -> list[str]:
        """The lexemes the relation facts are matched on (a function of the text alone, no table read)."""
        async with self.db.text_reader() as reader:
            return await planner_queries.select_query_lexemes(reader, query_text)

    async def relation_facts(self, entity_ids: Sequence[int], scope: Sequence[UUID], query_text: str, limit: int,
                             conn: asyncpg.Connection | None = None,
                             lexemes: Awaitable[list[str]] | None = None) -> list[RelationFact]:
        """planner_queries.select_relation_facts: the relations of the entities whose evidence matches the query's
        words, best first. From the snapshots only the query's lexemes are read (``lexemes``: already being read)."""
        graphs = self.snapshots_of(scope)
        if graphs is not None:
            words = await (lexemes if lexemes is not None else self.query_lexemes(query_text))
            return rank_relation_facts([g.relation_evidence for g in graphs], entity_ids, words, limit)
        return relation_facts(await self._sql(conn, scope, lambda c: planner_queries.select_relation_facts(
            c, entity_ids, scope, query_text, limit)))

    async def entity_hops(self, chunk_ids: Sequence[int], scope: Sequence[UUID], max_mentions: int, max_chunks: int,
                          embedding=None, conn: asyncpg.Connection | None = None) -> list[HopRow]:
        """planner_queries.select_entity_hops; from the snapshots when no query similarity is asked (``embedding``
        None), ties on the query's order broken by canonical id."""
        graphs = self.snapshots_of(scope) if embedding is None else None
        if graphs is not None:
            return hops_from_snapshots(graphs, chunk_ids, max_mentions, max_chunks)
        return hop_rows(await self._sql(conn, scope, lambda c: planner_queries.select_entity_hops(
            c, chunk_ids, scope, max_mentions, max_chunks, embedding)))

    async def scored_chunks(self, chunk_ids: Sequence[int], scope: Sequence[UUID],
                            embedding: np.ndarray) -> list[Mapping[str, Any]]:
        """chunk_queries.select_scored_chunks: the chunks with their cosine to ``embedding``; those the snapshots hold
        are scored in memory (stored_chunks.py), the others read by the query."""
        rows: list[Mapping[str, Any]] = []
        for graph in self.snapshots_of(scope) or ():
            rows.extend(graph.chunks.scored(chunk_ids, embedding))
        found = {row["id"] for row in rows}
        missing = [c for c in chunk_ids if c not in found]
        if missing:
            rows.extend(await self._sql(None, scope, lambda c: chunk_queries.select_scored_chunks(
                c, missing, scope, embedding)))
        return rows

    async def bridges(self, entity_ids: Sequence[int], scope: Sequence[UUID]) -> dict[int, list[EntityBridge]]:
        """canonical_queries.select_bridges_from_entities by source entity, each entity's by target entity."""
        by_source = None if self.snapshots is None else self.snapshots.bridges_by_source(scope)
        if by_source is not None:
            return {e: by_source.of(e) for e in dict.fromkeys(entity_ids)}

        async def load(reader: asyncpg.Connection, ids: list[int]) -> dict[int, list[EntityBridge]]:
            grouped: dict[int, list[EntityBridge]] = {}
            for bridge in await canonical_queries.select_bridges_from_entities(reader, ids, scope):
                grouped.setdefault(bridge.source_entity_id, []).append(bridge)
            return grouped

        return await self._cached("bridges", entity_ids, scope, None, load)

    def neighbour_table(self, scope: Sequence[UUID]) -> NeighbourTable | None:
        """The relation neighbours of the scope's corpora as one table (the compiled growth's), when snapshots serve."""
        return None if self.snapshots is None else self.snapshots.neighbour_table(scope, self.limits)

    async def neighbours(self, entity_ids: Sequence[int], scope: Sequence[UUID],
                         conn: asyncpg.Connection | None = None) -> dict[int, list[Neighbour]]:
        limits = self.limits
        table = self.neighbour_table(scope)
        if table is not None:
            return {entity_id: table.neighbours(entity_id) or [] for entity_id in entity_ids}

        async def load(reader: asyncpg.Connection, ids: list[int]) -> dict[int, list[Neighbour]]:
            grouped: dict[int, list[Neighbour]] = {}
            # rows are read by position: unpacking an asyncpg Record is several times slower
            for r in await planner_queries.select_entity_neighbours(reader, ids, scope, limits.neighbours_per_entity,
                                                                    limits.hub_degree):
                grouped.setdefault(r[0], []).append(Neighbour(r[1], r[2], r[3], r[4]))
            return grouped

        return await self._cached("neighbours", entity_ids, scope, (limits.neighbours_per_entity, limits.hub_degree),
                                  load, conn)

    async def _sql(self, conn: asyncpg.Connection | None, scope: Sequence[UUID],
                   read: Callable[[asyncpg.Connection], Awaitable[T]]) -> T:
        if conn is not None:
            return await read(conn)
        async with self.db.scoped(scope) as scoped:
            return await read(scoped)

    async def _cached(self, kind: str, entity_ids: Sequence[int], scope: Sequence[UUID], variant: object,
                      load: Callable[[asyncpg.Connection, list[int]], Awaitable[dict[int, list[T]]]],
                      conn: asyncpg.Connection | None = None) -> dict[int, list[T]]:
        async def scoped_load(ids: list[int]) -> dict[int, list[T]]:
            return await self._sql(conn, scope, lambda reader: load(reader, ids))

        return await self.cache.get_or_load(kind, entity_ids, scope, variant, scoped_load)


def read_limits(settings: Settings) -> ReadLimits:
    return ReadLimits(neighbours_per_entity=settings.planner.graph_neighbors_per_hop,
                      hub_degree=settings.linker.canonical_hub_degree_threshold,
                      chunks_per_entity=settings.planner.per_corpus_limit)

"""Per-corpus, in-memory snapshots of the planner's graph reads: the entities of each chunk, the relation
neighbours of each entity and the chunks mentioning each entity, so that once a corpus is loaded these reads are
dict lookups instead of SQL round trips.

Each of these reads is per corpus: a mention, a relation and the entities at both ends lie in one corpus (the
graph builder writes them so, tests/test_planner_graph_snapshot.py checks it), and the hub filter, the per-entity
limits and the orderings apply entity by entity. So the named query answers an entity or chunk of corpus X the
same under every scope containing X, and with nothing under a scope without X. A snapshot runs those same
queries for every entity and chunk of X, under ``db.scoped([X])`` (row-level security as for a search), and is
served only when every corpus of a request's scope has one: a corpus outside the scope contributes nothing.

Loads run in the background, one corpus at a time with a transaction per batch (searches keep their pool
connections and keep reading SQL meanwhile); ``clear`` (on ingest) drops every snapshot and discards the loads
under way. The rows held are bounded by ``capacity``: corpora are loaded as searches first ask for them until the
next one would not fit; that one and the later ones stay on SQL until the next clear (no eviction: a scope wider
than the capacity would otherwise reload its corpora over and over).
"""
from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Iterable, Sequence
from uuid import UUID

from knowledge.db.database import Database
from knowledge.db.queries import graph as graph_queries
from knowledge.db.queries import planner as planner_queries
from knowledge.retrieval.planner.entity_graph import Neighbour
from knowledge.retrieval.planner.graph_rows import ChunkEntity, EntityChunk

logger = logging.getLogger(__name__)

_BATCH = 2000  # ids per query of a load: each batch is its own short transaction


@dataclass(frozen=True)
class ReadLimits:
    """The settings the snapshot's reads depend on; a read asked with other limits goes to SQL."""
    neighbours_per_entity: int
    hub_degree: int
    chunks_per_entity: int


@dataclass
class CorpusGraph:
    corpus_id: UUID
    limits: ReadLimits
    chunk_entities: dict[int, list[ChunkEntity]] = field(default_factory=dict)
    neighbours: dict[int, list[Neighbour]] = field(default_factory=dict)
    entity_chunks: dict[int, list[EntityChunk]] = field(default_factory=dict)

    @property
    def rows(self) -> int:
        return sum(len(v) for d in (self.chunk_entities, self.neighbours, self.entity_chunks) for v in d.values())


def size_bound(mentions: int, relations: int) -> int:
    """Most rows a corpus snapshot can hold: a row per (chunk, entity) and per (entity, chunk), both at most one
    per mention, and a neighbour row per end of a relation."""
    return 2 * mentions + 2 * relations


async def load_corpus_graph(db: Database, corpus_id: UUID, limits: ReadLimits) -> CorpusGraph:
    """Every chunk's entities, every entity's neighbours and chunks of one corpus, by the planner's named
    queries scoped to that corpus alone."""
    graph = CorpusGraph(corpus_id, limits)
    names: dict[str, str] = {}  # one string per name: a name recurs in every neighbourhood it belongs to
    scope = [corpus_id]
    async with db.scoped(scope) as conn:
        chunk_ids = await planner_queries.select_corpus_mentioned_chunk_ids(conn, corpus_id)
        entity_ids = await graph_queries.select_graph_entity_ids(conn, corpus_id)
    for batch in _batches(chunk_ids):
        async with db.scoped(scope) as conn:
            records = await planner_queries.select_seed_chunk_entities(conn, batch, scope)
        for r in records:
            name = names.setdefault(r[3], r[3])
            graph.chunk_entities.setdefault(r[0], []).append(ChunkEntity(r[0], r[1], corpus_id, name, r[4], r[5]))
    for batch in _batches(entity_ids):
        async with db.scoped(scope) as conn:
            neighbours = await planner_queries.select_entity_neighbours(
                conn, batch, scope, limits.neighbours_per_entity, limits.hub_degree)
            chunks = await planner_queries.select_chunk_ids_for_entities(conn, batch, scope, limits.chunks_per_entity)
        for r in neighbours:
            name = names.setdefault(r[3], r[3])
            graph.neighbours.setdefault(r[0], []).append(Neighbour(r[1], corpus_id, name, r[4]))
        for r in chunks:
            graph.entity_chunks.setdefault(r[0], []).append(EntityChunk(r[0], r[1], corpus_id))
    return graph


def _batches(ids: Sequence[int]) -> Iterable[list[int]]:
    for start in range(0, len(ids), _BATCH):
        yield list(ids[start:start + _BATCH])


class GraphSnapshots:
    """The loaded corpus graphs, the queue of corpora to load, and the capacity in rows (0: never load)."""

    def __init__(self, db: Database, limits: ReadLimits, capacity: int) -> None:
        if capacity < 0:
            raise ValueError(f"snapshot capacity must be >= 0, got {capacity}")
        self.db = db
        self.limits = limits
        self.capacity = capacity
        self._ready: dict[UUID, CorpusGraph] = {}
        self._rows: dict[UUID, int] = {}
        self._too_large: set[UUID] = set()
        self._queue: list[UUID] = []
        self._worker: asyncio.Task | None = None
        self._generation = 0  # bumped by clear: a load begun before it is dropped
        self.loads = 0

    @property
    def rows(self) -> int:
        return sum(self._rows.values())

    def ready(self, corpus_id: UUID) -> bool:
        return corpus_id in self._ready

    def covering(self, scope: Sequence[UUID], limits: ReadLimits) -> tuple[CorpusGraph, ...] | None:
        """The snapshots of every corpus of ``scope``, or None (and the missing ones queued for loading) when one
        is not loaded or the limits differ: the caller reads SQL then."""
        if self.capacity == 0 or limits != self.limits or not scope:
            return None
        missing = [c for c in dict.fromkeys(scope) if c not in self._ready]
        if missing:
            self._request(missing)
            return None
        return tuple(self._ready[c] for c in dict.fromkeys(scope))

    async def load(self, scope: Sequence[UUID]) -> None:
        """Queue the corpora of ``scope`` and wait until the queue is done (warm-up, tests)."""
        self._request(list(dict.fromkeys(scope)))
        while (worker := self._worker) is not None and not worker.done():
            await asyncio.wait({worker})  # returns, without raising, also when a clear cancels the worker

    def clear(self) -> None:
        self._generation += 1
        self._ready.clear()
        self._rows.clear()
        self._too_large.clear()
        self._queue.clear()
        if self._worker is not None and not self._worker.done():
            self._worker.cancel()
        self._worker = None

    async def close(self) -> None:
        worker = self._worker
        self.clear()
        if worker is not None:
            await asyncio.gather(worker, return_exceptions=True)

    def _request(self, corpus_ids: list[UUID]) -> None:
        wanted = [c for c in corpus_ids if c not in self._too_large and c not in self._queue]
        if not wanted or self.capacity == 0:
            return
        self._queue.extend(wanted)
        if self._worker is None or self._worker.done():
            self._worker = asyncio.get_running_loop().create_task(self._drain(self._generation))

    async def _drain(self, generation: int) -> None:
        while self._queue and generation == self._generation:
            corpus_id = self._queue[0]
            try:
                if corpus_id not in self._ready:
                    await self._load_one(corpus_id, generation)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - searches keep reading SQL; the next search asks again
                logger.warning("graph snapshot of corpus %s not loaded: %s: %s", corpus_id, type(exc).__name__, exc)
            if generation == self._generation and self._queue and self._queue[0] == corpus_id:
                self._queue.pop(0)

    async def _load_one(self, corpus_id: UUID, generation: int) -> None:
        async with self.db.scoped([corpus_id]) as conn:
            bound = size_bound(*await planner_queries.select_corpus_graph_size(conn, corpus_id))
        if self.rows + bound > self.capacity:
            self._too_large.add(corpus_id)
            logger.info("corpus %s: graph snapshot of up to %d rows does not fit the capacity (%d rows, %d held): "
                        "its reads stay on SQL", corpus_id, bound, self.capacity, self.rows)
            return
        graph = await load_corpus_graph(self.db, corpus_id, self.limits)
        if generation != self._generation:  # an ingest cleared the snapshots while this one was read
            return
        self._ready[corpus_id] = graph
        self._rows[corpus_id] = graph.rows
        self.loads += 1

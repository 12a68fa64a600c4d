"""The planner's in-memory graph snapshots: which are loaded, which are queued, and the rows they may hold.

A unit is one corpus (its graph reads, graph_snapshot.py) or one pair of corpora (the bridges between them,
bridge_snapshot.py). A read is served from memory only when every unit of its scope is loaded: each corpus of the
scope, or each pair of corpora of the scope for bridges; a unit is loaded under a binding to its own corpora only.
Otherwise the read goes to SQL and the missing units are queued. Loads run in the background, one unit at a
time, while searches keep reading SQL; ``clear`` (on ingest, on a canonical change) drops every unit and
discards the loads under way. The rows held are bounded by ``capacity``: units are loaded as searches first ask
for them until the next one would not fit; that one stays on SQL until the next clear (no eviction: a scope
wider than the capacity would otherwise reload its units over and over).
"""
from __future__ import annotations

import asyncio
import logging
from itertools import combinations
from typing import Callable, Sequence, TypeVar
from uuid import UUID

from knowledge.db.database import Database
from knowledge.db.queries import planner as planner_queries
from knowledge.retrieval.planner.bridge_snapshot import BridgesBySource, PairBridges, load_pair_bridges
from knowledge.retrieval.planner.graph_snapshot import CorpusGraph, ReadLimits, load_corpus_graph, size_bound
from knowledge.retrieval.planner.neighbour_table import NeighbourTable

logger = logging.getLogger(__name__)

Unit = frozenset[UUID]  # one corpus: its graph; two corpora: the bridges between them
TABLES_KEPT = 4  # joined neighbour tables and bridge indexes (one per scope of several corpora) kept
T = TypeVar("T")


class GraphSnapshots:
    def __init__(self, db: Database, limits: ReadLimits, capacity: int) -> None:
        if capacity < 0:
            raise ValueError(f"snapshot capacity must be >= 0, got {capacity}")
        self.db = db
        self.limits = limits
        self.capacity = capacity
        self._ready: dict[Unit, CorpusGraph | PairBridges] = {}
        self._rows: dict[Unit, int] = {}
        self._too_large: set[Unit] = set()
        self._queue: list[Unit] = []
        self._worker: asyncio.Task | None = None
        self._tables: dict[tuple[UUID, ...], NeighbourTable] = {}  # by scope, the latest TABLES_KEPT
        self._bridge_indexes: dict[tuple[UUID, ...], BridgesBySource] = {}  # the same
        self._generation = 0  # bumped by clear: a load begun before it is dropped
        self.loads = 0

    @property
    def rows(self) -> int:
        return sum(self._rows.values())

    def ready(self, *corpus_ids: UUID) -> bool:
        """Whether the unit of the corpus (one id) or of the pair (two ids) is loaded."""
        return frozenset(corpus_ids) in self._ready

    def covering(self, scope: Sequence[UUID], limits: ReadLimits) -> tuple[CorpusGraph, ...] | None:
        """The graph of every corpus of ``scope``, or None (and the missing ones queued) when one is not loaded
        or the limits differ: the caller reads SQL then."""
        if limits != self.limits or not scope:
            return None
        return self._served([frozenset([c]) for c in dict.fromkeys(scope)])  # type: ignore[return-value]

    def neighbour_table(self, scope: Sequence[UUID], limits: ReadLimits) -> NeighbourTable | None:
        """The neighbour tables of every corpus of ``scope`` joined, or None as ``covering``. A scope's table is kept
        until the next clear: the units it joins do not change before then."""
        graphs = self.covering(scope, limits)
        if graphs is None:
            return None
        return _kept(self._tables, tuple(g.corpus_id for g in graphs),
                     lambda: NeighbourTable.joined([g.neighbour_table for g in graphs]))

    def covering_bridges(self, scope: Sequence[UUID]) -> tuple[PairBridges, ...] | None:
        """The bridges of every pair of corpora of ``scope``, or None (the missing pairs queued) as ``covering``."""
        pairs = [frozenset(p) for p in combinations(dict.fromkeys(scope), 2)]
        return self._served(pairs) if pairs else None  # type: ignore[return-value]

    def bridges_by_source(self, scope: Sequence[UUID]) -> BridgesBySource | None:
        """The bridges of ``scope`` by source entity, or None as ``covering_bridges``; kept until the next clear,
        as the joined neighbour tables."""
        pairs = self.covering_bridges(scope)
        if pairs is None:
            return None
        return _kept(self._bridge_indexes, tuple(dict.fromkeys(scope)), lambda: BridgesBySource(pairs))

    def _served(self, units: list[Unit]) -> tuple[CorpusGraph | PairBridges, ...] | None:
        if self.capacity == 0:
            return None
        missing = [u for u in units if u not in self._ready]
        if missing:
            self._request(missing)
            return None
        return tuple(self._ready[u] for u in units)

    async def load(self, scope: Sequence[UUID], bridges: bool = True) -> None:
        """Queue the corpora of ``scope`` (and their pairs) and wait until the queue is done (warm-up, tests)."""
        corpora = list(dict.fromkeys(scope))
        self._request([frozenset([c]) for c in corpora])
        if bridges:
            self._request([frozenset(p) for p in combinations(corpora, 2)])
        while (worker := self._worker) is not None and not worker.done():
            await asyncio.wait({worker})  # returns, without raising, also when a clear cancels the worker

    def clear(self) -> None:
        worker = self._drop()
        if worker is not None and not worker.done():
            worker.cancel()

    async def close(self) -> None:
        """Drop everything and let a load under way end (its result is discarded): cancelling it mid-query would
        hand its connection back to the pool inside a transaction (asyncpg then logs an error and resets it)."""
        worker = self._drop()
        if worker is not None:
            await asyncio.gather(worker, return_exceptions=True)

    def _drop(self) -> asyncio.Task | None:
        """Forget every unit and the queue; a load of the old generation stores nothing. Returns its worker."""
        self._generation += 1
        self._ready.clear()
        self._rows.clear()
        self._tables.clear()
        self._bridge_indexes.clear()
        self._too_large.clear()
        self._queue.clear()
        worker, self._worker = self._worker, None
        return worker

    def _request(self, units: list[Unit]) -> None:
        wanted = [u for u in units if u not in self._too_large and u not in self._queue and u not in self._ready]
        if not wanted or self.capacity == 0:
            return
        self._queue.extend(wanted)
        if self._worker is None or self._worker.done():
            self._worker = asyncio.get_running_loop().create_task(self._drain(self._generation))

    async def _drain(self, generation: int) -> None:
        while self._queue and generation == self._generation:
            unit = self._queue[0]
            try:
                if unit not in self._ready:
                    await self._load(unit, generation)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - searches keep reading SQL; the next search asks again
                logger.warning("graph snapshot of %s not loaded: %s: %s", sorted(map(str, unit)), type(exc).__name__,
                               exc)
            if generation == self._generation and self._queue and self._queue[0] == unit:
                self._queue.pop(0)

    async def _load(self, unit: Unit, generation: int) -> None:
        room = self.capacity - self.rows
        loaded: CorpusGraph | PairBridges | None
        if len(unit) == 1:
            (corpus_id,) = unit
            async with self.db.scoped([corpus_id]) as conn:
                bound = size_bound(*await planner_queries.select_corpus_graph_size(conn, corpus_id))
            loaded = await load_corpus_graph(self.db, corpus_id, self.limits) if bound <= room else None
        else:
            first, second = sorted(unit)
            loaded = await load_pair_bridges(self.db, first, second, room)
        if generation != self._generation:  # an ingest cleared the snapshots while this one was read
            return
        if loaded is None:
            self._too_large.add(unit)
            logger.info("graph snapshot of %s does not fit the capacity (%d rows, %d held): its reads stay on SQL",
                        sorted(map(str, unit)), self.capacity, self.rows)
            return
        self._ready[unit] = loaded
        self._rows[unit] = loaded.rows
        self.loads += 1


def _kept(cache: dict[tuple[UUID, ...], T], scope: tuple[UUID, ...], build: Callable[[], T]) -> T:
    """``cache``'s entry for ``scope``, built when missing; the TABLES_KEPT latest used are kept."""
    found = cache.pop(scope, None)
    if found is None:
        found = build()
    cache[scope] = found  # the latest used last
    if len(cache) > TABLES_KEPT:
        del cache[next(iter(cache))]
    return found

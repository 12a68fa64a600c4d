"""build_entity_graph's growth compiled (numba) over a NeighbourTable: the same nodes, depths, priorities and
relation edges, in a fraction of the time (the Python loop costs about a microsecond per neighbour offered, and
the caps allow tens of thousands of them a search).

Rows stand for entities. A node's corpus is the one it was recorded with (a seed's, a bridge's target corpus, a
relation neighbour's); a frontier node offers its neighbours only when they lie in that corpus, as in Python.
Compiled on first use and cached beside this file (``cache=True``), so a new process loads it instead.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Mapping, NamedTuple

import numpy as np
from numba import njit

from knowledge.retrieval.planner.context import EntityBridge, SeedEntity
from knowledge.retrieval.planner.entity_graph import EntityGraph, bridges_between, usable_bridges
from knowledge.retrieval.planner.neighbour_table import NeighbourTable


class Grown(NamedTuple):
    rows: np.ndarray         # the nodes in the order they joined: the starts, then each hop's choice
    depths: np.ndarray
    priorities: np.ndarray
    corpus_codes: np.ndarray
    arrivals: np.ndarray     # the arrival (bridge) a node came by, -1 for a start or a relation neighbour
    added_per_hop: np.ndarray
    edge_ids: np.ndarray     # relation edges between nodes, as entity ids (low, high), with their largest weight
    edge_weights: np.ndarray
    edge_nodes: np.ndarray   # the same edges as the places of their (low, high) ends among the nodes


class _Lookup(Sequence):
    """``items[keys[i]]`` for node ``i``, looked up when read: a search reads a handful of its hundreds of nodes'
    corpora and names (those the trace shows), so building every one of them cost more than reading them."""

    def __init__(self, items: Sequence, keys: np.ndarray) -> None:
        self.items, self.keys = items, keys

    def __len__(self) -> int:
        return len(self.keys)

    def __getitem__(self, at: int):  # type: ignore[override]
        return self.items[self.keys[at]]


class _GrownNames(Sequence):
    """The grown nodes' names, looked up when read: a start's from its seed, a bridge target's from the bridge it
    arrived by, a relation neighbour's from the table."""

    def __init__(self, start_names: list[str], table_names: Sequence[str | None], rows: np.ndarray,
                 arrivals: np.ndarray, bridges: Sequence[EntityBridge]) -> None:
        self.start_names, self.table_names, self.rows, self.arrivals, self.bridges = (
            start_names, table_names, rows, arrivals, bridges)

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, at: int):  # type: ignore[override]
        at = range(len(self.rows))[at]  # an IndexError past the end, negative places counted from it
        if at < len(self.start_names):
            return self.start_names[at]
        arrival = self.arrivals[at]
        return self.bridges[arrival].canonical_name if arrival >= 0 else self.table_names[self.rows[at]]


@njit(cache=True)
def _grow(indptr, neighbour_rows, weights, corpus_codes, entity_ids, start_rows, start_corpus, start_priority,
          arrival_rows, arrival_corpus, arrival_depth, arrival_priority, max_depth, per_hop):  # pragma: no cover
    """build_entity_graph's loop over rows: the starts (the seeds, distinct) at depth 0, then hop by hop the
    ``per_hop`` best candidates offered by the last hop's nodes and by the arrivals of that depth."""
    rows_total = indptr.shape[0] - 1
    capacity = start_rows.shape[0] + max_depth * per_hop
    rows = np.empty(capacity, np.int64)
    depths = np.empty(capacity, np.int64)
    priorities = np.empty(capacity, np.float64)
    node_corpus = np.empty(capacity, np.int64)
    arrivals = np.empty(capacity, np.int64)
    node_at = np.full(rows_total, -1, np.int64)  # a row's place among the nodes, -1 while it is not one
    count = 0
    for i in range(start_rows.shape[0]):
        rows[count], depths[count], priorities[count] = start_rows[i], 0, start_priority[i]
        node_corpus[count], arrivals[count] = start_corpus[i], -1
        node_at[start_rows[i]] = count
        count += 1
    best = np.full(rows_total, -np.inf)
    best_arrival = np.full(rows_total, -1, np.int64)
    added_per_hop = np.zeros(max_depth, np.int64)
    edge_a = np.empty(0, np.int64)
    edge_b = np.empty(0, np.int64)
    edge_w = np.empty(0, np.float64)
    frontier_start, frontier_end = 0, count
    for depth in range(1, max_depth + 1):
        offered = 0
        for at in range(frontier_start, frontier_end):
            offered += indptr[rows[at] + 1] - indptr[rows[at]]
        touched = np.empty(offered + arrival_rows.shape[0], np.int64)
        hop_a = np.empty(offered, np.int64)
        hop_b = np.empty(offered, np.int64)
        hop_w = np.empty(offered, np.float64)
        touched_count, seen = 0, 0
        for at in range(frontier_start, frontier_end):
            parent, parent_priority = rows[at], priorities[at]
            # a row's neighbours lie in its corpus (the table's invariant): when a node was recorded with another
            # corpus (a bridge's), none is in that corpus; checked once, not per neighbour (a cache miss each)
            if corpus_codes[parent] != node_corpus[at]:
                continue
            for j in range(indptr[parent], indptr[parent + 1]):
                other = neighbour_rows[j]
                if other == parent:
                    continue
                weight = weights[j]
                if weight > 0:
                    hop_a[seen], hop_b[seen], hop_w[seen] = parent, other, weight
                    seen += 1
                if node_at[other] < 0:
                    priority = parent_priority * weight
                    if priority > best[other]:
                        if best[other] == -np.inf:
                            touched[touched_count] = other
                            touched_count += 1
                        best[other], best_arrival[other] = priority, -1
        for k in range(arrival_rows.shape[0]):
            other = arrival_rows[k]
            if arrival_depth[k] == depth and node_at[other] < 0 and arrival_priority[k] > best[other]:
                if best[other] == -np.inf:
                    touched[touched_count] = other
                    touched_count += 1
                best[other], best_arrival[other] = arrival_priority[k], k
        edge_a = np.concatenate((edge_a, hop_a[:seen]))
        edge_b = np.concatenate((edge_b, hop_b[:seen]))
        edge_w = np.concatenate((edge_w, hop_w[:seen]))
        candidates = _best_first(touched[:touched_count], best, entity_ids, per_hop)
        frontier_start = count
        for other in candidates:
            k = best_arrival[other]
            rows[count], depths[count], priorities[count], arrivals[count] = other, depth, best[other], k
            node_corpus[count] = arrival_corpus[k] if k >= 0 else corpus_codes[other]
            node_at[other] = count
            count += 1
        frontier_end = count
        added_per_hop[depth - 1] = candidates.shape[0]
        for i in range(touched_count):
            best[touched[i]] = -np.inf
    # the edges between nodes, each pair once (by entity ids, low first) with its largest weight
    kept = 0
    for i in range(edge_a.shape[0]):
        a, b = edge_a[i], edge_b[i]
        if node_at[a] >= 0 and node_at[b] >= 0:
            if entity_ids[a] > entity_ids[b]:
                a, b = b, a
            edge_a[kept], edge_b[kept], edge_w[kept] = a, b, edge_w[i]
            kept += 1
    low, high, weight = entity_ids[edge_a[:kept]], entity_ids[edge_b[:kept]], edge_w[:kept]
    order = np.argsort(high, kind="mergesort")
    order = order[np.argsort(low[order], kind="mergesort")]
    edge_ids = np.empty((kept, 2), np.int64)
    edge_weights = np.empty(kept, np.float64)
    edge_nodes = np.empty((kept, 2), np.int64)
    unique = 0
    for i in order:
        if unique > 0 and low[i] == edge_ids[unique - 1, 0] and high[i] == edge_ids[unique - 1, 1]:
            edge_weights[unique - 1] = max(edge_weights[unique - 1], weight[i])
        else:
            edge_ids[unique, 0], edge_ids[unique, 1], edge_weights[unique] = low[i], high[i], weight[i]
            edge_nodes[unique, 0], edge_nodes[unique, 1] = node_at[edge_a[i]], node_at[edge_b[i]]
            unique += 1
    return (rows[:count], depths[:count], priorities[:count], node_corpus[:count], arrivals[:count], added_per_hop,
            edge_ids[:unique], edge_weights[:unique], edge_nodes[:unique])


@njit(cache=True)
def _ahead(row, other, best, entity_ids):  # pragma: no cover - compiled
    """Whether candidate ``row`` comes before ``other``: higher priority, then the lower entity id."""
    return best[row] > best[other] or (best[row] == best[other] and entity_ids[row] < entity_ids[other])


@njit(cache=True)
def _best_first(candidates, best, entity_ids, limit):  # pragma: no cover - compiled; tested through grow_over_table
    """The ``limit`` candidates that come first (``_ahead``), in that order. A heap keeps the ``limit`` best seen
    (the last of them on top), so a hop at the caps, some ten thousand candidates for a hundred places, sorts only
    the hundred, and then sorts them in place (heapsort: an insertion sort of the hundred took a quarter of the
    growth); plain loops, because numpy's sorts and partitions take seconds to compile."""
    kept = np.empty(min(limit, candidates.shape[0]), np.int64)
    size = 0
    for row in candidates:
        if size < kept.shape[0]:
            at = size
            size += 1
            while at > 0 and _ahead(kept[(at - 1) // 2], row, best, entity_ids):
                kept[at] = kept[(at - 1) // 2]
                at = (at - 1) // 2
            kept[at] = row
        elif size > 0 and _ahead(row, kept[0], best, entity_ids):
            _sift_down(kept, row, size, best, entity_ids)
    for end in range(size - 1, 0, -1):  # the last of the heap to the back, the heap one smaller
        last = kept[0]
        _sift_down(kept, kept[end], end, best, entity_ids)
        kept[end] = last
    return kept


@njit(cache=True)
def _sift_down(heap, row, size, best, entity_ids):  # pragma: no cover - compiled
    """Put ``row`` on top of the heap ``heap[:size]`` in place of its top, and move it down while it comes before
    the later of its children."""
    at = 0
    while True:
        child = 2 * at + 1
        if child >= size:
            break
        if child + 1 < size and _ahead(heap[child], heap[child + 1], best, entity_ids):
            child += 1
        if not _ahead(row, heap[child], best, entity_ids):
            break
        heap[at] = heap[child]
        at = child
    heap[at] = row


def grow_over_table(seeds: Mapping[int, SeedEntity], bridges: Sequence[EntityBridge], max_depth: int, per_hop: int,
                    table: NeighbourTable) -> EntityGraph | None:
    """build_entity_graph's graph, grown over ``table``; None when a seed or bridge target is not in it."""
    usable = usable_bridges(seeds, bridges, max_depth, per_hop)
    starts = list(seeds.values())
    code_of = {corpus_id: code for code, corpus_id in enumerate(table.corpora)}
    start_rows = table.rows(list(seeds))
    arrival_rows = table.rows([b.target_entity_id for b in usable])  # each bridge's target, at the depth of its hops
    try:
        start_corpus = [code_of[s.corpus_id] for s in starts]
        arrival_corpus = [code_of[b.target_corpus_id] for b in usable]
    except KeyError:
        return None
    if start_rows is None or arrival_rows is None:
        return None
    grown = Grown(*_grow(
        table.indptr, table.neighbour_rows, table.weights, table.corpus_codes, table.entity_ids,
        start_rows, np.array(start_corpus, dtype=np.int64), np.array([s.weight for s in starts], dtype=np.float64),
        arrival_rows, np.array(arrival_corpus, dtype=np.int64), np.array([b.hops for b in usable], dtype=np.int64),
        np.array([seeds[b.source_entity_id].weight * b.confidence for b in usable], dtype=np.float64),
        max_depth, per_hop))
    graph = EntityGraph(
        node_ids=table.entity_ids[grown.rows].tolist(), node_corpora=_Lookup(table.corpora, grown.corpus_codes),
        node_names=_GrownNames([s.name for s in starts], table.names, grown.rows, grown.arrivals, usable),
        node_depths=grown.depths.tolist(), node_priorities=grown.priorities.tolist(), edge_ids=grown.edge_ids,
        edge_weights=grown.edge_weights, bridge_edges=[], added_per_hop=grown.added_per_hop.tolist(),
        edge_nodes=grown.edge_nodes)
    graph.bridge_edges = bridges_between(usable, graph.node_at)
    return graph

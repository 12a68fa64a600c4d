"""The undirected adjacency of an edge list (one row of two node places per edge) as CSR arrays, compiled for the
walk (ppr.py) and the bridge-path search (paths.py)."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def undirected_adjacency(size, ends):  # pragma: no cover - compiled; tested through its callers
    """The neighbours of node ``n`` are ``neighbours[indptr[n]:indptr[n + 1]]``, reached by the edges
    ``edge_of[indptr[n]:indptr[n + 1]]``: edge by edge, both directions, duplicates kept."""
    degree = np.zeros(size + 1, np.int64)
    for e in range(ends.shape[0]):
        degree[ends[e, 0] + 1] += 1
        degree[ends[e, 1] + 1] += 1
    indptr = np.cumsum(degree)
    neighbours = np.empty(indptr[size], np.int64)
    edge_of = np.empty(indptr[size], np.int64)
    filled = indptr[:size].copy()
    for e in range(ends.shape[0]):
        a, b = ends[e, 0], ends[e, 1]
        neighbours[filled[a]], edge_of[filled[a]] = b, e
        filled[a] += 1
        neighbours[filled[b]], edge_of[filled[b]] = a, e
        filled[b] += 1
    return indptr, neighbours, edge_of

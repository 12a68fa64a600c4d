"""Stage 1 of entity resolution, set-based: the candidate pairs of :class:`EntityResolver` as index arrays.

The rules are the resolver's (knowledge/graph/resolution.py, stage 1); this module only computes them with
numpy over all blocks at once instead of one Python call per pair, which at tens of thousands of existing
entities was a fifth of the resolution stage of an ingest.
"""
from __future__ import annotations

from functools import lru_cache
from collections.abc import Hashable, Sequence

import numpy as np

from knowledge.graph.name_features import block_keys

# block kinds
_DIRECT, _GRAM = 0, 1


@lru_cache(maxsize=65536)
def record_block_keys(name: str, entity_type: str) -> tuple[str, ...]:
    return tuple(sorted(block_keys(name, entity_type)))


def _ranges(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For element e with count c_e: the pairs (e, e + 1), ..., (e, e + c_e), as two index arrays."""
    rows = np.repeat(np.arange(len(counts)), counts)
    starts = np.cumsum(counts) - counts
    cols = rows + 1 + (np.arange(len(rows)) - np.repeat(starts, counts))
    return rows, cols


def candidate_positions(names_types: Sequence[tuple[str, str]], ids: Sequence[Hashable], n_new: int,
                        max_block_size: int, window: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions (i, j), i < j, of the candidate pairs over ``names_types`` (new records first, ``n_new`` of
    them), sorted; a record whose id repeats an earlier one's stands for that one."""
    total = len(names_types)
    first_of: dict[Hashable, int] = {}
    canonical = np.fromiter((first_of.setdefault(i, pos) for pos, i in enumerate(ids)), dtype=np.int64,
                            count=total)
    key_ids: dict[str, int] = {}
    key_kind: list[str] = []
    incidence_key: list[int] = []
    incidence_pos: list[int] = []
    n_grams = np.zeros(total, dtype=np.int64)
    for pos, (name, entity_type) in enumerate(names_types):
        keys = record_block_keys(name, entity_type)
        for key in keys:
            key_id = key_ids.get(key)
            if key_id is None:
                key_id = key_ids[key] = len(key_kind)
                key_kind.append(key[0])
            incidence_key.append(key_id)
            incidence_pos.append(pos)
        n_grams[pos] = sum(k[0] == "g" for k in keys)
    empty = np.zeros(0, dtype=np.int64)
    if not incidence_key:
        return empty, empty
    keys_arr = np.asarray(incidence_key, dtype=np.int64)
    order = np.argsort(keys_arr, kind="stable")  # members of a block stay in ascending position order
    members = np.asarray(incidence_pos, dtype=np.int64)[order]
    block_of = keys_arr[order]
    starts = np.flatnonzero(np.r_[True, block_of[1:] != block_of[:-1]])
    sizes = np.diff(np.r_[starts, len(block_of)])
    kinds = np.asarray(key_kind)[block_of[starts]]
    rank = np.arange(len(block_of)) - np.repeat(starts, sizes)  # index of a member inside its block
    size = np.repeat(sizes, sizes)
    kind = np.repeat(kinds, sizes)
    first_new = np.repeat(members[starts] < n_new, sizes)

    oversized = size > max_block_size
    # oversized name-key / acronym blocks: a sorted-neighbourhood window; other oversized blocks: nothing
    window_counts = np.where(oversized & np.isin(kind, ["k", "a"]),
                             np.minimum(window, size - 1 - rank), 0)
    # other blocks with a new first member: every pair whose first member is new
    all_counts = np.where(~oversized & first_new & (members < n_new), size - 1 - rank, 0)
    block_kind = np.where(kind == "g", _GRAM, _DIRECT)

    def codes(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows, cols = _ranges(counts)
        i, j = canonical[members[rows]], canonical[members[cols]]
        low, high = np.minimum(i, j), np.maximum(i, j)
        keep = (low < n_new) & (low != high)
        return low[keep] * total + high[keep], block_kind[rows][keep]

    window_codes, _ = codes(window_counts)
    pair_codes, pair_kinds = codes(all_counts)
    direct = np.unique(np.concatenate([window_codes, pair_codes[pair_kinds == _DIRECT]]))
    # q-gram count filter: a pair found only through n-gram blocks must share at least two n-grams (or all of
    # the shorter key's, for keys of one n-gram)
    gram, shared = np.unique(pair_codes[pair_kinds == _GRAM], return_counts=True)
    gi, gj = gram // total, gram % total
    gram = gram[(shared >= 2) | (shared >= np.minimum(n_grams[gi], n_grams[gj]))]
    found = np.union1d(direct, gram)
    return found // total, found % total

"""The planner's relation facts from memory: the relations of the seed entities whose evidence sentence matches the
question, ranked as ne_relation_facts (migration 018) ranks them in SQL, so a corpus graph snapshot answers the
same facts in the same order without the round trip (5-6 ms a question, most of the seed entities stage).

ne_relation_facts ranks with ``ts_rank_cd(evidence_vector, ne_or_tsquery(question), 1)``. For an OR query every
occurrence of a query lexeme is a cover of its own (tsrank.c: Cover() stops at the first entry that satisfies an
OR), so the rank is one cover weight per matching position divided by log(1 + positions of the vector). The
evidence vector is ``to_tsvector('english', evidence)`` (migration 013): every position has the default weight D.
The sum, the division and the final float4 are done in the order the C code does them, so the scores are equal to
the last bit and ties break by relation id as there.

A corpus's evidence is held as an inverted index: the relations of each entity, and for each lexeme the relations
whose evidence holds it with its number of positions (arrays of relation slots); a question then reads only its
own lexemes' postings, masked by the relations of its entities (compiled: a few hundred postings a corpus, where
a dozen numpy calls cost more than the work).
"""
from __future__ import annotations

import functools
import heapq
import math
import struct
from dataclasses import dataclass, field
from itertools import chain
from typing import Collection, Iterable, NamedTuple
from uuid import UUID

import numpy as np
from numba import njit

from knowledge.retrieval.planner.graph_rows import RelationFact

_D_WEIGHT = struct.unpack("f", struct.pack("f", 0.1))[0]  # ts_rank_cd's default weight of D positions, a float4
_COVER = 1.0 / (1.0 / _D_WEIGHT)  # Cpos of a one-position cover: 1 / sum of the inverse weights


class Relation(NamedTuple):
    id: int
    source_entity_id: int
    target_entity_id: int
    relation_type: str
    length: int  # positions of the evidence vector (cnt_length)


# a posting takes ~8 bytes (two int32 array entries) against ~300 for a snapshot row: 16 postings count as a row
POSTINGS_PER_ROW = 16


@dataclass
class RelationEvidence:
    """One corpus's relations with a non-empty evidence vector, each in a slot (its index in ``relations``)."""
    corpus_id: UUID
    relations: list[Relation] = field(default_factory=list)
    by_entity: dict[int, list[int]] = field(default_factory=dict)  # entity -> slots of its relations
    # once sealed, the postings of lexeme row r are slots[pointers[r]:pointers[r + 1]] (the relations whose evidence
    # holds the lexeme) with counts (its positions in each): int32 arrays, a tenth of the memory of dicts
    lexeme_rows: dict[str, int] = field(default_factory=dict)
    pointers: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))
    slots: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    counts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    _loading: dict[str, tuple[list[int], list[int]]] = field(default_factory=dict)

    @property
    def rows(self) -> int:
        return len(self.relations) + -(-len(self.slots) // POSTINGS_PER_ROW)

    def add(self, relation: Relation, lexemes: Iterable[str], position_counts: Iterable[int]) -> None:
        slot = len(self.relations)
        self.relations.append(relation)
        self.by_entity.setdefault(relation.source_entity_id, []).append(slot)
        if relation.target_entity_id != relation.source_entity_id:
            self.by_entity.setdefault(relation.target_entity_id, []).append(slot)
        for lexeme, count in zip(lexemes, position_counts):
            slots, counts = self._loading.setdefault(lexeme, ([], []))
            slots.append(slot)
            counts.append(count)

    def seal(self) -> None:
        """Turn the postings added into the arrays."""
        loading = [(lexeme, slots, counts) for lexeme, (slots, counts) in self._loading.items()]
        self.lexeme_rows = {lexeme: row for row, (lexeme, _, _) in enumerate(loading)}
        self.pointers = np.cumsum([0] + [len(slots) for _, slots, _ in loading], dtype=np.int64)
        self.slots = np.fromiter(chain.from_iterable(slots for _, slots, _ in loading), np.int32, self.pointers[-1])
        self.counts = np.fromiter(chain.from_iterable(counts for _, _, counts in loading), np.int32, self.pointers[-1])
        self._loading.clear()

    def matches(self, entity_ids: Collection[int], query_lexemes: Collection[str], limit: int) -> list[RelationFact]:
        """The ``limit`` best-ranked relations of the entities whose evidence holds a query lexeme."""
        by_entity = self.by_entity
        touching = [slot for e in by_entity.keys() & entity_ids for slot in by_entity[e]]
        if not touching:
            return []
        rows = [row for lexeme in set(query_lexemes) if (row := self.lexeme_rows.get(lexeme)) is not None]
        if not rows:
            return []
        found, positions = _matching_positions(self.pointers, self.slots, self.counts, np.array(rows, dtype=np.int64),
                                               np.array(touching, dtype=np.int64), len(self.relations))
        relations = self.relations
        ranked = [(-cover_density_rank(count, relations[slot].length), relations[slot].id, slot)
                  for slot, count in zip(found.tolist(), positions.tolist())]
        return [RelationFact(r.id, self.corpus_id, r.source_entity_id, r.target_entity_id, r.relation_type, -score)
                for score, _, slot in heapq.nsmallest(limit, ranked) for r in (relations[slot],)]


@njit(cache=True)
def _matching_positions(pointers, slots, counts, lexeme_rows, touching, relation_count):  # pragma: no cover
    """The slots of ``touching`` whose evidence holds one of the lexemes, and the matching positions of each."""
    wanted = np.zeros(relation_count, np.bool_)
    for slot in touching:
        wanted[slot] = True
    positions = np.zeros(relation_count, np.int64)
    for row in lexeme_rows:
        for j in range(pointers[row], pointers[row + 1]):
            if wanted[slots[j]]:
                positions[slots[j]] += counts[j]
    found = np.empty(touching.shape[0], np.int64)
    count = 0
    for slot in touching:
        if positions[slot] > 0 and wanted[slot]:
            found[count] = slot
            count += 1
            wanted[slot] = False  # a slot touched twice (a relation of two seed entities) is found once
    return found[:count], positions[found[:count]]


@functools.lru_cache(maxsize=1 << 14)  # a few hundred matches a question, over few distinct (count, length) pairs
def cover_density_rank(matching_positions: int, length: int) -> float:
    """ts_rank_cd(vector, OR query, 1) of a vector of ``length`` positions, ``matching_positions`` of them query
    lexemes, as the float4 PostgreSQL returns."""
    total = 0.0
    for _ in range(matching_positions):
        total += _COVER
    total /= math.log(length + 1)
    return struct.unpack("f", struct.pack("f", total))[0]


def rank_relation_facts(evidence: Iterable[RelationEvidence], entity_ids: Collection[int],
                        query_lexemes: Collection[str], limit: int) -> list[RelationFact]:
    """The ``limit`` best-ranked relations of the entities whose evidence holds a query lexeme, best first, then by
    id (each corpus's relations touch only its own entities)."""
    entity_ids = set(entity_ids)
    facts = [fact for corpus in evidence for fact in corpus.matches(entity_ids, query_lexemes, limit)]
    return heapq.nsmallest(limit, facts, key=lambda f: (-f.score, f.id))

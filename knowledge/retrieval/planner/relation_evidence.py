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
own lexemes' postings, masked by the relations of its entities, and ranks what matches (compiled, from the entity
lookup to the best ``limit``: a few hundred postings and relations a corpus, where building lists of them in Python
cost a search 0.3-0.5 ms on HotpotQA's three corpora).
"""
from __future__ import annotations

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
    # once sealed, the slots of the relations of entity entity_keys[k] are entity_slots[entity_pointers[k]:...[k + 1]]
    entity_keys: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    entity_pointers: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))
    entity_slots: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    relation_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))      # by slot
    relation_lengths: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # by slot
    # once sealed, the postings of lexeme row r are slots[pointers[r]:pointers[r + 1]] (the relations whose evidence
    # holds the lexeme) with counts (its positions in each): int32 arrays, a tenth of the memory of dicts
    lexeme_rows: dict[str, int] = field(default_factory=dict)
    pointers: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))
    slots: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    counts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    _loading: dict[str, tuple[list[int], list[int]]] = field(default_factory=dict)
    _loading_entities: dict[int, list[int]] = field(default_factory=dict)  # entity -> slots of its relations

    @property
    def rows(self) -> int:
        return len(self.relations) + -(-len(self.slots) // POSTINGS_PER_ROW)

    def add(self, relation: Relation, lexemes: Iterable[str], position_counts: Iterable[int]) -> None:
        slot = len(self.relations)
        self.relations.append(relation)
        self._loading_entities.setdefault(relation.source_entity_id, []).append(slot)
        if relation.target_entity_id != relation.source_entity_id:
            self._loading_entities.setdefault(relation.target_entity_id, []).append(slot)
        for lexeme, count in zip(lexemes, position_counts):
            slots, counts = self._loading.setdefault(lexeme, ([], []))
            slots.append(slot)
            counts.append(count)

    def seal(self) -> None:
        """Turn the postings and the relations by entity added into the arrays."""
        loading = [(lexeme, slots, counts) for lexeme, (slots, counts) in self._loading.items()]
        self.lexeme_rows = {lexeme: row for row, (lexeme, _, _) in enumerate(loading)}
        self.pointers = np.cumsum([0] + [len(slots) for _, slots, _ in loading], dtype=np.int64)
        self.slots = np.fromiter(chain.from_iterable(slots for _, slots, _ in loading), np.int32, self.pointers[-1])
        self.counts = np.fromiter(chain.from_iterable(counts for _, _, counts in loading), np.int32, self.pointers[-1])
        self._loading.clear()
        by_entity = self._loading_entities
        keys = sorted(by_entity)
        self.entity_keys = np.array(keys, dtype=np.int64)
        self.entity_pointers = np.cumsum([0] + [len(by_entity[k]) for k in keys], dtype=np.int64)
        self.entity_slots = np.fromiter(chain.from_iterable(by_entity[k] for k in keys), np.int64,
                                        self.entity_pointers[-1])
        by_entity.clear()
        self.relation_ids = np.array([r.id for r in self.relations], dtype=np.int64)
        self.relation_lengths = np.array([r.length for r in self.relations], dtype=np.int64)

    def matches(self, entity_ids: np.ndarray, query_lexemes: Collection[str], limit: int) -> list[RelationFact]:
        """The ``limit`` best-ranked relations of the entities (sorted, distinct) whose evidence holds a query
        lexeme."""
        rows = [row for lexeme in set(query_lexemes) if (row := self.lexeme_rows.get(lexeme)) is not None]
        if not rows or not len(self.relations):
            return []
        slots, scores = _best_matches(self.entity_keys, self.entity_pointers, self.entity_slots, entity_ids,
                                      self.pointers, self.slots, self.counts, np.array(rows, dtype=np.int64),
                                      self.relation_ids, self.relation_lengths, _COVER, limit)
        relations = self.relations
        return [RelationFact(r.id, self.corpus_id, r.source_entity_id, r.target_entity_id, r.relation_type, score)
                for slot, score in zip(slots.tolist(), scores.tolist()) for r in (relations[slot],)]


@njit(cache=True)
def _best_matches(entity_keys, entity_pointers, entity_slots, entity_ids, pointers, slots, counts, lexeme_rows,
                  relation_ids, relation_lengths, cover, limit):  # pragma: no cover - compiled
    """The slots of the relations of ``entity_ids`` whose evidence holds one of the lexemes, the ``limit`` best
    ranked (cover density rank, then relation id), with their ranks."""
    relation_count = relation_ids.shape[0]
    wanted = np.zeros(relation_count, np.bool_)
    touching = 0
    for entity_id in entity_ids:
        k = np.searchsorted(entity_keys, entity_id)
        if k < entity_keys.shape[0] and entity_keys[k] == entity_id:
            for j in range(entity_pointers[k], entity_pointers[k + 1]):
                wanted[entity_slots[j]] = True
                touching += 1
    positions = np.zeros(relation_count, np.int64)
    listed = np.zeros(relation_count, np.bool_)
    found = np.empty(min(touching, relation_count), np.int64)
    listed_count = 0
    if touching:
        for row in lexeme_rows:
            for j in range(pointers[row], pointers[row + 1]):
                slot = slots[j]
                if wanted[slot]:
                    positions[slot] += counts[j]
                    if not listed[slot]:
                        listed[slot] = True
                        found[listed_count] = slot
                        listed_count += 1
    count = 0
    for i in range(listed_count):  # matched: at least one position
        if positions[found[i]] > 0:
            found[count] = found[i]
            count += 1
    ranks = np.empty(count, np.float64)
    for i in range(count):
        ranks[i] = cover_density_rank(positions[found[i]], relation_lengths[found[i]], cover)
    found, ranks = found[:count], ranks
    by_id = np.argsort(relation_ids[found], kind="mergesort")
    order = by_id[np.argsort(-ranks[by_id], kind="mergesort")][:limit]  # best rank first, then lowest id
    return found[order], ranks[order]


@njit(cache=True)
def cover_density_rank(matching_positions, length, cover):  # pragma: no cover - compiled
    """ts_rank_cd(vector, OR query, 1) of a vector of ``length`` positions, ``matching_positions`` of them query
    lexemes, as the float4 PostgreSQL returns (``cover``: the weight of one one-position cover)."""
    total = 0.0
    for _ in range(matching_positions):
        total += cover
    total /= math.log(length + 1)
    return np.float64(np.float32(total))


def rank_relation_facts(evidence: Iterable[RelationEvidence], entity_ids: Collection[int],
                        query_lexemes: Collection[str], limit: int) -> list[RelationFact]:
    """The ``limit`` best-ranked relations of the entities whose evidence holds a query lexeme, best first, then by
    id (each corpus's relations touch only its own entities)."""
    ids = np.array(sorted(set(entity_ids)), dtype=np.int64)
    facts = [fact for corpus in evidence for fact in corpus.matches(ids, query_lexemes, limit)]
    return heapq.nsmallest(limit, facts, key=lambda f: (-f.score, f.id))

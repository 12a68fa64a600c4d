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
whose evidence holds it with its number of positions; a question then touches only its own lexemes' postings.
"""
from __future__ import annotations

import functools
import heapq
import math
import struct
from dataclasses import dataclass, field
from typing import Collection, Iterable, NamedTuple
from uuid import UUID

import numpy as np

from knowledge.retrieval.planner.graph_rows import RelationFact

_D_WEIGHT = struct.unpack("f", struct.pack("f", 0.1))[0]  # ts_rank_cd's default weight of D positions, a float4
_COVER = 1.0 / (1.0 / _D_WEIGHT)  # Cpos of a one-position cover: 1 / sum of the inverse weights


class Relation(NamedTuple):
    source_entity_id: int
    target_entity_id: int
    relation_type: str
    length: int  # positions of the evidence vector (cnt_length)


# a posting takes ~10 bytes (two array entries) against ~220 for a snapshot row: 16 postings count as a row
POSTINGS_PER_ROW = 16


@dataclass
class RelationEvidence:
    """One corpus's relations with a non-empty evidence vector."""
    corpus_id: UUID
    relations: dict[int, Relation] = field(default_factory=dict)
    by_entity: dict[int, list[int]] = field(default_factory=dict)  # entity -> ids of its relations
    # lexeme -> (ids of the relations whose evidence holds it, its positions in each), arrays once loaded
    postings: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    _loading: dict[str, tuple[list[int], list[int]]] = field(default_factory=dict)

    @property
    def rows(self) -> int:
        postings = sum(len(ids) for ids, _ in self.postings.values())
        return len(self.relations) + -(-postings // POSTINGS_PER_ROW)

    def add(self, relation_id: int, relation: Relation, lexemes: Iterable[str], position_counts: Iterable[int]) -> None:
        self.relations[relation_id] = relation
        self.by_entity.setdefault(relation.source_entity_id, []).append(relation_id)
        if relation.target_entity_id != relation.source_entity_id:
            self.by_entity.setdefault(relation.target_entity_id, []).append(relation_id)
        for lexeme, count in zip(lexemes, position_counts):
            ids, counts = self._loading.setdefault(lexeme, ([], []))
            ids.append(relation_id)
            counts.append(count)

    def seal(self) -> None:
        """Turn the postings added into arrays (a tenth of the memory of dicts)."""
        for lexeme, (ids, counts) in self._loading.items():
            self.postings[lexeme] = (np.array(ids, dtype=np.int64), np.array(counts, dtype=np.int32))
        self._loading.clear()

    def matches(self, entity_ids: Iterable[int], query_lexemes: Collection[str]) -> list[RelationFact]:
        """The relations of the entities whose evidence holds a query lexeme, with their ranks."""
        touching: set[int] = set()
        for entity_id in entity_ids:
            touching.update(self.by_entity.get(entity_id, ()))
        if not touching:
            return []
        wanted = np.fromiter(touching, dtype=np.int64, count=len(touching))
        positions: dict[int, int] = {}
        for lexeme in set(query_lexemes):
            posting = self.postings.get(lexeme)
            if posting is None:
                continue
            ids, counts = posting
            hit = np.isin(ids, wanted, assume_unique=True)
            for relation_id, count in zip(ids[hit].tolist(), counts[hit].tolist()):
                positions[relation_id] = positions.get(relation_id, 0) + count
        relations = self.relations
        return [RelationFact(relation_id, self.corpus_id, r.source_entity_id, r.target_entity_id, r.relation_type,
                             cover_density_rank(count, r.length))
                for relation_id, count in positions.items() for r in (relations[relation_id],)]


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
    facts = [fact for corpus in evidence for fact in corpus.matches(entity_ids, query_lexemes)]
    return heapq.nsmallest(limit, facts, key=lambda f: (-f.score, f.id))

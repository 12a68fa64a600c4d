"""The planner's relation facts from memory: the relations of the seed entities whose evidence sentence matches the
question, ranked as ne_relation_facts (migration 018) ranks them in SQL, so a corpus graph snapshot answers the
same facts in the same order without the round trip (5-6 ms a question, most of the seed entities stage).

ne_relation_facts ranks with ``ts_rank_cd(evidence_vector, ne_or_tsquery(question), 1)``. For an OR query every
occurrence of a query lexeme is a cover of its own (tsrank.c: Cover() stops at the first entry that satisfies an
OR), so the rank is one cover weight per matching position divided by log(1 + positions of the vector). The
evidence vector is ``to_tsvector('english', evidence)`` (migration 013): every position has the default weight D.
The sum, the division and the final float4 are done in the order the C code does them, so the scores are equal to
the last bit and ties break by relation id as there.
"""
from __future__ import annotations

import math
import struct
from typing import Collection, Iterable, NamedTuple
from uuid import UUID

from knowledge.retrieval.planner.graph_rows import RelationFact

_D_WEIGHT = struct.unpack("f", struct.pack("f", 0.1))[0]  # ts_rank_cd's default weight of D positions, a float4
_COVER = 1.0 / (1.0 / _D_WEIGHT)  # Cpos of a one-position cover: 1 / sum of the inverse weights


class RelationEvidence(NamedTuple):
    id: int
    corpus_id: UUID
    source_entity_id: int
    target_entity_id: int
    relation_type: str
    lexemes: tuple[str, ...]
    position_counts: tuple[int, ...]
    length: int  # positions of the vector (cnt_length)


def cover_density_rank(matching_positions: int, length: int) -> float:
    """ts_rank_cd(vector, OR query, 1) of a vector of ``length`` positions, ``matching_positions`` of them query
    lexemes, as the float4 PostgreSQL returns."""
    total = 0.0
    for _ in range(matching_positions):
        total += _COVER
    total /= math.log(length + 1)
    return struct.unpack("f", struct.pack("f", total))[0]


def rank_relation_facts(relations: Iterable[RelationEvidence], query_lexemes: Collection[str],
                        limit: int) -> list[RelationFact]:
    """The ``limit`` best-ranked relations whose evidence holds a query lexeme, best first, then by id."""
    wanted = frozenset(query_lexemes)
    facts: dict[int, RelationFact] = {}
    for relation in relations:
        if relation.id in facts:
            continue  # both ends of a relation can be seed entities
        matched = False
        positions = 0
        for lexeme, count in zip(relation.lexemes, relation.position_counts):
            if lexeme in wanted:
                matched = True
                positions += count
        if matched:
            facts[relation.id] = RelationFact(relation.id, relation.corpus_id, relation.source_entity_id,
                                              relation.target_entity_id, relation.relation_type,
                                              cover_density_rank(positions, relation.length))
    return sorted(facts.values(), key=lambda f: (-f.score, f.id))[:limit]

"""Where the personalized PageRank walk restarts: the seed entities' weights (HippoRAG / HippoRAG 2).

* Entities the question names anchor the walk (query entity linking).
* Facts (relations) of primary entities whose evidence sentence matches the question lend their two ends
  up to a named entity's weight (query-to-fact matching).
* The other entities of primary evidence only steer it, at CONTEXT_WEIGHT, scaled by their specificity
  1/mentions (a rare entity says more than a ubiquitous one). A question that names nothing and matches no
  fact therefore starts from the specific entities of the best chunks.

Every contribution is scaled by the seed chunk's rank weight 1/rank within its corpus.
"""
from __future__ import annotations

import functools
import unicodedata
from typing import Mapping, Sequence

from knowledge.graph.extraction_patterns import CJK_RE
from knowledge.names import name_tokens
from knowledge.retrieval.planner.context import SeedEntity
from knowledge.retrieval.planner.graph_rows import RelationFact

CONTEXT_WEIGHT = 0.05  # HippoRAG 2 weighs passage context at 0.05 against its fact seeds
FACT_SEEDS = 5
_MIN_NAME_CHARS = 3


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


class QueryNames:
    """Answers whether the question names an entity: whole words for Latin names, a substring for CJK names."""

    def __init__(self, query: str) -> None:
        self._text = _fold(query)
        self._tokens = f" {' '.join(name_tokens(query))} "

    def names(self, entity_name: str) -> bool:
        key = _name_key(entity_name)
        if key is None:
            return False
        cjk, text = key
        return text in (self._text if cjk else self._tokens)


@functools.lru_cache(maxsize=1 << 16)
def _name_key(entity_name: str) -> tuple[bool, str] | None:
    """(CJK, what the question must contain) for an entity name, None for names too short to count; cached across
    questions, since the same entities come back question after question."""
    folded = _fold(entity_name).strip()
    if len(folded) < _MIN_NAME_CHARS:
        return None
    if CJK_RE.search(folded):
        return True, folded
    tokens = name_tokens(entity_name)
    return (False, f" {' '.join(tokens)} ") if tokens else None


def mention_weight(named: bool, mention_count: int, rank: int) -> float:
    """What one primary seed chunk of rank ``rank`` adds to an entity it mentions."""
    specificity = 1.0 / max(1, mention_count)
    return (1.0 if named else CONTEXT_WEIGHT * specificity) / rank


def add_fact_weights(entities: Mapping[int, SeedEntity], facts: Sequence[RelationFact]) -> list[str]:
    """Add each matched fact's score (relative to the best one) to its two ends; returns the facts described."""
    best = max((f.score for f in facts), default=0.0)
    described = []
    for fact in facts:
        ends = [entities.get(fact.source_entity_id), entities.get(fact.target_entity_id)]
        relative = fact.score / best
        for entity in ends:
            if entity is not None and entity.corpus_id == fact.corpus_id:
                entity.weight += relative
        names = [e.name if e is not None else f"entity {i}" for e, i in
                 zip(ends, (fact.source_entity_id, fact.target_entity_id))]
        described.append(f"{names[0]} {fact.relation_type} {names[1]} ({relative:.2f})")
    return described

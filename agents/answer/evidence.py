"""Which sentences of the tool results answer a question, following the chain of a multi-hop question.

Each sentence is scored by the rarity-weighted question words it covers (a word in every result says little;
a rare one - "developed", a name - says much). Selection is greedy and follows the chain: once a sentence is
chosen, the question words it covered count less and the names it brings in (the bridge entity of a multi-hop
question: "the Atlas team picked *Cobalt Systems*") count for the next pick, so the next sentence is the one
about that entity ("Microsoft acquired Cobalt Systems"). Graph-expanded results reached over a bridge entity
that a chosen sentence names get a bonus: that is the evidence only the cross-corpus bridge found, and once a
chosen sentence names a bridge entity, the expanded result's sentence about that entity is taken even when it
shares too few of the question's words to pass the relevance floor ("Who built the vector engine ...?" against
"... was developed by ..."): it is the second link of the chain the retriever followed. The answer leads with the
linking fact.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from agents.answer.text import name_terms, sentences, terms

MAX_SENTENCES = 4
MAX_PER_SOURCE = 2
RELEVANCE_FLOOR = 0.3   # a pick gaining under this share of the first pick's score adds noise, not evidence
COVERED_WEIGHT = 0.3    # what a question word still counts once a chosen sentence covered it
HOP_WEIGHT = 0.8        # what a name brought in by a chosen sentence counts, relative to its rarity
BRIDGE_BONUS = 1.5      # factor for a graph-expanded result whose bridge entity a chosen sentence names
LENGTH_EXPONENT = 0.3   # long sentences cover more words by chance
RANK_PRIOR = 0.2        # the retriever's order breaks near-ties


@dataclass(frozen=True)
class Evidence:
    sentence: str
    citation_id: int
    score: float
    graph_expanded: bool


@dataclass(frozen=True)
class _Candidate:
    sentence: str
    citation_id: int
    rank: int
    words: frozenset[str]
    names: frozenset[str]
    via: frozenset[str]         # the bridge entity's words, for a graph-expanded result
    graph_expanded: bool


@dataclass
class _Chain:
    """The question words still wanted and the names the chosen sentences brought in, with their weights."""

    focus: dict[str, float]
    rarity: dict[str, float]
    named: set[str] = field(default_factory=set)

    def gain(self, candidate: _Candidate) -> float:
        covered = sum(self.focus.get(word, 0.0) for word in candidate.words)
        if not covered:
            return 0.0
        score = covered / (1 + len(candidate.words)) ** LENGTH_EXPONENT
        if candidate.graph_expanded and candidate.via and candidate.via <= self.named:
            score *= BRIDGE_BONUS
        return score + RANK_PRIOR / (candidate.rank + 1)

    def completes_bridge(self, candidate: _Candidate) -> bool:
        """A sentence of a graph-expanded result about its bridge entity, which a chosen sentence names."""
        return candidate.graph_expanded and bool(candidate.via) and candidate.via <= self.named \
            and candidate.via <= candidate.words

    def take(self, candidate: _Candidate, asked: set[str]) -> None:
        for word in candidate.words & self.focus.keys():
            self.focus[word] *= COVERED_WEIGHT
        for word in candidate.names - asked - self.named:
            self.focus[word] = max(self.focus.get(word, 0.0), HOP_WEIGHT * self.rarity.get(word, 1.0))
        self.named |= candidate.names | (candidate.words & asked)


def via_entity(result: dict[str, Any]) -> str:
    """The bridge entity of a graph-expanded result (its ``bridge`` is ``BridgePath.to_dict()``)."""
    return str((result.get("bridge") or {}).get("via_entity") or "")


def _text(result: dict[str, Any]) -> str:
    return str(result.get("content") or result.get("best_passage") or "")


def _candidates(results: list[dict[str, Any]]) -> list[_Candidate]:
    out = []
    for rank, result in enumerate(results):
        expanded = result.get("evidence_type") == "graph_expanded"
        via = frozenset(terms(via_entity(result))) if expanded else frozenset()
        title = str(result.get("title") or "").strip().casefold()
        for sentence in sentences(_text(result)):
            if sentence.casefold() == title:  # a title line is not evidence; the citation names the document
                continue
            out.append(_Candidate(sentence, int(result.get("citation_id") or rank + 1), rank,
                                  frozenset(terms(sentence)), frozenset(name_terms(sentence)), via, expanded))
    return out


def _rarity(candidates: list[_Candidate]) -> dict[str, float]:
    """Inverse sentence frequency of each word over the candidate sentences."""
    frequency: dict[str, int] = {}
    for candidate in candidates:
        for word in candidate.words:
            frequency[word] = frequency.get(word, 0) + 1
    total = len(candidates)
    return {word: math.log(1 + total / count) for word, count in frequency.items()}


def _lead_with_links(chosen: list[_Candidate]) -> list[_Candidate]:
    """Put the sentence that names a bridge entity before the graph-expanded sentence it leads to."""
    ordered = list(chosen)
    for target in chosen:
        if not (target.graph_expanded and target.via):
            continue
        link = next((c for c in ordered if c.citation_id != target.citation_id and target.via <= c.names), None)
        if link is not None and ordered.index(link) > ordered.index(target):
            ordered.remove(link)
            ordered.insert(ordered.index(target), link)
    return ordered


def select_evidence(query: str, results: list[dict[str, Any]], limit: int = MAX_SENTENCES) -> list[Evidence]:
    """The sentences that answer ``query``, linking fact first; the top result's first sentence when no
    sentence shares a word with the question."""
    candidates = _candidates(results)
    asked = terms(query)
    rarity = _rarity(candidates)
    top_rarity = max(rarity.values(), default=1.0)
    chain = _Chain({word: rarity.get(word, top_rarity) for word in asked}, rarity)
    chosen: list[_Candidate] = []
    scores: dict[_Candidate, float] = {}
    per_source: dict[int, int] = {}
    while len(chosen) < limit:
        pool = [c for c in candidates if c not in scores and per_source.get(c.citation_id, 0) < MAX_PER_SOURCE
                and all(c.sentence != s.sentence for s in chosen)]
        best = max(pool, key=chain.gain, default=None)
        gain = chain.gain(best) if best is not None else 0.0
        if best is None or gain <= 0.0 or (chosen and gain < RELEVANCE_FLOOR * scores[chosen[0]]):
            completed = {c.citation_id for c in chosen if c.graph_expanded}
            best = max((c for c in pool if chain.completes_bridge(c) and c.citation_id not in completed),
                       key=chain.gain, default=None)
            gain = chain.gain(best) if best is not None else 0.0
            if best is None or gain <= 0.0:
                break
        chosen.append(best)
        scores[best] = gain
        per_source[best.citation_id] = per_source.get(best.citation_id, 0) + 1
        chain.take(best, asked)
    if not chosen:
        top = sentences(_text(results[0]))[:1] if results else []
        return [Evidence(s, int(results[0].get("citation_id") or 1), 0.0, False) for s in top]
    return [Evidence(c.sentence, c.citation_id, scores[c], c.graph_expanded) for c in _lead_with_links(chosen)]

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
linking fact and each next sentence is the one that follows a name of the sentence before it.

A later pick must carry the chain on - name an entity a chosen sentence brought in, complete a bridge, or cover
a good share of the question by itself: a sentence that merely shares one question word ("Kenji Watanabe owns the
benchmark" for "Which company owns ...?") is padding. A sentence holding the kind of thing asked for (a new name
for "who", a date for "when", a number for "how many") counts more, and so does one in the question's script (a
Chinese question is answered from Chinese sentences when they answer it as well). The answer stops once the
chosen sentences cover most of the question and one holds what was asked - unless they name a bridge entity whose
bridged evidence is not taken yet (then they are only the chain's first link). The factors below were chosen on
the MuSiQue dev set and reported on HotpotQA and the demo questions (docs/benchmarks/answers.md).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

from agents.answer.asked import asked_for, carries_answer
from agents.answer.text import has_cjk, name_terms, sentences, terms

MAX_SENTENCES = 4
MAX_PER_SOURCE = 2
RELEVANCE_FLOOR = 0.3   # a pick gaining under this share of the first pick's score adds noise, not evidence
COVERED_WEIGHT = 0.3    # what a question word still counts once a chosen sentence covered it
HOP_WEIGHT = 0.8        # what a name brought in by a chosen sentence counts, relative to its rarity
BRIDGE_BONUS = 1.5      # factor for a graph-expanded result whose bridge entity a chosen sentence names
LENGTH_EXPONENT = 0.5   # long sentences cover more words by chance
RANK_PRIOR = 0.4        # the retriever's order, in units of the rarest word's weight
ANSWER_BONUS = 1.3      # factor for a sentence holding the kind of thing the question asks for
LANGUAGE_WEIGHT = 0.5   # factor for a sentence in another script than the question's
NEW_ASPECT_FLOOR = 0.3  # a later pick following no name of the chain must cover this share of the first pick alone
COMPLETE_SHARE = 0.6    # the answer stops once this share of the question's coverable weight is covered


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
    carries: bool               # holds the kind of thing the question asks for
    weight: float               # the answer-kind and language factors


@dataclass
class _Chain:
    """The question words still wanted and the names the chosen sentences brought in, with their weights."""

    focus: dict[str, float]
    rarity: dict[str, float]
    asked: set[str]
    top_rarity: float
    named: set[str] = field(default_factory=set)

    def _score(self, candidate: _Candidate, words: frozenset[str] | set[str]) -> float:
        covered = sum(self.focus.get(word, 0.0) for word in words)
        return covered / (1 + len(candidate.words)) ** LENGTH_EXPONENT * candidate.weight

    def gain(self, candidate: _Candidate) -> float:
        score = self._score(candidate, candidate.words)
        if not score:
            return 0.0
        if candidate.graph_expanded and candidate.via and candidate.via <= self.named:
            score *= BRIDGE_BONUS
        return score + RANK_PRIOR * self.top_rarity / (candidate.rank + 1)

    def question_gain(self, candidate: _Candidate) -> float:
        """What the sentence is worth by the question's own words (no name a chosen sentence brought in)."""
        return self._score(candidate, candidate.words & self.asked)

    def new_aspect(self, candidate: _Candidate, first_score: float) -> bool:
        """The sentence answers a part of the question the chosen ones left open: by the question's own words
        it is worth a good share of the first pick."""
        return self.question_gain(candidate) >= NEW_ASPECT_FLOOR * first_score

    def follows(self, candidate: _Candidate) -> bool:
        """The sentence says something (not only names: "Attendees: ...") about an entity a chosen sentence
        brought in - the next hop of the chain."""
        return bool(candidate.words - candidate.names) and bool(candidate.words & (self.named - self.asked))

    def complete(self, chosen: list[_Candidate], coverable: float) -> bool:
        """The chosen sentences cover most of the question and one holds the kind of thing asked for."""
        left = sum(weight for word, weight in self.focus.items() if word in self.asked and word in self.rarity)
        return any(c.carries for c in chosen) and left <= (1 - COMPLETE_SHARE) * coverable

    def completes_bridge(self, candidate: _Candidate) -> bool:
        """A sentence of a graph-expanded result about its bridge entity, which a chosen sentence names."""
        return candidate.graph_expanded and bool(candidate.via) and candidate.via <= self.named \
            and candidate.via <= candidate.words

    def bridge_pending(self, chosen: list[_Candidate], candidates: list[_Candidate]) -> bool:
        """The chosen sentences name an entity the question does not, over which the retriever followed a bridge,
        and no bridged sentence is chosen yet: they are only the chain's first link - unless they already hold
        every word of the question, which leaves the bridge nothing to answer."""
        covered = set().union(*(c.words for c in chosen))
        if self.asked & self.rarity.keys() <= covered:
            return False
        return not any(c.graph_expanded for c in chosen) and any(
            self.completes_bridge(c) and not c.via & self.asked for c in candidates)

    def take(self, candidate: _Candidate) -> None:
        for word in candidate.words & self.focus.keys():
            self.focus[word] *= COVERED_WEIGHT
        for word in candidate.names - self.asked - self.named:
            self.focus[word] = max(self.focus.get(word, 0.0), HOP_WEIGHT * self.rarity.get(word, 1.0))
        self.named |= candidate.names | (candidate.words & self.asked)


def via_entity(result: dict[str, Any]) -> str:
    """The bridge entity of a graph-expanded result (its ``bridge`` is ``BridgePath.to_dict()``)."""
    return str((result.get("bridge") or {}).get("via_entity") or "")


def _text(result: dict[str, Any]) -> str:
    return str(result.get("content") or result.get("best_passage") or "")


def _weight(sentence: str, carries: bool, chinese_question: bool) -> float:
    weight = ANSWER_BONUS if carries else 1.0
    return weight if has_cjk(sentence) == chinese_question else weight * LANGUAGE_WEIGHT


def _candidates(query: str, results: list[dict[str, Any]]) -> list[_Candidate]:
    kind, asked, chinese = asked_for(query), terms(query), has_cjk(query)
    primary = {int(r.get("citation_id") or 0) for r in results if r.get("evidence_type") != "graph_expanded"}
    out = []
    for rank, result in enumerate(results):
        # a source that also gave primary evidence did not come only through the bridge
        expanded = (result.get("evidence_type") == "graph_expanded"
                    and int(result.get("citation_id") or 0) not in primary)
        via = frozenset(terms(via_entity(result))) if expanded else frozenset()
        title = str(result.get("title") or "").strip().casefold()
        for sentence in sentences(_text(result)):
            if sentence.casefold() == title:  # a title line is not evidence; the citation names the document
                continue
            carries = kind is None or carries_answer(sentence, kind, asked)
            out.append(_Candidate(sentence, int(result.get("citation_id") or rank + 1), rank,
                                  frozenset(terms(sentence)), frozenset(name_terms(sentence)), via, expanded,
                                  carries, _weight(sentence, carries and kind is not None, chinese)))
    return out


def _rarity(candidates: list[_Candidate]) -> dict[str, float]:
    """Inverse sentence frequency of each word over the candidate sentences."""
    frequency: dict[str, int] = {}
    for candidate in candidates:
        for word in candidate.words:
            frequency[word] = frequency.get(word, 0) + 1
    total = len(candidates)
    return {word: math.log(1 + total / count) for word, count in frequency.items()}


def _chain_order(chosen: list[_Candidate], query: str) -> list[_Candidate]:
    """The chosen sentences as a chain: each next to the one it shares a name with, a graph-expanded sentence after
    the sentence naming its bridge entity (the linking fact leads), and read from the question's end ("the CEO of
    the parent of the provider *from the February incident*" starts at the incident)."""
    asked = terms(query)
    folded = query.casefold()

    def linked(a: _Candidate, b: _Candidate) -> bool:
        return bool((a.names | b.names) & a.words & b.words - asked)

    def leads(a: _Candidate, b: _Candidate) -> bool:
        return b.graph_expanded and bool(b.via) and a.citation_id != b.citation_id and b.via <= a.names

    def position(c: _Candidate) -> float:
        found = [folded.find(word) for word in c.words & asked if word in folded]
        return sum(found) / len(found) if found else -1.0

    def fit(order: tuple[_Candidate, ...]) -> tuple[int, int, list[float]]:
        misplaced = sum(leads(b, a) for i, a in enumerate(order) for b in order[i + 1:])
        links = sum(linked(a, b) for a, b in zip(order, order[1:]))
        return -misplaced, links, [position(c) for c in order]

    return list(max(itertools.permutations(chosen), key=fit))


def select_evidence(query: str, results: list[dict[str, Any]], limit: int = MAX_SENTENCES) -> list[Evidence]:
    """The sentences that answer ``query``, linking fact first; the top result's first sentence when no
    sentence shares a word with the question."""
    candidates = _candidates(query, results)
    asked = terms(query)
    rarity = _rarity(candidates)
    top_rarity = max(rarity.values(), default=1.0)
    chain = _Chain({word: rarity.get(word, top_rarity) for word in asked}, rarity, asked, top_rarity)
    coverable = sum(chain.focus[word] for word in asked if word in rarity)
    chosen: list[_Candidate] = []
    scores: dict[_Candidate, float] = {}
    per_source: dict[int, int] = {}
    while len(chosen) < limit:
        pool = [c for c in candidates if c not in scores and per_source.get(c.citation_id, 0) < MAX_PER_SOURCE
                and all(c.sentence != s.sentence for s in chosen)]
        if chosen:
            floor = scores[chosen[0]]
            pool = [c for c in pool if chain.follows(c) or chain.completes_bridge(c) or chain.new_aspect(c, floor)]
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
        chain.take(best)
        if not chain.bridge_pending(chosen, candidates) and chain.complete(chosen, coverable):
            break
    if not chosen:
        top = sentences(_text(results[0]))[:1] if results else []
        return [Evidence(s, int(results[0].get("citation_id") or 1), 0.0, False) for s in top]
    return [Evidence(c.sentence, c.citation_id, scores[c], c.graph_expanded) for c in _chain_order(chosen, query)]

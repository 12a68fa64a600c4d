"""Stage: rerank the fused pool and pick the results.

Relevance is a cross-encoder score when one is installed offline, otherwise the cosine of the chunk and
query embeddings. In graph expansion mode a chunk also gains the support of its entity hops: the relevance of
the best primary chunks it shares a specific entity with, discounted by how many chunks name that entity
(the second hop of a multi-hop question rarely resembles the question, the first hop does). The final score
blends relevance (plus support) with the (max-normalised) RRF score. Graph-expanded evidence,
by design, shares little with the question, so it gets reserved slots instead of competing on cosine alone.
Evidence is graph-expanded when a bridge path from primary evidence of another corpus reaches it and a
direct search of its own corpus would not show it within the requested limit. The reserved slots go first to
the strongest bridge: a chunk that names a specific entity one of the best chunks of another corpus names
(``bridge`` support), even when its own corpus ranks it among its first seeds, since with several corpora
searched a corpus's fourth or fifth seed rarely makes the merged results on cosine alone.
"""
from __future__ import annotations

import json
from collections import Counter
from typing import Any, Mapping, NamedTuple, Sequence
from uuid import UUID

import numpy as np

from config.settings import PlannerSettings
from knowledge import offload
from knowledge.retrieval.citations import assign_citations
from knowledge.retrieval.planner.context import Candidate, EntityHop, PlanState
from knowledge.retrieval.planner.cross_encoder import OfflineCrossEncoder
from knowledge.retrieval.planner.entity_hops import hop_support, linked_weights, ppr_support
from knowledge.retrieval.planner.graph_reads import GraphReads
from knowledge.retrieval.planner.hop_evidence import confident, terms
from knowledge.retrieval.results import SearchHit

EXPANDED_SLOT_SHARE = 0.2  # docs/design.md targets a cross-corpus expansion ratio >= 15%
COVERAGE_MIN_LIMIT = 6     # below this many results every slot goes to the best chunks


class Scored(NamedTuple):  # a named tuple: one for every pooled chunk, at a third of a dataclass's cost
    candidate: Candidate
    row: Any
    relevance: float
    support: float
    score: float
    expanded: bool
    bridge: float = 0.0  # hop support over entity hops from a best chunk of another corpus only

    @property
    def bridged(self) -> bool:
        """Eligible for the reserved slots: reached by the expansion walk, or by a cross-corpus entity hop."""
        return self.expanded or self.bridge > 0


def bridge_support(hops: Sequence[EntityHop], source_weights: Mapping[int, float], specificity: float,
                   query_weight: float = 0.0) -> float:
    """The hop support that crosses corpora: a specific entity named by a best chunk of another corpus (the
    bridge of a multi-hop question whose second hop sits in another corpus than its first)."""
    return hop_support([h for h in hops if h.crosses_corpora], source_weights, specificity, query_weight)


def reserved_slots(limit: int, expanded_available: int) -> int:
    """Slots kept for graph-expanded evidence: a fifth of the results (at least one when there are two)."""
    if limit < 2:
        return 0
    return min(expanded_available, max(1, round(limit * EXPANDED_SLOT_SHARE)))


def _document(s: Scored) -> tuple[UUID, str | int]:
    return s.candidate.corpus_id, s.candidate.source_uri or s.candidate.chunk_id


def _first_documents(ranked: Sequence[Scored], count: int) -> list[Scored]:
    """The first chunk of each of the first ``count`` documents of ``ranked``."""
    picked: dict[tuple[UUID, str | int], Scored] = {}
    for s in ranked:
        if len(picked) >= count:
            break
        picked.setdefault(_document(s), s)
    return list(picked.values())


def protected_results(scored: list[Scored], dense_keep: int, lexical_keep: int, room: int) -> list[Scored]:
    """What no graph evidence displaces, at most ``room`` of it: the best chunk of each of the ``dense_keep`` most
    relevant seed documents, then of the ``lexical_keep`` best lexical seed documents not among them. Documents,
    not chunks: two chunks of one page are one piece of evidence."""
    dense = _first_documents(sorted((s for s in scored if s.candidate.seed_rank is not None),
                                    key=lambda s: (-s.relevance, s.candidate.chunk_id)), dense_keep)
    shown = {_document(s) for s in dense}
    lexical = _first_documents(sorted((s for s in scored if s.candidate.lexical_rank is not None),
                                      key=lambda s: (s.candidate.lexical_rank, s.candidate.chunk_id)), lexical_keep)
    return (dense + [s for s in lexical if _document(s) not in shown])[:max(room, 0)]


def select_results(scored: list[Scored], limit: int, mentioned: set[UUID], dense_keep: int = 0,
                   lexical_keep: int = 0) -> list[Scored]:
    """The ``limit`` best by score, except that the reserved slots go to bridged evidence (first in the mentioned
    corpora, then by the strongest cross-corpus entity hop, then by the walk mass the other corpora send it; a
    seed taken there is shown as graph-expanded), and the protected results (``protected_results``) come first
    whatever the graph adds: a strong first-stage hit is never displaced."""
    reserved = reserved_slots(limit, sum(1 for s in scored if s.bridged))
    protected = protected_results(scored, dense_keep, lexical_keep, limit - reserved)
    protected_ids = {s.candidate.chunk_id for s in protected}
    rest = [s for s in scored if s.candidate.chunk_id not in protected_ids]
    ordered = sorted(rest, key=lambda s: (-s.score, s.candidate.chunk_id))
    bridged = sorted((s for s in rest if s.bridged),
                     key=lambda s: (s.candidate.corpus_id not in mentioned, -s.bridge, -s.candidate.expansion_score,
                                    -s.score, s.candidate.chunk_id))
    reserved_picks = [s._replace(expanded=True) for s in
                      bridged[:min(reserved_slots(limit, len(bridged)), limit - len(protected))]]
    kept_ids = {s.candidate.chunk_id for s in reserved_picks}
    keep = reserved_picks + [s for s in ordered if s.candidate.chunk_id not in kept_ids][
        :limit - len(protected) - len(reserved_picks)]
    keep = cover_every_corpus(protected, keep, rest, mentioned, limit)
    return protected + sorted(keep, key=lambda s: (-s.score, s.candidate.chunk_id))


def rank_scores(selected: Sequence[Scored]) -> list[float]:
    """The score each result shows, in the order they are ranked: its own, or the best below it when it was placed
    above better-scoring results (a protected dense document), so the shown column never rises down the list."""
    shown: list[float] = []
    for s in reversed(selected):
        shown.append(max(s.score, shown[-1]) if shown else s.score)
    return shown[::-1]


def cover_every_corpus(protected: list[Scored], keep: list[Scored], rest: list[Scored], mentioned: set[UUID],
                       limit: int) -> list[Scored]:
    """A searched corpus with seeds but no result gets its most relevant seed in place of the lowest-scoring
    result that is neither reserved nor its corpus's only one: asking three corpora and seeing two is wrong even
    when one corpus's chunks all resemble the question more (its answer may be the chunk that resembles it less)."""
    if limit < COVERAGE_MIN_LIMIT:
        return keep
    keep = list(keep)
    shown = Counter(s.candidate.corpus_id for s in protected + keep)
    for best in sorted((s for s in rest if s.candidate.seed_rank is not None and s.candidate.corpus_id in mentioned),
                       key=lambda s: (-s.relevance, s.candidate.chunk_id)):
        if mentioned <= shown.keys():
            break  # every searched corpus is shown: nothing left to replace
        if best.candidate.corpus_id in shown:
            continue
        replaceable = [s for s in keep if not s.expanded and shown[s.candidate.corpus_id] > 1]
        if not replaceable:
            break
        dropped = min(replaceable, key=lambda s: (s.score, -s.candidate.chunk_id))
        keep.remove(dropped)
        keep.append(best)
        shown[dropped.candidate.corpus_id] -= 1
        shown[best.candidate.corpus_id] += 1
    return keep


class RerankStage:
    name = "rerank"
    graph_only = False

    def __init__(self, reads: GraphReads, cross_encoder: OfflineCrossEncoder, settings: PlannerSettings) -> None:
        self.reads = reads
        self.cross_encoder = cross_encoder
        self.settings = settings

    def _support(self, pool: list[tuple[Candidate, Any, bool]], relevance: np.ndarray, primary: set[int],
                 query: str) -> tuple[np.ndarray, np.ndarray]:
        """Entity-hop support of each pooled chunk from the ``entity_hop_sources`` most relevant primary ones (from
        the hops confident enough to lift it, hop_evidence.py), and the part of all its hops that crosses corpora
        (the bridge strength the reserved slots are ranked by)."""
        if not any(c.hops for c, _, _ in pool):
            return np.zeros(len(pool)), np.zeros(len(pool))
        ranked = sorted(((float(rel), c.chunk_id) for (c, _, _), rel in zip(pool, relevance)
                         if c.chunk_id in primary), reverse=True)
        sources = {chunk_id: rel for rel, chunk_id in ranked[:self.settings.entity_hop_sources]}
        hops = {c.chunk_id: c.hops for c, _, _ in pool if c.hops}
        sources |= linked_weights(hops)
        if self.settings.hop_evidence == "confident":
            question_terms = terms(query)
            hops = {c.chunk_id: c.hops for c, row, _ in pool
                    if c.hops and confident(c.hops, terms(row["content"]), question_terms)}
        specificity, query_weight = self.settings.entity_hop_specificity, self.settings.entity_hop_query_weight
        bridge = np.array([bridge_support(c.hops, sources, specificity, query_weight) if c.hops else 0.0
                           for c, _, _ in pool])
        if self.settings.hop_ppr:
            mass = ppr_support(hops, sources, self.settings.ppr_damping)
            return np.array([mass.get(c.chunk_id, 0.0) if c.chunk_id not in sources else 0.0
                             for c, _, _ in pool]), bridge
        return np.array([hop_support(hops[c.chunk_id], sources, specificity, query_weight) if c.chunk_id in hops
                         else 0.0 for c, _, _ in pool]), bridge

    async def _relevance(self, state: PlanState, rows: list) -> tuple[np.ndarray, str]:
        if self.cross_encoder.available:
            scores = await offload.interactive(self.cross_encoder.score, state.request.query,
                                             [r["content"] for r in rows])
            if scores is not None:
                return scores, f"cross-encoder {self.cross_encoder.name}"
        return np.clip(np.array([float(r["score"]) for r in rows]), 0.0, 1.0), "embedding cosine"

    async def run(self, state: PlanState) -> dict[str, Any]:
        request = state.request
        scope = request.expansion_scope
        effective = set(request.effective)
        allowed = set(scope)
        by_id = {chunk_id: row for chunk_id, row in state.scored_rows.items() if row["corpus_id"] in allowed}
        unread = [c.chunk_id for c in state.candidates if c.chunk_id not in by_id]
        if unread:
            rows = await self.reads.scored_chunks(unread, scope, state.embedding)
            by_id.update((r["id"], r) for r in rows if r["corpus_id"] in allowed)
        primary = state.primary_chunk_ids()
        pool: list[tuple[Candidate, Any, bool]] = []
        for candidate in state.candidates:
            row = by_id.get(candidate.chunk_id)
            if row is None or row["corpus_id"] != candidate.corpus_id:
                continue
            expanded = candidate.path is not None and candidate.chunk_id not in primary
            if candidate.corpus_id not in effective and not expanded:
                continue  # outside the mentioned corpora only bridged evidence may appear
            pool.append((candidate, row, expanded))
        if not pool:
            state.hits = []
            return {"method": "none", "pool": 0, "reserved_for_expanded": 0, "expanded_in_results": 0}
        relevance, method = await self._relevance(state, [row for _, row, _ in pool])
        support, bridge = self._support(pool, relevance, primary, request.query)
        top_rrf = max(c.rrf for c, _, _ in pool)
        weight, hop_weight = self.settings.rerank_relevance_weight, self.settings.entity_hop_weight
        scored = [Scored(c, row, float(rel), float(sup),
                         weight * (float(rel) + hop_weight * float(sup)) + (1 - weight) * c.rrf / top_rrf, expanded,
                         float(bri))
                  for (c, row, expanded), rel, sup, bri in zip(pool, relevance, support, bridge)]
        selected = select_results(scored, request.limit, effective, self.settings.dense_keep,
                                  self.settings.lexical_keep)
        state.hits = assign_citations([self._hit(state, s, shown) for s, shown in zip(selected, rank_scores(selected))])
        return {"method": method, "pool": len(pool), "with_hop_support": int(np.count_nonzero(support)),
                "dense_keep": self.settings.dense_keep, "lexical_keep": self.settings.lexical_keep,
                "reserved_for_expanded": reserved_slots(request.limit, sum(1 for s in scored if s.bridged)),
                "expanded_in_results": sum(1 for s in selected if s.expanded)}

    def _hit(self, state: PlanState, scored: Scored, shown: float) -> SearchHit:
        candidate, row = scored.candidate, scored.row
        corpus = state.request.corpora[candidate.corpus_id]
        scores = {"relevance": scored.relevance, "rrf": candidate.rrf, "blend": scored.score}
        if scored.support:
            scores["entity_hop"] = scored.support
        if candidate.seed_rank is not None:
            scores["seed_rank"] = float(candidate.seed_rank)
        if candidate.expansion_rank is not None:
            scores["expansion_rank"] = float(candidate.expansion_rank)
        return SearchHit(
            chunk_id=row["id"], corpus_id=row["corpus_id"], corpus_name=corpus.name, corpus_label=corpus.label,
            content=row["content"], source_uri=row["source_uri"], metadata=json.loads(row["metadata_json"] or "{}"),
            score=shown, evidence_type="graph_expanded" if scored.expanded else "primary",
            bridge=candidate.path if scored.expanded else None, scores=scores)

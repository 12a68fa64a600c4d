"""Stage: reciprocal rank fusion of the per-corpus seed rankings, the lexical seeds, the expansion ranking and the
entity hops."""
from __future__ import annotations

from typing import Any, Hashable, Mapping, Sequence

from config.settings import PlannerSettings
from knowledge.retrieval.planner.context import Candidate, EntityHop, PlanState, SeedHit
from knowledge.retrieval.planner.entity_hops import provisional_ranking
from knowledge.retrieval.results import BridgePath


def reciprocal_rank_fusion(rankings: Sequence[Sequence[Hashable]], k: int) -> dict[Hashable, float]:
    """sum over rankings of 1 / (k + rank), rank 1-based; an item listed twice in one ranking counts once."""
    if k < 0:
        raise ValueError(f"rrf_k must be >= 0, got {k}")
    scores: dict[Hashable, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(dict.fromkeys(ranking), start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return scores


def hop_path(state: PlanState, hops: Sequence[EntityHop], seed_by_chunk: Mapping[int, SeedHit]) -> BridgePath | None:
    """The bridge path of a chunk reached by entity hops from another corpus: through its most specific
    entity, from the best ranked source chunk (every source is a seed)."""
    crossing = [h for h in hops if h.crosses_corpora]
    if not crossing:
        return None
    hop = min(crossing, key=lambda h: (h.chunk_count, seed_by_chunk[h.from_chunk_id].rank, h.name))
    corpora = state.request.corpora
    return BridgePath(source_corpus_id=hop.from_corpus_id, source_corpus_label=corpora[hop.from_corpus_id].label,
                      target_corpus_id=hop.corpus_id, target_corpus_label=corpora[hop.corpus_id].label,
                      via_entity=hop.name, hops=1)


class FusionStage:
    name = "fusion"
    graph_only = False

    def __init__(self, settings: PlannerSettings) -> None:
        self.settings = settings

    async def run(self, state: PlanState) -> dict[str, Any]:
        seed_by_chunk = {s.chunk_id: s for hits in state.seeds.values() for s in hits}
        lexical = {s.chunk_id: s for s in state.lexical}
        expansion_rank = {c.chunk_id: (rank, c) for rank, c in enumerate(state.expansion, start=1)}
        rankings = [[s.chunk_id for s in hits] for hits in state.seeds.values()]
        if state.lexical:
            rankings.append(list(lexical))
        if state.expansion:
            rankings.append([c.chunk_id for c in state.expansion])
        if state.entity_hops:
            rankings.append(provisional_ranking(state, self.settings))
        scores = reciprocal_rank_fusion(rankings, self.settings.rrf_k)
        pooled = sorted(scores, key=lambda chunk_id: (-scores[chunk_id], chunk_id))[:self.settings.pool_cap]
        candidates = []
        for chunk_id in pooled:  # only the pooled become candidates: a search fuses about twice as many
            seed = seed_by_chunk.get(chunk_id)
            keyword = lexical.get(chunk_id)
            expanded = expansion_rank.get(chunk_id)
            hops = tuple(state.entity_hops.get(chunk_id, ()))
            corpus_id = (seed or keyword).corpus_id if seed or keyword else (
                expanded[1].corpus_id if expanded else hops[0].corpus_id)
            candidates.append(Candidate(
                chunk_id=chunk_id, corpus_id=corpus_id, rrf=scores[chunk_id],
                seed_rank=seed.rank if seed else None, expansion_rank=expanded[0] if expanded else None,
                path=expanded[1].path if expanded else hop_path(state, hops, seed_by_chunk),
                expansion_score=expanded[1].score if expanded else 0.0, hops=hops,
                source_uri=(seed or keyword).source_uri if seed or keyword else None,
                lexical_rank=keyword.rank if keyword else None))
        state.candidates = candidates
        unseeded = [c for c in state.candidates if c.seed_rank is None]
        return {"rrf_k": self.settings.rrf_k, "pool_cap": self.settings.pool_cap, "rankings": len(rankings),
                "fused": len(scores), "pool": len(state.candidates),
                "from_expansion_only": sum(1 for c in unseeded if c.expansion_rank is not None),
                "from_entity_hops_only": sum(1 for c in unseeded if c.expansion_rank is None)}

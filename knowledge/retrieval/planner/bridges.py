"""Stage: canonical bridges from the entities of primary evidence to local entities of the other corpora
expansion may read.

Strict scope: only the other effective (mentioned and accessible) corpora. Otherwise also the accessible
corpora the user did not mention; evidence from those can only ever come back as graph-expanded.
The fan-out is bounded like every expansion hop: bridges start at the ``graph_neighbors_per_hop`` heaviest
primary entities, and at most that many bridges of each length (1 or 2 hops) are kept, best first.
"""
from __future__ import annotations

from typing import Any

from config.settings import PlannerSettings
from knowledge.retrieval.planner.context import PlanState
from knowledge.retrieval.planner.graph_reads import GraphReads

_TRACE_TOP = 10


class BridgeStage:
    name = "bridges"
    graph_only = True

    def __init__(self, settings: PlannerSettings, reads: GraphReads) -> None:
        self.settings = settings
        self.reads = reads

    async def run(self, state: PlanState) -> dict[str, Any]:
        scope = state.request.expansion_scope
        allowed = set(scope)
        cap = self.settings.graph_neighbors_per_hop
        # paths start at primary evidence only, so only its entities need bridges
        primary = sorted((e for e in state.seed_entities.values() if e.primary), key=lambda e: (-e.weight, e.entity_id))
        seeds = {e.entity_id: e for e in primary[:cap]}
        by_entity = await self.reads.bridges(list(seeds), scope)
        bridges = [b for found in by_entity.values() for b in found
                   if b.source_entity_id in seeds and b.source_corpus_id == seeds[b.source_entity_id].corpus_id
                   and b.target_corpus_id in allowed and b.target_corpus_id != b.source_corpus_id]
        bridges.sort(key=lambda b: (-seeds[b.source_entity_id].weight * b.confidence, b.hops, b.canonical_name,
                                    b.target_entity_id))
        kept: dict[int, int] = {}
        state.bridges = []
        for bridge in bridges:
            if kept.get(bridge.hops, 0) < cap:
                kept[bridge.hops] = kept.get(bridge.hops, 0) + 1
                state.bridges.append(bridge)
        bridges = state.bridges
        corpora = state.request.corpora
        return {"count": len(bridges), "sources": len(seeds), "strict_scope": state.request.strict_scope,
                "top": [{"source_corpus": corpora[b.source_corpus_id].label,
                         "target_corpus": corpora[b.target_corpus_id].label, "via_entity": b.canonical_name,
                         "bridge_type": b.bridge_type, "hops": b.hops} for b in bridges[:_TRACE_TOP]]}

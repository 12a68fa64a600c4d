"""Stage: seed entities, the entities the seed chunks mention, with their personalization weights."""
from __future__ import annotations

from typing import Any

from config import Settings
from knowledge.retrieval.planner.context import PlanState, SeedEntity
from knowledge.retrieval.planner.graph_reads import GraphReads
from knowledge.retrieval.planner.personalization import FACT_SEEDS, QueryNames, add_fact_weights, mention_weight

_TRACE_TOP = 5


class SeedEntityStage:
    name = "seed_entities"
    graph_only = True

    def __init__(self, settings: Settings, reads: GraphReads) -> None:
        self.settings = settings
        self.reads = reads

    async def run(self, state: PlanState) -> dict[str, Any]:
        hub_degree = self.settings.linker.canonical_hub_degree_threshold
        effective = state.request.effective
        cap = self.settings.planner.walk_seed_chunks
        seed_by_chunk = {s.chunk_id: s for hits in state.seeds.values() for s in hits if s.rank <= cap}
        primary = state.primary_chunk_ids()
        query_names = QueryNames(state.request.query)
        async with self.reads.transaction(effective) as conn:  # None: the corpus graph snapshots serve the reads
            rows = await self.reads.seed_chunk_entities(list(seed_by_chunk), effective, conn)
            entities: dict[int, SeedEntity] = {}
            hubs: set[int] = set()
            for row in rows:
                seed = seed_by_chunk.get(row.chunk_id)
                if row.degree > hub_degree:  # stopword-like hubs carry no signal and would flood the expansion
                    hubs.add(row.entity_id)
                    continue
                if seed is None or row.corpus_id != seed.corpus_id:
                    continue
                entity = entities.setdefault(row.entity_id, SeedEntity(
                    entity_id=row.entity_id, corpus_id=row.corpus_id, name=row.canonical_name, weight=0.0,
                    primary=False))
                entity.chunk_ids.add(seed.chunk_id)
                if seed.chunk_id in primary:  # deeper seeds are graph nodes; the walk restarts at the best ones
                    entity.primary = True
                    entity.weight += mention_weight(query_names.names(entity.name), row.mention_count, seed.rank)
            primary_entities = [e.entity_id for e in entities.values() if e.primary]
            facts = await self.reads.relation_facts(
                primary_entities, effective, state.request.query, FACT_SEEDS, conn) if primary_entities else []
        state.seed_entities = entities
        matched_facts = add_fact_weights(entities, facts)
        corpora = state.request.corpora
        per_corpus: dict[str, list[str]] = {}
        for corpus_id in effective:
            mine = sorted((e for e in entities.values() if e.corpus_id == corpus_id), key=lambda e: (-e.weight, e.name))
            per_corpus[corpora[corpus_id].label] = [e.name for e in mine[:_TRACE_TOP]]
        return {"seed_chunks": len(seed_by_chunk), "count": len(entities), "primary": len(primary_entities),
                "hubs_skipped": len(hubs), "per_corpus": per_corpus, "facts": matched_facts}

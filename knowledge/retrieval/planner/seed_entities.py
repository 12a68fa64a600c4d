"""Stage: seed entities, the entities the seed chunks mention, with their personalization weights."""
from __future__ import annotations

import asyncio
import heapq
from typing import Any
from uuid import UUID

from config import Settings
from knowledge.retrieval.planner.context import PlanState, SeedEntity, SeedHit
from knowledge.retrieval.planner.graph_reads import GraphReads
from knowledge.retrieval.planner.graph_rows import ChunkEntity
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
        async with self.reads.transaction(effective) as conn:  # None: the corpus graph snapshots serve the reads
            rows = await self.reads.seed_chunk_entities(list(seed_by_chunk), effective, conn)
            # the entities of primary evidence (hubs aside: stopword-like, they carry no signal and would flood the
            # expansion); their facts are read while the mention weights are summed
            usable = [(row, seed) for row in rows if (seed := seed_by_chunk.get(row.chunk_id)) is not None
                      and row.corpus_id == seed.corpus_id and row.degree <= hub_degree]
            primary_entities = list(dict.fromkeys(row.entity_id for row, seed in usable if seed.chunk_id in primary))
            reading = asyncio.ensure_future(self.reads.relation_facts(
                primary_entities, effective, state.request.query, FACT_SEEDS, conn, state.query_lexemes)
            ) if primary_entities else None
            try:
                entities = _weighed_entities(usable, primary, QueryNames(state.request.query))
                facts = await reading if reading is not None else []
            finally:
                if reading is not None and not reading.done():
                    reading.cancel()
                    await asyncio.gather(reading, return_exceptions=True)
        hubs = {row.entity_id for row in rows if row.degree > hub_degree}
        state.seed_entities = entities
        matched_facts = add_fact_weights(entities, facts)
        corpora = state.request.corpora
        by_corpus: dict[UUID, list[SeedEntity]] = {corpus_id: [] for corpus_id in effective}
        for entity in entities.values():
            by_corpus[entity.corpus_id].append(entity)
        per_corpus = {corpora[corpus_id].label: [e.name for e in heapq.nsmallest(
            _TRACE_TOP, mine, key=lambda e: (-e.weight, e.name))] for corpus_id, mine in by_corpus.items()}
        return {"seed_chunks": len(seed_by_chunk), "count": len(entities), "primary": len(primary_entities),
                "hubs_skipped": len(hubs), "per_corpus": per_corpus, "facts": matched_facts}


def _weighed_entities(usable: list[tuple[ChunkEntity, SeedHit]], primary: set[int],
                      query_names: QueryNames) -> dict[int, SeedEntity]:
    """The seed entities with the chunks mentioning them; those of primary evidence weighted by mention_weight."""
    entities: dict[int, SeedEntity] = {}
    for row, seed in usable:
        entity = entities.get(row.entity_id)
        if entity is None:
            entity = entities[row.entity_id] = SeedEntity(entity_id=row.entity_id, corpus_id=row.corpus_id,
                                                          name=row.canonical_name, weight=0.0, primary=False)
        entity.chunk_ids.add(seed.chunk_id)
        if seed.chunk_id in primary:  # deeper seeds are graph nodes; the walk restarts at the best ones
            entity.primary = True
            entity.weight += mention_weight(query_names.names(entity.name), row.mention_count, seed.rank)
    return entities

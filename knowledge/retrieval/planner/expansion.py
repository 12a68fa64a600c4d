"""Stage: cross-corpus graph expansion.

Grow the entity graph (seeds, bridged counterparts, relation neighbours; bounded depth and per-hop fan-out,
hubs skipped), walk it with personalized PageRank from the seed entities, and turn the top entities into
chunk candidates through their mentions. A chunk is ranked by the walk mass that reaches it from the seeds
of *other* corpora (each entity passes its mass on evenly to the chunks that mention it) and is kept only
when a bridge path from primary evidence of another corpus reaches one of its entities.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Mapping
from uuid import UUID

from config import Settings
from knowledge.db.database import Database
from knowledge.retrieval.planner.context import ExpandedChunk, PlanState
from knowledge.retrieval.planner.entity_graph import EntityGraph, Neighbour, build_entity_graph
from knowledge.retrieval.planner.graph_reads import GraphReads
from knowledge.retrieval.planner.graph_rows import EntityChunk
from knowledge.retrieval.planner.growth_kernel import grow_over_table
from knowledge.retrieval.planner.paths import Origin, bridge_origins
from knowledge.retrieval.planner.walk import Walk, walk_from_seeds
from knowledge.retrieval.results import BridgePath

_TRACE_TOP = 8


class ExpansionStage:
    name = "expansion"
    graph_only = True

    def __init__(self, db: Database, settings: Settings, reads: GraphReads) -> None:
        self.db = db
        self.settings = settings
        self.reads = reads

    async def run(self, state: PlanState) -> dict[str, Any]:
        planner = self.settings.planner
        scope = state.request.expansion_scope
        if not state.bridges:  # chunks are kept only where a bridge reaches them: without one the walk finds none
            state.expansion = []
            return {"max_depth": planner.graph_max_depth, "neighbors_per_hop": planner.graph_neighbors_per_hop,
                    "ppr_damping": planner.ppr_damping, "entities": 0, "added_per_hop": [], "relation_edges": 0,
                    "bridge_edges": 0, "top_entities": [], "candidates": 0, "skipped": "no bridges"}

        async with self.reads.transaction(scope) as conn:  # None: the corpus graph snapshots serve every read
            async def fetch(entity_ids: list[int]) -> Mapping[int, list[Neighbour]]:
                return await self.reads.neighbours(entity_ids, scope, conn)

            table = self.reads.neighbour_table(scope)
            graph = None if table is None else grow_over_table(
                state.seed_entities, state.bridges, planner.graph_max_depth, planner.graph_neighbors_per_hop, table)
            if graph is None:
                graph = await build_entity_graph(state.seed_entities, state.bridges, planner.graph_max_depth,
                                                 planner.graph_neighbors_per_hop, fetch)
            walk = walk_from_seeds(graph, state.seed_entities, planner.ppr_damping)
            top = walk.top(planner.graph_neighbors_per_hop)
            top_entities = [e for e, _ in top]
            chunk_rows = await self.reads.chunk_ids_for_entities(top_entities, scope, planner.per_corpus_limit, conn)
        wanted = {r.entity_id for r in chunk_rows} | set(state.seed_entities)  # the entities _rank_chunks asks about
        origins = bridge_origins(graph, state.seed_entities, planner.graph_max_depth, wanted)
        state.expansion = self._rank_chunks(state, walk, origins, chunk_rows)[:planner.pool_cap]
        return self._detail(state, graph, top)

    def _rank_chunks(self, state: PlanState, walk: Walk, origins: Mapping[int, Origin],
                     chunk_rows: list[EntityChunk]) -> list[ExpandedChunk]:
        allowed = set(state.request.expansion_scope)
        chunk_entities: dict[int, set[int]] = {}
        chunk_corpus: dict[int, UUID] = {}
        for row in chunk_rows:
            if row.corpus_id in allowed and row.entity_id in walk.places:
                chunk_entities.setdefault(row.chunk_id, set()).add(row.entity_id)
                chunk_corpus[row.chunk_id] = row.corpus_id
        for entity in state.seed_entities.values():
            for chunk_id in entity.chunk_ids:
                chunk_entities.setdefault(chunk_id, set()).add(entity.entity_id)
                chunk_corpus[chunk_id] = entity.corpus_id
        place = walk.places  # an entity's place in the mass arrays (copies of one entity share it)
        chunks_per_place = Counter(at for entities in chunk_entities.values() for at in {place[e] for e in entities})
        reached_in = {e: origin.bridge.target_corpus_id for e, origin in origins.items()}
        corpora = state.request.corpora
        ranked: list[ExpandedChunk] = []
        for chunk_id, entity_ids in chunk_entities.items():
            corpus_id = chunk_corpus[chunk_id]
            reaching = [e for e in entity_ids if reached_in.get(e) == corpus_id]
            if not reaching:  # kept only where a bridge path reaches: the shares of the others are not needed
                continue
            reaching_mass = walk.masses_from_other_corpora(corpus_id)
            share = {e: reaching_mass[place[e]] / chunks_per_place[place[e]] for e in entity_ids}
            score = sum(share.values())
            if score <= 0:
                continue
            # the path shown runs through the bridged entity that brings the chunk the most mass
            origin = origins[min(reaching, key=lambda e: (-share[e], origins[e].sort_key()))]
            path = BridgePath(
                source_corpus_id=origin.bridge.source_corpus_id,
                source_corpus_label=corpora[origin.bridge.source_corpus_id].label,
                target_corpus_id=corpus_id, target_corpus_label=corpora[corpus_id].label,
                via_entity=origin.bridge.canonical_name, hops=origin.hops)
            ranked.append(ExpandedChunk(chunk_id=chunk_id, corpus_id=corpus_id, score=score, path=path))
        ranked.sort(key=lambda c: (-c.score, c.chunk_id))
        return ranked

    def _detail(self, state: PlanState, graph: EntityGraph, top: list[tuple[int, float]]) -> dict[str, Any]:
        corpora = state.request.corpora
        planner = self.settings.planner
        return {
            "max_depth": planner.graph_max_depth, "neighbors_per_hop": planner.graph_neighbors_per_hop,
            "ppr_damping": planner.ppr_damping, "entities": len(graph.node_ids),
            "added_per_hop": list(graph.added_per_hop), "relation_edges": len(graph.edge_weights),
            "bridge_edges": len(graph.bridge_edges),
            "top_entities": [f"{graph.node_names[at]} ({corpora[graph.node_corpora[at]].label}) {mass:.3f}"
                             for e, mass in top[:_TRACE_TOP] for at in (graph.node_at[e],)],
            "candidates": len(state.expansion),
        }

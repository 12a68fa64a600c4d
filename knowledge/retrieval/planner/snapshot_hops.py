"""Entity hops from the corpus graph snapshots: the rows planner_queries.select_entity_hops returns, without its
similarity column (read only when a hop's weight depends on it), found in the snapshots of the scope's corpora.

A source chunk's linked entities give their canonical entities; one is specific when it is not a hub, its
entities in the scope are mentioned at most ``max_mentions`` times together and at most ``max_chunks`` chunks of
the scope mention them. Every other chunk mentioning a specific canonical entity is reached from the source.
Rows come in the query's order, ties broken by canonical id.
"""
from __future__ import annotations

from typing import Iterable, Sequence

from knowledge.retrieval.planner.graph_rows import HopRow
from knowledge.retrieval.planner.graph_snapshot import CorpusGraph, HopEntity


def hops_from_snapshots(graphs: Sequence[CorpusGraph], chunk_ids: Iterable[int], max_mentions: int,
                        max_chunks: int) -> list[HopRow]:
    sources: set[tuple[int, int]] = set()
    canonicals: dict[int, HopEntity] = {}
    for chunk_id in set(chunk_ids):
        for graph in graphs:
            for mention in graph.chunk_entities.get(chunk_id, ()):
                entity = graph.hop_entities.get(mention.entity_id)
                if entity is not None:
                    sources.add((chunk_id, entity.canonical_id))
                    canonicals[entity.canonical_id] = entity
    reached = {c: chunks for c, entity in canonicals.items() if not entity.hub
               and (chunks := _reached(graphs, c, max_mentions, max_chunks)) is not None}
    rows = [HopRow(from_chunk_id, canonical_id, canonicals[canonical_id].canonical_name, chunk_id, corpus_id,
                   len(reached[canonical_id]), None)
            for from_chunk_id, canonical_id in sources if canonical_id in reached
            for chunk_id, corpus_id in reached[canonical_id] if chunk_id != from_chunk_id]
    rows.sort(key=lambda r: (r.from_chunk_id, r.chunk_count, r.chunk_id, r.canonical_id))
    return rows


def _reached(graphs: Sequence[CorpusGraph], canonical_id: int, max_mentions: int,
             max_chunks: int) -> list[tuple] | None:
    """The (chunk, corpus) pairs mentioning the canonical entity in the scope, or None when it is not specific."""
    members = [(graph, graph.hop_entities[e])
               for graph in graphs for e in graph.canonical_members.get(canonical_id, ())]
    if sum(entity.mention_count for _, entity in members) > max_mentions:
        return None
    chunks = {(chunk_id, graph.corpus_id) for graph, entity in members for chunk_id in entity.chunk_ids}
    return sorted(chunks) if len(chunks) <= max_chunks else None

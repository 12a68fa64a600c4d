"""Per-corpus, in-memory snapshots of the planner's graph reads: the entities of each chunk, the relation
neighbours of each entity, the chunks mentioning each entity, the evidence of each entity's relations
(relation_evidence.py ranks the relation facts from it), each entity's canonical entity with the chunks
mentioning it (snapshot_hops.py finds the entity hops in them) and the chunks themselves with their embeddings
(stored_chunks.py scores the rerank's candidates with them, seed_guess.py finds the nearest ones), so that once a
corpus is loaded these reads are lookups instead of SQL round trips.

Each of these reads is per corpus: a mention, a relation and the entities at both ends lie in one corpus (the
graph builder writes them so, tests/test_planner_graph_snapshot.py checks it), and the hub filter, the per-entity
limits and the orderings apply entity by entity. So the named query answers an entity or chunk of corpus X the
same under every scope containing X, and with nothing under a scope without X. A snapshot runs those same
queries for every entity and chunk of X, under ``db.scoped([X])`` (row-level security as for a search), and is
served only when every corpus of a request's scope has one: a corpus outside the scope contributes nothing.
Each batch of a load is its own short transaction, so searches keep their pool connections meanwhile;
snapshot_store.py decides when to load and what to keep.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, NamedTuple, Sequence
from uuid import UUID

from knowledge.db.database import Database
from knowledge.db.queries import chunks as chunk_queries
from knowledge.db.queries import graph as graph_queries
from knowledge.db.queries import planner as planner_queries
from knowledge.retrieval.planner.graph_rows import ChunkEntity, EntityChunk
from knowledge.retrieval.planner.neighbour_table import NeighbourTable
from knowledge.retrieval.planner.relation_evidence import POSTINGS_PER_ROW, Relation, RelationEvidence
from knowledge.retrieval.planner.stored_chunks import StoredChunk, StoredChunks, chunk_rows_bound

_BATCH = 500  # ids per query of a load: each batch is its own short transaction, and holds the event loop briefly


@dataclass(frozen=True)
class ReadLimits:
    """The settings the snapshot's reads depend on; a read asked with other limits goes to SQL."""
    neighbours_per_entity: int
    hub_degree: int
    chunks_per_entity: int


class HopEntity(NamedTuple):
    """A linked entity as select_entity_hops reads it."""
    canonical_id: int
    canonical_name: str
    hub: bool  # the canonical entity is stopword-like
    mention_count: int
    chunk_ids: tuple[int, ...]


@dataclass
class CorpusGraph:
    corpus_id: UUID
    limits: ReadLimits
    chunk_entities: dict[int, list[ChunkEntity]] = field(default_factory=dict)
    neighbour_table: NeighbourTable = field(init=False)
    entity_chunks: dict[int, list[EntityChunk]] = field(default_factory=dict)
    relation_evidence: RelationEvidence = field(init=False)
    hop_entities: dict[int, HopEntity] = field(default_factory=dict)
    canonical_members: dict[int, list[int]] = field(default_factory=dict)  # canonical -> its entities here
    chunks: StoredChunks = field(default_factory=StoredChunks)

    def __post_init__(self) -> None:
        self.relation_evidence = RelationEvidence(self.corpus_id)
        self.neighbour_table = NeighbourTable.of_corpus(self.corpus_id, [], {})

    @property
    def rows(self) -> int:
        lists = (self.chunk_entities, self.entity_chunks, self.canonical_members)
        return (sum(len(v) for d in lists for v in d.values()) + self.neighbour_table.size + self.relation_evidence.rows
                + sum(1 + len(e.chunk_ids) for e in self.hop_entities.values()) + self.chunks.rows)


def size_bound(mentions: int, relations: int, entities: int, lexemes: int, chunks: int, chunk_bytes: int) -> int:
    """Most rows a corpus snapshot can hold: a row per (chunk, entity), per (entity, chunk) and per chunk of a
    linked entity, each at most one per mention, a neighbour row per end of a relation, a row per relation and one
    per POSTINGS_PER_ROW lexemes of the evidence, two rows per linked entity, and the chunks' rows
    (``chunk_bytes``: their text and vectors)."""
    return (3 * mentions + 3 * relations + -(-lexemes // POSTINGS_PER_ROW) + 2 * entities
            + chunk_rows_bound(chunks, chunk_bytes))


async def load_corpus_graph(db: Database, corpus_id: UUID, limits: ReadLimits) -> CorpusGraph:
    """Every chunk's entities, every entity's neighbours and chunks of one corpus, by the planner's named
    queries scoped to that corpus alone."""
    graph = CorpusGraph(corpus_id, limits)
    names: dict[str, str] = {}  # one string per name: a name recurs in every neighbourhood it belongs to
    scope = [corpus_id]
    async with db.scoped(scope) as conn:
        chunk_ids = await planner_queries.select_corpus_chunk_ids(conn, corpus_id)
        entity_ids = await graph_queries.select_graph_entity_ids(conn, corpus_id)
    for batch in batches(chunk_ids):
        async with db.scoped(scope) as conn:
            records = await planner_queries.select_seed_chunk_entities(conn, batch, scope)
            stored = await chunk_queries.select_chunks_with_embeddings(conn, batch, scope)
        for r in records:
            name = names.setdefault(r[3], r[3])
            graph.chunk_entities.setdefault(r[0], []).append(ChunkEntity(r[0], r[1], corpus_id, name, r[4], r[5]))
        for r in stored:
            graph.chunks.add(StoredChunk(r[0], r[1], r[2], r[3], r[4]), r[5].to_numpy())
    graph.chunks.seal()
    neighbours_of: dict[int, list[tuple[int, str, float]]] = {}
    for batch in batches(entity_ids):
        async with db.scoped(scope) as conn:
            neighbours = await planner_queries.select_entity_neighbours(
                conn, batch, scope, limits.neighbours_per_entity, limits.hub_degree)
            chunks = await planner_queries.select_chunk_ids_for_entities(conn, batch, scope, limits.chunks_per_entity)
            linked = await planner_queries.select_corpus_hop_entities(conn, batch, corpus_id)
        for r in neighbours:
            neighbours_of.setdefault(r[0], []).append((r[1], names.setdefault(r[3], r[3]), r[4]))
        for r in chunks:
            graph.entity_chunks.setdefault(r[0], []).append(EntityChunk(r[0], r[1], corpus_id))
        for r in linked:
            graph.hop_entities[r[0]] = HopEntity(r[1], names.setdefault(r[2], r[2]), r[3], r[4], tuple(r[5]))
            graph.canonical_members.setdefault(r[1], []).append(r[0])
    graph.neighbour_table = NeighbourTable.of_corpus(corpus_id, entity_ids, neighbours_of)
    await _load_relation_evidence(db, graph)
    return graph


async def _load_relation_evidence(db: Database, graph: CorpusGraph) -> None:
    after_id = 0
    while True:
        async with db.scoped([graph.corpus_id]) as conn:
            records = await planner_queries.select_corpus_relation_evidence(conn, graph.corpus_id, after_id, _BATCH)
        for r in records:
            graph.relation_evidence.add(Relation(r[0], r[1], r[2], r[3], r[6]), r[4], r[5])
        if len(records) < _BATCH:
            graph.relation_evidence.seal()
            return
        after_id = records[-1][0]


def batches(ids: Sequence[int]) -> Iterable[list[int]]:
    for start in range(0, len(ids), _BATCH):
        yield list(ids[start:start + _BATCH])

"""Stage: entity hops, the second hop of a multi-hop question.

The answer to "who directed the film that won X?" sits in a chunk that shares little with the question but
names the same entity (the film) as a chunk that matches it. From the best seed chunks of every searched
corpus, this stage follows each specific entity they mention to the other chunks mentioning it: inside the
corpus through the local entity, across corpora through the canonical layer (a shared-entity bridge);
common nouns and the entities the question itself names are skipped, since what they link already resembles
the question. How much such a link counts is decided at rerank time, when the relevance of the chunk it
starts from is known (``hop_support``); here the reached chunks join the fusion as one more ranking.

Whether to follow entities is decided by this evidence, not by the question's wording: the stage runs for every
question except overviews, inside one corpus as across several, and the rerank keeps dense's best chunks.
"""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from config.settings import PlannerSettings
from knowledge.db.database import Database
from knowledge.db.queries import planner as planner_queries
from knowledge.retrieval.query_intent import follows_entities
from knowledge.graph.extraction_patterns import CJK_RE
from knowledge.retrieval.planner.context import EntityHop, PlanState, SeedHit
from knowledge.retrieval.planner.graph_reads import GraphReads
from knowledge.retrieval.planner.personalization import QueryNames
from knowledge.retrieval.planner.ppr import personalized_pagerank

_TRACE_TOP = 8
# the SQL bound on an entity's mentions before its chunks are counted: a chunk rarely names one entity
# more than this many times on average, so entities it drops are far beyond the specific limit anyway
_MENTIONS_PER_CHUNK_BOUND = 4
_MIN_SPECIFIC_LIMIT = 2  # a hop needs an entity two chunks share, however small the corpora


def specific_limit(total_chunks: int) -> int:
    """The most chunks an entity may be named in and still hop: log2 of the chunks searched. Naming the entity
    should narrow the corpora about as much as a binary search narrows them to one chunk; an entity that a fixed
    share of a large corpus names ("Africa" in 32 of 2,148 MuSiQue chunks, limit 12) links chunks on a topic, not
    facts about one thing, and a constant limit would let more such entities through the larger the corpora grow."""
    return max(_MIN_SPECIFIC_LIMIT, math.ceil(math.log2(max(total_chunks, 1))))


def is_proper_name(name: str) -> bool:
    """A name (capital, digit or CJK), not a common noun such as "embedding model": a common noun links chunks
    on the same topic, which the question's embedding already finds; a name links facts about one thing."""
    return any(ch.isupper() or ch.isdigit() for ch in name) or bool(CJK_RE.search(name))


def link_weight(source_weight: float, hop: EntityHop, specificity: float, query_weight: float = 0.0) -> float:
    """What a link from a chunk of weight ``source_weight`` brings the chunk it reaches: less the more chunks name
    the entity (specificity) and, with ``query_weight`` > 0, the less the entity resembles the question (query
    to entity linking by embedding: "Aurora Vector Engine" for "the vector engine Helios uses", not "Berlin")."""
    relatedness = max(hop.query_similarity, 0.0) ** query_weight if query_weight else 1.0
    return source_weight * relatedness / hop.chunk_count ** specificity


def hop_support(hops: Sequence[EntityHop], source_weights: Mapping[int, float], specificity: float,
                query_weight: float = 0.0) -> float:
    """The strongest link into a chunk from the weighted source chunks (a max, not a sum: two entities shared
    with one passage are one piece of evidence, and a sum lets ubiquitous co-mentions pile up)."""
    return max((link_weight(source_weights[h.from_chunk_id], h, specificity, query_weight) for h in hops
                if h.from_chunk_id in source_weights), default=0.0)


def linked_weights(hops_by_chunk: Mapping[int, Sequence[EntityHop]]) -> dict[int, float]:
    """The query-to-entity links as pseudo sources (id -canonical_id) weighted by their similarity."""
    return {h.from_chunk_id: h.similarity for hops in hops_by_chunk.values() for h in hops if h.similarity is not None}


def source_hits(seeds: Mapping[object, Sequence[SeedHit]], count: int) -> dict[int, SeedHit]:
    """The ``count`` best seeds over every corpus (seed scores of one search method compare across corpora)."""
    ranked = sorted((s for hits in seeds.values() for s in hits), key=lambda s: (-s.score, s.rank, s.chunk_id))
    return {s.chunk_id: s for s in ranked[:count]}


def ppr_support(hops_by_chunk: Mapping[int, Sequence[EntityHop]], source_weights: Mapping[int, float],
                damping: float) -> dict[int, float]:
    """HippoRAG 2's passage nodes: a personalized PageRank over source chunks, their hop entities and the chunks
    these reach, restarted from the source chunks' relevance; a reached chunk's support is its mass relative to
    the best source's."""
    edges = [(("chunk", h.from_chunk_id), ("entity", h.canonical_id), 1.0)
             for hops in hops_by_chunk.values() for h in hops if h.from_chunk_id in source_weights]
    edges += [(("entity", h.canonical_id), ("chunk", h.chunk_id), 1.0)
              for hops in hops_by_chunk.values() for h in hops if h.from_chunk_id in source_weights]
    if not edges:
        return {}
    nodes = {n for a, b, _ in edges for n in (a, b)}
    restart = {("chunk", c): w for c, w in source_weights.items() if ("chunk", c) in nodes}
    mass = personalized_pagerank(nodes, edges, restart, damping)
    top = max((mass.get(("chunk", c), 0.0) for c in source_weights), default=0.0)
    if top <= 0:
        return {}
    return {c: mass.get(("chunk", c), 0.0) / top for c in hops_by_chunk}


def provisional_ranking(state: PlanState, settings: PlannerSettings) -> list[int]:
    """Reached chunks ordered by their support with the source chunks weighted 1 / seed rank (relevance is not
    known before rerank); the fusion stage ranks them with this."""
    sources = source_hits(state.seeds, settings.entity_hop_sources)
    weights = {chunk_id: 1.0 / hit.rank for chunk_id, hit in sources.items()} | linked_weights(state.entity_hops)
    support = {chunk_id: hop_support(hops, weights, settings.entity_hop_specificity, settings.entity_hop_query_weight)
               for chunk_id, hops in state.entity_hops.items()}
    return sorted(support, key=lambda c: (-support[c], c))


def _similarity(value: float | None) -> float:
    return 1.0 if value is None else float(value)  # an entity without an embedding is not penalised


class EntityHopStage:
    name = "entity_hops"
    graph_only = False  # inside one corpus too; overviews are skipped in run()

    def __init__(self, db: Database, settings: PlannerSettings, reads: GraphReads) -> None:
        self.db = db
        self.settings = settings
        self.reads = reads

    async def run(self, state: PlanState) -> dict[str, Any]:
        settings = self.settings
        if not follows_entities(state.request.kind):
            state.entity_hops = {}
            return {"skipped": f"{state.request.kind.value} question", "sources": 0, "reached": 0}
        # hops stay inside the mentioned corpora: evidence from unmentioned ones comes only from the bridge walk
        scope = state.request.effective
        # a hop is one step of expansion: graph_max_depth 0 allows none
        sources = source_hits(state.seeds, settings.entity_hop_sources) if settings.graph_max_depth >= 1 else {}
        rows, linked, facts, max_chunks = [], [], None, 0
        if sources:
            # the query-linked hops and the fact filter read SQL; plain hops come from the snapshots when loaded
            sql_only = settings.query_entity_links > 0 or settings.hop_fact_filter
            async with self.db.scoped(scope) if sql_only else self.reads.transaction(scope) as conn:
                max_chunks = settings.entity_hop_max_chunks or specific_limit(state.chunk_total or 0)
                rows = await self.reads.entity_hops(
                    list(sources), scope, max_chunks * _MENTIONS_PER_CHUNK_BOUND, max_chunks,
                    state.embedding if settings.entity_hop_query_weight else None, conn)
                if settings.query_entity_links > 0:
                    linked = await planner_queries.select_query_linked_hops(
                        conn, state.embedding, scope, settings.query_entity_links, max_chunks)
                if settings.hop_fact_filter:
                    facts = {(r["chunk_id"], r["canonical_id"]) for r in await planner_queries.select_fact_canonicals(
                        conn, list(sources), scope, state.request.query)}
        allowed = set(scope)
        query_names = QueryNames(state.request.query)
        linking: dict[str, bool] = {}  # one decision per entity name (each comes back once per chunk it reaches)
        hops: dict[int, list[EntityHop]] = {}
        for row in rows:
            source, name = sources.get(row.from_chunk_id), row.name
            if name not in linking:
                # an entity the question names links chunks that already match the question: no second hop
                linking[name] = is_proper_name(name) and not query_names.names(name)
            if source is None or row.corpus_id not in allowed or not linking[name]:
                continue
            if facts is not None and (source.chunk_id, row.canonical_id) not in facts:
                continue
            hops.setdefault(row.chunk_id, []).append(EntityHop(
                from_chunk_id=source.chunk_id, from_corpus_id=source.corpus_id, chunk_id=row.chunk_id,
                corpus_id=row.corpus_id, canonical_id=row.canonical_id, name=name, chunk_count=row.chunk_count,
                query_similarity=_similarity(row.query_similarity)))
        for row in linked:  # the question itself is the source: pseudo chunk id -canonical_id, weight = similarity
            if row["corpus_id"] in allowed:
                hops.setdefault(row["chunk_id"], []).append(EntityHop(
                    from_chunk_id=-row["canonical_id"], from_corpus_id=row["corpus_id"], chunk_id=row["chunk_id"],
                    corpus_id=row["corpus_id"], canonical_id=row["canonical_id"], name=row["name"],
                    chunk_count=row["chunk_count"], similarity=float(row["similarity"])))
        state.entity_hops = hops
        return self._detail(state, sources, hops, max_chunks)

    def _detail(self, state: PlanState, sources: Mapping[int, SeedHit],
                hops: Mapping[int, list[EntityHop]], max_chunks: int) -> dict[str, Any]:
        corpora = state.request.corpora
        entities: dict[str, int] = {}
        for found in hops.values():
            for hop in found:
                entities[hop.name] = hop.chunk_count
        return {
            "sources": len(sources), "reached": len(hops),
            "cross_corpus": sum(1 for found in hops.values() if any(h.crosses_corpora for h in found)),
            "max_chunks": max_chunks,
            "top_entities": [f"{name} ({count} chunks)" for name, count in
                             sorted(entities.items(), key=lambda x: (x[1], x[0]))[:_TRACE_TOP]],
            "corpora": sorted({corpora[h.corpus_id].label for found in hops.values() for h in found}),
        }

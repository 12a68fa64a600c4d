"""GraphBuilder: the per-corpus knowledge graph step of every ingest, and full rebuilds.

For the chunks of a corpus not yet in its graph: extract entities and relations, resolve the new entities
against the corpus's existing ones (Fellegi-Sunter EntityResolver), write entities, aliases, mentions,
relations, review candidates and degrees in batched statements, then recompute the corpus's Leiden
communities and their summaries. All of it runs under a per-corpus advisory lock; a chunk is marked
extracted in the same transaction as its graph rows, so a failed build is picked up by the next one.
"""
from __future__ import annotations

import logging
import time
from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Sequence

import asyncpg
import numpy as np

from config import Settings
from knowledge import offload
from knowledge.corpora import Corpus
from knowledge.db.database import Database
from knowledge.db.queries import graph as gq
from knowledge.db.queries import ingest_status
from knowledge.embedding import Embedder, TokenEmbedder, TokenVectors
from knowledge.graph.collect import BatchExtraction, ChunkAnalysis, ChunkText, GroupRef, analyze, collect
from knowledge.graph.community_builder import recompute_communities
from knowledge.graph.extraction import Extractor, get_extractor
from knowledge.graph.merge_plan import (EndPoint, ExistingEntity, MergePlan, NewEntity, find_exact_matches,
                                        new_records, plan_merges)
from knowledge.graph.naming import informative_candidates, prefilter_keys, unique_canonical_names
from knowledge.graph.resolution import EntityResolver
from knowledge.graph.summaries import CommunitySummarizer
from knowledge.ingest.pipeline import NewChunk, part_size
from knowledge.metrics import (graph_build_seconds, graph_resolution_decisions_total,
                               ingest_embedded_texts_total, ingest_stage_seconds)
from knowledge.names import normalize_name

logger = logging.getLogger(__name__)

SYMMETRIC_RELATIONS = frozenset({"CO_OCCURS", "PARTNERED_WITH"})


@dataclass
class GraphBuildReport:
    corpus: str
    chunks: int = 0
    entities_added: int = 0
    entities_merged: int = 0  # batch groups merged into an existing entity
    mentions_added: int = 0
    relations_written: int = 0
    candidates_added: int = 0
    communities: int = 0
    community_levels: int = 0
    seconds: float = 0.0
    decisions: dict[str, int] = field(default_factory=dict)


class GraphBuilder:
    def __init__(self, db: Database, embedder: Embedder, settings: Settings,
                 extractor: Extractor | None = None, summarizer: CommunitySummarizer | None = None,
                 resolver: EntityResolver | None = None) -> None:
        self.db = db
        self.embedder = embedder
        self.extractor = extractor or get_extractor(settings.model or "")
        self.summarizer = summarizer or CommunitySummarizer(settings.model)
        self.resolver = resolver or EntityResolver(settings.resolver.match_threshold,
                                                   settings.resolver.possible_threshold)
        # the ingest's parts: a resumed ingest must cut the graph's batches where a clean one does
        self.batch_chunks = part_size(settings)

    async def add_pending(self, corpus: Corpus, new_chunks: Sequence[NewChunk] = ()) -> GraphBuildReport:
        """The post-ingest step: the new chunks (and any left over by an earlier failed build) join the graph;
        the communities follow with ``refresh_communities``.

        Entities are resolved batch by batch against the batches before, so the order is part of the result:
        ``new_chunks`` in their order (the ingest's, the same for a clean and a resumed run), then any others by id,
        cut into batches of ``batch_chunks``."""
        started = time.perf_counter()
        report = GraphBuildReport(corpus=corpus.name)
        async with self.db.connection() as conn:
            pending = await gq.select_unextracted_chunk_ids(conn, corpus.id)
        position = {c.id: i for i, c in enumerate(new_chunks)}
        pending.sort(key=lambda i: (position.get(i, len(position)), i))
        for start in range(0, len(pending), self.batch_chunks):
            await self._add_chunks(corpus, pending[start:start + self.batch_chunks], new_chunks, report)
        report.seconds = time.perf_counter() - started
        logger.info("graph %s: %d chunks, %d new entities, %d merged, %d relations in %.1fs", corpus.name,
                    report.chunks, report.entities_added, report.entities_merged, report.relations_written,
                    report.seconds)
        return report

    async def refresh_communities(self, corpus: Corpus, report: GraphBuildReport | None = None) -> None:
        """Recompute the corpus's communities if a chunk was extracted since they were built."""
        if not await self._communities_stale(corpus):
            return
        with graph_build_seconds.labels(stage="communities").time(), \
                ingest_stage_seconds.labels(stage="leiden").time():
            async with self.db.transaction() as conn:
                await gq.lock_corpus_graph(conn, corpus.id)
                communities = await recompute_communities(conn, corpus.id, self.embedder, self.summarizer)
                await ingest_status.record_communities_built(conn, corpus.id)
        logger.info("graph %s: %d communities on %d levels", corpus.name, communities.communities,
                    communities.levels)
        if report is not None:
            report.communities, report.community_levels = communities.communities, communities.levels

    async def update(self, corpus: Corpus) -> GraphBuildReport:
        """The pending chunks join the graph, then the communities are refreshed."""
        started = time.perf_counter()
        report = await self.add_pending(corpus)
        await self.refresh_communities(corpus, report)
        report.seconds = time.perf_counter() - started
        return report

    async def add_stored(self, corpus: Corpus, chunks: list[NewChunk]) -> None:
        """One part of chunks an ingest stored while it embeds the rest joins the graph now, in one batch (entities,
        relations, mentions); communities wait for ``update`` at the end of the ingest, which also takes up anything
        left here."""
        await self._add_chunks(corpus, [c.id for c in chunks if c.corpus_id == corpus.id], chunks,
                               GraphBuildReport(corpus=corpus.name))

    async def _add_chunks(self, corpus: Corpus, chunk_ids: list[int], known_chunks: Sequence[NewChunk],
                          report: GraphBuildReport) -> None:
        """The chunks join the graph in one batch, in the order given."""
        known = {c.id: c.content for c in known_chunks if c.corpus_id == corpus.id}
        analyses = {c.id: c.analysis for c in known_chunks
                    if c.corpus_id == corpus.id and isinstance(c.analysis, ChunkAnalysis)}
        await self._add_batch(corpus, chunk_ids, known, analyses, report)

    async def rebuild(self, corpus: Corpus) -> GraphBuildReport:
        """Clear the corpus graph and extract it again from all of its chunks."""
        async with self.db.transaction() as conn:
            await gq.lock_corpus_graph(conn, corpus.id)
            await gq.delete_corpus_graph(conn, corpus.id)
        return await self.update(corpus)

    async def _communities_stale(self, corpus: Corpus) -> bool:
        """Entities exist and a chunk was extracted after the last community build (an interrupted build)."""
        async with self.db.connection() as conn:
            return await ingest_status.communities_stale(conn, corpus.id)

    def analyze_chunks(self, texts: Sequence[str], tokens: Sequence[TokenVectors]) -> list[ChunkAnalysis]:
        """Extraction and mention vectors of chunks just embedded (the ingest pipeline's chunk analyzer: it
        runs right after each embedding batch, so token vectors are never kept)."""
        with ingest_stage_seconds.labels(stage="extraction").time():
            return [analyze(text, vectors, self.extractor) for text, vectors in zip(texts, tokens)]

    def _analyze_stored(self, chunks: list[ChunkText]) -> dict[int, ChunkAnalysis]:
        """Chunks stored without an analysis (a rebuild, an interrupted ingest): one more pass of the model."""
        if not chunks or not isinstance(self.embedder, TokenEmbedder):
            return {}
        with ingest_stage_seconds.labels(stage="entity_embedding").time():
            tokens = self.embedder.embed_tokens([c.content for c in chunks])
        ingest_embedded_texts_total.labels(stage="entity_embedding").inc(len(chunks))
        analyses = self.analyze_chunks([c.content for c in chunks], tokens)
        return {c.id: a for c, a in zip(chunks, analyses)}

    async def _add_batch(self, corpus: Corpus, chunk_ids: list[int], known: dict[int, str],
                         analyses: dict[int, ChunkAnalysis], report: GraphBuildReport) -> None:
        async with self.db.transaction() as conn:
            await gq.lock_corpus_graph(conn, corpus.id)
            # another build may have taken these chunks while this one waited for the lock
            unextracted = set(await gq.select_unextracted_chunk_ids(conn, corpus.id, chunk_ids))
            chunk_ids = [i for i in chunk_ids if i in unextracted]
            if not chunk_ids:
                return
            missing = [i for i in chunk_ids if i not in known]
            texts = dict(known)
            texts.update({r["id"]: r["content"] for r in await gq.select_chunk_texts(conn, corpus.id, missing)})
            chunks = [ChunkText(i, texts[i]) for i in chunk_ids if i in texts]
            with graph_build_seconds.labels(stage="extract").time():
                fresh = await offload.bulk(self._analyze_stored, [c for c in chunks if c.id not in analyses])
                with ingest_stage_seconds.labels(stage="extraction").time():
                    batch = await offload.bulk(collect, chunks, self.extractor, {**analyses, **fresh})
            with graph_build_seconds.labels(stage="resolve").time():
                plan, embeddings = await self._plan(conn, corpus, batch)
            with graph_build_seconds.labels(stage="write").time(), ingest_stage_seconds.labels(stage="sql").time():
                await self._write(conn, corpus, batch, plan, embeddings, report)
        report.chunks += len(chunks)
        for decision, count in plan.decisions.items():
            graph_resolution_decisions_total.labels(decision=decision).inc(count)
            report.decisions[decision] = report.decisions.get(decision, 0) + count

    async def _plan(self, conn: asyncpg.Connection, corpus: Corpus,
                    batch: BatchExtraction) -> tuple[MergePlan, dict[GroupRef, np.ndarray]]:
        resolution = ingest_stage_seconds.labels(stage="resolution")
        with resolution.time():
            groups = list(batch.groups.values())
            keys = sorted({k for g in groups for k in prefilter_keys(g.name)})
            rows = await gq.select_resolution_candidates(conn, corpus.id, keys) if keys else []
            kept = informative_candidates({r["id"]: r["block_keys"] for r in rows}, keys,
                                          self.resolver.max_block_size)
            candidates = [ExistingEntity(r["id"], r["canonical_name"], r["name_normalized"], r["entity_type"])
                          for r in rows if r["id"] in kept]
            exact = find_exact_matches(groups, candidates, self.resolver)
            pending = [g for g in groups if g.ref not in exact]
            embeddings = {g.ref: g.embedding for g in pending if g.embedding is not None}
        # a mention the model's truncation cut off (or an embedder without token vectors): embed its text
        unpooled = [g for g in pending if g.ref not in embeddings]
        if unpooled:
            with ingest_stage_seconds.labels(stage="entity_embedding").time():
                vectors = await offload.bulk(self.embedder.embed, [g.embedding_text() for g in unpooled])
            ingest_embedded_texts_total.labels(stage="entity_embedding").inc(len(unpooled))
            embeddings.update({g.ref: v for g, v in zip(unpooled, vectors)})
        with resolution.time():
            records = new_records(pending, embeddings)
            ids = [c.id for c in candidates]
            stored = await gq.select_entity_embeddings(conn, ids) if ids else {}
            neighbours = await gq.select_neighbour_keys(conn, ids) if ids else {}
            existing = [replace(c, embedding=stored.get(c.id), neighbours=frozenset(neighbours.get(c.id, ())))
                        for c in candidates]
            plan = await offload.bulk(plan_merges, pending, records, existing, self.resolver, exact)
        return plan, embeddings

    async def _write(self, conn: asyncpg.Connection, corpus: Corpus, batch: BatchExtraction, plan: MergePlan,
                     embeddings: dict[GroupRef, np.ndarray], report: GraphBuildReport) -> None:
        new_entities = sorted(plan.new_entities, key=lambda e: (-e.mention_count, e.representative.name,
                                                                e.representative.type))
        taken = await gq.select_taken_names(conn, corpus.id, sorted({e.representative.key for e in new_entities}))
        names = unique_canonical_names([(e.representative.name, e.representative.type) for e in new_entities], taken)
        # new entities are written with their final mention count and degree: updating them afterwards would
        # rewrite every fresh row (and its HNSW entry)
        degrees = _new_entity_degrees(batch, plan, new_entities)
        rows = [gq.NewEntityRow(
            canonical_name=name, name_normalized=normalize_name(e.representative.name),
            entity_type=e.representative.type, description=e.representative.context, aliases=sorted(e.surfaces),
            embedding=embeddings[e.representative.ref], block_keys=prefilter_keys(e.representative.name),
            mention_count=e.mention_count, degree=degrees[i],
        ) for i, (e, name) in enumerate(zip(new_entities, names))]
        ids = await gq.insert_entities(conn, corpus.id, corpus.app_name, rows)
        entity_of: dict[GroupRef, int] = dict(plan.into_existing)
        for entity, name in zip(new_entities, names):
            for group in entity.groups:
                entity_of[group.ref] = ids[name]

        aliases: dict[int, set[str]] = defaultdict(set)
        for ref, entity_id in plan.into_existing.items():
            aliases[entity_id].update(batch.groups[ref].surfaces)
        await gq.add_entity_aliases(conn, {i: sorted(a) for i, a in aliases.items()})

        mentions = [gq.MentionRow(entity_of[g.ref], m.chunk_id, m.start, m.end, m.surface, g.type)
                    for g in batch.groups.values() for m in g.mentions]
        report.mentions_added += await gq.insert_mentions(conn, corpus.id, mentions)
        relations, contributions = _relation_rows(batch, entity_of)
        report.relations_written += await gq.upsert_relations(conn, corpus.id, relations)
        await gq.insert_relation_chunks(conn, corpus.id, contributions)
        report.candidates_added += await gq.insert_resolution_candidates(
            conn, corpus.id, _candidate_rows(plan, entity_of))
        new_ids = set(ids.values())
        touched = set(plan.into_existing.values()) | {
            end for r in relations for end in (r.source_entity_id, r.target_entity_id)}
        await gq.refresh_entity_stats(conn, sorted(touched - new_ids))
        await gq.insert_extracted_chunks(conn, corpus.id, [gq.ExtractedChunkRow(i, e, r)
                                                            for i, (e, r) in batch.per_chunk.items()])
        report.entities_added += len(rows)
        report.entities_merged += len(plan.into_existing)


def _new_entity_degrees(batch: BatchExtraction, plan: MergePlan, new_entities: list[NewEntity]) -> list[int]:
    """Distinct related entities of each new entity (all its relations come from this batch)."""
    node_of: dict[GroupRef, tuple[str, int]] = {ref: ("existing", i) for ref, i in plan.into_existing.items()}
    for index, entity in enumerate(new_entities):
        for group in entity.groups:
            node_of[group.ref] = ("new", index)
    neighbours: dict[int, set[tuple[str, int]]] = defaultdict(set)
    for relation in batch.relations:
        source, target = node_of[relation.source], node_of[relation.target]
        if source == target:
            continue
        for node, other in ((source, target), (target, source)):
            if node[0] == "new":
                neighbours[node[1]].add(other)
    return [len(neighbours[i]) for i in range(len(new_entities))]


def _relation_rows(batch: BatchExtraction, entity_of: dict[GroupRef, int]
                   ) -> tuple[list[gq.RelationRow], list[gq.RelationRow]]:
    """One row per (source, target, type): weights summed, first evidence kept, no self-loops after merging; and
    one per (source, target, type, chunk): what each chunk gave it, so removing a chunk can take it away."""
    merged: dict[tuple, gq.RelationRow] = {}
    per_chunk: dict[tuple, gq.RelationRow] = {}
    for relation in batch.relations:
        source, target = entity_of[relation.source], entity_of[relation.target]
        if source == target:
            continue
        if relation.type in SYMMETRIC_RELATIONS and source > target:
            source, target = target, source
        row = gq.RelationRow(source, target, relation.type, relation.weight, relation.chunk_id, relation.evidence)
        _add_weight(merged, (source, target, relation.type), row)
        _add_weight(per_chunk, (source, target, relation.type, relation.chunk_id), row)
    return list(merged.values()), list(per_chunk.values())


def _add_weight(rows: dict[tuple, gq.RelationRow], key: tuple, row: gq.RelationRow) -> None:
    previous = rows.get(key)
    rows[key] = row if previous is None else replace(previous, weight=previous.weight + row.weight)


def _candidate_rows(plan: MergePlan, entity_of: dict[GroupRef, int]) -> list[gq.CandidateRow]:
    def resolve(end: EndPoint) -> int:
        return end if isinstance(end, int) else entity_of[end]

    best: dict[tuple[int, int], gq.CandidateRow] = {}
    for pair in plan.review:
        left, right = sorted((resolve(pair.left), resolve(pair.right)))
        if left == right:
            continue  # the two sides were merged through other matches
        if (left, right) not in best or best[(left, right)].weight < pair.weight:
            best[(left, right)] = gq.CandidateRow(left, right, pair.weight, dict(pair.components))
    return list(best.values())

"""Moving a corpus to another embedding model: stage the new vectors beside the live ones, then switch.

Staging writes the new model's vectors of the corpus's chunks, entities and communities into the staged tables
(migration 025) in small committed parts, so a killed run loses at most one part and the next run goes on from
the rows still without one; searches read only the live columns meanwhile. The switch is one transaction: it
locks the corpus row (writers of its rows wait), finds every row staged (or goes back to staging what an ingest
added meanwhile), swaps staged and live vectors, moves the corpus to the new model (bumping its version, which
searches check) and recomputes the canonical centroids its entities belong to. The previous model's vectors stay
staged until dropped, so switching back costs no model pass.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence
from uuid import UUID

import asyncpg
import numpy as np

from knowledge import offload
from knowledge.canonical.specificity import GENERIC_KEYS
from knowledge.corpora import Corpus
from knowledge.db.database import Database
from knowledge.db.queries import canonical as canonical_queries
from knowledge.db.queries import embeddings as q
from knowledge.embedding import TokenEmbedder, TokenVectors
from knowledge.graph.collect import first_mention_embedding
from knowledge.graph.community_builder import member_centroid
from knowledge.graph.summaries import RelationInfo

ProgressCallback = Callable[[Corpus, q.StagingProgress], None]


@dataclass(frozen=True)
class MigrationOutcome:
    corpus: Corpus
    model: str
    action: str  # "switched", "already on it"


class ModelMigration:
    """Moves corpora to ``model`` (its embedder ``embedder``); ``part_size`` rows a committed part."""

    def __init__(self, db: Database, embedder: TokenEmbedder, model: str, *, part_size: int,
                 hub_degree_threshold: int, on_progress: ProgressCallback | None = None) -> None:
        self.db = db
        self.embedder = embedder
        self.model = model
        self.part_size = part_size
        self.hub_degree_threshold = hub_degree_threshold
        self.on_progress = on_progress

    async def run(self, corpus: Corpus) -> MigrationOutcome:
        if not await self.begin(corpus.id):
            return MigrationOutcome(corpus, self.model, "already on it")
        while True:
            await self.stage(corpus)
            if await self.switch(corpus):
                return MigrationOutcome(corpus, self.model, "switched")

    async def begin(self, corpus_id: UUID) -> bool:
        """Start, resume or redirect the corpus's migration; False when it is on the model already."""
        async with self.db.transaction() as conn:
            current = (await q.select_corpus_spaces(conn, [corpus_id]))[corpus_id].model
            row = (await q.select_migrations(conn, [corpus_id])).get(corpus_id)
            if row is not None and row.switched_at is None and row.target_model == self.model:
                return True
            if row is not None and row.switched_at is not None and row.previous_model == self.model:
                await q.start_migration(conn, corpus_id, self.model, current)  # its vectors are the staged ones
                return True
            if row is not None:
                await q.drop_staged(conn, corpus_id)  # staged for another model, or the previous model's
            if current == self.model:
                return False
            await q.start_migration(conn, corpus_id, self.model, current)
            return True

    async def stage(self, corpus: Corpus) -> None:
        """Stage every chunk, entity and community still without a vector of the model, part by part."""
        while await self._stage_chunk_part(corpus):
            pass
        while await self._stage_entity_part(corpus):
            pass
        await self._stage_communities(corpus)

    async def _report(self, corpus: Corpus) -> None:
        if self.on_progress is not None:
            async with self.db.connection() as conn:
                self.on_progress(corpus, await q.select_staging_progress(conn, corpus.id))

    async def _stage_chunk_part(self, corpus: Corpus) -> bool:
        async with self.db.connection() as conn:
            chunks = await q.select_unstaged_chunks(conn, corpus.id, self.part_size)
        if not chunks:
            return False
        tokens = await offload.bulk(self.embedder.embed_tokens, [c["content"] for c in chunks])
        by_chunk = {c["id"]: (c["content"], t) for c, t in zip(chunks, tokens)}
        async with self.db.connection() as conn:
            entities = await q.select_unstaged_entities(conn, corpus.id, None, list(by_chunk))
        entity_vectors = await self._entity_vectors(entities, by_chunk)
        async with self.db.transaction() as conn:
            await q.insert_staged(conn, "knowledge_embedding_staged", corpus.id, list(by_chunk),
                                  [t.sentence for _, t in by_chunk.values()])
            await q.insert_staged(conn, "kg_entity_embedding_staged", corpus.id, list(entity_vectors),
                                  list(entity_vectors.values()))
        await self._report(corpus)
        return True

    async def _stage_entity_part(self, corpus: Corpus) -> bool:
        """Entities whose first mention's chunk was staged by an earlier run, or that have no mention."""
        async with self.db.connection() as conn:
            entities = await q.select_unstaged_entities(conn, corpus.id, self.part_size)
        if not entities:
            return False
        texts = list(dict.fromkeys(e["content"] for e in entities if e["content"] is not None))
        tokens = dict(zip(texts, await offload.bulk(self.embedder.embed_tokens, texts)))
        by_chunk = {e["chunk_id"]: (e["content"], tokens[e["content"]]) for e in entities if e["content"] is not None}
        vectors = await self._entity_vectors(entities, by_chunk)
        async with self.db.transaction() as conn:
            await q.insert_staged(conn, "kg_entity_embedding_staged", corpus.id, list(vectors), list(vectors.values()))
        await self._report(corpus)
        return True

    async def _entity_vectors(self, entities: Sequence[asyncpg.Record],
                              by_chunk: dict[int, tuple[str, TokenVectors]]) -> dict[int, np.ndarray]:
        """Each entity's vector as the graph build makes it: pooled from its first mention's chunk pass, or its
        name and sentence embedded as text."""
        vectors: dict[int, np.ndarray] = {}
        texts: dict[int, str] = {}
        for e in entities:
            if e["chunk_id"] not in by_chunk:
                texts[e["id"]] = e["name"]
                continue
            content, tokens = by_chunk[e["chunk_id"]]
            made = first_mention_embedding(content, tokens, (e["start_offset"], e["end_offset"]), e["name"])
            if isinstance(made, str):
                texts[e["id"]] = made
            else:
                vectors[e["id"]] = made
        if texts:
            vectors.update(zip(texts, await offload.bulk(self.embedder.embed, list(texts.values()))))
        return vectors

    async def _stage_communities(self, corpus: Corpus) -> None:
        """The member centroid (weighted by degree inside the community) an extractive summary's community gets;
        the summary's text embedded when no member has a vector."""
        async with self.db.connection() as conn:
            communities = await q.select_unstaged_communities(conn, corpus.id)
            if not communities:
                return
            pairs = await q.select_relation_pairs(conn, corpus.id)
            staged = await q.select_staged_entity_vectors(conn, sorted({m for c in communities for m in c["members"]}))
        vectors: dict[int, np.ndarray] = {}
        texts: dict[int, str] = {}
        for c in communities:
            members = set(c["members"])
            internal = [RelationInfo(0, s, t, "", 0.0, "", None) for s, t in pairs if s in members and t in members]
            centroid = member_centroid(tuple(c["members"]), internal, staged)
            if centroid is None:
                texts[c["id"]] = f"{c['title']}. {c['summary']}"
            else:
                vectors[c["id"]] = centroid
        if texts:
            vectors.update(zip(texts, await offload.bulk(self.embedder.embed, list(texts.values()))))
        async with self.db.transaction() as conn:
            await q.insert_staged(conn, "kg_community_embedding_staged", corpus.id, list(vectors),
                                  list(vectors.values()))
        await self._report(corpus)

    async def switch(self, corpus: Corpus) -> bool:
        """One transaction; False (nothing changed) when rows were added since staging."""
        async with self.db.transaction() as conn:
            await q.lock_corpus_for_switch(conn, corpus.id)
            if not (await q.select_staging_progress(conn, corpus.id)).complete:
                return False
            await q.swap_staged_vectors(conn, corpus.id)
            await q.move_corpus_to_model(conn, corpus.id, self.model)
            app_corpora = await q.select_app_corpus_ids(conn, corpus.app_name)
            await canonical_queries.refresh_canonicals(conn, await q.select_canonicals_of_corpus(conn, corpus.id),
                                                       app_corpora, self.hub_degree_threshold, sorted(GENERIC_KEYS))
        return True


async def drop_previous_vectors(db: Database, corpus_id: UUID) -> int | None:
    """Delete the previous model's vectors of a switched corpus; None when the corpus is not past a switch."""
    async with db.transaction() as conn:
        row = (await q.select_migrations(conn, [corpus_id])).get(corpus_id)
        if row is None or row.switched_at is None:
            return None
        return await q.drop_staged(conn, corpus_id)

"""Stage: per-corpus seeds, the nearest chunks of every effective corpus by the query embedding (one round trip),
or with ``seed_search = "hybrid"`` one kb_rrf_search (dense + BM25) per corpus, in parallel on separate
connections. The dense order is the backbone of the final ranking: graph evidence is added to it, never swapped in
for its best chunks (see rerank).

Beside them, the lexical seeds: the best keyword matches among the chunks that name a rare term of the question
(a lexeme at most entity_hops.specific_limit chunks of the searched corpora contain). Exact names, codes and
rare words are what a dense embedding blurs ("What does Project Helios depend on?" finds the chunk saying
"Project Helios depends on ..." by its one rare word); the rerank keeps the best of them near the top."""
from __future__ import annotations

import asyncio
from typing import Any
from uuid import UUID

from config.settings import PlannerSettings
from knowledge.db.database import Database
from knowledge.db.queries import chunks as chunk_queries
from knowledge.retrieval.planner.context import PlanState, SeedHit
from knowledge.retrieval.planner.entity_hops import specific_limit

_TRACE_TOP = 3
LEXICAL_SEEDS = 3  # what legacy and kb_rrf show first: the planner must not miss their top 3


class SeedStage:
    name = "seeds"
    graph_only = False

    def __init__(self, db: Database, settings: PlannerSettings) -> None:
        self.db = db
        self.settings = settings

    async def _hybrid(self, state: PlanState, corpus_id: UUID) -> list[SeedHit]:
        request = state.request
        async with self.db.scoped(request.effective) as conn:
            rows = await chunk_queries.rrf_search(conn, state.embedding, request.query, [corpus_id],
                                                  self.settings.per_corpus_limit, self.settings.rrf_k)
        return [SeedHit(chunk_id=r["id"], corpus_id=r["corpus_id"], rank=rank, score=float(r["score"]),
                        source_uri=r["source_uri"]) for rank, r in enumerate(rows, start=1)]

    async def _dense(self, state: PlanState) -> None:
        effective = state.request.effective
        async with self.db.scoped(effective) as conn:
            state.seed_query_sent.set()  # the query goes out in this step: what waits for that may take the CPU now
            rows = await chunk_queries.dense_search_each(conn, state.embedding, effective,
                                                         self.settings.per_corpus_limit)
            seeds: dict[UUID, list[SeedHit]] = {c: [] for c in effective}
            for r in rows:
                hits = seeds[r["corpus_id"]]
                hits.append(SeedHit(r["id"], r["corpus_id"], len(hits) + 1, float(r["score"]), r["source_uri"]))
            state.seeds = seeds
            state.scored_rows = {r["id"]: r for r in rows}  # what the rerank reads of a chunk
            await self._lexical(conn, state)
            state.seeds_read.set()  # read: what waits for them goes on while the transaction ends

    async def _lexical(self, conn, state: PlanState) -> None:
        """The lexical seeds, and the chunk count of the searched corpora they (and the entity hops) scale with."""
        effective = state.request.effective
        state.chunk_total = await chunk_queries.count_chunks(conn, effective)
        rows = await chunk_queries.rare_term_search(conn, state.request.query, effective,
                                                    specific_limit(state.chunk_total), LEXICAL_SEEDS)
        state.lexical = [SeedHit(r["id"], r["corpus_id"], rank, float(r["score"]), r["source_uri"])
                         for rank, r in enumerate(rows, start=1)]

    async def run(self, state: PlanState) -> dict[str, Any]:
        effective = state.request.effective
        if self.settings.seed_search == "dense":
            await self._dense(state)
        else:
            per_corpus = await asyncio.gather(*(self._hybrid(state, c) for c in effective))
            state.seeds = dict(zip(effective, per_corpus))
            async with self.db.scoped(effective) as conn:
                await self._lexical(conn, state)
        corpora = state.request.corpora
        return {"search": self.settings.seed_search, "per_corpus_limit": self.settings.per_corpus_limit,
                "per_corpus": {corpora[c].label: len(hits) for c, hits in state.seeds.items()},
                "top": {corpora[c].label: [h.source_uri for h in hits[:_TRACE_TOP]] for c, hits in state.seeds.items()},
                "lexical": [h.source_uri for h in state.lexical], "chunks_searched": state.chunk_total}

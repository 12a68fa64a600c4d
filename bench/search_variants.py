"""Search latency next to what PostgreSQL itself can do, all variants interleaved in one run.

Baselines: a raw pgvector HNSW kNN (top 10, one corpus, the pool's ef / iterative-scan settings) and raw
full-text queries on the GIN index (AND query ranked, OR query ranked with ts_rank_cd, top 40). Then the SQL
functions for one corpus as the retrieval login under row-level security and as the table owner (both inside a
read-only transaction, so the difference is the binding and the policy), ``kb_hybrid_search`` over every corpus,
legacy search and the planner. Each query runs every variant once, in an order that rotates per query, so a
noisy neighbour on the shared machine slows all variants alike; the ratio column divides by raw kNN from the
same run. Also: the planner's per-stage P50 / P95 and the dense search's top-10 recall (retrieval login, one corpus
and all of them) against an exact scan.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Awaitable, Callable, Sequence
from uuid import UUID

import numpy as np

from bench.harness import Timer, latency_summary
from knowledge.app import KnowledgeApp
from knowledge.db.queries import chunks as q

LIMIT = 10
KNN_SQL = "SELECT id FROM knowledge WHERE corpus_id = $2 ORDER BY embedding <=> $1 LIMIT $3"
FTS_SQL = """SELECT id FROM knowledge WHERE corpus_id = $2 AND search_vector @@ {tsq}
             ORDER BY ts_rank_cd(search_vector, {tsq}, 1) DESC LIMIT 40"""
BASELINE = "raw kNN, 1 corpus"

Variant = Callable[[str, np.ndarray, UUID], Awaitable[object]]


def variants(kapp: KnowledgeApp, corpus_ids: Sequence[UUID]) -> dict[str, Variant]:
    db, ids = kapp.db, list(corpus_ids)

    async def as_owner(sql: str, *args: object) -> None:
        async with db.connection() as conn, conn.transaction(readonly=True):
            await conn.fetch(sql, *args)

    async def owner_function(search, *args: object) -> None:
        async with db.connection() as conn, conn.transaction(readonly=True):
            await search(conn, *args)

    async def rls_function(search, *args: object) -> None:
        async with db.scoped(ids) as conn:
            await search(conn, *args)

    return {
        BASELINE: lambda text, emb, c: as_owner(KNN_SQL, emb, c, LIMIT),
        "raw FTS AND ranked, 1 corpus": lambda text, emb, c: as_owner(
            FTS_SQL.format(tsq="plainto_tsquery('english', $1)"), text, c),
        "raw FTS OR ranked, 1 corpus": lambda text, emb, c: as_owner(FTS_SQL.format(tsq="ne_or_tsquery($1)"), text, c),
        "dense_search, 1 corpus, RLS login": lambda text, emb, c: rls_function(q.dense_search, emb, [c], LIMIT),
        f"dense_search, {len(ids)} corpora, RLS login": lambda text, emb, c: rls_function(
            q.dense_search, emb, ids, LIMIT),
        "kb_hybrid_search, 1 corpus, RLS login": lambda text, emb, c: rls_function(
            q.hybrid_search, emb, text, [c], LIMIT),
        "kb_hybrid_search, 1 corpus, owner": lambda text, emb, c: owner_function(
            q.hybrid_search, emb, text, [c], LIMIT),
        "kb_rrf_search top 20, 1 corpus, RLS login": lambda text, emb, c: rls_function(
            q.rrf_search, emb, text, [c], 20),
        "kb_rrf_search top 20, 1 corpus, owner": lambda text, emb, c: owner_function(q.rrf_search, emb, text, [c], 20),
        f"kb_hybrid_search, {len(ids)} corpora, RLS login": lambda text, emb, c: rls_function(
            q.hybrid_search, emb, text, ids, LIMIT),
        f"legacy, {len(ids)} corpora": lambda text, emb, c: kapp.legacy_search(text, ids, ids, limit=LIMIT),
        f"planner, {len(ids)} corpora": lambda text, emb, c: kapp.retrieval.search(text, ids, ids, limit=LIMIT),
    }


async def time_variants(kapp: KnowledgeApp, corpus_ids: Sequence[UUID],
                        queries: Sequence[str]) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    """Latency summaries per variant and per planner stage (ms); one-corpus variants rotate over the corpora."""
    table = variants(kapp, corpus_ids)
    names = list(table)
    samples: dict[str, list[float]] = defaultdict(list)
    stages: dict[str, list[float]] = defaultdict(list)
    embeddings = [kapp.query_cache.embed_query(text) for text in queries]
    for i, (text, embedding) in enumerate(zip(queries, embeddings)):
        corpus = corpus_ids[i % len(corpus_ids)]
        for name in names[i % len(names):] + names[:i % len(names)]:
            with Timer() as timer:
                result = await table[name](text, embedding, corpus)
            samples[name].append(1000 * timer.seconds)
            for trace in getattr(result, "trace", []):
                stages[trace.stage].append(1000 * trace.seconds)
    return ({name: latency_summary(samples[name]) for name in names},
            {name: latency_summary(values) for name, values in stages.items()})


EXACT_SQL = "SELECT id FROM knowledge WHERE corpus_id = ANY($2::uuid[]) ORDER BY embedding <=> $1 LIMIT $3"


async def knn_recall(kapp: KnowledgeApp, corpus_ids: Sequence[UUID], queries: Sequence[str]) -> dict[str, float]:
    """Mean share of the exact top 10 (a sequential scan, as the owner) that the dense search returns as the
    retrieval login under row-level security: for one corpus (rotating) and for all the corpora together."""
    found = {"one": 0, "all": 0}
    for i, text in enumerate(queries):
        embedding, corpus = kapp.query_cache.embed_query(text), corpus_ids[i % len(corpus_ids)]
        async with kapp.db.scoped(corpus_ids) as conn:
            approximate = {"one": {r["id"] for r in await q.dense_search(conn, embedding, [corpus], LIMIT)},
                           "all": {r["id"] for r in await q.dense_search(conn, embedding, corpus_ids, LIMIT)}}
        async with kapp.db.connection() as conn, conn.transaction(readonly=True):
            await conn.execute("SET LOCAL enable_indexscan = off; SET LOCAL enable_bitmapscan = off")
            exact = {"one": {r["id"] for r in await conn.fetch(EXACT_SQL, embedding, [corpus], LIMIT)},
                     "all": {r["id"] for r in await conn.fetch(EXACT_SQL, embedding, list(corpus_ids), LIMIT)}}
        for scope in found:
            found[scope] += len(approximate[scope] & exact[scope])
    return {"1 corpus": found["one"] / (LIMIT * len(queries)),
            f"{len(corpus_ids)} corpora": found["all"] / (LIMIT * len(queries))}


def recall_text(recall: dict[str, float]) -> str:
    return "; ".join(f"{scope} {value:.3f}" for scope, value in recall.items())


def variant_rows(stats: dict[str, dict[str, float]]) -> list[list[object]]:
    base = stats[BASELINE]
    return [[name, s["p50"], s["p95"], s["p99"], s["p50"] / base["p50"], s["p95"] / base["p95"]]
            for name, s in stats.items()]


VARIANT_COLUMNS = ["variant", "P50 ms", "P95 ms", "P99 ms", "P50 vs raw kNN", "P95 vs raw kNN"]
STAGE_COLUMNS = ["planner stage", "P50 ms", "P95 ms"]


def stage_rows(stages: dict[str, dict[str, float]]) -> list[list[object]]:
    return [[name, s["p50"], s["p95"]] for name, s in stages.items()]

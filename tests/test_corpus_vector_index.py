"""Each corpus has its own HNSW index (migration 024): made with the corpus, dropped with it, chosen by the planner
under row-level security, and a corpus that is a small part of the table gets its exact nearest chunks."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

from knowledge.db.queries import chunks as q
from knowledge.db.retrieval_role import BIND_SQL, RETRIEVAL_LOGIN, binding_proof, corpus_ids_text, read_binding_key

DIMENSION_NOISE = 0.04  # as bench/bulk_load.py: clusters around shared centres, like embedded text
TOP = 10


def clustered_vectors(rng: np.random.Generator, centres: np.ndarray, count: int) -> np.ndarray:
    vectors = centres[rng.integers(0, len(centres), count)] + rng.normal(0, DIMENSION_NOISE, (count, centres.shape[1]))
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


async def insert_vectors(kapp, corpus, vectors: np.ndarray) -> list[int]:
    rows = []
    for i, vector in enumerate(vectors):
        digest = hashlib.sha256(f"{corpus.name}-{i}".encode()).hexdigest()
        rows.append(q.ChunkRow(corpus_id=corpus.id, app_name=corpus.app_name, content=f"{corpus.name} {i}",
                               content_hash=digest, document_hash=digest, chunk_index=0,
                               source_uri=f"test://{corpus.name}/{i}", metadata={}, embedding=vector,
                               search_text=None))
    async with kapp.db.connection() as conn:
        inserted = await q.insert_chunks(conn, rows)
        await conn.execute("ANALYZE knowledge")
    by_hash = {r["content_hash"]: r["id"] for r in inserted}
    return [by_hash[row.content_hash] for row in rows]


async def corpus_index(conn, corpus_id) -> str | None:
    return await conn.fetchval(
        "SELECT indexdef FROM pg_indexes WHERE tablename = 'knowledge' AND indexname = ne_corpus_vector_index_name($1)",
        corpus_id)


async def test_a_corpus_gets_its_own_vector_index_and_loses_it_with_the_corpus(kapp):
    corpus = await kapp.corpora.create("indexed")
    async with kapp.db.connection() as conn:
        definition = await corpus_index(conn, corpus.id)
        assert definition is not None and "hnsw (embedding vector_cosine_ops)" in definition
        assert f"WHERE (corpus_id = '{corpus.id}'::uuid)" in definition
        assert not await conn.fetchval("SELECT count(*) FROM pg_indexes WHERE tablename = 'knowledge' "
                                       "AND indexname = 'knowledge_embedding_hnsw'")  # no index shared by corpora
    await kapp.documents.delete_corpus(corpus)
    async with kapp.db.connection() as conn:
        assert await corpus_index(conn, corpus.id) is None


async def nested_plans(kapp, corpus_ids, search) -> list[str]:
    """The plans of every statement ``search(conn)`` runs, functions' own included (auto_explain), in a session
    of the owner that SET ROLE made the retrieval login (so row-level security applies) and bound to corpus_ids."""
    plans: list[str] = []  # auto_explain's LOG messages, sent to this client
    ids = corpus_ids_text(corpus_ids)
    async with kapp.db.connection() as owner:
        key = await read_binding_key(owner)
    async with kapp.db.connection() as conn:
        listener = lambda _conn, message: plans.append(message.message)  # noqa: E731
        conn.add_log_listener(listener)
        await conn.execute("LOAD 'auto_explain'")
        async with conn.transaction():
            # a corpus this small is otherwise sorted in full, which is exact and cheaper
            await conn.execute("SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; "
                               "SET LOCAL enable_sort = off; SET LOCAL auto_explain.log_min_duration = 0; "
                               "SET LOCAL auto_explain.log_nested_statements = on; "
                               "SET LOCAL auto_explain.log_verbose = on; SET LOCAL client_min_messages = log; "
                               f"SET LOCAL ROLE {RETRIEVAL_LOGIN}")
            await conn.execute(BIND_SQL, ids, binding_proof(key, conn.get_server_pid(), ids))
            await search(conn)
        conn.remove_log_listener(listener)
    return plans


@pytest.mark.parametrize("search", [q.dense_search, q.dense_search_each])
async def test_the_retrieval_login_searches_each_corpus_on_its_own_index(kapp, search):
    rng = np.random.default_rng(1)
    corpora = [await kapp.corpora.create(name) for name in ("first", "second")]
    centres = rng.normal(size=(20, kapp.embedder.dimension))
    for corpus in corpora:
        await insert_vectors(kapp, corpus, clustered_vectors(rng, centres, 300))
    ids = [c.id for c in corpora]
    plans = await nested_plans(kapp, ids, lambda conn: search(conn, clustered_vectors(rng, centres, 1)[0], ids, TOP))
    async with kapp.db.connection() as conn:
        indexes = [await conn.fetchval("SELECT ne_corpus_vector_index_name($1)", i) for i in ids]
    scans = [p for p in plans if "Index Scan using knowledge_embedding_" in p]
    assert len(scans) == 2, plans
    for index, plan in zip(indexes, scans):
        assert f"Index Scan using {index} on public.knowledge" in plan
        assert "Filter: (k.corpus_id = ANY" in plan  # the policy applies
        lines = plan.splitlines()
        scan_at = next(i for i, line in enumerate(lines) if "Index Scan using" in line)
        output = next(line for line in lines[scan_at:] if line.strip().startswith("Output:"))
        assert output.count("<=>") == 1, plan  # the distance is computed once for each row read


async def test_a_small_corpus_among_a_big_one_gets_its_exact_nearest_chunks(kapp):
    rng = np.random.default_rng(7)
    centres = rng.normal(size=(200, kapp.embedder.dimension))
    big, small = await kapp.corpora.create("big"), await kapp.corpora.create("small")
    await insert_vectors(kapp, big, clustered_vectors(rng, centres, 6000))
    small_vectors = clustered_vectors(rng, centres, 600)
    small_ids = np.array(await insert_vectors(kapp, small, small_vectors))
    queries = clustered_vectors(rng, centres, 20)
    for query in queries:
        exact = set(small_ids[np.argsort(-(small_vectors @ query))[:TOP]].tolist())
        async with kapp.db.scoped([big.id, small.id]) as conn:
            alone = await q.dense_search(conn, query, [small.id], TOP)
            each = await q.dense_search_each(conn, query, [big.id, small.id], TOP)
        assert {r["id"] for r in alone} == exact
        assert {r["id"] for r in each if r["corpus_id"] == small.id} == exact

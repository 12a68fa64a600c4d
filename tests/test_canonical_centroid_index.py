"""Canonical centroids outside the HNSW index (migration 019): found exactly by the nearest-canonical search, and
brought into the index row by row or by a rebuild (knowledge/canonical/centroid_index.py), on a real database."""
import numpy as np

from knowledge.canonical.centroid_index import index_new_centroids
from knowledge.db.queries import canonical as q
from knowledge.db.queries.canonical.entities import NEAREST_CANDIDATES, NewCanonical
from tests.canonical_support import corpora, random_unit

INDEX_DEFINITION = """SELECT indexdef FROM pg_indexes WHERE indexname = 'kg_entity_canonical_embedding_hnsw'"""


async def add_canonicals(conn, app_scope: str, prefix: str, vectors: list[np.ndarray]) -> dict[int, np.ndarray]:
    rows = [NewCanonical(f"{prefix} {i}", f"{prefix} {i}", "ORG", v, 0) for i, v in enumerate(vectors)]
    ids = await q.insert_canonicals(conn, app_scope, rows)
    return {ids[(r.name_normalized, "ORG")]: v for r, v in zip(rows, vectors)}


async def test_the_nearest_search_merges_indexed_and_unindexed_centroids_in_exact_order(kapp):
    rng = np.random.default_rng(19)
    [corpus] = await corpora(kapp, "centroids")
    async with kapp.db.connection() as conn:
        vectors = await add_canonicals(conn, corpus.app_name, "indexed", [random_unit(rng) for _ in range(30)])
        assert await index_new_centroids(conn, ingest_finished=True) == "rebuilt"
        vectors |= await add_canonicals(conn, corpus.app_name, "unindexed", [random_unit(rng) for _ in range(20)])
        assert await q.count_centroids_by_index_state(conn) == (30, 20)
        queries = [random_unit(rng) for _ in range(5)]
        found = await q.select_nearest_canonicals_many(conn, corpus.app_name,
                                                       [("ORG", v, corpus.id) for v in queries])
    ids = list(vectors)
    matrix = np.stack([vectors[i] for i in ids])
    for query, nearest in zip(queries, found):
        cosines = matrix @ query
        expected = [ids[i] for i in np.argsort(-cosines)[:NEAREST_CANDIDATES]]
        assert [n.canonical_id for n in nearest] == expected
        assert {n.canonical_id for n in nearest} & set(ids[:30]) and {n.canonical_id for n in nearest} & set(ids[30:])
        assert np.allclose([n.similarity for n in nearest], np.sort(cosines)[::-1][:NEAREST_CANDIDATES], atol=1e-5)


async def test_new_centroids_wait_for_a_rebuild_while_they_outnumber_the_index_then_go_in_row_by_row(kapp):
    rng = np.random.default_rng(20)
    [corpus] = await corpora(kapp, "centroids")
    async with kapp.db.connection() as conn:
        migrated = await conn.fetchval(INDEX_DEFINITION)
        await add_canonicals(conn, corpus.app_name, "first", [random_unit(rng) for _ in range(6)])
        assert await index_new_centroids(conn, ingest_finished=False) == "waiting"
        assert await q.count_centroids_by_index_state(conn) == (0, 6)
        assert await index_new_centroids(conn, ingest_finished=True) == "rebuilt"
        assert await q.count_centroids_by_index_state(conn) == (6, 0)
        assert await conn.fetchval(INDEX_DEFINITION) == migrated
        await add_canonicals(conn, corpus.app_name, "second", [random_unit(rng) for _ in range(5)])
        assert await index_new_centroids(conn, ingest_finished=False) == "row_by_row"
        assert await q.count_centroids_by_index_state(conn) == (11, 0)
        assert await index_new_centroids(conn, ingest_finished=True) == "none"


async def test_a_rebuild_that_cannot_lock_the_table_in_time_leaves_the_centroids_searchable(kapp):
    rng = np.random.default_rng(21)
    [corpus] = await corpora(kapp, "centroids")
    async with kapp.db.connection() as conn, kapp.db.connection() as writer:
        vectors = await add_canonicals(conn, corpus.app_name, "busy", [random_unit(rng) for _ in range(4)])
        async with writer.transaction():  # another link run with rows written but not committed
            await writer.execute("UPDATE kg_entity_canonical SET degree = 1 WHERE id = $1", min(vectors))
            async with conn.transaction():
                assert await index_new_centroids(conn, ingest_finished=True, lock_timeout="100ms") == "busy"
        assert await q.count_centroids_by_index_state(conn) == (0, 4)
        [nearest] = await q.select_nearest_canonicals_many(conn, corpus.app_name,
                                                           [("ORG", vectors[max(vectors)], corpus.id)])
        assert nearest[0].canonical_id == max(vectors) and len(nearest) == 4
        assert await index_new_centroids(conn, ingest_finished=True) == "rebuilt"


async def test_an_ingest_leaves_every_centroid_in_the_index(demo_app):
    kapp, _ = demo_app
    async with kapp.db.connection() as conn:
        state = await q.count_centroids_by_index_state(conn)
    assert state.indexed > 0 and state.unindexed == 0


async def test_a_rebuild_builds_serially_without_changing_the_sessions_setting(kapp):
    # at the end of an ingest the build runs beside the communities: parallel workers would take both cores
    rng = np.random.default_rng(22)
    [corpus] = await corpora(kapp, "centroids")
    async with kapp.db.connection() as conn:
        before = await conn.fetchval("SHOW max_parallel_maintenance_workers")
        await add_canonicals(conn, corpus.app_name, "serial", [random_unit(rng) for _ in range(3)])
        async with conn.transaction():
            assert await index_new_centroids(conn, ingest_finished=True) == "rebuilt"
            assert await conn.fetchval("SHOW max_parallel_maintenance_workers") == "0"
        assert await conn.fetchval("SHOW max_parallel_maintenance_workers") == before != "0"

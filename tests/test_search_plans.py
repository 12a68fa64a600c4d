"""Plan-level settings of search (issue 20): row estimates of the candidate functions (migration 012), the
embedded server's shared_buffers, the relation evidence's stored vector and the dense searches' plans."""
from uuid import uuid4

import numpy as np
import pytest

from knowledge.db.queries import chunks as chunk_queries
from knowledge.db.server import DatabaseUnavailableError, start_embedded_server


async def test_candidate_functions_estimate_the_rows_they_return(kapp):
    # with the default estimate (1,000 rows each) kb_rrf_search joined its fused ids back by a merge join over
    # the whole primary-key index; both functions return 4 x the caller's limit (40 for the default top 10)
    async with kapp.db.connection() as conn:
        rows = dict(await conn.fetch("SELECT proname, prorows FROM pg_proc "
                                     "WHERE proname IN ('ne_semantic_hits', 'ne_keyword_hits')"))
    assert rows == {"ne_semantic_hits": 40, "ne_keyword_hits": 40}


def test_the_embedded_cluster_is_configured_with_its_shared_buffers_once(tmp_path):
    data_dir = tmp_path / "pg"
    server = start_embedded_server(data_dir, "256MB")
    # a cluster the call created is restarted with the setting, so its first session already has it
    assert "256MB" in server.psql("SHOW shared_buffers;")
    written = (data_dir / "postgresql.auto.conf").stat().st_mtime_ns
    started = server.get_pid()
    start_embedded_server(data_dir, "256MB")  # already configured: the file is left alone, the server kept
    assert (data_dir / "postgresql.auto.conf").stat().st_mtime_ns == written
    assert server.get_pid() == started
    with pytest.raises(DatabaseUnavailableError, match="not a size"):
        start_embedded_server(data_dir, "1GB'; DROP TABLE knowledge; --")


def test_a_running_cluster_gets_a_new_shared_buffers_at_its_next_start(tmp_path):
    data_dir = tmp_path / "pg"
    server = start_embedded_server(data_dir)
    start_embedded_server(data_dir, "192MB")  # not created by this call: other processes may share it
    assert "192MB" not in server.psql("SHOW shared_buffers;")
    assert "192MB" in server.psql("SELECT setting FROM pg_file_settings WHERE name = 'shared_buffers';")


async def test_relation_evidence_is_searched_through_a_stored_vector(kapp):
    # the planner's relation facts match and rank evidence_vector; computing to_tsvector(evidence) per relation
    # on every query was 236 ms of the seed-entities stage at 5 x 20k (migration 013)
    async with kapp.db.connection() as conn:
        column = await conn.fetchrow(
            "SELECT is_generated, generation_expression FROM information_schema.columns "
            "WHERE table_name = 'kg_relation' AND column_name = 'evidence_vector'")
    assert column is not None and column["is_generated"] == "ALWAYS"
    assert "to_tsvector('english'::regconfig, evidence)" in column["generation_expression"]


class _Recorder:
    """Stands in for a connection: keeps the SQL and arguments of a named query instead of running it."""

    async def fetch(self, sql: str, *args):
        self.sql, self.args = sql, args
        return []


@pytest.mark.parametrize("search", [chunk_queries.dense_search, chunk_queries.dense_search_each])
async def test_dense_search_computes_each_distance_once_and_keeps_hnsw(kapp, search):
    # written as an output column and as the sort key, `embedding <=> query` was computed twice for every row a
    # scan read (the vector read from TOAST each time): a third of a small corpus's dense search
    recorder = _Recorder()
    await search(recorder, np.ones(kapp.embedder.dimension, dtype=np.float32), [uuid4(), uuid4()], 20)
    async with kapp.db.connection() as conn, conn.transaction():
        plan = [r[0] for r in await conn.fetch("EXPLAIN (VERBOSE, COSTS OFF) " + recorder.sql, *recorder.args)]
        scan_at = next(i for i, line in enumerate(plan) if " on public.knowledge" in line)
        scan_output = next(line for line in plan[scan_at:] if line.strip().startswith("Output:"))
        assert scan_output.count("<=>") == 1, plan
        await conn.execute("SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; "
                           "SET LOCAL enable_sort = off")
        forced = "\n".join(r[0] for r in await conn.fetch("EXPLAIN " + recorder.sql, *recorder.args))
    assert "knowledge_embedding_hnsw" in forced  # the sort by the output column is still the index's order

"""Plan-level settings of search (issue 20): row estimates of the candidate functions (migration 012), the
embedded server's shared_buffers and the relation evidence's stored vector (the dense searches' plans:
tests/test_corpus_vector_index.py)."""
import pytest

from knowledge.db.server import DatabaseUnavailableError, start_embedded_server


async def test_candidate_functions_estimate_the_rows_they_return(kapp):
    # with the default estimate (1,000 rows each) kb_rrf_search joined its fused ids back by a merge join over
    # the whole primary-key index; both functions return 4 x the caller's limit (40 for the default top 10)
    async with kapp.db.connection() as conn:
        rows = dict(await conn.fetch("SELECT proname, prorows FROM pg_proc "
                                     "WHERE proname IN ('ne_semantic_hits', 'ne_keyword_hits')"))
    assert rows == {"ne_semantic_hits": 40, "ne_keyword_hits": 40}
    async with kapp.db.connection() as conn:  # each corpus's nearest chunks (migration 024): as many
        assert await conn.fetchval("SELECT prorows FROM pg_proc WHERE proname = 'ne_corpus_nearest'") == 40


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

"""The HNSW search settings of the pools hold on every use of a connection, not only its first: the pool runs
RESET ALL on each release, which a SET in the connection's init did not survive (dense search then ran with
pgvector's defaults, ef_search 40 and no iterative scan, so a corpus filter could cut rows from a top k)."""
import pytest

from knowledge.db.database import Database
from knowledge.db.pool import SEARCH_SETTINGS, create_pool


async def _settings(conn) -> dict[str, str]:
    return {name: await conn.fetchval(f"SHOW {name}") for name in SEARCH_SETTINGS}


async def test_a_pooled_connection_keeps_the_search_settings_after_release(new_database):
    pool = await create_pool(await new_database(), max_size=1)
    try:
        for _ in range(3):
            async with pool.acquire() as conn:
                assert await _settings(conn) == SEARCH_SETTINGS
                await conn.execute("SET hnsw.ef_search = 7")  # what one query may do; the next use must not see it
    finally:
        await pool.close()


async def test_scoped_retrieval_reads_use_the_search_settings(kapp):
    corpus = await kapp.corpora.create("settings")
    for _ in range(3):
        async with kapp.db.scoped([corpus.id]) as conn:
            assert await _settings(conn) == SEARCH_SETTINGS


async def test_a_read_connection_comes_back_without_its_binding_or_an_open_transaction(kapp):
    corpus = await kapp.corpora.create("released")
    db = await Database.connect(kapp.settings, dsn=kapp.db.dsn, migrate=False, max_size=1)  # one connection, reused
    try:
        async with db.scoped([corpus.id]) as conn:
            pid = conn.get_server_pid()
            assert await conn.fetchval("SELECT ne_accessible_corpus_ids()") == [corpus.id]
        with pytest.raises(RuntimeError):
            async with db.scoped([corpus.id]) as conn:
                await conn.execute("SET LOCAL hnsw.ef_search = 7")
                raise RuntimeError("a failed read")
        async with db.read_pool.acquire() as conn:
            assert conn.get_server_pid() == pid and not conn.is_in_transaction()
            assert await conn.fetchval("SELECT ne_accessible_corpus_ids()") == []
            assert await _settings(conn) == SEARCH_SETTINGS
    finally:
        await db.close()

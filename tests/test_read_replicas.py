"""Read replicas on a real primary + hot standby (tests/replica_support.py): scoped reads run on the standby,
writes and reads of the process's own fresh writes on the primary, a lagging, unreachable, promoted-looking or
stopped standby is skipped without an error, and nothing is ever promoted."""
from __future__ import annotations

import asyncio
import time

import asyncpg
import pytest
import pytest_asyncio

from config import Settings
from knowledge.db.retrieval_role import RETRIEVAL_LOGIN
from knowledge.db.replicas import ReadConnection
from knowledge.ingest.documents import documents_from_texts
from tests.replica_support import (caught_up, new_replicated_database, open_app, set_replay_paused,
                                   standby_of)

NOTES = ["Kestrel Labs moved its Lumen Gateway team to Porto in March.",
         "The Atlas project picked Cobalt Systems as its labeling vendor.",
         "Aurora Vector Engine stores embeddings in tiered memory."]
FRESH_NOTE = "Heliotrope Foundry builds the Quasar Loom for textile robots."


@pytest_asyncio.fixture(scope="module")
async def replicated(replica_cluster, embedder, tmp_path_factory):
    """One replicated database with a corpus of three notes; yields (primary DSN, standby DSN, corpus id)."""
    primary_dsn, standby_dsn = await new_replicated_database(replica_cluster)
    writer = await open_app(tmp_path_factory.mktemp("writer"), primary_dsn, [], embedder)
    try:
        corpus = await writer.corpora.create("replica_notes")
        await writer.ingest_documents(corpus, documents_from_texts((f"n{i}", t) for i, t in enumerate(NOTES)))
    finally:
        await writer.close()
    return primary_dsn, standby_dsn, corpus.id


@pytest_asyncio.fixture
async def reader(replicated, replica_cluster, embedder, tmp_path):
    primary_dsn, standby_dsn, _ = replicated
    kapp = await open_app(tmp_path, primary_dsn, [standby_dsn], embedder, database_read_max_lag_seconds=30.0)
    await caught_up(kapp, replica_cluster)
    try:
        yield kapp
    finally:
        await kapp.close()


async def on_standby(conn) -> bool:
    return await conn.fetchval("SELECT pg_is_in_recovery()")


async def test_scoped_reads_run_on_the_standby_with_the_same_permission_settings(reader, replicated):
    corpus_id = replicated[2]
    async with reader.db.scoped([corpus_id]) as conn:
        assert await on_standby(conn)
        assert await conn.fetchval("SELECT current_user") == RETRIEVAL_LOGIN
        assert await conn.fetchval("SELECT current_setting('negentropy.accessible_corpus_ids')") == f"{{{corpus_id}}}"
        assert {r["corpus_id"] for r in await conn.fetch("SELECT corpus_id FROM knowledge")} == {corpus_id}
    async with reader.db.scoped([]) as conn:  # RLS replicates: no accessible corpus, no row on the standby
        assert await on_standby(conn)
        assert await conn.fetch("SELECT id FROM knowledge") == []
    async with reader.db.connection() as conn:
        assert not await on_standby(conn)
    with pytest.raises(asyncpg.ReadOnlySQLTransactionError):
        async with reader.db.scoped([corpus_id]) as conn:
            await conn.execute("DELETE FROM knowledge")


async def test_searches_run_on_the_standby(reader, replicated, replica_cluster, embedder, tmp_path):
    """With replay paused, a note written by another process is on the primary but not yet on the standby:
    the reader's searches do not find it (so they really ran on the standby) until replay resumes."""
    primary_dsn, _, corpus_id = replicated
    writer = await open_app(tmp_path / "writer", primary_dsn, [], embedder)
    corpus = next(c for c in await writer.corpora.list() if c.id == corpus_id)
    await set_replay_paused(replica_cluster, True)
    try:
        await writer.ingest_documents(corpus, documents_from_texts([("fresh", FRESH_NOTE)]))
        reads_before = reader.db.replicas.stats().by_replica
        legacy = await reader.legacy_search("Quasar Loom textile robots", [corpus_id], [corpus_id], limit=5)
        planned = await reader.retrieval.search("Quasar Loom textile robots", [corpus_id], [corpus_id], limit=5)
        assert legacy and planned.hits, "the standby holds the three earlier notes"
        assert all("Quasar" not in h.content for h in legacy + planned.hits)
        assert sum(reader.db.replicas.stats().by_replica.values()) > sum(reads_before.values())
        async with writer.db.connection() as conn:
            assert await conn.fetchval("SELECT count(*) FROM knowledge WHERE content LIKE '%Quasar%'") == 1
    finally:
        await set_replay_paused(replica_cluster, False)
        await writer.close()
    await caught_up(reader, replica_cluster)
    legacy = await reader.legacy_search("Quasar Loom textile robots", [corpus_id], [corpus_id], limit=5)
    assert "Quasar" in legacy[0].content
    async with reader.db.scoped([corpus_id]) as conn:
        assert await on_standby(conn)


async def test_a_search_right_after_an_ingest_reads_its_own_write(reader, replicated, replica_cluster):
    corpus_id = replicated[2]
    corpus = next(c for c in await reader.corpora.list() if c.id == corpus_id)
    await set_replay_paused(replica_cluster, True)
    try:
        await reader.ingest_documents(corpus, documents_from_texts([("own", "Marigold Tessellator ships in May.")]))
        hits = await reader.legacy_search("Marigold Tessellator", [corpus_id], [corpus_id], limit=3)
        assert "Marigold" in hits[0].content
        planned = await reader.retrieval.search("Marigold Tessellator", [corpus_id], [corpus_id], limit=3)
        assert "Marigold" in planned.hits[0].content
        async with reader.db.scoped([corpus_id]) as conn:
            assert not await on_standby(conn), "the standby has not replayed our write: read on the primary"
        assert reader.db.replicas.stats().read_your_writes > 0
    finally:
        await set_replay_paused(replica_cluster, False)
    await caught_up(reader, replica_cluster)
    async with reader.db.scoped([corpus_id]) as conn:
        assert await on_standby(conn), "once replayed past our write, reads go back to the standby"


async def test_a_standby_lagging_past_the_bound_is_skipped(replicated, replica_cluster, embedder, tmp_path):
    primary_dsn, standby_dsn, corpus_id = replicated
    kapp = await open_app(tmp_path, primary_dsn, [standby_dsn], embedder, database_read_max_lag_seconds=0.5,
                          database_read_check_interval_seconds=0.1)
    replica = kapp.db.replicas.replicas[0]
    try:
        await caught_up(kapp, replica_cluster)
        await asyncio.sleep(1.0)  # an idle primary writes nothing: a caught-up standby has no lag
        assert replica.lag_seconds == 0.0 and kapp.db.replicas.usable(replica)
        await set_replay_paused(replica_cluster, True)
        async with kapp.db.connection() as conn:  # a write from elsewhere the paused standby cannot replay
            await conn.execute("ANALYZE knowledge")
        deadline = time.monotonic() + 10
        while kapp.db.replicas.usable(replica) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        assert replica.lag_seconds > 0.5
        async with kapp.db.scoped([corpus_id]) as conn:
            assert not await on_standby(conn)
            assert await conn.fetchval("SELECT count(*) FROM knowledge") >= len(NOTES)
    finally:
        await set_replay_paused(replica_cluster, False)
    try:
        await caught_up(kapp, replica_cluster)
        async with kapp.db.scoped([corpus_id]) as conn:
            assert await on_standby(conn)
    finally:
        await kapp.close()


async def test_a_stopped_standby_mid_load_leaves_searches_on_the_primary(reader, replicated, replica_cluster):
    corpus_id = replicated[2]
    standby = standby_of(replica_cluster)
    queries = ["Lumen Gateway Porto", "labeling vendor Atlas", "Aurora tiered memory"]
    results: list[int] = []
    stopped = asyncio.Event()
    down = asyncio.Event()  # the last turns run once the standby is stopped, however fast the first ones were

    async def client(offset: int) -> None:
        for turn in range(12):
            if turn == 8:
                await down.wait()
            query = queries[(offset + turn) % len(queries)]
            if turn % 2:
                hits = await reader.legacy_search(query, [corpus_id], [corpus_id], limit=3)
            else:
                hits = (await reader.retrieval.search(query, [corpus_id], [corpus_id], limit=3)).hits
            results.append(len(hits))
            if turn == 3 and offset == 0:
                stopped.set()
            await asyncio.sleep(0)

    reads_before_stop = [0]

    async def stop_when_loaded() -> None:
        await stopped.wait()
        reads_before_stop[0] = sum(reader.db.replicas.stats().by_replica.values())
        await asyncio.to_thread(standby.stop, "fast")
        down.set()

    try:
        await asyncio.gather(*(client(i) for i in range(4)), stop_when_loaded())
        assert len(results) == 48 and all(n > 0 for n in results), "no search failed or came back empty"
        assert sum(reader.db.replicas.stats().by_replica.values()) >= reads_before_stop[0] > 0
        replica = reader.db.replicas.replicas[0]
        assert not replica.healthy and replica.last_error
        primary_reads = reader.db.replicas.stats().primary_reads
        async with reader.db.scoped([corpus_id]) as conn:
            assert not await on_standby(conn)
        assert reader.db.replicas.stats().primary_reads == primary_reads + 1
    finally:
        await asyncio.to_thread(standby.start)
    # nothing was promoted: the restarted standby is still a standby and the health check takes it back
    await caught_up(reader, replica_cluster)
    async with reader.db.scoped([corpus_id]) as conn:
        assert await on_standby(conn)
    async with reader.db.connection() as conn:
        assert not await on_standby(conn)


async def test_a_standby_session_killed_mid_transaction_continues_on_the_primary(reader, replicated,
                                                                                replica_cluster):
    corpus_id = replicated[2]
    async with reader.db.scoped([corpus_id]) as conn:
        assert await on_standby(conn)
        backend = await conn.fetchval("SELECT pg_backend_pid()")
        admin = await asyncpg.connect(standby_of(replica_cluster).uri())
        try:
            assert await admin.fetchval("SELECT pg_terminate_backend($1, 5000)", backend)
        finally:
            await admin.close()
        # the same transaction goes on, on the primary, with the same role and accessible corpora
        assert not await on_standby(conn)
        assert await conn.fetchval("SELECT current_user") == RETRIEVAL_LOGIN
        assert {r["corpus_id"] for r in await conn.fetch("SELECT corpus_id FROM knowledge")} == {corpus_id}
    assert reader.db.replicas.stats().fallbacks == 1
    await caught_up(reader, replica_cluster)
    async with reader.db.scoped([corpus_id]) as conn:
        assert await on_standby(conn)


async def test_round_robin_over_the_read_urls(replicated, replica_cluster, embedder, tmp_path):
    primary_dsn, standby_dsn, corpus_id = replicated
    second = standby_dsn + "&application_name=second_replica"  # the same standby under a second URL
    kapp = await open_app(tmp_path, primary_dsn, [standby_dsn, second], embedder)
    try:
        await caught_up(kapp, replica_cluster)
        for _ in range(6):
            async with kapp.db.scoped([corpus_id]) as conn:
                assert await on_standby(conn)
        assert sorted(kapp.db.replicas.stats().by_replica.values()) == [3, 3]
    finally:
        await kapp.close()


async def test_unreachable_or_non_standby_read_urls_are_not_used(replicated, replica_cluster, embedder, tmp_path):
    primary_dsn, _, corpus_id = replicated
    unreachable = primary_dsn.replace(str(replica_cluster.primary_socket_dir), str(tmp_path / "no-server"))
    kapp = await open_app(tmp_path, primary_dsn, [unreachable, primary_dsn], embedder)
    try:
        states = kapp.db.replicas.describe()
        assert [s["healthy"] for s in states] == [False, False]
        assert "not a hot standby" in states[1]["last_error"]
        hits = await kapp.legacy_search("Lumen Gateway", [corpus_id], [corpus_id], limit=3)
        assert hits
        async with kapp.db.scoped([corpus_id]) as conn:
            assert not await on_standby(conn)
    finally:
        await kapp.close()


async def test_without_read_urls_nothing_changes(replicated, embedder, tmp_path):
    primary_dsn, _, corpus_id = replicated
    kapp = await open_app(tmp_path, primary_dsn, [], embedder)
    try:
        assert kapp.db.replicas is None
        async with kapp.db.scoped([corpus_id]) as conn:
            assert not isinstance(conn, ReadConnection)
            assert await conn.fetchval("SELECT current_user") == RETRIEVAL_LOGIN
    finally:
        await kapp.close()


def test_read_urls_from_the_environment(monkeypatch):
    monkeypatch.setenv("NE_DATABASE_READ_URLS", "postgresql://r1/db, postgresql://r2/db")
    monkeypatch.setenv("NE_DATABASE_READ_MAX_LAG_SECONDS", "2.5")
    settings = Settings(_env_file=None)
    assert settings.database_read_urls == ["postgresql://r1/db", "postgresql://r2/db"]
    assert settings.database_read_max_lag_seconds == 2.5
    monkeypatch.setenv("NE_DATABASE_READ_URLS", '["postgresql://r1,r2/db"]')  # JSON keeps multi-host URIs whole
    assert Settings(_env_file=None).database_read_urls == ["postgresql://r1,r2/db"]
    monkeypatch.setenv("NE_DATABASE_READ_URLS", "")
    assert Settings(_env_file=None).database_read_urls == []


async def test_a_read_cancelled_while_opening_on_the_standby_gives_its_connection_back(reader, replicated):
    """A search's timeout or a dropped snapshot load can cancel a scoped read while its transaction opens on the
    standby: the connection goes back to the pool (once kept, the app could never close)."""
    replicas = reader.db.replicas

    async def slow_bind(conn) -> None:
        await conn.execute("SELECT pg_sleep(30)")

    async def read() -> None:
        async with replicas.read_transaction(slow_bind):
            pass

    task = asyncio.ensure_future(read())
    await asyncio.sleep(0.5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    pool = replicas.replicas[0].pool
    assert pool.get_idle_size() == pool.get_size()
    await asyncio.wait_for(reader.close(), 20)  # the fixture closes it again: a no-op

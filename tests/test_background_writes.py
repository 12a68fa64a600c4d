"""Work kept off a request's path: best-effort writes (the retrieval run log) that drain() and close() wait for,
and the long-lived objects frozen out of the cyclic garbage collector once the app is open."""
import asyncio
import gc

from knowledge.app import KnowledgeApp


async def test_drain_waits_for_every_write_later_and_close_drains(kapp):
    release, written = asyncio.Event(), []

    async def write(value: int) -> None:
        await release.wait()
        async with kapp.db.connection() as conn:
            written.append(await conn.fetchval("SELECT $1::int", value))

    kapp.db.write_later(write(1))
    kapp.db.write_later(write(2))
    drained = asyncio.ensure_future(kapp.db.drain())
    await asyncio.sleep(0.05)
    assert not drained.done() and written == []  # the caller went on; the writes wait
    release.set()
    await drained
    assert sorted(written) == [1, 2]

    other = await KnowledgeApp.open(kapp.settings, dsn=kapp.db.dsn, embedder=kapp.embedder, progress=False)
    other.db.write_later(write(3))
    await other.close()  # waits for the pending write before the pools close
    assert sorted(written) == [1, 2, 3]


async def test_a_search_returns_before_its_run_is_logged_and_stats_wait_for_it(demo_app):
    kapp, corpora = demo_app
    ids = [c.id for c in corpora.values()]
    async with kapp.db.connection() as conn:
        before = await conn.fetchval("SELECT count(*) FROM planner_run")
    await kapp.retrieval.search("Who acquired Cobalt Systems?", ids, ids, limit=3)
    assert kapp.db.pending_writes == 1  # the run's row is still to be written
    await kapp.db.drain()
    async with kapp.db.connection() as conn:
        assert await conn.fetchval("SELECT count(*) FROM planner_run") == before + 1


async def test_the_app_freezes_what_exists_once_it_is_open(kapp):
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    other = await KnowledgeApp.open(kapp.settings, dsn=kapp.db.dsn, embedder=kapp.embedder, progress=False)
    try:
        assert gc.get_freeze_count() > 0
    finally:
        await other.close()

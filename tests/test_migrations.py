import asyncio

import asyncpg
import pytest

from knowledge.db.migrate import apply_migrations, load_migrations


async def test_migrations_apply_once_and_twice_is_a_no_op(new_database):
    dsn = await new_database()
    conn = await asyncpg.connect(dsn)
    try:
        first = await apply_migrations(conn, 384)
        assert [m.version for m in first] == [m.version for m in load_migrations(384)]
        assert await apply_migrations(conn, 384) == []
        tables = {r["tablename"] for r in await conn.fetch("SELECT tablename FROM pg_tables WHERE schemaname='public'")}
        assert {"corpus", "knowledge", "kg_entity", "kg_relation", "kg_entity_mention", "schema_migration"} <= tables
        functions = {r["proname"] for r in await conn.fetch("SELECT proname FROM pg_proc")}
        assert {"kb_hybrid_search", "kb_rrf_search"} <= functions
        await conn.execute("INSERT INTO corpus (app_name, name, label) VALUES ('a', 'c', 'C')")  # its own HNSW index
        indexes = {r["indexdef"]
                   for r in await conn.fetch("SELECT indexdef FROM pg_indexes WHERE tablename='knowledge'")}
        assert any("hnsw" in i and "vector_cosine_ops" in i and "corpus_id =" in i for i in indexes)
        assert any("gin" in i and "search_vector" in i for i in indexes)
    finally:
        await conn.close()


async def test_two_processes_migrating_at_once_apply_each_migration_once(new_database):
    dsn = await new_database()
    conns = [await asyncpg.connect(dsn) for _ in range(2)]
    try:
        results = await asyncio.gather(*(apply_migrations(c, 384) for c in conns))
        applied = sorted(m.version for r in results for m in r)
        assert applied == sorted(m.version for m in load_migrations(384))
        count = await conns[0].fetchval("SELECT count(*) FROM schema_migration")
        assert count == len(applied)
    finally:
        for c in conns:
            await c.close()


async def test_edited_migration_is_refused(new_database):
    dsn = await new_database()
    conn = await asyncpg.connect(dsn)
    try:
        await apply_migrations(conn, 384)
        await conn.execute("UPDATE schema_migration SET checksum = 'x' WHERE version = 1")
        with pytest.raises(RuntimeError, match="changed after it was applied"):
            await apply_migrations(conn, 384)
    finally:
        await conn.close()

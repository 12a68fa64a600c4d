"""The narrow full-text table of the search functions (migration 015) holds exactly the chunks of knowledge, with
their tsvector, through inserts, updates, deletes and a deleted corpus; the retrieval login cannot read it."""
import asyncpg
import pytest

from knowledge.ingest.documents import documents_from_texts

TEXTS = [("a", "The Falcon Cache review set a latency budget for the cluster."),
         ("b", "Kestrel Labs moved its Lumen Gateway team to Porto in March."),
         ("c", "阿里巴巴的总部位于杭州，员工超过十万人。")]


async def _mirrored(conn: asyncpg.Connection) -> tuple[list, list]:
    chunks = await conn.fetch("SELECT id, corpus_id, search_vector::text FROM knowledge ORDER BY id")
    keyword = await conn.fetch("SELECT id, corpus_id, search_vector::text FROM knowledge_keyword ORDER BY id")
    return [tuple(r) for r in chunks], [tuple(r) for r in keyword]


async def test_the_keyword_table_follows_every_change_of_knowledge(kapp):
    first, second = await kapp.corpora.create("kw_first"), await kapp.corpora.create("kw_second")
    await kapp.ingest_documents(first, documents_from_texts(TEXTS))
    await kapp.ingest_documents(second, documents_from_texts(TEXTS[:2]))
    async with kapp.db.connection() as conn:
        chunks, keyword = await _mirrored(conn)
        assert len(chunks) == 5 and keyword == chunks
        await conn.execute("UPDATE knowledge SET search_text = 'porto harbour' WHERE source_uri = 'b'")
        await conn.execute("DELETE FROM knowledge WHERE corpus_id = $1 AND source_uri = 'a'", first.id)
        chunks, keyword = await _mirrored(conn)
        assert len(chunks) == 4 and keyword == chunks
        assert await conn.fetchval("SELECT count(*) FROM knowledge_keyword "
                                   "WHERE search_vector @@ to_tsquery('english', 'harbour')") == 2
        await conn.execute("DELETE FROM corpus WHERE id = $1", first.id)
        chunks, keyword = await _mirrored(conn)
    assert len(chunks) == 2 and keyword == chunks


async def test_the_retrieval_login_cannot_read_the_keyword_table(kapp):
    corpus = await kapp.corpora.create("kw_scoped")
    await kapp.ingest_documents(corpus, documents_from_texts(TEXTS[:1]))
    async with kapp.db.scoped([corpus.id]) as conn:
        assert await conn.fetchval("SELECT count(*) FROM knowledge WHERE corpus_id = $1", corpus.id) == 1
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await conn.fetchval("SELECT count(*) FROM knowledge_keyword")

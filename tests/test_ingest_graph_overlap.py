"""The graph step works on stored chunks while the model embeds the next batch, and what it leaves undone or fails
to do the post-ingest stages finish: the ingest ends with the same complete graph either way."""
from __future__ import annotations

from pathlib import Path

import pytest_asyncio

from knowledge.app import KnowledgeApp
from knowledge.db.queries.ingest_status import select_ingest_status
from knowledge.ingest.documents import Document
from tests.conftest import make_settings

# 24 documents of one chunk each: with an embedding batch of 2 the pipeline embeds 3 batches of 8 chunks
PEOPLE = ["Maria Santos", "Lin Wei", "Kenji Sato", "Amara Okafor", "Tomas Novak", "Priya Raman"]
ORGS = ["Kestrel Labs", "Cobalt Systems", "Tidepool Analytics", "Aurora Foundry"]
DOCUMENTS = [Document(source_uri=f"note-{i}.md", title=f"Note {i}",
                      text=f"{PEOPLE[i % 6]} joined {ORGS[i % 4]} in Berlin in {2000 + i}. "
                           f"{ORGS[i % 4]} partnered with {ORGS[(i + 1) % 4]} on Project Number{i}.")
             for i in range(24)]


@pytest_asyncio.fixture
async def small_batch_app(new_database, embedder, tmp_path: Path):
    settings = make_settings(tmp_path, embedding_batch_size=2)
    app = await KnowledgeApp.open(settings, dsn=await new_database(), embedder=embedder, progress=False)
    try:
        yield app
    finally:
        await app.close()


async def _graph_state(kapp: KnowledgeApp, corpus) -> tuple:
    async with kapp.db.connection() as conn:
        status = (await select_ingest_status(conn, [corpus.id]))[0]
        entities = await conn.fetch("SELECT canonical_name FROM kg_entity WHERE corpus_id = $1 ORDER BY 1", corpus.id)
        mentions = await conn.fetchval("SELECT count(*) FROM kg_entity_mention WHERE corpus_id = $1", corpus.id)
        communities = await conn.fetchval("SELECT count(*) FROM kg_community WHERE corpus_id = $1", corpus.id)
    assert status.chunks == len(DOCUMENTS) and status.awaiting_extraction == 0 and status.awaiting_linking == 0
    assert not status.communities_stale and communities > 0
    return [r["canonical_name"] for r in entities], mentions


async def test_graph_step_runs_during_embedding_and_the_graph_is_complete(small_batch_app: KnowledgeApp):
    kapp = small_batch_app
    during: list[int] = []
    add_stored = kapp.graph.add_stored

    async def counting(corpus, chunks):
        during.append(len(chunks))
        await add_stored(corpus, chunks)

    kapp.pipeline.while_embedding = counting
    corpus = await kapp.corpora.create("overlap")
    report = await kapp.ingest_documents(corpus, DOCUMENTS)
    assert report.chunks_added == len(DOCUMENTS) and report.complete
    assert during and sum(during) < len(DOCUMENTS), "stored batches went to the graph while the model embedded " \
                                                    "the next one; the last batch is the post-ingest stage's"
    names, mentions = await _graph_state(kapp, corpus)
    assert "Maria Santos" in names and "Cobalt Systems" in names and mentions >= 4 * len(DOCUMENTS)


async def test_a_failing_graph_step_during_embedding_loses_nothing(small_batch_app: KnowledgeApp):
    kapp = small_batch_app

    async def failing(corpus, chunks):
        raise RuntimeError("graph step killed")

    kapp.pipeline.while_embedding = failing
    failed = await kapp.corpora.create("failed")
    report = await kapp.ingest_documents(failed, DOCUMENTS)
    assert report.chunks_added == len(DOCUMENTS) and report.complete

    kapp.pipeline.while_embedding = None
    sequential = await kapp.corpora.create("sequential")
    await kapp.ingest_documents(sequential, DOCUMENTS)
    assert await _graph_state(kapp, failed) == await _graph_state(kapp, sequential)

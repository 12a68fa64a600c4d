"""The query-embedding and neighbourhood caches serve repeated searches and are invalidated by an ingest, so a
bridge that an ingest creates is found by the very next search (a stale neighbourhood would hide it)."""
import asyncpg
import pytest

from knowledge.db.database import Database
from knowledge.ingest.documents import documents_from_texts
from knowledge.retrieval.planner.graph_reads import GraphReads
from knowledge.retrieval.planner.neighbourhood_cache import NeighbourhoodCache
from tests.planner_support import most_mentioned_entities

OPS = [("nimbus-plan", "Project Nimbus depends on the Zephyr Storage Engine for its archive tier. The Nimbus team "
                       "reviewed the archive tier in March with Omar Haddad.")]
RESEARCH = [("tracking", "Our tracking system was built for project reporting and relies on nightly builds."),
            ("planning", "The planning system built by the tools group relies on a shared queue for every project."),
            ("batch", "A batch system built for nightly jobs relies on project quotas and on retries.")]
ZEPHYR = [("zephyr", "Zephyr Storage Engine came out of the lab of Dr. Ana Pereira in Lisbon. It keeps cold data "
                     "on tape.")]
QUESTION = "Who built the system that Project Nimbus relies on?"


async def test_ingest_invalidates_both_caches_and_the_new_bridge_is_found(kapp):
    # the neighbourhood cache serves the SQL path; graph snapshots (tests/test_planner_graph_snapshot.py), loaded
    # in the background, would serve these searches instead once loaded
    kapp.retrieval.graph_snapshots.capacity = 0
    ops = await kapp.corpora.create("ops", "Ops Notes")
    research = await kapp.corpora.create("research", "Research")
    await kapp.ingest_documents(ops, documents_from_texts(OPS))
    await kapp.ingest_documents(research, documents_from_texts(RESEARCH))
    both = [ops.id, research.id]

    async def search():
        return await kapp.retrieval.search(QUESTION, both, both, limit=2, strict_scope=True)

    before = await search()
    assert before.mode == "planner" and before.graph_expansion, before.fallback_reason
    assert not [h for h in before.hits if h.evidence_type == "graph_expanded"]
    cached = len(kapp.retrieval.neighbourhoods)
    assert cached > 0
    hits, misses = kapp.retrieval.neighbourhoods.hits, kapp.query_cache.misses
    await search()
    assert kapp.retrieval.neighbourhoods.hits > hits  # neighbourhoods served from the cache
    assert kapp.query_cache.misses == misses  # and the query embedding too

    await kapp.ingest_documents(research, documents_from_texts(ZEPHYR))
    assert len(kapp.retrieval.neighbourhoods) == 0

    after = await search()
    assert kapp.query_cache.misses == misses + 1  # the embedding cache was cleared as well
    expanded = [h for h in after.hits if h.evidence_type == "graph_expanded"]
    assert [h.source_uri for h in expanded] == ["zephyr"], [(h.source_uri, h.evidence_type) for h in after.hits]
    assert expanded[0].bridge.describe() == "Ops Notes -> Research via Zephyr Storage Engine"

    # a review decision changes the bridges as much as an ingest: splitting the shared entity apart empties
    # the cache, and the next search no longer crosses over it
    assert len(kapp.retrieval.neighbourhoods) > 0
    await kapp.canonical.split("Zephyr Storage Engine", "research")
    assert len(kapp.retrieval.neighbourhoods) == 0
    split = await search()
    assert not [h for h in split.hits if h.bridge and h.bridge.via_entity == "Zephyr Storage Engine"]


async def test_cached_graph_reads_open_no_transaction(demo_app):
    kapp, corpora = demo_app
    ids = [c.id for c in corpora.values()]
    entities = await most_mentioned_entities(kapp, ids, 20)
    cache = NeighbourhoodCache(64)
    live = GraphReads(kapp.db, kapp.settings, cache)
    bridges, neighbours = await live.bridges(entities[:10], ids), await live.neighbours(entities[:10], ids)
    assert any(bridges.values()) and any(neighbours.values())
    gone = await Database.connect(kapp.settings, dsn=kapp.db.dsn, migrate=False, max_size=1)
    await gone.close()
    cached = GraphReads(gone, kapp.settings, cache)
    assert await cached.bridges(entities[:10], ids) == bridges  # served whole from the cache: no connection asked
    assert await cached.neighbours(entities[:10], ids) == neighbours
    with pytest.raises(asyncpg.InterfaceError):  # an entity the cache lacks is read from the (closed) database
        await cached.bridges(entities[:11], ids)

"""Corpus graph snapshots (knowledge/retrieval/planner/graph_snapshot.py) answer the planner's per-corpus graph
reads exactly as the named queries do under every scope, give a scope nothing of a corpus outside it, are
dropped by an ingest, and spare the stages their SQL once loaded."""
import asyncio
from itertools import combinations

import numpy as np

import pytest

from knowledge.db.database import Database
from knowledge.db.queries import canonical as canonical_queries
from knowledge.db.queries import chunks as chunk_queries
from knowledge.db.queries import planner as planner_queries
from knowledge.ingest.documents import documents_from_texts
from knowledge.retrieval.planner import expansion
from knowledge.retrieval.planner.bridge_snapshot import by_target
from knowledge.retrieval.planner.graph_reads import GraphReads, read_limits
from knowledge.retrieval.planner.graph_rows import chunk_entities, entity_chunks, hop_rows, relation_facts
from knowledge.retrieval.planner.graph_snapshot import load_corpus_graph, size_bound
from knowledge.retrieval.planner.snapshot_store import GraphSnapshots
from knowledge.retrieval.planner.neighbourhood_cache import NeighbourhoodCache
from tests.test_planner_caches import OPS, QUESTION, RESEARCH, ZEPHYR
from tests.test_planner_graph_functions import QUESTIONS

# the facts' ranks come from memory: words repeated, stemmed, hyphenated, quoted, numbers, CJK, only stopwords
FACT_QUESTIONS = [*QUESTIONS, "Cobalt Systems acquired acquisitions acquire acquiring Cobalt", "Helios's vector-engine",
                  "Who wrote the 2023 report on the Aurora engine's latency?", "极光向量引擎", "", "and or not"]


async def _graph_ids(kapp, corpus_ids) -> tuple[list[int], list[int]]:
    """Every entity and every mentioned chunk of the corpora, read as the owner."""
    async with kapp.db.connection() as conn:
        entities = [r[0] for r in await conn.fetch(
            "SELECT id FROM kg_entity WHERE corpus_id = ANY($1::uuid[]) ORDER BY id", list(corpus_ids))]
        chunks = [r[0] for r in await conn.fetch(
            "SELECT DISTINCT chunk_id FROM kg_entity_mention WHERE corpus_id = ANY($1::uuid[]) ORDER BY chunk_id",
            list(corpus_ids))]
    return entities, chunks


def _snapshots(kapp) -> tuple:
    """The app's graph read limits, and an empty snapshot store with room for the demo."""
    limits = read_limits(kapp.settings)
    return limits, GraphSnapshots(kapp.db, limits, capacity=1_000_000)


def _scopes(ids):
    return [list(s) for n in range(1, len(ids) + 1) for s in combinations(ids, n)]


async def test_the_graph_is_per_corpus_as_the_snapshot_assumes(demo_app):
    kapp, _ = demo_app
    async with kapp.db.connection() as conn:
        crossing_mentions = await conn.fetchval(
            "SELECT count(*) FROM kg_entity_mention m JOIN kg_entity e ON e.id = m.entity_id "
            "JOIN knowledge k ON k.id = m.chunk_id WHERE m.corpus_id <> e.corpus_id OR k.corpus_id <> m.corpus_id")
        crossing_relations = await conn.fetchval(
            "SELECT count(*) FROM kg_relation r JOIN kg_entity s ON s.id = r.source_entity_id "
            "JOIN kg_entity t ON t.id = r.target_entity_id "
            "WHERE s.corpus_id <> r.corpus_id OR t.corpus_id <> r.corpus_id")
        relations = await conn.fetchval("SELECT count(*) FROM kg_relation")
    assert relations > 0 and crossing_mentions == 0 and crossing_relations == 0


async def test_snapshot_answers_are_the_queries_answers_under_every_scope(demo_app):
    kapp, corpora = demo_app
    ids = [c.id for c in corpora.values()]
    entities, chunks = await _graph_ids(kapp, ids)
    limits, snapshots = _snapshots(kapp)
    reads = GraphReads(kapp.db, kapp.settings, NeighbourhoodCache(0), snapshots)
    await snapshots.load(ids)
    assert all(snapshots.ready(c) for c in ids) and all(snapshots.ready(*p) for p in combinations(ids, 2))
    assert snapshots.rows > 0
    for scope in _scopes(ids):
        assert snapshots.covering(scope, limits) is not None
        # every entity and chunk of the demo, also those of corpora outside the scope (they must get nothing)
        async with kapp.db.scoped(scope) as conn:
            seed_rows = chunk_entities(await planner_queries.select_seed_chunk_entities(conn, chunks, scope))
            neighbour_rows = await planner_queries.select_entity_neighbours(
                conn, entities, scope, limits.neighbours_per_entity, limits.hub_degree)
            chunk_rows = entity_chunks(await planner_queries.select_chunk_ids_for_entities(
                conn, entities, scope, limits.chunks_per_entity))
        assert await reads.seed_chunk_entities(chunks, scope) == seed_rows
        assert await reads.chunk_ids_for_entities(entities, scope, limits.chunks_per_entity) == chunk_rows
        expected = {e: [] for e in entities}
        for r in neighbour_rows:
            expected[r[0]].append((r[1], r[2], r[3], r[4]))
        assert await reads.neighbours(entities, scope) == expected
        async with kapp.db.scoped(scope) as conn:
            bridge_rows = await canonical_queries.select_bridges_from_entities(conn, entities, scope)
        bridges = {e: [] for e in entities}
        for b in bridge_rows:
            bridges[b.source_entity_id].append(b)
        assert (snapshots.covering_bridges(scope) is not None) == (len(scope) > 1)
        assert await reads.bridges(entities, scope) == bridges
        for max_mentions, max_chunks in ((200, 50), (6, 3)):  # the planner's bounds, and tight ones that filter
            async with kapp.db.scoped(scope) as conn:
                hops = hop_rows(await planner_queries.select_entity_hops(conn, chunks, scope, max_mentions,
                                                                         max_chunks))
            hops.sort(key=lambda r: (r.from_chunk_id, r.chunk_count, r.chunk_id, r.canonical_id))  # the ties
            assert await reads.entity_hops(chunks, scope, max_mentions, max_chunks) == hops
            assert hops and {r.corpus_id for r in hops} <= set(scope)
        matched = 0
        for question in FACT_QUESTIONS:  # every fact with its score, to the last bit, in the SQL order
            for limit in (10_000, 2):  # all of them, and the best few (the planner asks for FACT_SEEDS)
                async with kapp.db.scoped(scope) as conn:
                    facts = relation_facts(await planner_queries.select_relation_facts(conn, entities, scope,
                                                                                       question, limit))
                assert await reads.relation_facts(entities, scope, question, limit) == facts
                matched += len(facts) == limit  # more facts match than the best few take
        assert matched >= 3
        assert {c for b in bridge_rows for c in (b.source_corpus_id, b.target_corpus_id)} <= set(scope)
        assert bridge_rows or len(scope) == 1
        assert {r.corpus_id for r in seed_rows + chunk_rows} <= set(scope)
        assert {n[1] for found in expected.values() for n in found} <= set(scope)
        assert seed_rows and chunk_rows and any(expected.values())
        await _scored_chunks_are_the_querys(kapp, reads, chunks, scope)


async def _scored_chunks_are_the_querys(kapp, reads: GraphReads, chunks: list[int], scope) -> None:
    """The rerank's rows: the same chunks, text and metadata as select_scored_chunks, the cosine within float
    rounding (pgvector sums its products in another order); nothing of a corpus outside the scope."""
    for question in QUESTIONS[:3]:
        embedding = kapp.query_cache.embed_query(question)
        async with kapp.db.scoped(scope) as conn:
            expected = {r["id"]: r for r in await chunk_queries.select_scored_chunks(conn, chunks, scope, embedding)}
        served = {r["id"]: r for r in await reads.scored_chunks(chunks, scope, embedding)}
        assert expected and served.keys() == expected.keys()
        for chunk_id, row in served.items():
            assert {k: row[k] for k in ("corpus_id", "content", "source_uri", "metadata_json")} == \
                {k: expected[chunk_id][k] for k in ("corpus_id", "content", "source_uri", "metadata_json")}
        assert np.allclose([served[c]["score"] for c in expected], [expected[c]["score"] for c in expected],
                           rtol=0, atol=1e-6)


async def test_a_scope_with_an_unloaded_corpus_reads_sql(demo_app):
    kapp, corpora = demo_app
    ids = [c.id for c in corpora.values()]
    limits, snapshots = _snapshots(kapp)
    await snapshots.load(ids[:1])
    assert snapshots.covering(ids[:1], limits) is not None
    assert snapshots.covering(ids[:2], limits) is None  # and the missing corpus is queued
    assert snapshots.covering(ids[:1], type(limits)(limits.neighbours_per_entity + 1, limits.hub_degree,
                                                    limits.chunks_per_entity)) is None
    await snapshots.load(ids[:2])
    assert snapshots.covering(ids[:2], limits) is not None
    await snapshots.close()


async def test_capacity_bounds_the_rows_held(demo_app):
    kapp, corpora = demo_app
    ids = [c.id for c in corpora.values()]
    limits = read_limits(kapp.settings)
    bounds = []
    for corpus_id in ids:
        async with kapp.db.scoped([corpus_id]) as conn:
            bounds.append(size_bound(*await planner_queries.select_corpus_graph_size(conn, corpus_id)))
    with pytest.raises(ValueError):
        GraphSnapshots(kapp.db, limits, capacity=-1)
    off = GraphSnapshots(kapp.db, limits, capacity=0)
    await off.load(ids)
    assert not any(off.ready(c) for c in ids) and off.covering(ids, limits) is None
    assert off.covering_bridges(ids) is None
    # room for the first corpus and less than any other beside it: the first is loaded, the others stay on SQL
    first_rows = (await load_corpus_graph(kapp.db, ids[0], limits)).rows
    assert 0 < first_rows <= bounds[0]
    tight = GraphSnapshots(kapp.db, limits, capacity=max(bounds[0], first_rows + min(bounds[1:]) - 1))
    await tight.load(ids, bridges=False)
    assert [tight.ready(c) for c in ids] == [True] + [False] * (len(ids) - 1)
    assert 0 < tight.rows <= tight.capacity and tight.covering(ids, limits) is None
    assert tight.covering(ids[:1], limits) is not None
    tight.clear()  # an ingest lets the others have their turn
    await tight.load(ids[1:2])
    assert tight.ready(ids[1]) and not tight.ready(ids[0])
    # a corpus whose size bound exceeds the capacity stays on SQL
    small = GraphSnapshots(kapp.db, limits, capacity=min(bounds) - 1)
    await small.load(ids, bridges=False)
    assert not any(small.ready(c) for c in ids) and small.rows == 0


async def test_what_is_joined_for_a_scope_is_kept_until_a_clear(demo_app):
    kapp, corpora = demo_app
    ids = [c.id for c in corpora.values()]
    limits, snapshots = _snapshots(kapp)
    await snapshots.load(ids)
    table, by_source = snapshots.neighbour_table(ids, limits), snapshots.bridges_by_source(ids)
    pairs = snapshots.covering_bridges(ids)
    sources = {e for pair in pairs for e in pair.by_source}
    assert sources and all(by_source.of(e) == by_target([p.by_source[e] for p in pairs if e in p.by_source])
                           for e in sources)
    assert snapshots.neighbour_table(ids, limits) is table and snapshots.bridges_by_source(ids) is by_source
    snapshots.clear()  # an ingest: the units are reloaded, so what was joined from them is built again
    assert snapshots.neighbour_table(ids, limits) is None and snapshots.bridges_by_source(ids) is None
    await snapshots.load(ids)
    assert snapshots.neighbour_table(ids, limits) is not table and snapshots.bridges_by_source(ids) is not by_source
    await snapshots.close()


async def test_served_snapshots_need_no_database(demo_app):
    kapp, corpora = demo_app
    ids = [c.id for c in corpora.values()]
    entities, chunks = await _graph_ids(kapp, ids)
    limits, snapshots = _snapshots(kapp)
    await snapshots.load(ids)
    live = GraphReads(kapp.db, kapp.settings, NeighbourhoodCache(0), snapshots)
    gone = await Database.connect(kapp.settings, dsn=kapp.db.dsn, migrate=False, max_size=1)
    await gone.close()
    served = GraphReads(gone, kapp.settings, NeighbourhoodCache(0), snapshots)
    assert await served.neighbours(entities, ids) == await live.neighbours(entities, ids)
    assert await served.seed_chunk_entities(chunks, ids) == await live.seed_chunk_entities(chunks, ids)
    embedding = kapp.query_cache.embed_query(QUESTION)
    assert len(await served.scored_chunks(chunks, ids, embedding)) == len(chunks)
    async with served.transaction(ids) as conn:
        assert conn is None  # the expansion opens no transaction


async def test_stages_use_the_snapshot_and_an_ingest_drops_it(kapp, monkeypatch):
    ops = await kapp.corpora.create("ops", "Ops Notes")
    research = await kapp.corpora.create("research", "Research")
    await kapp.ingest_documents(ops, documents_from_texts(OPS))
    await kapp.ingest_documents(research, documents_from_texts(RESEARCH))
    both = [ops.id, research.id]
    snapshots = kapp.retrieval.graph_snapshots

    async def search():
        return await kapp.retrieval.search(QUESTION, both, both, limit=2, strict_scope=True)

    first = await search()  # read by SQL; queues both corpora for loading
    assert first.mode == "planner" and first.graph_expansion, first.fallback_reason
    await snapshots.load(both)
    assert snapshots.ready(ops.id) and snapshots.ready(research.id) and snapshots.ready(ops.id, research.id)

    calls: list[str] = []
    for module, name in ((planner_queries, "select_seed_chunk_entities"), (planner_queries, "select_entity_neighbours"),
                         (planner_queries, "select_chunk_ids_for_entities"), (planner_queries, "select_relation_facts"),
                         (planner_queries, "select_entity_hops"),
                         (canonical_queries, "select_bridges_from_entities"),
                         (expansion, "build_entity_graph")):  # served snapshots grow the graph compiled
        real = getattr(module, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            calls.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(module, name, spy)
    second = await search()
    assert calls == [] and [h.chunk_id for h in second.hits] == [h.chunk_id for h in first.hits]
    assert [t.stage for t in second.trace] == [t.stage for t in first.trace]

    await kapp.ingest_documents(research, documents_from_texts(ZEPHYR))
    assert not snapshots.ready(ops.id) and not snapshots.ready(research.id) and snapshots.rows == 0
    after = await search()  # SQL again (later stages may find the reloaded snapshots): Zephyr is seen at once
    assert "select_seed_chunk_entities" in calls
    expanded = [h.source_uri for h in after.hits if h.evidence_type == "graph_expanded"]
    assert expanded == ["zephyr"], [(h.source_uri, h.evidence_type) for h in after.hits]
    await snapshots.load(both)
    calls.clear()
    reloaded = await search()  # and the reloaded snapshot holds it too
    assert calls == []
    assert [(h.chunk_id, h.evidence_type) for h in reloaded.hits] == [(h.chunk_id, h.evidence_type) for h in after.hits]


async def test_a_load_under_way_when_an_ingest_clears_is_dropped(demo_app):
    kapp, corpora = demo_app
    ids = [c.id for c in corpora.values()]
    limits, snapshots = _snapshots(kapp)
    assert snapshots.covering(ids, limits) is None  # queues the loads
    snapshots.clear()  # as on_graph_updated does
    await snapshots.load([])
    assert not any(snapshots.ready(c) for c in ids)
    await snapshots.close()


async def test_close_lets_a_load_under_way_end_instead_of_cancelling_it_mid_query(demo_app):
    kapp, corpora = demo_app
    ids = [c.id for c in corpora.values()]
    limits, snapshots = _snapshots(kapp)
    assert snapshots.covering(ids, limits) is None  # queues the loads; the first starts at the next await
    worker = snapshots._worker
    await asyncio.sleep(0)
    await snapshots.close()  # as the app's close does at the end of `negentropy demo`
    assert worker.done() and not worker.cancelled()  # a cancel inside its transaction made asyncpg log an error
    assert not any(snapshots.ready(c) for c in ids) and snapshots.rows == 0
    assert snapshots.covering(ids[:1], limits) is None  # and it still queues after a close, as after a clear
    await snapshots.close()


def test_bridges_of_several_pairs_are_ordered_by_target_entity():
    from uuid import uuid4

    from knowledge.retrieval.planner.context import EntityBridge

    x, y, z = uuid4(), uuid4(), uuid4()

    def bridge(target: int, corpus) -> EntityBridge:
        return EntityBridge(1, "Aurora", 5, x, target, corpus, "shared_entity", 1, 1.0)

    to_y, to_z = [bridge(10, y), bridge(30, y)], [bridge(20, z), bridge(40, z)]  # interleaved entity ids
    assert [b.target_entity_id for b in by_target([to_y, to_z])] == [10, 20, 30, 40]
    assert [b.target_entity_id for b in by_target([to_z, [bridge(50, y)]])] == [20, 40, 50]
    assert [b.target_entity_id for b in by_target([[bridge(50, y)], to_z])] == [20, 40, 50]
    assert by_target([to_y]) is to_y and by_target([]) == []

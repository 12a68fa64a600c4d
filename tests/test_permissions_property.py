"""Property: for random corpus sets, accessible sets and forged ids, no alias, bridge or chunk row outside the
accessible set is ever returned by the canonical data-access module, the retrieval service or legacy search.

One database for the module: four corpora of one app plus one corpus of another app, ingested through the
normal pipeline (chunks, graph, canonical links and bridges all real). It runs twice: on the primary, and with
every scoped read on a hot standby (tests/replica_support.py), where RLS and the accessible ids must hold alike.
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass

import pytest
import pytest_asyncio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from knowledge.app import KnowledgeApp
from knowledge.corpora import CorpusRegistry
from knowledge.corpus_ids import parse_corpus_id
from knowledge.db.queries import canonical as q
from knowledge.ingest.documents import documents_from_texts
from tests.conftest import make_settings
from tests.replica_support import caught_up, new_replicated_database, replica_settings

TEXTS = {
    "perm_notes": ["Maria Santos works at Kestrel Labs in Berlin. Kestrel Labs developed Lumen Gateway.",
                   "The Atlas team picked Cobalt Systems as the labeling vendor."],
    "perm_docs": ["Microsoft acquired Cobalt Systems in November 2023.",
                  "Lumen Gateway uses the Aurora Vector Engine for vector lookups."],
    "perm_papers": ["Aurora Vector Engine was developed by Dr. Lin Wei at Tsinghua University.",
                    "Maria Santos developed Quill Resolver for multilingual entity resolution."],
    "perm_secret": ["Kestrel Labs acquired Tidepool Analytics in May 2024. Maria Santos leads Project Nightingale.",
                    "Cobalt Systems is located in Krakow. Project Nightingale uses the Aurora Vector Engine."],
}
QUERIES = ["Who is Maria Santos?", "Which vendor labels data for Atlas?", "Aurora Vector Engine storage",
           "Project Nightingale", "Cobalt Systems acquisition", "Lumen Gateway"]


@dataclass
class World:
    kapp: KnowledgeApp
    corpus_ids: list[uuid.UUID]  # the app's corpora
    foreign_corpus_id: uuid.UUID  # a corpus of another app on the same database
    entity_corpus: dict[int, uuid.UUID]
    canonical_ids: list[int]
    on_replica: bool


@pytest_asyncio.fixture(scope="module", params=["primary", "replica"])
async def world(request, new_database, embedder, tmp_path_factory):
    on_replica = request.param == "replica"
    if on_replica:
        cluster = request.getfixturevalue("replica_cluster")
        dsn, standby_dsn = await new_replicated_database(cluster, "perm")
        settings = replica_settings(tmp_path_factory.mktemp("perm"), [standby_dsn])
    else:
        dsn, settings = await new_database("perm"), make_settings(tmp_path_factory.mktemp("perm"))
    kapp = await KnowledgeApp.open(settings, dsn=dsn, embedder=embedder, progress=False)
    ids = []
    for name, texts in TEXTS.items():
        corpus = await kapp.corpora.create(name)
        await kapp.ingest_documents(corpus, documents_from_texts((f"{name}-{i}", t) for i, t in enumerate(texts)))
        ids.append(corpus.id)
    foreign = await CorpusRegistry(kapp.db, "perm_other_app").create("perm_notes")
    await kapp.ingest_documents(foreign, documents_from_texts([("other", TEXTS["perm_notes"][0])]))
    async with kapp.db.connection() as conn:
        entity_corpus = {r["id"]: r["corpus_id"] for r in await conn.fetch("SELECT id, corpus_id FROM kg_entity")}
        canonical_ids = [r["id"] for r in await conn.fetch("SELECT id FROM kg_entity_canonical")]
        bridges = await conn.fetchval("SELECT count(*) FROM kg_cross_corpus_bridge")
    assert bridges > 0 and canonical_ids, "the fixture must hold bridges for the property to mean anything"
    if on_replica:
        await caught_up(kapp, cluster)
    try:
        yield World(kapp, ids, foreign.id, entity_corpus, canonical_ids, on_replica)
    finally:
        await kapp.close()


def corpus_refs(world_ids: list[uuid.UUID]):
    """Real corpus ids (as UUIDs or strings), random UUIDs, and garbage."""
    return st.one_of(st.sampled_from(world_ids), st.sampled_from(world_ids).map(str), st.uuids(),
                     st.text(max_size=12), st.just(""), st.integers(-3, 3))


def valid(refs) -> set[uuid.UUID]:
    return {i for i in (parse_corpus_id(r) for r in refs) if i is not None}


@st.composite
def scenario(draw, world_ids: list[uuid.UUID], entity_ids: list[int], canonical_ids: list[int]):
    accessible = draw(st.lists(corpus_refs(world_ids), max_size=6))
    requested = draw(st.none() | st.lists(corpus_refs(world_ids), max_size=6))
    entities = draw(st.lists(st.sampled_from(entity_ids) | st.integers(-5, 10 ** 12), max_size=10))
    canonicals = draw(st.lists(st.sampled_from(canonical_ids) | st.integers(-5, 10 ** 9), max_size=4))
    query = draw(st.sampled_from(QUERIES))
    return accessible, requested, entities, canonicals, query


async def check_data_access(world: World, conn, corpus_filter, entities, canonicals, allowed: set[uuid.UUID]):
    """Every row the data-access module returns for ``corpus_filter`` lies inside ``allowed``."""
    if not valid(corpus_filter if isinstance(corpus_filter, list) else []):
        with pytest.raises(PermissionError):
            await q.select_bridges_from_entities(conn, entities, corpus_filter)
        return
    for bridge in await q.select_bridges_from_entities(conn, entities, corpus_filter):
        assert {bridge.source_corpus_id, bridge.target_corpus_id} <= allowed
        assert world.entity_corpus[bridge.target_entity_id] == bridge.target_corpus_id
        assert world.entity_corpus[bridge.source_entity_id] == bridge.source_corpus_id
    for row in await q.select_bridges(conn, "negentropy", corpus_filter):
        assert set(row["source_corpus_ids"]) | set(row["target_corpus_ids"]) <= allowed
    for canonical_id in canonicals:
        assert {m["corpus_id"] for m in await q.select_members(conn, canonical_id, corpus_filter)} <= allowed
    for entity_id in entities:
        alias = await q.select_alias_of_entity(conn, entity_id, corpus_filter)
        assert alias is None or alias["corpus_id"] in allowed
    links = sum((await q.count_links_by_method(conn, corpus_filter)).values())
    assert links == sum(1 for c in world.entity_corpus.values() if c in allowed)


def assert_within(response, accessible_ids: set[uuid.UUID], allowed: set[uuid.UUID]) -> None:
    """Every hit and bridge lies in the accessible corpora. A hit from an accessible corpus the user did not ask
    for (docs/design.md, risks: "a third corpus") is graph-expanded evidence that names the bridge which brought it."""
    for hit in response.hits:
        assert hit.corpus_id in accessible_ids
        if hit.corpus_id not in allowed:
            assert hit.evidence_type == "graph_expanded" and hit.bridge is not None, hit
            assert hit.bridge.target_corpus_id == hit.corpus_id
        if hit.bridge is not None:
            assert {hit.bridge.source_corpus_id, hit.bridge.target_corpus_id} <= accessible_ids
    for bridge in response.bridges:
        assert {bridge.source_corpus_id, bridge.target_corpus_id} <= accessible_ids


@pytest.fixture(scope="module")
def examples(world):
    return scenario(world.corpus_ids + [world.foreign_corpus_id], sorted(world.entity_corpus), world.canonical_ids)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
async def test_no_row_outside_the_accessible_set_is_ever_returned(world, examples, data):
    accessible, requested, entities, canonicals, query = data.draw(examples)
    kapp = world.kapp
    accessible_ids = valid(accessible)

    # the data-access module on an unrestricted connection: its own corpus filter is the only gate
    async with kapp.db.connection() as conn:
        await check_data_access(world, conn, accessible, entities, canonicals, accessible_ids)

    # inside the RLS-bound reader transaction a wider (or forged) filter still cannot widen the view
    async with kapp.db.scoped(sorted(accessible_ids)) as conn:
        assert await conn.fetchval("SELECT pg_is_in_recovery()") is world.on_replica
        wider = requested if requested is not None else world.corpus_ids + [world.foreign_corpus_id]
        await check_data_access(world, conn, wider, entities, canonicals, accessible_ids & valid(wider))
        for table in ("knowledge", "kg_entity", "kg_entity_alias", "kg_cross_corpus_bridge_corpus"):
            assert {r["corpus_id"] for r in await conn.fetch(f"SELECT corpus_id FROM {table}")} <= accessible_ids
        if len(accessible_ids) < 2:  # a bridge row is visible only when it links two accessible corpora
            assert await conn.fetch("SELECT id FROM kg_cross_corpus_bridge") == []

    allowed = accessible_ids & (valid(requested) if requested is not None else accessible_ids)
    response = await kapp.retrieval.search(query, requested, accessible, limit=8)
    assert_within(response, accessible_ids, allowed)
    # strict scope: nothing from an accessible corpus that was not asked for, not even through a bridge
    strict = await kapp.retrieval.search(query, requested, accessible, limit=8, strict_scope=True)
    assert {hit.corpus_id for hit in strict.hits} <= allowed
    assert_within(strict, accessible_ids, allowed)

    legacy = await kapp.legacy_search(query, requested, accessible, limit=8)
    assert {hit.corpus_id for hit in legacy} <= allowed
    if world.on_replica:
        assert kapp.db.replicas.stats().primary_reads == 0, "every scoped read of the property ran on the standby"


async def test_a_corpus_not_asked_for_shows_only_through_a_bridge_and_never_under_strict_scope(world):
    # the property above draws few scopes that ask for part of what is accessible; here every such scope of three
    # accessible corpora, two of them asked for, with every question
    third_corpus_hits = 0
    for left_out in world.corpus_ids:
        for unasked in (c for c in world.corpus_ids if c != left_out):
            accessible = [c for c in world.corpus_ids if c != left_out]
            requested = [c for c in accessible if c != unasked]
            for query in QUERIES:
                response = await world.kapp.retrieval.search(query, requested, accessible, limit=8)
                assert_within(response, set(accessible), set(requested))
                third_corpus_hits += sum(1 for hit in response.hits if hit.corpus_id == unasked)
                strict = await world.kapp.retrieval.search(query, requested, accessible, limit=8, strict_scope=True)
                assert {hit.corpus_id for hit in strict.hits} <= set(requested)
    assert third_corpus_hits > 0  # the bridges of this world do bring evidence from the corpus not asked for

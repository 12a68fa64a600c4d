"""The canonical layer the normal ingest pipeline builds from the demo corpora (read only)."""
import pytest

from knowledge.db.queries import canonical as q

BRIDGE_ENTITIES = {
    # normalised name -> corpora it must span (demo/corpora/README.md)
    "openai": {"team_notes", "papers", "project_docs"},
    "auroravectorengine": {"team_notes", "papers", "project_docs"},
    "cobaltsystems": {"team_notes", "project_docs"},
    "mariasantos": {"team_notes", "papers", "project_docs"},
}


async def _canonical(conn, name_normalized: str, corpus_ids) -> dict:
    [row] = await q.select_canonicals_by_reference(conn, "negentropy", name_normalized, corpus_ids)
    return dict(row)


@pytest.mark.parametrize("name", sorted(BRIDGE_ENTITIES))
async def test_demo_bridge_entities_are_one_canonical_across_corpora(demo_app, name):
    kapp, corpora = demo_app
    ids = [c.id for c in corpora.values()]
    async with kapp.db.connection() as conn:
        canonical = await _canonical(conn, name, ids)
        members = await q.select_members(conn, canonical["id"], ids)
    assert {m["corpus_name"] for m in members} == BRIDGE_ENTITIES[name]
    assert not canonical["is_stopword_like"] and not canonical["is_under_review"]


async def test_openai_spellings_end_on_the_openai_canonical(demo_app):
    kapp, corpora = demo_app
    ids = [c.id for c in corpora.values()]
    async with kapp.db.connection() as conn:
        canonical = await _canonical(conn, "openai", ids)
        spellings = await conn.fetch(
            """SELECT DISTINCT unnest(e.aliases) AS spelling FROM kg_entity_alias a
               JOIN kg_entity e ON e.id = a.local_entity_id WHERE a.canonical_id = $1""", canonical["id"])
    assert {"OpenAI", "Open AI", "OpenAI Inc."} <= {r["spelling"] for r in spellings}


async def test_apple_the_company_and_apple_the_fruit_stay_apart(demo_app):
    kapp, corpora = demo_app
    ids = [c.id for c in corpora.values()]
    async with kapp.db.connection() as conn:
        apples = await q.select_canonicals_by_reference(conn, "negentropy", "Apple Inc.", ids)  # key "apple"
        members = {r["canonical_type"]: {m["corpus_name"] for m in await q.select_members(conn, r["id"], ids)}
                   for r in apples}
    assert len(apples) == 2
    assert members == {"ORG": {"project_docs"}, "FOOD": {"team_notes"}}


async def test_bridges_from_the_cobalt_decision_reach_project_docs_only_when_in_scope(demo_app):
    kapp, corpora = demo_app
    notes, docs, papers = corpora["team_notes"], corpora["project_docs"], corpora["papers"]
    async with kapp.db.connection() as conn:
        cobalt = await conn.fetchval("SELECT id FROM kg_entity WHERE corpus_id = $1 AND name_normalized = $2",
                                     notes.id, "cobaltsystems")
    async with kapp.db.scoped([notes.id, docs.id]) as conn:
        reached = await q.select_bridges_from_entities(conn, [cobalt], [notes.id, docs.id])
    async with kapp.db.scoped([notes.id, papers.id]) as conn:
        without_docs = await q.select_bridges_from_entities(conn, [cobalt], [notes.id, papers.id, docs.id])
    shared = [br for br in reached if br.bridge_type == "shared_entity"]
    assert [(br.canonical_name, br.target_corpus_id, br.hops) for br in shared] == [("Cobalt Systems", docs.id, 1)]
    assert {br.target_corpus_id for br in reached} == {docs.id}
    assert all(br.target_corpus_id == papers.id for br in without_docs)


async def test_demo_link_method_distribution_meets_the_design_targets(demo_app):
    kapp, _ = demo_app
    stats = await kapp.canonical.stats()
    async with kapp.db.connection() as conn:
        assert stats.total_links == await conn.fetchval("SELECT count(*) FROM kg_entity")  # every entity linked
    assert stats.decision_share("auto_string") >= 0.40
    assert stats.review_share <= 0.05
    assert stats.pending_reviews < 1000
    assert stats.cross_corpus_canonicals >= 4 and stats.bridges.get("shared_entity", 0) >= 4


async def test_rls_scoped_reads_of_the_demo_see_only_the_setting(demo_app):
    kapp, corpora = demo_app
    notes = corpora["team_notes"]
    async with kapp.db.scoped([notes.id]) as conn:
        for table in ("knowledge", "kg_entity", "kg_entity_alias"):
            rows = await conn.fetch(f"SELECT * FROM {table}")
            assert rows and {r["corpus_id"] for r in rows} == {notes.id}, table

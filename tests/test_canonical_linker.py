"""Canonical linker on a real database: link methods, thresholds, types, increments, centroids, hubs, apps."""
import asyncpg
import numpy as np
import pytest

from config.settings import LinkerSettings
from knowledge.canonical.layer import CanonicalLayer
from knowledge.corpora import CorpusRegistry
from knowledge.db.queries import canonical as q
from knowledge.ingest.documents import documents_from_texts
from knowledge.metrics import canonical_build_lag_seconds
from tests.canonical_support import add_entity, add_relation, canonical_of, corpora, random_unit, unit, with_cosine


async def test_normalised_spellings_in_three_corpora_share_one_canonical(kapp):
    a, b, c = await corpora(kapp, "alpha", "beta", "gamma")
    async with kapp.db.connection() as conn:
        ids = [await add_entity(conn, a, "OpenAI", "ORG"), await add_entity(conn, b, "Open AI", "ORG"),
               await add_entity(conn, c, "OpenAI Inc.", "ORG")]
    for corpus in (a, b, c):
        await kapp.canonical.link_corpus(corpus)
    async with kapp.db.connection() as conn:
        rows = [await canonical_of(conn, i) for i in ids]
        bridges = await q.select_bridges(conn, kapp.corpora.app_name, [a.id, b.id, c.id])
    assert len({r["id"] for r in rows}) == 1
    assert [r["link_method"] for r in rows] == ["new_canonical", "auto_string", "auto_string"]
    assert rows[0]["canonical_name_normalized"] == "openai" and rows[0]["member_count"] == 3
    assert [(br["bridge_type"], set(br["source_corpus_ids"])) for br in bridges] == [
        ("shared_entity", {a.id, b.id, c.id})]


async def test_apple_org_and_apple_food_stay_apart_even_with_identical_embeddings(kapp):
    a, b = await corpora(kapp, "tech", "kitchen")
    vector = random_unit(np.random.default_rng(1))
    async with kapp.db.connection() as conn:
        org = await add_entity(conn, a, "Apple", "ORG", vector)
        food = await add_entity(conn, b, "Apple", "FOOD", vector)
    await kapp.canonical.link_corpus(a)
    report = await kapp.canonical.link_corpus(b)
    async with kapp.db.connection() as conn:
        org_row, food_row = await canonical_of(conn, org), await canonical_of(conn, food)
        bridges = await q.select_bridges_from_entities(conn, [org, food], [a.id, b.id])
    assert report.links == {"new_canonical": 1}
    assert org_row["id"] != food_row["id"]
    assert (org_row["canonical_type"], food_row["canonical_type"]) == ("ORG", "FOOD")
    assert bridges == []


async def test_untyped_entity_joins_the_typed_canonical_of_its_name(kapp):
    a, b = await corpora(kapp, "notes", "docs")
    async with kapp.db.connection() as conn:
        untyped = await add_entity(conn, a, "Cobalt Systems", "OTHER")
        typed = await add_entity(conn, b, "Cobalt Systems", "ORG")
    await kapp.canonical.link_corpus(a)
    await kapp.canonical.link_corpus(b)
    async with kapp.db.connection() as conn:
        first, second = await canonical_of(conn, untyped), await canonical_of(conn, typed)
    assert first["id"] == second["id"] and second["canonical_type"] == "ORG"
    assert second["link_method"] == "auto_string"


async def test_embedding_thresholds_decide_auto_review_and_new(kapp):
    base_corpus, review_c, far_c, person_c, auto_c = await corpora(kapp, "base", "rev", "far", "person", "auto")
    rng = np.random.default_rng(7)
    base = random_unit(rng)
    async with kapp.db.connection() as conn:
        anchor = await add_entity(conn, base_corpus, "Helios Platform", "PRODUCT", base)
        near_review = await add_entity(conn, review_c, "Sunlight Suite", "PRODUCT", with_cosine(base, 0.80, rng))
        far = await add_entity(conn, far_c, "Tidal Stream", "PRODUCT", with_cosine(base, 0.50, rng))
        other_type = await add_entity(conn, person_c, "Helio Person", "PERSON", with_cosine(base, 0.99, rng))
        near_auto = await add_entity(conn, auto_c, "Helios Plattform", "PRODUCT", with_cosine(base, 0.95, rng))
    for corpus in (base_corpus, review_c, far_c, person_c, auto_c):
        await kapp.canonical.link_corpus(corpus)
    async with kapp.db.connection() as conn:
        rows = {name: await canonical_of(conn, i) for name, i in
                [("anchor", anchor), ("review", near_review), ("far", far), ("person", other_type),
                 ("auto", near_auto)]}
        queue = await q.select_reviews(conn, kapp.corpora.app_name, [review_c.id, base_corpus.id])
        review_bridges = await q.select_bridges_from_entities(conn, [near_review], [review_c.id, base_corpus.id])
    assert rows["auto"]["id"] == rows["anchor"]["id"] and rows["auto"]["link_method"] == "auto_embedding"
    assert rows["auto"]["confidence"] == pytest.approx(0.95, abs=1e-4)
    assert rows["review"]["link_method"] == "review" and rows["review"]["id"] != rows["anchor"]["id"]
    assert rows["review"]["is_under_review"] and not rows["anchor"]["is_under_review"]
    assert [(r["local_entity_id"], r["candidate_canonical_id"]) for r in queue] == [(near_review, rows["anchor"]["id"])]
    assert queue[0]["similarity"] == pytest.approx(0.80, abs=1e-4)
    assert review_bridges == []
    assert rows["far"]["link_method"] == "new_canonical" and rows["far"]["id"] != rows["anchor"]["id"]
    assert rows["person"]["link_method"] == "new_canonical" and rows["person"]["canonical_type"] == "PERSON"


async def test_linking_is_incremental_and_follows_changed_rows(kapp):
    a, b = await corpora(kapp, "one", "two")
    async with kapp.db.connection() as conn:
        first = await add_entity(conn, a, "Lumen Gateway", "PRODUCT", degree=2)
        await add_entity(conn, b, "Lumen Gateway", "PRODUCT", degree=3)
    assert (await kapp.canonical.link_corpus(a)).linked == 1
    assert (await kapp.canonical.link_corpus(b)).links == {"auto_string": 1}
    again = await kapp.canonical.link_corpus(a)
    assert (again.linked, again.kept) == (0, 0)

    async with kapp.db.connection() as conn:
        # as written by a graph transaction that started before the last link run and committed after it
        await conn.execute("UPDATE kg_entity SET degree = 10, updated_at = now() - interval '1 hour' WHERE id = $1",
                           first)
    kept = await kapp.canonical.link_corpus(a)
    async with kapp.db.connection() as conn:
        row = await canonical_of(conn, first)
    assert (kept.linked, kept.kept) == (0, 1) and row["degree"] == 13

    async with kapp.db.connection() as conn:
        await conn.execute("UPDATE kg_entity SET canonical_name = 'Lumen Router', updated_at = clock_timestamp() "
                           "WHERE id = $1", first)
    renamed = await kapp.canonical.link_corpus(a)
    async with kapp.db.connection() as conn:
        moved = await canonical_of(conn, first)
    assert renamed.links == {"new_canonical": 1}
    assert moved["canonical_name"] == "Lumen Router" and moved["id"] != row["id"]


async def test_centroid_is_the_renormalised_member_mean_and_follows_unlinking(kapp):
    a, b = await corpora(kapp, "left", "right")
    rng = np.random.default_rng(3)
    e1, e2 = random_unit(rng), random_unit(rng)
    async with kapp.db.connection() as conn:
        first = await add_entity(conn, a, "Quill Resolver", "PRODUCT", e1)
        second = await add_entity(conn, b, "Quill Resolver", "PRODUCT", e2)
    await kapp.canonical.link_corpus(a)
    await kapp.canonical.link_corpus(b)
    async with kapp.db.connection() as conn:
        row = await canonical_of(conn, first)
        assert np.allclose(row["primary_embedding"].to_numpy(), unit(e1 + e2), atol=1e-5)
        # a corpus graph rebuild deletes entities: their aliases cascade away behind the linker's back
        await conn.execute("DELETE FROM kg_entity WHERE id = $1", second)
    await kapp.canonical.link_corpus(a)
    async with kapp.db.connection() as conn:
        row = await canonical_of(conn, first)
        assert np.allclose(row["primary_embedding"].to_numpy(), e1, atol=1e-5)
        assert row["member_count"] == 1 and not row["needs_refresh"]
        await conn.execute("DELETE FROM kg_entity WHERE id = $1", first)
    await kapp.canonical.link_corpus(b)
    async with kapp.db.connection() as conn:
        assert await conn.fetchval("SELECT count(*) FROM kg_entity_canonical") == 0


async def test_hub_canonicals_are_stopword_like_and_never_bridge(kapp):
    layer = CanonicalLayer(kapp.db, LinkerSettings(canonical_hub_degree_threshold=10), kapp.corpora.app_name)
    a, b = await corpora(kapp, "hub_a", "hub_b")
    async with kapp.db.connection() as conn:
        hub_a = await add_entity(conn, a, "Kestrel Labs", "ORG", degree=6)
        await add_entity(conn, b, "Kestrel Labs", "ORG", degree=6)
        small_a = await add_entity(conn, a, "Maria Santos", "PERSON", degree=1)
        await add_entity(conn, b, "Maria Santos", "PERSON", degree=1)
        await add_relation(conn, a, small_a, hub_a, "WORKS_AT")
    await layer.link_corpus(a)
    await layer.link_corpus(b)
    async with kapp.db.connection() as conn:
        hub = await canonical_of(conn, hub_a)
        bridges = await q.select_bridges_from_entities(conn, [hub_a, small_a], [a.id, b.id])
        listed = await q.select_bridges(conn, kapp.corpora.app_name, [a.id, b.id])
    assert hub["degree"] == 12 and hub["is_stopword_like"]
    assert {(br.canonical_name, br.bridge_type) for br in bridges} == {("Maria Santos", "shared_entity")}
    assert {(r["source_name"], r["bridge_type"]) for r in listed} == {("Maria Santos", "shared_entity")}
    assert (await layer.stats()).hubs == 1


async def test_two_apps_with_the_same_entity_name_get_two_canonical_rows(kapp):
    mine = await kapp.corpora.create("shared_name")
    other_registry = CorpusRegistry(kapp.db, "other_app")
    theirs = await other_registry.create("shared_name")
    async with kapp.db.connection() as conn:
        mine_id = await add_entity(conn, mine, "OpenAI", "ORG")
        theirs_id = await add_entity(conn, theirs, "OpenAI", "ORG")
    await kapp.canonical.link_corpus(mine)
    await kapp.canonical.link_corpus(theirs)
    async with kapp.db.connection() as conn:
        rows = await conn.fetch("SELECT app_scope FROM kg_entity_canonical WHERE canonical_name_normalized = 'openai' "
                                "ORDER BY app_scope")
        assert [r["app_scope"] for r in rows] == ["negentropy", "other_app"]
        my_canonical = (await canonical_of(conn, mine_id))["id"]
        # the schema itself refuses an alias that crosses app_scope
        await conn.execute("DELETE FROM kg_entity_alias WHERE local_entity_id = $1", theirs_id)
        with pytest.raises(asyncpg.ForeignKeyViolationError):
            await conn.execute(
                """INSERT INTO kg_entity_alias (canonical_id, local_entity_id, corpus_id, app_name, confidence,
                                                link_method, linked_name, linked_type, entity_updated_at)
                   VALUES ($1, $2, $3, 'other_app', 1, 'manual', 'OpenAI', 'ORG', now())""",
                my_canonical, theirs_id, theirs.id)
        with pytest.raises(ValueError, match="another app"):
            await q.insert_aliases(conn, [q.NewAlias(my_canonical, theirs_id, 1.0, "manual")])
    with pytest.raises(PermissionError, match="not corpora of app"):
        await kapp.canonical.link_corpora([theirs])


async def test_ingest_links_new_entities_through_the_pipeline(kapp):
    notes, docs = await corpora(kapp, "team", "projects")
    lag_before = _histogram_count(canonical_build_lag_seconds)
    await kapp.ingest_documents(notes, documents_from_texts(
        [("vendor", "Decision: the Atlas team picked Cobalt Systems as the labeling vendor for the backlog.")]))
    await kapp.ingest_documents(docs, documents_from_texts(
        [("background", "Microsoft acquired Cobalt Systems in November 2023. Cobalt Systems is located in Kraków.")]))
    async with kapp.db.connection() as conn:
        rows = await conn.fetch(
            """SELECT c.canonical_name, array_agg(DISTINCT a.corpus_id) AS corpora
               FROM kg_entity_canonical c JOIN kg_entity_alias a ON a.canonical_id = c.id
               WHERE c.canonical_name_normalized = 'cobaltsystems' GROUP BY c.id""")
        unlinked = await conn.fetchval("SELECT count(*) FROM kg_entity e WHERE NOT EXISTS "
                                       "(SELECT 1 FROM kg_entity_alias a WHERE a.local_entity_id = e.id)")
    assert len(rows) == 1 and set(rows[0]["corpora"]) == {notes.id, docs.id}
    assert unlinked == 0
    assert _histogram_count(canonical_build_lag_seconds) == lag_before + 2


def _histogram_count(histogram) -> float:
    return next(s.value for m in histogram.collect() for s in m.samples if s.name.endswith("_count"))


async def test_nearest_search_only_where_another_corpus_has_a_canonical_of_the_type(kapp):
    first, second = await corpora(kapp, "first", "second")
    rng = np.random.default_rng(11)
    app = kapp.corpora.app_name
    async with kapp.db.connection() as conn:
        await add_entity(conn, first, "Helios Platform", "PRODUCT", random_unit(rng))
        await add_entity(conn, first, "Ada Lovelace", "PERSON", random_unit(rng))
        await add_entity(conn, first, "Unembedded Org", "ORG")
        assert await q.select_searchable_types(conn, app, [first.id, second.id], ["PRODUCT", "PERSON"]) == set()
    await kapp.canonical.link_corpus(first)
    async with kapp.db.connection() as conn:
        # every canonical has a member in the first corpus; the second can find the typed, embedded ones
        found = await q.select_searchable_types(conn, app, [first.id, second.id], ["PRODUCT", "PERSON", "ORG"])
        assert found == {(second.id, "PRODUCT"), (second.id, "PERSON")}
        twin = await add_entity(conn, second, "Helios Suite", "PRODUCT", with_cosine(random_unit(rng), 0.5, rng))
    await kapp.canonical.link_corpus(second)
    async with kapp.db.connection() as conn:
        assert (await canonical_of(conn, twin))["link_method"] == "new_canonical"
        # the second corpus's canonical is a candidate for the first corpus now
        found = await q.select_searchable_types(conn, app, [first.id, second.id], ["PRODUCT", "PERSON"])
        assert found == {(second.id, "PRODUCT"), (second.id, "PERSON"), (first.id, "PRODUCT")}

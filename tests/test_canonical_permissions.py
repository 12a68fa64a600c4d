"""Bridges and the permission layers of the canonical layer: the corpus-filter guard and row-level security."""
import uuid

import pytest

from knowledge.db.queries import canonical as q
from tests.canonical_support import add_entity, add_relation, corpora

SCOPE = "negentropy"
# every data-access function that reads kg_entity_alias or the bridge tables, called with a given corpus filter
READERS = {
    "select_bridges_from_entities": lambda conn, f: q.select_bridges_from_entities(conn, [1], f),
    "select_bridges": lambda conn, f: q.select_bridges(conn, SCOPE, f),
    "count_bridges_by_type": lambda conn, f: q.count_bridges_by_type(conn, SCOPE, f),
    "rebuild_bridges": lambda conn, f: q.rebuild_bridges(conn, SCOPE, [1], f),
    "refresh_canonicals": lambda conn, f: q.refresh_canonicals(conn, [1], f, 1000),
    "select_canonicals_by_reference": lambda conn, f: q.select_canonicals_by_reference(conn, SCOPE, "x", f),
    "select_entities_to_link": lambda conn, f: q.select_entities_to_link(conn, f),
    "move_aliases": lambda conn, f: q.move_aliases(conn, [1], 1, "manual", f),
    "delete_aliases": lambda conn, f: q.delete_aliases(conn, [1], f),
    "touch_aliases": lambda conn, f: q.touch_aliases(conn, [1], f),
    "select_members": lambda conn, f: q.select_members(conn, 1, f),
    "select_alias_of_entity": lambda conn, f: q.select_alias_of_entity(conn, 1, f),
    "select_entity_ids_by_name": lambda conn, f: q.select_entity_ids_by_name(conn, "x", f),
    "count_links_by_method": lambda conn, f: q.count_links_by_method(conn, f),
    "select_layer_summary": lambda conn, f: q.select_layer_summary(conn, SCOPE, f),
    "select_canonical_ids_of_corpora": lambda conn, f: q.select_canonical_ids_of_corpora(conn, f),
    "delete_pending_reviews_of_entities": lambda conn, f: q.delete_pending_reviews_of_entities(conn, [1], f),
    "select_reviews": lambda conn, f: q.select_reviews(conn, SCOPE, f),
    "select_review": lambda conn, f: q.select_review(conn, 1, SCOPE, f),
    "count_pending_reviews": lambda conn, f: q.count_pending_reviews(conn, SCOPE, f),
    "select_decisions": lambda conn, f: q.select_decisions(conn, SCOPE, f),
    "select_rejections": lambda conn, f: q.select_rejections(conn, SCOPE, f),
    "select_searchable_types": lambda conn, f: q.select_searchable_types(conn, SCOPE, f, ["ORG"]),
    "select_nearest_canonicals_many": lambda conn, f: q.select_nearest_canonicals_many(
        conn, SCOPE, [("ORG", [0.1] * 384, c) for c in (f if isinstance(f, list) and f else
                                                        [None if isinstance(f, list) else f])]),
}


@pytest.mark.parametrize("corpus_filter", [None, [], ["not-a-uuid", ""], "a-single-string"])
@pytest.mark.parametrize("reader", sorted(READERS))
async def test_every_alias_and_bridge_reader_refuses_a_missing_corpus_filter(reader, corpus_filter):
    # no connection at all: the refusal happens before any SQL is sent
    with pytest.raises(PermissionError):
        await READERS[reader](None, corpus_filter)


def test_the_reader_list_covers_every_function_touching_alias_or_bridge_tables():
    import inspect

    touching = set()
    for name, function in inspect.getmembers(q, inspect.iscoroutinefunction):
        body = inspect.getsource(function)
        module_constants = vars(inspect.getmodule(function)).items()
        text = body + "".join(value for key, value in module_constants
                              if key.isupper() and isinstance(value, str) and key in body)
        # ne_entity_bridges (migration 018) reads both tables as the owner
        if any(table in text for table in ("kg_entity_alias", "kg_cross_corpus_bridge", "ne_entity_bridges")):
            touching.add(name)
    writers = {"insert_aliases"}  # takes corpus and app from the entity rows, not from a caller's filter
    assert {"select_bridges_from_entities", "select_members", "rebuild_bridges"} <= touching
    assert touching - writers <= set(READERS)


@pytest.fixture
async def linked_pair(kapp):
    """Corpus a: Maria Santos -WORKS_AT-> Kestrel Labs, Quill Resolver; corpus b: Kestrel Labs, Quill Resolver;
    corpus c: Quill Resolver only."""
    a, b, c = await corpora(kapp, "perm_a", "perm_b", "perm_c")
    async with kapp.db.connection() as conn:
        maria = await add_entity(conn, a, "Maria Santos", "PERSON", degree=1)
        kestrel_a = await add_entity(conn, a, "Kestrel Labs", "ORG", degree=1)
        quill_a = await add_entity(conn, a, "Quill Resolver", "PRODUCT")
        await add_relation(conn, a, maria, kestrel_a, "WORKS_AT")
        kestrel_b = await add_entity(conn, b, "Kestrel Labs", "ORG")
        quill_b = await add_entity(conn, b, "Quill Resolver", "PRODUCT")
        quill_c = await add_entity(conn, c, "Quill Resolver", "PRODUCT")
    for corpus in (a, b, c):
        await kapp.canonical.link_corpus(corpus)
    return kapp, (a, b, c), dict(maria=maria, kestrel_a=kestrel_a, kestrel_b=kestrel_b, quill_a=quill_a,
                                 quill_b=quill_b, quill_c=quill_c)


async def test_bridges_follow_shared_entities_and_relation_paths_inside_the_filter(linked_pair):
    kapp, (a, b, c), ids = linked_pair
    async with kapp.db.connection() as conn:
        everything = await q.select_bridges_from_entities(conn, [ids["maria"], ids["quill_a"]], [a.id, b.id, c.id])
        only_ab = await q.select_bridges_from_entities(conn, [ids["maria"], ids["quill_a"]], [a.id, b.id])
        source_outside = await q.select_bridges_from_entities(conn, [ids["maria"], ids["quill_a"]], [b.id, c.id])
        listed = await q.select_bridges(conn, SCOPE, [a.id, c.id])
    assert {(br.source_entity_id, br.target_entity_id, br.bridge_type, br.hops, br.canonical_name)
            for br in everything} == {
        (ids["maria"], ids["kestrel_b"], "relation_path", 2, "Kestrel Labs"),
        (ids["quill_a"], ids["quill_b"], "shared_entity", 1, "Quill Resolver"),
        (ids["quill_a"], ids["quill_c"], "shared_entity", 1, "Quill Resolver"),
    }
    assert {br.target_corpus_id for br in only_ab} == {b.id}
    assert all(br.source_corpus_id == a.id for br in everything)
    assert source_outside == []
    # listing through corpora {a, c}: only the Quill bridge, and it names no corpus outside the filter
    assert [(r["source_name"], set(r["source_corpus_ids"]), set(r["target_corpus_ids"])) for r in listed] == [
        ("Quill Resolver", {a.id, c.id}, {a.id, c.id})]


async def test_a_rebuild_within_one_corpus_with_members_writes_no_bridge_and_removes_the_old(linked_pair):
    kapp, (a, b, c), ids = linked_pair
    async with kapp.db.connection() as conn:
        canonicals = await q.select_canonical_ids_of_corpora(conn, [a.id, b.id, c.id])
        described = lambda rows: sorted((r["bridge_type"], r["source_name"]) for r in rows)  # noqa: E731
        linked = described(await q.select_bridges(conn, SCOPE, [a.id, b.id, c.id]))
        empty = await kapp.corpora.create("perm_empty")
        assert await q.rebuild_bridges(conn, SCOPE, canonicals, [a.id, empty.id]) == 0
        assert await q.select_bridges(conn, SCOPE, [a.id, b.id, c.id]) == []
        assert await q.rebuild_bridges(conn, SCOPE, canonicals, [a.id, b.id, c.id]) == len(linked) == 3
        assert described(await q.select_bridges(conn, SCOPE, [a.id, b.id, c.id])) == linked


async def test_forged_ids_return_nothing(linked_pair):
    kapp, (a, b, _), ids = linked_pair
    async with kapp.db.connection() as conn:
        assert await q.select_bridges_from_entities(conn, [ids["quill_a"]], [uuid.uuid4(), "garbage"]) == []
        assert await q.select_bridges_from_entities(conn, [10 ** 12, -1], [a.id, b.id]) == []
        assert await q.select_members(conn, 10 ** 12, [a.id]) == []


async def test_rls_hides_other_corpora_from_raw_sql(linked_pair):
    kapp, (a, b, c), ids = linked_pair
    tables = ["knowledge", "kg_entity", "kg_entity_alias", "kg_canonical_review", "kg_canonical_decision",
              "kg_canonical_rejection", "kg_cross_corpus_bridge_corpus"]
    async with kapp.db.scoped([a.id]) as conn:
        for table in tables:
            rows = await conn.fetch(f"SELECT corpus_id FROM {table}")
            assert {r["corpus_id"] for r in rows} <= {a.id}, table
        assert {r["corpus_id"] for r in await conn.fetch("SELECT * FROM kg_entity_alias")} == {a.id}
        canonical_names = {r["canonical_name"]
                           for r in await conn.fetch("SELECT canonical_name FROM kg_entity_canonical")}
        assert canonical_names == {"Maria Santos", "Kestrel Labs", "Quill Resolver"}
        # a bridge is visible only when it links two corpora of the setting
        assert await conn.fetch("SELECT * FROM kg_cross_corpus_bridge") == []
        # even a query that forgets its filter cannot widen the view
        assert await q.select_bridges_from_entities(conn, list(ids.values()), [a.id, b.id, c.id]) == []
    async with kapp.db.scoped([b.id]) as conn:
        assert {r["corpus_id"] for r in await conn.fetch("SELECT * FROM kg_entity_alias")} == {b.id}
        assert {r["canonical_name"] for r in await conn.fetch("SELECT canonical_name FROM kg_entity_canonical")} == {
            "Kestrel Labs", "Quill Resolver"}
    async with kapp.db.scoped([a.id, c.id]) as conn:
        bridges = await conn.fetch("SELECT canonical_source_id, bridge_type FROM kg_cross_corpus_bridge")
        assert [r["bridge_type"] for r in bridges] == ["shared_entity"]
        found = await q.select_bridges_from_entities(conn, [ids["quill_a"], ids["maria"]], [a.id, b.id, c.id])
        assert {(br.target_entity_id, br.target_corpus_id) for br in found} == {(ids["quill_c"], c.id)}

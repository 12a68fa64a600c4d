"""Review queue and manual decisions: accept, reject, merge, split, and their survival across rebuilds."""
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from config.settings import reset_settings_cache
from knowledge.canonical.review import CanonicalNotFoundError
from knowledge.db.queries import canonical as q
from tests.canonical_support import add_entity, canonical_of, corpora, random_unit, with_cosine


async def _review_case(kapp):
    """Corpus a holds 'Atlas Platform'; corpus b an entity 0.80 similar to it: one pending review item."""
    a, b = await corpora(kapp, "reviewed_a", "reviewed_b")
    rng = np.random.default_rng(11)
    base = random_unit(rng)
    async with kapp.db.connection() as conn:
        anchor = await add_entity(conn, a, "Atlas Platform", "PRODUCT", base)
        probe = await add_entity(conn, b, "Atlas Labelling Stack", "PRODUCT", with_cosine(base, 0.80, rng))
    await kapp.canonical.link_corpus(a)
    await kapp.canonical.link_corpus(b)
    return a, b, anchor, probe


async def _pending(kapp) -> int:
    return (await kapp.canonical.stats()).pending_reviews


async def test_accept_merges_into_the_candidate_and_survives_rebuild(kapp):
    a, b, anchor, probe = await _review_case(kapp)
    [item] = await kapp.canonical.review_queue()
    assert (item.entity_id, item.candidate_name) == (probe, "Atlas Platform")

    await kapp.canonical.accept(item.id)
    async with kapp.db.connection() as conn:
        anchor_row, probe_row = await canonical_of(conn, anchor), await canonical_of(conn, probe)
        bridges = await q.select_bridges_from_entities(conn, [probe], [a.id, b.id])
    assert probe_row["id"] == anchor_row["id"] and probe_row["link_method"] == "review"
    assert not probe_row["is_under_review"] and await _pending(kapp) == 0
    assert [(br.target_entity_id, br.bridge_type) for br in bridges] == [(anchor, "shared_entity")]
    with pytest.raises(ValueError, match="already accepted"):
        await kapp.canonical.accept(item.id)

    await kapp.canonical.rebuild()
    async with kapp.db.connection() as conn:
        anchor_row, probe_row = await canonical_of(conn, anchor), await canonical_of(conn, probe)
    assert probe_row["id"] == anchor_row["id"] and probe_row["link_method"] == "review"
    assert await _pending(kapp) == 0


async def test_reject_keeps_the_entity_apart_and_survives_rebuild(kapp):
    _, _, anchor, probe = await _review_case(kapp)
    [item] = await kapp.canonical.review_queue()
    await kapp.canonical.reject(item.id)
    async with kapp.db.connection() as conn:
        probe_row = await canonical_of(conn, probe)
    assert probe_row["id"] != (await _canonical_id(kapp, anchor)) and not probe_row["is_under_review"]
    assert await _pending(kapp) == 0

    report = await kapp.canonical.rebuild()
    async with kapp.db.connection() as conn:
        probe_row = await canonical_of(conn, probe)
    assert report.reviews_created == 0 and await _pending(kapp) == 0
    assert probe_row["id"] != (await _canonical_id(kapp, anchor)) and probe_row["link_method"] == "review"


async def _canonical_id(kapp, entity_id: int) -> int:
    async with kapp.db.connection() as conn:
        return (await canonical_of(conn, entity_id))["id"]


async def test_manual_merge_survives_rebuild_and_a_corpus_graph_rebuild(kapp):
    a, b = await corpora(kapp, "merge_a", "merge_b")
    async with kapp.db.connection() as conn:
        helios = await add_entity(conn, a, "Project Helios", "PRODUCT")
        short = await add_entity(conn, b, "Helios", "PRODUCT")
    await kapp.canonical.link_corpus(a)
    await kapp.canonical.link_corpus(b)
    assert await _canonical_id(kapp, helios) != await _canonical_id(kapp, short)

    outcome = await kapp.canonical.merge("Project Helios", "Helios")
    assert outcome.moved == 1 and await _canonical_id(kapp, helios) == await _canonical_id(kapp, short)

    await kapp.canonical.rebuild()
    async with kapp.db.connection() as conn:
        merged, other = await canonical_of(conn, helios), await canonical_of(conn, short)
    assert merged["id"] == other["id"] and other["link_method"] == "manual"
    assert merged["canonical_name"] == "Project Helios"

    # `graph build` recreates the corpus's entities with new ids; the decision is keyed on stable keys
    async with kapp.db.connection() as conn:
        await conn.execute("DELETE FROM kg_entity WHERE id = $1", short)
        recreated = await add_entity(conn, b, "Helios", "PRODUCT")
    await kapp.canonical.link_corpus(b)
    async with kapp.db.connection() as conn:
        again = await canonical_of(conn, recreated)
    assert again["id"] == merged["id"] and again["link_method"] == "manual"


async def test_split_detaches_one_entity_and_survives_rebuild(kapp):
    a, b, c = await corpora(kapp, "split_a", "split_b", "split_c")
    async with kapp.db.connection() as conn:
        ids = [await add_entity(conn, corpus, "Orion", "PRODUCT") for corpus in (a, b, c)]
    for corpus in (a, b, c):
        await kapp.canonical.link_corpus(corpus)
    original = await _canonical_id(kapp, ids[0])

    outcome = await kapp.canonical.split("Orion", "split_b")
    assert outcome.moved == 1
    assert await _canonical_id(kapp, ids[1]) not in (original, await _canonical_id(kapp, ids[2]))
    with pytest.raises(ValueError, match="only member"):
        await kapp.canonical.split(str(ids[1]))

    await kapp.canonical.rebuild()
    kept = {await _canonical_id(kapp, ids[0]), await _canonical_id(kapp, ids[2])}
    assert len(kept) == 1 and await _canonical_id(kapp, ids[1]) not in kept
    async with kapp.db.connection() as conn:
        assert (await canonical_of(conn, ids[1]))["link_method"] == "manual"


async def test_bad_references_and_type_conflicts_are_refused(kapp):
    a, b = await corpora(kapp, "ref_a", "ref_b")
    async with kapp.db.connection() as conn:
        await add_entity(conn, a, "Apple", "ORG")
        await add_entity(conn, b, "Apple", "FOOD")
        await add_entity(conn, b, "Mindgrain", "ORG")
    await kapp.canonical.link_corpus(a)
    await kapp.canonical.link_corpus(b)
    with pytest.raises(ValueError, match="several canonical entities"):
        await kapp.canonical.merge("Apple", "Mindgrain")
    with pytest.raises(CanonicalNotFoundError):
        await kapp.canonical.merge("Mindgrain", "Nothing Such")
    with pytest.raises(CanonicalNotFoundError):
        await kapp.canonical.accept(424242)
    found = {c["canonical_type"]: c["id"] for c, _ in await kapp.canonical.members("apple")}
    with pytest.raises(ValueError, match="type conflict"):
        await kapp.canonical.merge(str(found["ORG"]), str(found["FOOD"]))
    outcome = await kapp.canonical.merge(str(found["ORG"]), str(found["FOOD"]), allow_type_conflict=True)
    assert outcome.moved == 1


@pytest.fixture
async def cli_database(kapp):
    a, b = await corpora(kapp, "cli_a", "cli_b")
    async with kapp.db.connection() as conn:
        await add_entity(conn, a, "Tidepool Analytics", "ORG")
        await add_entity(conn, b, "Tidepool", "ORG")
    return kapp.db.dsn


def test_cli_link_review_merge_and_stats(cli_database, monkeypatch, tmp_path):
    """The commands run as a user runs them: their own process-level app on the database, asyncio.run each."""
    from cli.main import app

    monkeypatch.setenv("NE_DATABASE_URL", cli_database)
    monkeypatch.setenv("NE_DATA_DIR", str(tmp_path))
    reset_settings_cache()
    runner = CliRunner()
    try:
        linked = runner.invoke(app, ["canonical", "link"])
        assert linked.exit_code == 0, linked.output
        assert "2 entities linked" in linked.output
        assert "empty" in runner.invoke(app, ["canonical", "review"]).output
        merged = runner.invoke(app, ["canonical", "merge", "Tidepool Analytics", "Tidepool"])
        assert merged.exit_code == 0 and "merged 1 entities into Tidepool Analytics" in merged.output
        shown = runner.invoke(app, ["canonical", "show", "Tidepool Analytics"])
        assert "cli_a" in shown.output and "cli_b" in shown.output and "manual" in shown.output
        missing = runner.invoke(app, ["canonical", "accept", "999"])
        assert missing.exit_code == 1 and "no review item 999" in missing.output
        stats = runner.invoke(app, ["stats", "--json"])
        assert stats.exit_code == 0, stats.output
        layer = {row["metric"]: row for row in json.loads(stats.output)[0]["rows"]}
        assert layer["links: manual"]["value"] == "1" and layer["links: new_canonical"]["value"] == "1"
        assert layer["review queue depth"]["value"] == "0"
        assert layer["canonical entities"]["value"] == "1"
        assert layer["bridges: shared_entity"]["value"] == "1"
        rebuilt = runner.invoke(app, ["canonical", "rebuild"])
        assert rebuilt.exit_code == 0 and "manual 1" in rebuilt.output
    finally:
        reset_settings_cache()

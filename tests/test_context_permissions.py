"""Permission views: who sees which library (pure rules), and AccessResolver on a real database, re-reading
the topology on every request."""
from __future__ import annotations

from functools import partial

import pytest
import pytest_asyncio

from knowledge.app import KnowledgeApp
from knowledge.context.permissions import UnknownPersonError, person_view
from knowledge.context.topology import load_topology, parse_topology
from tests.conftest import make_settings
from tests.context_support import context_demo_dsn, demo_topology_data, write_topology


def _ids(topology, person: str) -> set[str]:
    return {g.library.id for g in person_view(topology, person) if g.via != "card inbox"}


def test_demo_views():
    t = load_topology()
    assert _ids(t, "kenji") == {"team-notes", "platform-docs", "research-papers", "borealis-workspace", "kenji-notes"}
    assert _ids(t, "li_na") == {"team-notes", "platform-docs", "orion-workspace", "li-na-notes"}
    assert _ids(t, "tomasz") == {"team-notes", "platform-docs", "orion-workspace"}
    assert _ids(t, "greta") == {"team-notes", "finance-ledger"}
    # a contractor whose view has only the personal and project scopes: no org library
    assert _ids(t, "wang_hao") == {"orion-workspace"}
    reasons = {g.library.id: g.via for g in person_view(t, "kenji")}
    assert reasons["research-papers"] == "grant"
    assert reasons["platform-docs"] == "department platform"
    assert reasons["borealis-workspace"] == "project borealis"
    assert reasons["kenji-notes"] == "owner"
    assert reasons["inbox-kenji"] == "card inbox"


def test_nobody_else_sees_a_personal_library():
    t = load_topology()
    for person in t.people:
        if person.id != "kenji":
            assert "kenji-notes" not in _ids(t, person.id)


def test_transfer_archive_deny_and_grant_rules():
    data = demo_topology_data()
    next(p for p in data["people"] if p["id"] == "aylin")["department"] = "finance"
    next(p for p in data["projects"] if p["id"] == "borealis")["status"] = "archived"
    next(v for v in data["permission_views"] if v["person"] == "sofia")["grant"].append("borealis-workspace")
    next(v for v in data["permission_views"] if v["person"] == "lea")["deny"] = ["team-notes"]
    t = parse_topology(data)
    assert _ids(t, "aylin") == {"team-notes", "finance-ledger"}
    assert "borealis-workspace" not in _ids(t, "jonas")
    assert "borealis-workspace" not in _ids(t, "kenji")  # owning a project library gives no access once archived
    assert "borealis-workspace" in _ids(t, "sofia")      # an explicit grant still does
    assert _ids(t, "lea") == {"platform-docs"}            # deny beats the org scope


def test_a_person_without_a_view_sees_only_their_inbox():
    data = demo_topology_data()
    data["permission_views"] = [v for v in data["permission_views"] if v["person"] != "oskar"]
    grants = person_view(parse_topology(data), "oskar")
    assert [g.via for g in grants] == ["card inbox"]


def test_unknown_person_is_an_error():
    with pytest.raises(UnknownPersonError, match="unknown person 'mallory'"):
        person_view(load_topology(), "mallory")


@pytest_asyncio.fixture(scope="module")
async def ctx_app(new_database, embedder, tmp_path_factory):
    dsn = await context_demo_dsn(new_database, embedder, tmp_path_factory.mktemp("ctx-build"))
    app = await KnowledgeApp.open(make_settings(tmp_path_factory.mktemp("ctx-perm")), dsn=dsn, embedder=embedder,
                                  progress=False)
    yield app
    await app.close()


async def _names(app: KnowledgeApp, ids) -> set[str]:
    return {c.name for c in await app.corpora.by_ids(list(ids))}


async def test_accessible_corpus_ids_follow_the_view(ctx_app):
    access = ctx_app.access
    assert await _names(ctx_app, await access.accessible_corpus_ids("kenji")) == {
        "team_notes", "project_docs", "papers", "borealis_workspace", "kenji_notes"}
    assert await _names(ctx_app, await access.accessible_corpus_ids("greta")) == {"team_notes", "finance_ledger"}
    assert [lib.id for lib in await access.visible_libraries("wang_hao")] == ["inbox-wang_hao", "orion-workspace"]
    with pytest.raises(UnknownPersonError):
        await access.accessible_corpus_ids("mallory")


async def test_every_change_takes_effect_on_the_next_request(ctx_app, tmp_path):
    path = write_topology(tmp_path / "topology.json", demo_topology_data())
    access = ctx_app.access.with_topology(partial(load_topology, path))
    assert "project_docs" in await _names(ctx_app, await access.accessible_corpus_ids("aylin"))
    data = demo_topology_data()
    next(p for p in data["people"] if p["id"] == "aylin")["department"] = "finance"
    write_topology(path, data)
    assert await _names(ctx_app, await access.accessible_corpus_ids("aylin")) == {"team_notes", "finance_ledger"}
    next(v for v in data["permission_views"] if v["person"] == "aylin")["scopes"] = ["personal"]
    write_topology(path, data)
    assert await access.accessible_corpus_ids("aylin") == []  # her inbox corpus does not exist yet


async def test_users_map_to_people_and_the_operator_reads_everything_but_inboxes(ctx_app, tmp_path):
    data = demo_topology_data()
    next(p for p in data["people"] if p["id"] == "lea")["user_ids"] = ["u-1842"]
    access = ctx_app.access.with_topology(partial(load_topology, write_topology(tmp_path / "t.json", data)))
    assert (await access.resolve_user("u-1842")).person.id == "lea"
    assert (await access.resolve_user("Kenji.Watanabe@kestrel.example")).person.id == "kenji"
    with pytest.raises(UnknownPersonError):
        await access.resolve_user("stranger")
    inbox = await ctx_app.corpora.create("inbox_lea", "Inbox: Lea")
    loose = await ctx_app.corpora.create("scratch_corpus", "Scratch")
    try:
        operator = await access.resolve_operator()
        names = await _names(ctx_app, operator.accessible_corpus_ids)
        assert "scratch_corpus" in names and "inbox_lea" not in names
        assert {"team_notes", "papers", "finance_ledger", "kenji_notes"} <= names
        assert "corpus:scratch_corpus" in {lib.id for lib in operator.libraries}
        assert inbox.id in (await access.resolve("lea")).accessible_corpus_ids
        assert inbox.id not in (await access.resolve("kenji")).accessible_corpus_ids
    finally:
        async with ctx_app.db.connection() as conn:
            await conn.execute("DELETE FROM corpus WHERE id = ANY($1::uuid[])", [inbox.id, loose.id])

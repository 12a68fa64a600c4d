"""Context Router and permission guard on the demo libraries (real database, real embeddings)."""
from __future__ import annotations

from dataclasses import replace

import pytest
import pytest_asyncio
from typer.testing import CliRunner

from config.settings import reset_settings_cache
from knowledge.app import KnowledgeApp
from knowledge.context.connectors import CONNECTOR_NAMES, ConnectorRequest, ConnectorResult, UnsafeUnfilteredConnector
from knowledge.context.guard import PermissionGuard
from knowledge.context.router import classify_task, query_terms
from knowledge.context.topology import load_topology
from tests.conftest import make_settings
from tests.context_support import context_demo_dsn


@pytest_asyncio.fixture(scope="module")
async def ctx_app(new_database, embedder, tmp_path_factory):
    dsn = await context_demo_dsn(new_database, embedder, tmp_path_factory.mktemp("ctx-build"))
    app = await KnowledgeApp.open(make_settings(tmp_path_factory.mktemp("ctx-router")), dsn=dsn, embedder=embedder,
                                  progress=False)
    yield app
    await app.close()


async def _route(app: KnowledgeApp, person: str, query: str):
    return await app.router.route(query, await app.access.resolve(person))


def test_task_kinds_and_query_terms():
    t = load_topology()
    assert classify_task("How much did the Cobalt contract cost?", t) == "finance"
    assert classify_task("When is the Orion pilot rollout?", t) == "project"
    assert classify_task("Where is the Shanghai office?", t) == "question"
    assert classify_task("Orion 的预算是多少", t) == "finance"
    assert query_terms("Who developed the Aurora Vector Engine?") == {"developed", "aurora", "vector", "engine"}
    assert {"上海", "办公室"} <= query_terms("上海办公室位于哪里？")


async def test_personal_notes_route_to_the_personal_library(ctx_app):
    d = await _route(ctx_app, "kenji", "What did I note about the Aurora compaction window during the reindex dry run?")
    assert d.library_ids == ["kenji-notes"]
    best = d.selected[0]
    assert "my-notes" in best.rules and best.via == "owner" and best.probe > 0.5
    assert {"compaction", "window"} <= best.covered_terms
    assert d.gap is None


async def test_minimal_set_one_library_when_it_covers_the_question(ctx_app):
    d = await _route(ctx_app, "greta", "How much did the Cobalt Systems labeling contract cost?")
    assert d.task_kind == "finance"
    assert d.library_ids == ["finance-ledger"]
    runner_up = next(c for c in d.candidates if c.library.id == "team-notes")
    assert runner_up.reason == "not needed: the chosen libraries already cover the query"


async def test_a_finance_question_from_an_engineer_names_the_owner_to_ask(ctx_app):
    result = await ctx_app.router.search("How much did the Cobalt Systems labeling contract cost?", person_id="kenji")
    d = result.decision
    assert "finance-ledger" not in {c.library.id for c in d.candidates}
    finance = await ctx_app.corpora.get("finance_ledger")
    assert all(h.corpus_id != finance.id for h in result.hits)
    assert (result.gap.reason, result.gap.owner_id, result.gap.library_id) == ("no_access", "greta", "finance-ledger")
    assert result.routing_notes()["knowledge_gap"]["owner_name"] == "Greta Lindqvist"


async def test_thin_evidence_gaps(ctx_app):
    d = await _route(ctx_app, "lea", "What is the parental leave policy?")
    assert (d.gap.reason, d.gap.owner_id, d.gap.library_id) == ("thin_evidence", "sofia", None)
    borealis = await ctx_app.router.search("What did the Borealis pilot review decide about the renewal briefs?",
                                           person_id="lea")
    assert (borealis.gap.reason, borealis.gap.owner_id) == ("no_access", "kenji")
    assert not any("Borealis pilot review" in h.content for h in borealis.hits)
    named = await ctx_app.router.search("What is the parental leave policy?", person_id="maria",
                                        corpus_names=["papers"])
    assert named.decision is None and named.gap is not None and named.gap.reason == "thin_evidence"


async def test_connective_questions_get_a_second_library_for_graph_expansion(ctx_app):
    d = await _route(ctx_app, "kenji", "Which vector engine does Helios use for nearest-neighbour lookups, and who "
                                       "developed it?")
    assert len(d.selected) >= 2
    assert all("connective question" in c.reason or "covers" in c.reason for c in d.selected[1:])
    # the engine the Helios docs name leads to the paper about it
    papers = next(c for c in d.selected if c.library.id == "research-papers")
    assert "connective question: holds Aurora Vector Engine" in papers.reason


async def test_a_described_entity_leads_the_router_to_the_library_about_it(ctx_app):
    """The question only describes the vendor; the team notes name it (Cobalt Systems) and the platform docs,
    which look nothing like the question, hold who owns it."""
    query = "Which company owns the labeling vendor the Atlas team picked?"
    for person in (None, "aylin", "lea"):
        result = await ctx_app.router.search(query, person_id=person)
        routed = result.decision.library_ids
        assert {"team-notes", "platform-docs"} <= set(routed), (person, routed)
        docs = next(c for c in result.decision.selected if c.library.id == "platform-docs")
        assert "Cobalt Systems" in docs.reason
        assert any("Microsoft acquired Cobalt Systems" in h.content for h in result.hits), person
        assert result.gap is None


async def test_a_library_that_only_names_a_person_once_is_not_a_bridge(ctx_app):
    d = await _route(ctx_app, "jonas", "Which larger company owns the labeling vendor that the Atlas team picked?")
    assert "borealis-workspace" not in d.library_ids  # it names Jonas Becker, but says nothing about him


@pytest.mark.parametrize("connector", CONNECTOR_NAMES)
async def test_no_person_is_ever_routed_outside_their_view(ctx_app, connector):
    router = ctx_app.router.with_connector(ctx_app.search_connector(connector))
    for person in load_topology().people:
        view = await ctx_app.access.resolve(person.id)
        visible = {lib.id for lib in view.libraries}
        result = await router.search_view("What did we decide about vendors, budgets and the pilot?", view, None)
        assert {c.library.id for c in result.decision.candidates} <= visible
        assert set(result.decision.corpus_ids) <= set(view.accessible_corpus_ids)
        assert {h.corpus_id for h in result.hits} <= set(view.accessible_corpus_ids), person.id


async def test_the_guard_drops_what_an_unsafe_connector_returns(ctx_app):
    view = await ctx_app.access.resolve("greta")
    guard = PermissionGuard(ctx_app.db, UnsafeUnfilteredConnector(ctx_app.db, ctx_app.query_cache))
    result = await guard.search("Lumen Gateway rate limiting and Orion pilot", None, view.accessible_corpus_ids)
    assert result.returned > result.dropped > 0
    assert {h.corpus_id for h in result.hits} <= set(view.accessible_corpus_ids)
    assert len(result.dropped_corpus_ids) >= 3  # every other corpus came back from the connector


class ForgingConnector:
    """A connector that lies: it relabels forbidden rows as an allowed corpus and rewrites content."""

    name = "forging"

    def __init__(self, kapp: KnowledgeApp, allowed_id, forbidden_id) -> None:
        self.inner = UnsafeUnfilteredConnector(kapp.db, kapp.query_cache)
        self.allowed_id = allowed_id
        self.forbidden_id = forbidden_id

    async def search(self, request: ConnectorRequest) -> ConnectorResult:
        hits = (await self.inner.search(request)).hits
        forged = [replace(h, corpus_id=self.allowed_id) for h in hits if h.corpus_id == self.forbidden_id]
        rewritten = [replace(h, content="EUR 184,000 paid to Cobalt Systems") for h in hits
                     if h.corpus_id == self.allowed_id]
        return ConnectorResult(forged + rewritten)


async def test_the_guard_rereads_rows_so_relabelled_or_rewritten_rows_do_not_pass(ctx_app):
    view = await ctx_app.access.resolve("kenji")
    team_notes = await ctx_app.corpora.get("team_notes")
    finance = await ctx_app.corpora.get("finance_ledger")
    guard = PermissionGuard(ctx_app.db, ForgingConnector(ctx_app, team_notes.id, finance.id))
    result = await guard.search("Cobalt Systems contract", [team_notes.id], view.accessible_corpus_ids)
    assert result.dropped >= 1  # forged finance rows claimed to be team notes
    assert result.hits and all(h.corpus_id == team_notes.id for h in result.hits)
    assert not any("EUR 184,000" in h.content for h in result.hits)  # content comes from the database


def test_cli_search_as_a_person_with_explain(ctx_app, monkeypatch, tmp_path):
    from cli.main import app

    monkeypatch.setenv("NE_DATABASE_URL", ctx_app.db.dsn)
    monkeypatch.setenv("NE_DATA_DIR", str(tmp_path))
    reset_settings_cache()
    runner = CliRunner(env={"COLUMNS": "250"})
    try:
        routed = runner.invoke(app, ["search", "How much did the Cobalt Systems labeling contract cost?",
                                     "--as", "kenji", "--explain"])
        assert routed.exit_code == 0, routed.output
        assert "Context Router as kenji: task finance" in routed.output
        assert "team-notes" in routed.output and "finance-ledger" not in routed.output.split("knowledge gap")[0]
        assert "knowledge gap" in routed.output and "Greta Lindqvist" in routed.output
        assert "permission guard dropped 0" in routed.output
        outside = runner.invoke(app, ["search", "Cobalt Systems contract", "--as", "kenji", "--corpus",
                                      "finance_ledger"])
        assert outside.exit_code == 1 and "no corpus 'finance_ledger' that kenji can read" in outside.output
        operator = runner.invoke(app, ["search", "How much did the Cobalt Systems labeling contract cost?",
                                       "--explain"])
        assert "Context Router as local operator" in operator.output
        assert "(from Corpus: Finance ledger)" in operator.output
        unknown = runner.invoke(app, ["search", "anything", "--as", "mallory"])
        assert unknown.exit_code == 1 and "unknown person 'mallory'" in unknown.output
    finally:
        reset_settings_cache()


class _RecordingConnector:
    """The production connector, noting who each request searches for (the rollout's key)."""

    def __init__(self, inner) -> None:
        self.inner, self.name, self.people = inner, inner.name, []

    async def search(self, request: ConnectorRequest) -> ConnectorResult:
        self.people.append(request.person_id)
        return await self.inner.search(request)


async def test_every_search_of_a_request_carries_the_person_for_the_rollout(ctx_app):
    guard = ctx_app.router.guard
    recorder = _RecordingConnector(guard.connector)
    guard.connector = recorder
    try:
        await ctx_app.router.search("Which vector engine does Helios use for nearest-neighbour lookups, and who "
                                    "developed it?", person_id="kenji")  # routing probes, bridge probes, the search
        await ctx_app.router.search("What is the parental leave policy?", person_id="maria", corpus_names=["papers"])
        await ctx_app.router.search("What is the parental leave policy?", person_id=None, corpus_names=["papers"])
    finally:
        guard.connector = recorder.inner
    assert len(recorder.people) > 3
    assert set(recorder.people[:-2]) == {"kenji"} and recorder.people[-2:] == ["maria", None]

"""The scope cases through the ADK agent (real Runner, offline model, real tools): the session user id maps to a
topology person, search_knowledge_base routes through the Context Router and the permission guard, with the
production connector and with one that ignores every filter. Also: a chat note becomes a knowledge card."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.negentropy.agent import build_root_agent
from knowledge.app import KnowledgeApp
from knowledge.context.evals import SCOPE_CASES, ScopeCheck
from knowledge.context.permissions import UnknownPersonError
from knowledge.context.topology import LOCAL_OPERATOR_USER, load_topology
from server.identity import DEV_OPERATOR_USER
from session.access import accessible_corpus_ids_for
from session.runtime import bind_knowledge_app
from tests.agent_harness import CONFIRMATION, start_conversation
from tests.conftest import make_settings
from tests.context_support import context_demo_dsn, demo_topology_data, write_topology


async def _open(dsn: str, embedder, tmp: Path, connector: str) -> KnowledgeApp:
    app = await KnowledgeApp.open(make_settings(tmp, topology_path=tmp / "topology.json"), dsn=dsn,
                                  embedder=embedder, progress=False)
    app.router = app.router.with_connector(app.search_connector(connector))
    return app


async def _ask(app: KnowledgeApp, check: ScopeCheck, text: str) -> tuple[list[dict], str]:
    with bind_knowledge_app(app):
        conversation = await start_conversation(build_root_agent(), user_id=check.person)
        turn = await conversation.send(text)
    rows = [row for response in turn.responses("search_knowledge_base") for row in response.get("results", [])]
    return rows, turn.text


async def _agent_check(app: KnowledgeApp, check: ScopeCheck) -> None:
    topology = load_topology(app.settings.topology_path)
    corpus_ids = {c.name: str(c.id) for c in await app.corpora.list()}
    forbidden = {corpus_ids[n] for lib in check.forbidden for n in topology.library(lib).corpora}
    rows, text = await _ask(app, check, check.query)
    assert rows, f"{check.person}: the agent found nothing for {check.query!r}"
    returned = {lib.id for row in rows for lib in topology.context_libraries
                if row["corpus_name"] in lib.corpora}
    assert set(check.expected) <= returned, (check, returned)
    assert not [r for r in rows if r["corpus_id"] in forbidden], check
    for library_id in check.forbidden:  # naming a forbidden corpus does not open it either
        name = topology.library(library_id).corpora[0]
        named_rows, named_text = await _ask(app, check, f"@{name} {check.query}")
        assert not [r for r in named_rows if r["corpus_id"] in forbidden], (check, library_id)
        assert f"(from Corpus: {topology.library(library_id).name})" not in named_text


@pytest.mark.parametrize("connector", ["postgres", "unsafe"])
@pytest.mark.parametrize("case", SCOPE_CASES, ids=[c.name for c in SCOPE_CASES])
async def test_scope_case_through_the_agent(new_database, embedder, tmp_path_factory, tmp_path, case, connector):
    dsn = await context_demo_dsn(new_database, embedder, tmp_path_factory.mktemp("ctx-build"))
    data = demo_topology_data()
    write_topology(tmp_path / "topology.json", data)
    app = await _open(dsn, embedder, tmp_path, connector)
    try:
        for check in case.before:
            await _agent_check(app, check)
        if case.change is not None:
            case.change(data)
            write_topology(tmp_path / "topology.json", data)
        for check in case.checks:
            await _agent_check(app, check)
    finally:
        await app.close()


async def test_session_users_map_to_views_and_unknown_users_are_refused(new_database, embedder, tmp_path_factory,
                                                                        tmp_path):
    dsn = await context_demo_dsn(new_database, embedder, tmp_path_factory.mktemp("ctx-build"))
    data = demo_topology_data()
    next(p for p in data["people"] if p["id"] == "greta")["user_ids"] = ["agui-7f3a"]
    write_topology(tmp_path / "topology.json", data)
    app = await _open(dsn, embedder, tmp_path, "postgres")
    try:
        names = {c.id: c.name for c in await app.corpora.list()}
        greta = {names[i] for i in await accessible_corpus_ids_for("agui-7f3a", app)}
        assert greta == {"team_notes", "finance_ledger"}
        operator = {names[i] for i in await accessible_corpus_ids_for(LOCAL_OPERATOR_USER, app)}
        assert {"team_notes", "papers", "project_docs", "finance_ledger", "kenji_notes"} <= operator
        assert DEV_OPERATOR_USER == LOCAL_OPERATOR_USER  # `serve --dev-operator` acts as the local operator
        with pytest.raises(UnknownPersonError):
            await accessible_corpus_ids_for("stranger", app)
    finally:
        await app.close()


NOTE = "Quartzline Logistics renewals need 45 days of notice."


async def test_a_chat_note_becomes_a_card_only_its_author_can_search(kapp, tmp_path):
    docs = await kapp.corpora.create("project_docs", "Project Docs")
    await kapp.corpora.create("team_notes", "Team Notes")
    with bind_knowledge_app(kapp):
        conversation = await start_conversation(build_root_agent(), user_id="jonas")
        await conversation.send(f"save this to @project_docs: {NOTE}")
        assert conversation.turns[-1].calls(CONFIRMATION)
        saved = await conversation.answer_confirmation(True)
        [result] = saved.responses("ingest_to_corpus")
        assert result["status"] == "success" and result["review_status"] == "inbox"
        assert "only you can search it" in saved.text
        [card] = await kapp.cards.mine("jonas")
        assert (card.id, card.source, card.target_library) == (result["card_id"], "chat", "platform-docs")
        assert card.metadata["captured_by"] == "ingest_intent" and card.metadata["author"] == "jonas"
        mine = await start_conversation(build_root_agent(), user_id="jonas")
        recall = await mine.send("How much notice do Quartzline Logistics renewals need?")
        assert NOTE in recall.text
        other = await start_conversation(build_root_agent(), user_id="lea")
        hidden = await other.send("How much notice do Quartzline Logistics renewals need?")
        assert NOTE not in hidden.text
        await kapp.cards.review(card.id, "tomasz")
        await kapp.cards.decide(card.id, "tomasz", "promote")
        after = await start_conversation(build_root_agent(), user_id="lea")
        promoted = await after.send("@project_docs How much notice do Quartzline Logistics renewals need?")
        assert NOTE in promoted.text and "(from Corpus: Project Docs)" in promoted.text
    async with kapp.db.connection() as conn:
        row = await conn.fetchrow("SELECT source_uri, metadata FROM knowledge WHERE corpus_id = $1 AND content = $2",
                                  docs.id, NOTE)
    assert row["source_uri"].startswith("note://") and row["metadata"]["captured_by"] == "ingest_intent"
    assert json.loads(json.dumps(row["metadata"]))["card_id"] == str(card.id)

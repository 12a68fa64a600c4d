"""Conversations persist in the application's PostgreSQL (ADK DatabaseSessionService, schema adk_session)."""
from __future__ import annotations

import asyncpg
from google.adk.runners import Runner

from agents.negentropy.agent import build_root_agent
from agents.sessions import SESSION_SCHEMA, database_session_service
from knowledge.ingest.documents import Document
from session.runtime import bind_knowledge_app
from session.state import CORPUS_IDS
from tests.agent_harness import Conversation, start_conversation

DOC = Document(source_uri="helios.md", title="Helios note",
               text="Project Helios depends on the Aurora Vector Engine for its nearest-neighbour lookups.")


async def test_a_conversation_survives_a_restart_of_the_session_service(kapp):
    corpus = await kapp.corpora.create("project_docs", "Project Docs")
    await kapp.ingest_documents(corpus, [DOC])
    with bind_knowledge_app(kapp):
        first_service = database_session_service(kapp.db.dsn)
        conversation = await start_conversation(build_root_agent(), session_service=first_service)
        first = await conversation.send("What does Project Helios depend on? @project_docs")
        await first_service.close()

        restarted = database_session_service(kapp.db.dsn)  # a new process would build exactly this
        session = await restarted.get_session(app_name="negentropy", user_id="sofia",
                                              session_id=conversation.session_id)
        assert session is not None
        assert session.state[CORPUS_IDS] == [str(corpus.id)]
        assert {e.id for e in first.events} <= {e.id for e in session.events}
        texts = [p.text for e in session.events if e.content for p in e.content.parts or [] if p.text]
        assert "What does Project Helios depend on? @project_docs" in texts
        assert any("Aurora Vector Engine" in t and "(from Corpus: Project Docs)" in t for t in texts)

        runner = Runner(agent=build_root_agent(), app_name="negentropy", session_service=restarted)
        resumed = Conversation(runner, restarted, conversation.session_id)
        follow_up = await resumed.send("and what is it used for?")  # no mention: the scope carries over
        await restarted.close()
    [call] = follow_up.calls("search_knowledge_base")
    assert call.args["corpus_ids"] == [str(corpus.id)]

    conn = await asyncpg.connect(kapp.db.dsn)
    try:
        tables = {r["tablename"] for r in await conn.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = $1", SESSION_SCHEMA)}
        events = await conn.fetchval(f"SELECT count(*) FROM {SESSION_SCHEMA}.events WHERE session_id = $1",
                                     conversation.session_id)
    finally:
        await conn.close()
    assert {"sessions", "events", "app_states", "user_states"} <= tables
    assert events == len(first.events) + len(follow_up.events) + 2  # + the two user messages

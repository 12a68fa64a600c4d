"""`negentropy serve` faced with bad input and failures: ids it cannot keep, forged corpus ids, a database that
is down, a --user who is nobody. The real app in process (tests/agui_support.py)."""
from __future__ import annotations

import json
import uuid
from typing import Any, AsyncIterator

import pytest_asyncio

from knowledge.app import KnowledgeApp
from knowledge.db.server import start_embedded_server
from knowledge.gateway.limits import arguments_digest
from server.app import create_app
from tests.agui_support import USER, helios_corpus, post_run, run_body, running, sse_events
from tests.conftest import make_settings

LONG_ID = "t" * 129


BAD_IDS = [
    ("threadId", LONG_ID, "threadId is 129 characters long; at most 128 are allowed"),
    ("runId", LONG_ID, "runId is 129 characters long; at most 128 are allowed"),
    ("parentRunId", LONG_ID, "parentRunId is 129 characters long; at most 128 are allowed"),
    ("threadId", "  ", "threadId is empty: name the conversation thread this run belongs to"),
]


async def test_ids_a_run_cannot_keep_get_422_before_any_stream(kapp):
    corpus_id = await helios_corpus(kapp)
    async with running(create_app(kapp.settings, dsn=kapp.db.dsn, user_id=USER)) as client:
        for field, value, problem in BAD_IDS:
            refused = await post_run(client, json.dumps({**run_body(corpus_id), field: value}))
            assert (refused.status_code, refused.json()) == (422, {"detail": problem})
        state = await client.post("/agents/state", json={"threadId": LONG_ID})  # reading a thread needs no check
        assert state.status_code == 200 and state.json()["threadExists"] is False
        fine = await post_run(client, json.dumps({**run_body(corpus_id), "threadId": "t" * 128}))
        assert fine.status_code == 200 and sse_events(fine)[-1]["type"] == "RUN_FINISHED"


async def test_forged_and_foreign_corpus_ids_of_a_run_are_refused_and_audited(kapp):
    await helios_corpus(kapp)
    li_na = str((await kapp.corpora.create("li_na_notes", "Li Na Notes")).id)  # Li Na's private notebook
    forged = str(uuid.uuid4())
    async with running(create_app(kapp.settings, dsn=kapp.db.dsn, user_id="kenji")) as client:
        body = {**run_body(forged), "forwardedProps": {"corpus_ids": [forged, li_na]}}
        events = sse_events(await post_run(client, json.dumps(body)))
    text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text.startswith(f"I can't find the corpus '{forged}', '{li_na}', or you don't have access to it.")
    async with kapp.db.connection() as conn:
        rows = await conn.fetch("SELECT channel, person_id, token_id, tool, arguments_digest, decision, reason "
                                "FROM gateway_audit WHERE tool = 'corpus_scope'")
    assert [dict(r) for r in rows] == [{
        "channel": "adk", "person_id": "kenji", "token_id": None, "tool": "corpus_scope",
        "arguments_digest": arguments_digest({"corpus_ids": [forged, li_na]}), "decision": "denied",
        "reason": "forbidden_corpus"}]


@pytest_asyncio.fixture
async def stoppable(embedder, tmp_path) -> AsyncIterator[tuple[KnowledgeApp, Any]]:
    """A KnowledgeApp on a PostgreSQL server of its own, which the test may stop."""
    server = start_embedded_server(tmp_path / "pg")
    kapp = await KnowledgeApp.open(make_settings(tmp_path), dsn=server.get_uri(), embedder=embedder, progress=False)
    try:
        yield kapp, server
    finally:
        await kapp.close()
        server.cleanup()


async def test_a_stopped_database_gives_runs_a_clear_error_and_health_no_internals(stoppable, caplog):
    kapp, server = stoppable
    corpus_id = await helios_corpus(kapp)
    loopback = create_app(kapp.settings, dsn=kapp.db.dsn, user_id=USER)
    tokens = create_app(kapp.settings, dsn=kapp.db.dsn, user_id=None)
    async with running(loopback) as client, running(tokens) as token_client:
        assert (await token_client.get("/health")).json() == {"status": "ok"}
        assert (await client.get("/health")).json()["corpora"] == 1
        server.cleanup()  # the database stops

        events = sse_events(await post_run(client, json.dumps(run_body(corpus_id))))
        [error] = [e for e in events if e["type"] == "RUN_ERROR"]
        assert error["code"] == "DATABASE_UNAVAILABLE"
        assert error["message"].startswith("The database is unreachable")
        health = await client.get("/health")
        assert health.status_code == 503
        assert health.json() == {"status": "degraded", "database": "unreachable", "agent_path": "/agent",
                                 "model": health.json()["model"]}
        open_health = await token_client.get("/health")
        assert (open_health.status_code, open_health.json()) == (503, {"status": "degraded"})
    logged = caplog.text
    for text in (error["message"], health.text, open_health.text):
        assert "SELECT" not in text and "Error" not in text and "/pg" not in text
    assert "health: the database is unreachable" in logged

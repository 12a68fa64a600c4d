"""The web app's thread list over the real server and database: a person's conversations listed under their first
message, renamed, deleted with their stored messages, never another person's; "@Kenji Notes", a label, resolves;
and Stop (the client closing the stream) cancels the agent run on the server."""
from __future__ import annotations

import asyncio
import json
import uuid
from typing import AsyncGenerator

from ag_ui.core import RunAgentInput, UserMessage
from google.adk.agents import BaseAgent
from google.adk.agents.invocation_context import InvocationContext
from google.adk.events import Event
from google.genai import types

from agents.sessions import database_session_service
from knowledge.ingest.documents import Document
from server.app import create_app
from server.guard import GuardedADKAgent
from tests.agui_support import post_run, running, sse_events

REINDEX = Document(source_uri="reindex.md", title="Reindex log", text="The reindex dry run took 4 hours.")


def _body(thread: str, text: str) -> str:
    return json.dumps({"threadId": thread, "runId": str(uuid.uuid4()), "state": {}, "tools": [], "context": [],
                       "messages": [{"id": str(uuid.uuid4()), "role": "user", "content": text}],
                       "forwardedProps": {}})


def _answer(events: list[dict]) -> str:
    return "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")


async def test_threads_are_listed_renamed_and_deleted_for_their_person_only(kapp):
    corpus = await kapp.corpora.create("kenji_notes", "Kenji Notes", "Kenji's notes")
    await kapp.ingest_documents(corpus, [REINDEX])
    first, second = "thread-first", "thread-second"
    async with running(create_app(kapp.settings, dsn=kapp.db.dsn, user_id="kenji")) as kenji:
        # the label of two words is one mention, like @kenji_notes
        events = sse_events(await post_run(kenji, _body(first, "How long did the reindex dry run take? @Kenji Notes")))
        assert _answer(events).startswith("The reindex dry run took 4 hours. [1]")
        await post_run(kenji, _body(first, "And who ran it?"))
        await post_run(kenji, _body(second, "hello\x00   there\n" + "x" * 100))
        listing = (await kenji.get("/threads")).json()["threads"]
        assert [t["id"] for t in listing] == [second, first]  # the latest run first
        assert listing[1]["title"] == "How long did the reindex dry run take? @Kenji Notes"  # the first message
        assert listing[0]["title"] == "hello there " + "x" * 67 + "…" and len(listing[0]["title"]) == 80

        renamed = await kenji.patch(f"/threads/{first}", json={"title": "  Reindex\tquestions "})
        assert renamed.status_code == 200 and renamed.json()["title"] == "Reindex questions"
        assert (await kenji.patch(f"/threads/{first}", json={"title": " \n "})).status_code == 422
        assert (await kenji.patch(f"/threads/{first}", json={"title": "x" * 201})).status_code == 422

        async with running(create_app(kapp.settings, dsn=kapp.db.dsn, user_id="sofia")) as sofia:
            assert (await sofia.get("/threads")).json()["threads"] == []
            assert (await sofia.patch(f"/threads/{first}", json={"title": "mine now"})).status_code == 404
            assert (await sofia.delete(f"/threads/{first}")).status_code == 404
            assert (await sofia.post("/agents/state", json={"threadId": first})).json()["threadExists"] is False

        restored = (await kenji.post("/agents/state", json={"threadId": first})).json()
        assert restored["threadExists"] is True
        assert [m["role"] for m in restored["messages"]].count("user") == 2
        assert (await kenji.delete(f"/threads/{first}")).status_code == 204
        assert (await kenji.delete(f"/threads/{first}")).status_code == 404
        assert [t["id"] for t in (await kenji.get("/threads")).json()["threads"]] == [second]
        assert (await kenji.post("/agents/state", json={"threadId": first})).json()["threadExists"] is False


class _SlowAgent(BaseAgent):
    """Says one word, then works for a minute: long enough for a client to press Stop."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        yield Event(author=self.name, invocation_id=ctx.invocation_id,
                    content=types.Content(role="model", parts=[types.Part(text="Thinking")]))
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            STOPPED.set()
            raise
        yield Event(author=self.name, invocation_id=ctx.invocation_id,
                    content=types.Content(role="model", parts=[types.Part(text="an answer nobody waits for")]))


STOPPED = asyncio.Event()


async def test_a_client_closing_the_stream_cancels_the_agent_run(kapp):
    STOPPED.clear()
    sessions = database_session_service(kapp.db.dsn)
    agent = GuardedADKAgent(adk_agent=_SlowAgent(name="slow"), app_name=kapp.settings.app_name, user_id="sofia",
                            session_service=sessions, use_thread_id_as_session_id=True)
    run = agent.run(RunAgentInput(thread_id="stop-thread", run_id="run-1", state={}, tools=[], context=[],
                                  forwarded_props={}, messages=[UserMessage(id="m1", role="user", content="hi")]))
    try:
        async for event in run:
            if event.type == "TEXT_MESSAGE_CONTENT":
                break
        await run.aclose()  # what the server sees when the browser's Stop aborts the request
        await asyncio.wait_for(STOPPED.wait(), timeout=10)
    finally:
        await agent.close()
        await sessions.close()

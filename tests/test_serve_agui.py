"""`negentropy serve` on a loopback port: a real AG-UI run over SSE, approval through AG-UI, and a restart
that keeps the conversation (sessions in the same PostgreSQL)."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any, AsyncIterator

import httpx
import pytest

from knowledge.ingest.documents import Document
from tests.conftest import REPO_ROOT

HOST = "127.0.0.1"
USER = "sofia"  # a person of the shipped topology who may read both corpora of these tests
START_TIMEOUT_SECONDS = 240
RUN_TIMEOUT_SECONDS = 180
DOC = Document(source_uri="helios.md", title="Project Helios - Retrieval Architecture Note",
               text="Project Helios depends on the Aurora Vector Engine for its nearest-neighbour lookups.")

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


class Server:
    def __init__(self, dsn: str, data_dir: Path) -> None:
        self.port = _free_port()
        self.url = f"http://{HOST}:{self.port}"
        self.env = {**os.environ, "NE_DATABASE_URL": dsn, "NE_DATA_DIR": str(data_dir)}
        self.env.pop("NE_MODEL", None)
        self.log = data_dir / f"serve-{self.port}.log"
        self.process: subprocess.Popen | None = None

    def start(self) -> "Server":
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "cli.main", "serve", "--host", HOST, "--port", str(self.port),
                 "--user", USER],
                cwd=REPO_ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"serve exited early:\n{self.log.read_text()}")
            try:
                if httpx.get(f"{self.url}/health", timeout=2).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            time.sleep(1)
        raise AssertionError(f"serve did not become healthy:\n{self.log.read_text()}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=60)


@pytest.fixture
async def served(kapp, tmp_path) -> AsyncIterator[tuple[Server, dict[str, str]]]:
    docs = await kapp.corpora.create("project_docs", "Project Docs")
    notes = await kapp.corpora.create("team_notes", "Team Notes")
    await kapp.ingest_documents(docs, [DOC])
    server = Server(kapp.db.dsn, tmp_path).start()
    try:
        yield server, {"project_docs": str(docs.id), "team_notes": str(notes.id)}
    finally:
        server.stop()


def _run_input(thread: str, messages: list[dict], corpus_ids: list[str] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"threadId": thread, "runId": str(uuid.uuid4()), "state": {}, "messages": messages,
                            "tools": [], "context": [], "forwardedProps": {}}
    if corpus_ids is not None:
        body["forwardedProps"] = {"corpus_ids": corpus_ids}
    return body


async def _sse_run(server: Server, body: dict[str, Any]) -> list[dict[str, Any]]:
    events = []
    async with httpx.AsyncClient(timeout=RUN_TIMEOUT_SECONDS) as client:
        async with client.stream("POST", f"{server.url}/agent", json=body,
                                 headers={"accept": "text/event-stream"}) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            async for line in response.aiter_lines():
                if line.startswith("data: "):
                    events.append(json.loads(line[len("data: "):]))
    return events


def _text(events: list[dict]) -> str:
    return "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")


def _tool_calls(events: list[dict]) -> dict[str, str]:
    return {e["toolCallId"]: e["toolCallName"] for e in events if e["type"] == "TOOL_CALL_START"}


def _user(text: str) -> dict[str, str]:
    return {"id": str(uuid.uuid4()), "role": "user", "content": text}


async def test_agui_run_streams_tool_and_text_events_and_survives_a_restart(served):
    server, ids = served
    health = httpx.get(f"{server.url}/health", timeout=10).json()
    assert health["status"] == "ok" and health["corpora"] == 2 and health["model"].startswith("the offline")

    thread = f"thread-{uuid.uuid4()}"
    question = _user("What does Project Helios depend on for nearest-neighbour lookups?")
    events = await _sse_run(server, _run_input(thread, [question], [ids["project_docs"]]))

    types_seen = [e["type"] for e in events]
    assert types_seen[0] == "RUN_STARTED" and types_seen[-1] == "RUN_FINISHED"
    assert "search_knowledge_base" in _tool_calls(events).values()
    [search_result] = [e for e in events if e["type"] == "TOOL_CALL_RESULT"
                       and _tool_calls(events).get(e["toolCallId"]) == "search_knowledge_base"]
    result = json.loads(search_result["content"])
    assert result["mode"] == "planner", result["fallback_reason"]
    assert types_seen.count("TEXT_MESSAGE_CONTENT") > 1, "the answer streams in several chunks"
    answer = _text(events)
    assert "Project Helios depends on the Aurora Vector Engine for its nearest-neighbour lookups. [1]" in answer
    assert "(from Corpus: Project Docs)" in answer
    snapshot = [e["snapshot"] for e in events if e["type"] == "STATE_SNAPSHOT"][-1]
    assert snapshot["corpus_ids"] == [ids["project_docs"]] and snapshot["action_intent_hint"] == "retrieve"

    server.stop()
    server.start()
    async with httpx.AsyncClient(timeout=60) as client:
        state = (await client.post(f"{server.url}/agents/state", json={"threadId": thread})).json()
    assert state["threadExists"] is True
    contents = [m.get("content") or "" for m in state["messages"]]
    assert question["content"] in contents
    assert any("(from Corpus: Project Docs)" in c for c in contents)


async def test_forwarded_corpus_ids_are_validated(served):
    server, ids = served
    forged = str(uuid.uuid4())
    events = await _sse_run(server, _run_input(f"thread-{uuid.uuid4()}", [_user("What is Helios?")], [forged]))
    assert _tool_calls(events) == {}
    assert _text(events).startswith(f"I can't find the corpus '{forged}', or you don't have access to it.")


async def test_save_through_agui_waits_for_the_approval_tool_result(served, kapp):
    server, ids = served
    thread = f"thread-{uuid.uuid4()}"
    ask = _user("save this to @team_notes: the Helios retro moved to Friday")
    first = await _sse_run(server, _run_input(thread, [ask]))
    calls = _tool_calls(first)
    [confirmation_id] = [i for i, name in calls.items() if name == "adk_request_confirmation"]
    arguments = "".join(e["delta"] for e in first if e["type"] == "TOOL_CALL_ARGS"
                        and e["toolCallId"] == confirmation_id)
    assert json.loads(arguments)["originalFunctionCall"]["name"] == "ingest_to_corpus"
    assert json.loads(arguments)["toolConfirmation"]["hint"].splitlines() == [
        "Save this note to Team Notes (@team_notes)? It has 1 line, 32 characters:",
        "  | the Helios retro moved to Friday"]

    history = [ask,
               {"id": str(uuid.uuid4()), "role": "assistant", "content": "",
                "toolCalls": [{"id": confirmation_id, "type": "function",
                               "function": {"name": "adk_request_confirmation", "arguments": arguments}}]},
               {"id": str(uuid.uuid4()), "role": "tool", "toolCallId": confirmation_id,
                "content": json.dumps({"confirmed": True})}]
    second = await _sse_run(server, _run_input(thread, history))
    assert "Saved to Team Notes (@team_notes): 1 new chunk" in _text(second)
    async with kapp.db.connection() as conn:
        rows = await conn.fetch("SELECT content FROM knowledge WHERE corpus_id = $1::uuid "
                                "AND metadata->>'captured_by' = 'ingest_intent'", ids["team_notes"])
    assert [r["content"] for r in rows] == ["the Helios retro moved to Friday"]

"""The Python side of the web app: GET /corpora for the /agent identity, forwardedProps -> session state
(corpus ids, strict scope), and the test-only planner fault setting the browser suite starts a server with."""
from __future__ import annotations

import json
import logging
import re
import uuid

import pytest
from ag_ui.core import RunAgentInput
from fastapi.testclient import TestClient

from agents.negentropy.agent import build_root_agent
from config.settings import PlannerSettings
from knowledge.ingest.documents import Document
from knowledge.retrieval.planner import HybridPlanner, NeighbourhoodCache
from knowledge.retrieval.service import UnifiedRetrievalService
from server.app import create_app
from server.forwarded_props import forwarded_state
from session.runtime import bind_knowledge_app
from session.state import STRICT_SCOPE, UI_CORPUS_IDS
from tests.agent_harness import start_conversation
from tests.conftest import make_settings

MULTI_HOP = "Which researcher created the system that Project Helios depends on for its nearest-neighbour lookups?"
# open scope brings Team Notes evidence into this @project_docs @papers question through the graph (Project Helios
# is a bridge to the kickoff notes); the same case drives the Playwright strict-scope test (web/e2e/chat.spec.ts)
OPEN_SCOPE_CASE = "Who leads Project Helios and which engine does it depend on?"


def _run_input(props: object) -> RunAgentInput:
    return RunAgentInput(thread_id="t", run_id="r", state={}, messages=[], tools=[], context=[],
                         forwarded_props=props)


@pytest.mark.parametrize("props, state", [
    ({"corpus_ids": [" a ", "", None, "b"]}, {UI_CORPUS_IDS: ["a", "b"]}),
    ({"corpusIds": "a"}, {UI_CORPUS_IDS: ["a"]}),
    ({"corpus_ids": [], "strict_scope": True}, {UI_CORPUS_IDS: [], STRICT_SCOPE: True}),
    ({"strictScope": "true"}, {STRICT_SCOPE: True}),
    ({"strict_scope": "yes please"}, {STRICT_SCOPE: False}),
    ({"strict_scope": False}, {STRICT_SCOPE: False}),
    ({}, {}),
    (None, {}),
    ("not a dict", {}),
])
async def test_forwarded_props_map_into_session_state(props, state):
    assert await forwarded_state(None, _run_input(props)) == state


def _sse_events(response) -> list[dict]:
    return [json.loads(line[len("data: "):]) for line in response.iter_lines() if line.startswith("data: ")]


async def _workspace(kapp) -> dict[str, str]:
    ids = {}
    for name, label in [("team_notes", "Team Notes"), ("papers", "Research Papers"),
                        ("kenji_notes", "Kenji Notes"), ("li_na_notes", "Li Na Notes")]:
        corpus = await kapp.corpora.create(name, label, f"{label} of the test")
        ids[name] = str(corpus.id)
    note = Document(source_uri="k.md", title="Reindex", text="The reindex dry run took 4 hours.")
    await kapp.ingest_documents(await kapp.corpora.get("kenji_notes"), [note])
    return ids


async def test_corpora_lists_what_the_agents_person_may_read_and_do(kapp):
    ids = await _workspace(kapp)
    with TestClient(create_app(kapp.settings, dsn=kapp.db.dsn, user_id="kenji")) as client:
        listing = client.get("/corpora").json()
        assert listing["user"] == "kenji" and listing["person"] == "kenji"
        entries = {c["name"]: c for c in listing["corpora"]}
        assert set(entries) == {"team_notes", "papers", "kenji_notes"}  # li_na_notes is Li Na's private notebook
        assert entries["kenji_notes"]["id"] == ids["kenji_notes"] and entries["kenji_notes"]["chunks"] == 1
        assert entries["kenji_notes"]["may"] == ["search and ask questions", "save notes (published at once)"]
        assert entries["team_notes"]["may"][1] == "save notes as knowledge cards reviewed by sofia, tomasz"
        assert entries["team_notes"]["libraries"] == ["Kestrel team notes"]
        agents = client.get("/agents").json()["agents"]
        assert [(a["name"], a["role"]) for a in agents] == [
            ("negentropy", "root"), ("PerceptionFaculty", "sub-agent"), ("InternalizationFaculty", "sub-agent")]
        assert all(a["description"] for a in agents)

        # /agent acts for the same person: the corpus /corpora left out is refused there too
        thread = str(uuid.uuid4())
        body = {"threadId": thread, "runId": str(uuid.uuid4()), "state": {}, "tools": [], "context": [],
                "messages": [{"id": "m1", "role": "user", "content": "When did the reindex dry run happen?"}],
                "forwardedProps": {"corpus_ids": [ids["li_na_notes"]]}}
        with client.stream("POST", "/agent", json=body, headers={"accept": "text/event-stream"}) as response:
            events = _sse_events(response)
        text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
        assert text.startswith(f"I can't find the corpus '{ids['li_na_notes']}', or you don't have access to it.")
        assert events[-1]["type"] == "RUN_FINISHED"


async def test_corpora_refuses_an_unknown_person(kapp):
    await _workspace(kapp)
    with TestClient(create_app(kapp.settings, dsn=kapp.db.dsn, user_id="mallory")) as client:
        response = client.get("/corpora")
    assert response.status_code == 403 and "mallory" in response.json()["error"]


async def test_strict_scope_in_session_state_keeps_expansion_inside_the_mentioned_corpora(demo_app):
    kapp, corpora = demo_app
    question = f"{OPEN_SCOPE_CASE} @project_docs @papers"
    with bind_knowledge_app(kapp):
        open_turn = await (await start_conversation(build_root_agent())).send(question)
        strict_turn = await (await start_conversation(build_root_agent(), state={STRICT_SCOPE: True})).send(question)
    [open_result] = open_turn.responses("search_knowledge_base")
    [strict_result] = strict_turn.responses("search_knowledge_base")
    assert open_result["strict_scope"] is False and strict_result["strict_scope"] is True
    # open scope: expansion also reaches Team Notes, which sofia may read but nobody mentioned
    assert "Team Notes" in {r["corpus_label"] for r in open_result["results"] if r["evidence_type"] == "graph_expanded"}
    assert {r["corpus_label"] for r in strict_result["results"]} <= {"Project Docs", "Research Papers"}


async def test_an_injected_planner_stage_fault_gives_the_legacy_answer(demo_app, tmp_path):
    kapp, corpora = demo_app
    settings = make_settings(tmp_path, planner=PlannerSettings(fault_inject_stage="bridges"))
    service = UnifiedRetrievalService(kapp.db, kapp.query_cache, settings=settings)
    requested = [corpora["project_docs"].id, corpora["papers"].id]
    accessible = [c.id for c in corpora.values()]
    response = await service.search(MULTI_HOP, requested, accessible, limit=5)
    legacy = await kapp.legacy_search(MULTI_HOP, requested, accessible, limit=5)
    assert response.mode == "fallback"
    assert response.fallback_reason == ("bridges: bridges stage failed: InjectedFault: fault injected at the bridges "
                                        "stage (NE_PLANNER__FAULT_INJECT_STAGE)")
    assert [h.to_dict() for h in response.hits] == [h.to_dict() for h in legacy]


def test_an_unknown_fault_stage_is_a_clear_error(tmp_path):
    settings = make_settings(tmp_path, planner=PlannerSettings(fault_inject_stage="sedes"))
    with pytest.raises(ValueError, match="no planner stage named 'sedes'; stages: embed, seeds, seed_entities"):
        HybridPlanner.default(None, None, NeighbourhoodCache(4), settings)


def _chat(client: TestClient, text: str, props: dict | None = None, thread: str | None = None) -> list[dict]:
    body = {"threadId": thread or str(uuid.uuid4()), "runId": str(uuid.uuid4()), "state": {}, "tools": [],
            "context": [], "messages": [{"id": str(uuid.uuid4()), "role": "user", "content": text}],
            "forwardedProps": props or {}}
    # json.dumps escapes a lone surrogate as JSON allows ("\\ud800"); httpx's own encoder would refuse it
    with client.stream("POST", "/agent", content=json.dumps(body),
                       headers={"accept": "text/event-stream", "content-type": "application/json"}) as response:
        return _sse_events(response)


async def test_a_nul_in_a_chat_message_and_its_forwarded_props_gets_a_normal_answer(kapp):
    ids = await _workspace(kapp)
    with TestClient(create_app(kapp.settings, dsn=kapp.db.dsn, user_id="kenji")) as client:
        events = _chat(client, "When did the reindex\x00 dry run\ud800 happen?",
                       {"corpus_ids": [ids["kenji_notes"] + "\x00"]})
    assert [e["type"] for e in events if e["type"] == "RUN_ERROR"] == []
    assert events[-1]["type"] == "RUN_FINISHED"
    text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text.startswith("The reindex dry run took 4 hours. [1]") and "(from Corpus: Kenji Notes)" in text
    async with kapp.db.connection() as conn:
        # through jsonb: ADK releases differ in whether the stored JSON escapes U+FFFD
        stored = await conn.fetchval("SELECT count(*) FROM adk_session.events WHERE event_data::text::jsonb::text "
                                     "LIKE '%When did the reindex dry run\ufffd happen?%'")
    assert stored >= 1  # the user message, cleaned (the tool call that quotes it too)


async def test_an_internal_error_reaches_the_client_as_a_short_message_and_an_id_the_log_has(kapp, caplog):
    await _workspace(kapp)
    with TestClient(create_app(kapp.settings, dsn=kapp.db.dsn, user_id="kenji")) as client:
        assert _chat(client, "hello")[-1]["type"] == "RUN_FINISHED"  # the session tables exist now
        async with kapp.db.connection() as conn:  # the database refuses every new conversation event
            await conn.execute("CREATE FUNCTION adk_session.refuse_event() RETURNS trigger LANGUAGE plpgsql AS "
                               "$$ BEGIN RAISE EXCEPTION 'events are refused by this test'; END $$")
            await conn.execute("CREATE TRIGGER refuse_event BEFORE INSERT ON adk_session.events "
                               "FOR EACH ROW EXECUTE FUNCTION adk_session.refuse_event()")
        with caplog.at_level(logging.ERROR):
            events = _chat(client, "When did the reindex dry run happen?")
    [error] = [e for e in events if e["type"] == "RUN_ERROR"]
    match = re.fullmatch(r"Something went wrong on the server and this answer could not be finished "
                         r"\(error id ([0-9a-f]{12})\)\. Please try again; if it keeps happening, give the error id "
                         r"to whoever runs this server\.", error["message"])
    assert match, error["message"]
    for internal in ("INSERT", "events", "SQL", "parameters", "Traceback", "refused"):
        assert internal not in error["message"]
    [logged] = [r for r in caplog.records if match.group(1) in r.getMessage()]
    assert "INSERT INTO events" in logged.getMessage() and "events are refused by this test" in logged.getMessage()
    assert logged.exc_info is not None and "Traceback" in caplog.text.split(match.group(1), 1)[1]

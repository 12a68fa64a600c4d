"""The browser checklist through ADK's Runner: real agents, real tools, the offline model, the demo corpora.

Read-only on the session-wide demo database (search runs only append planner_run statistics rows).
"""
from __future__ import annotations

from typing import Any, AsyncGenerator

import pytest
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from agents.negentropy.agent import build_root_agent
from agents.offline_model import OfflineModel
from config.settings import FeatureFlags
from knowledge.app import KnowledgeApp
from session.runtime import bind_knowledge_app
from session.state import ACTION_INTENT_HINT, CORPUS_IDS, PENDING_INGEST
from tests.agent_harness import CONFIRMATION, start_conversation
from tests.conftest import make_settings

SEARCH = "search_knowledge_base"
GLOBAL = "search_knowledge_graph_global"


@pytest.fixture
def demo(demo_app):
    kapp, corpora = demo_app
    with bind_knowledge_app(kapp):
        yield kapp, corpora


def _labels(result: dict[str, Any]) -> set[str]:
    return {r["corpus_label"] for r in result["results"]}


async def test_single_corpus_question_runs_the_planner_without_bridges(demo):
    kapp, corpora = demo
    conversation = await start_conversation(build_root_agent())
    turn = await conversation.send("What does Project Helios depend on for nearest-neighbour lookups? @project_docs")

    assert turn.state[CORPUS_IDS] == [str(corpora["project_docs"].id)]
    assert turn.state[ACTION_INTENT_HINT] == "retrieve"
    assert turn.authors() == ["negentropy", "PerceptionFaculty"]
    [call] = turn.calls(SEARCH)
    assert call.args["corpus_ids"] == [str(corpora["project_docs"].id)]
    [result] = turn.responses(SEARCH)
    assert result["mode"] == "planner" and result["graph_expansion"] is False and result["bridges"] == []
    assert _labels(result) == {"Project Docs"}
    assert "Project Helios depends on the Aurora Vector Engine for its nearest-neighbour lookups. [1]" in turn.text
    assert "References:\n[1] “Project Helios - Retrieval Architecture Note.” (from Corpus: Project Docs)" in turn.text
    assert "Cross-corpus links" not in turn.text


async def test_several_corpora_fact_question_searches_each_and_labels_the_sources(demo):
    kapp, corpora = demo
    conversation = await start_conversation(build_root_agent())
    turn = await conversation.send("Where is the Shanghai office located? @team_notes @project_docs")

    [result] = turn.responses(SEARCH)
    # two corpora: the graph runs for a fact question too (the evidence, not the wording, decides what it adds)
    assert result["mode"] == "planner" and result["query_kind"] == "fact" and result["graph_expansion"] is True
    assert _labels(result) == {"Team Notes", "Project Docs"}
    references = turn.text.split("References:\n")[1].split("\n\n")[0].splitlines()
    assert references and all(r.endswith(("(from Corpus: Team Notes)", "(from Corpus: Project Docs)"))
                              for r in references)


async def test_several_corpora_multi_hop_question_follows_the_bridge(demo):
    """Documented planner behaviour (docs/design.md section 3): several corpora + a multi-hop question expand
    over the canonical bridge Aurora Vector Engine and bring the paper in as graph-expanded evidence."""
    kapp, corpora = demo
    conversation = await start_conversation(build_root_agent())
    turn = await conversation.send("Which researcher created the system that Project Helios depends on for its "
                                   "nearest-neighbour lookups? @project_docs @papers")

    [result] = turn.responses(SEARCH)
    assert result["mode"] == "planner", result["fallback_reason"]
    assert result["graph_expansion"] is True
    assert any(bridge["via_entity"] == "Aurora Vector Engine" for bridge in result["bridges"])
    expanded = [r for r in result["results"] if r["evidence_type"] == "graph_expanded"]
    assert any("developed by Dr. Lin Wei" in r["content"] and r["corpus_label"] == "Research Papers"
               for r in expanded)
    assert "Aurora Vector Engine was developed by Dr. Lin Wei" in turn.text
    assert "(from Corpus: Research Papers)" in turn.text and "(from Corpus: Project Docs)" in turn.text
    links = turn.text.split("Cross-corpus links:\n")[1]
    assert "via Aurora Vector Engine" in links


async def test_overview_words_use_global_search_only(demo):
    kapp, corpora = demo
    conversation = await start_conversation(build_root_agent())
    turn = await conversation.send("What are the main themes across our projects? @team_notes @project_docs")

    assert [c.name for c in turn.calls() if c.name != "transfer_to_agent"] == [GLOBAL]
    [result] = turn.responses(GLOBAL)
    assert result["status"] == "success" and result["mode"] == "global" and result["communities"]
    assert {c["corpus_label"] for c in result["communities"]} <= {"Team Notes", "Project Docs"}
    assert turn.text.startswith("Main themes:\n- ")
    assert "(from Corpus: " in turn.text.split("References:\n")[1]


async def test_the_two_searches_are_exclusive_within_one_question(demo):
    """A model that calls search_knowledge_base after the global search is refused by the tool."""

    class BothSearches(OfflineModel):
        async def generate_content_async(self, llm_request: LlmRequest,
                                         stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
            last = llm_request.contents[-1].parts[0].function_response if llm_request.contents else None
            if GLOBAL in llm_request.tools_dict and last is not None and last.name == GLOBAL:
                call = types.FunctionCall(name=SEARCH, args={"query": "themes"})
                yield LlmResponse(content=types.Content(role="model", parts=[types.Part(function_call=call)]))
                return
            async for response in super().generate_content_async(llm_request, stream):
                yield response

    conversation = await start_conversation(build_root_agent(BothSearches()))
    turn = await conversation.send("Give me an overview of the core topics @team_notes")
    assert turn.responses(GLOBAL)[0]["status"] == "success"
    [refused] = turn.responses(SEARCH)
    assert refused["status"] == "failed" and "exclusive" in refused["error"]


async def test_feature_flag_off_answers_from_legacy_search(demo_app, embedder, tmp_path):
    _, corpora = demo_app
    settings = make_settings(tmp_path, knowledge_feature_flags=FeatureFlags(enable_cross_corpus_kg=False))
    legacy_app = await KnowledgeApp.open(settings, dsn=demo_app[0].db.dsn, embedder=embedder, progress=False)
    try:
        with bind_knowledge_app(legacy_app):
            conversation = await start_conversation(build_root_agent())
            turn = await conversation.send("Which researcher created the system that Project Helios depends on "
                                           "for its nearest-neighbour lookups? @project_docs @papers")
    finally:
        await legacy_app.close()
    [result] = turn.responses(SEARCH)
    assert result["mode"] == "legacy" and result["graph_expansion"] is False and result["bridges"] == []
    assert all(r["evidence_type"] == "primary" for r in result["results"])
    assert "(from Corpus: " in turn.text


class _BrokenSeeds:
    name = "seeds"
    graph_only = False

    async def run(self, state: object) -> dict:
        raise RuntimeError("seed index unavailable")


async def test_planner_stage_failure_falls_back_to_legacy_and_the_answer_still_streams(demo_app, embedder, tmp_path):
    _, corpora = demo_app
    broken = await KnowledgeApp.open(make_settings(tmp_path), dsn=demo_app[0].db.dsn, embedder=embedder,
                                     progress=False)
    broken.retrieval.planner = broken.retrieval.planner.replacing("seeds", _BrokenSeeds())
    try:
        with bind_knowledge_app(broken):
            conversation = await start_conversation(build_root_agent())
            turn = await conversation.send("What does Project Helios depend on for nearest-neighbour lookups? "
                                           "@project_docs @papers")
    finally:
        await broken.close()
    [result] = turn.responses(SEARCH)
    assert result["mode"] == "fallback" and result["fallback_reason"].startswith("seeds")
    assert result["results"], "the legacy fallback still found evidence"
    final = turn.events[-1]
    assert final.author == "PerceptionFaculty" and final.content.parts[0].text == turn.text
    assert "Project Helios depends on the Aurora Vector Engine" in turn.text
    assert "(The cross-corpus planner fell back to plain search: seeds" in turn.text


async def test_greeting_without_corpus_writes_no_hint(demo):
    conversation = await start_conversation(build_root_agent())
    turn = await conversation.send("hi")
    assert ACTION_INTENT_HINT not in turn.state and CORPUS_IDS not in turn.state
    assert turn.calls() == [] and turn.authors() == ["negentropy"]
    assert "@team_notes (Team Notes)" in turn.text


async def test_unknown_corpus_gets_a_clear_message(demo):
    conversation = await start_conversation(build_root_agent())
    turn = await conversation.send("What is Helios? @project_docs @nonexistent")
    assert turn.calls() == [] and CORPUS_IDS not in turn.state
    assert turn.text.startswith("I can't find the corpus 'nonexistent', or you don't have access to it. "
                                "Corpora you can use: @papers (Research Papers), @project_docs (Project Docs), "
                                "@team_notes (Team Notes).")


async def test_a_forged_corpus_id_in_session_state_is_refused(demo):
    forged = "9f0c5d4e-0000-4000-8000-000000000000"
    conversation = await start_conversation(build_root_agent(), state={CORPUS_IDS: [forged]})
    turn = await conversation.send("What is Helios?")
    assert turn.calls() == []
    assert f"I can't find the corpus '{forged}'" in turn.text


async def test_two_corpora_and_note_this_asks_which_corpus(demo):
    kapp, corpora = demo
    conversation = await start_conversation(build_root_agent())
    turn = await conversation.send("note this: the Helios retro moved to Friday @team_notes @project_docs")
    assert turn.state[ACTION_INTENT_HINT] == "ingest"
    assert turn.authors() == ["negentropy", "InternalizationFaculty"]
    assert turn.calls("ingest_to_corpus") == [] and turn.calls(CONFIRMATION) == []
    assert turn.text == ("Which corpus should I save this to: @team_notes (Team Notes) or @project_docs "
                         "(Project Docs)? Reply with one @mention.")
    assert turn.state[PENDING_INGEST] == {"text": "the Helios retro moved to Friday",
                                          "corpus_ids": [str(corpora["team_notes"].id),
                                                         str(corpora["project_docs"].id)]}


async def test_forged_corpus_id_in_an_ingest_call_fails_out_of_scope(demo):
    """A model that tries to write into a corpus the user did not mention gets 越权 and no approval prompt."""
    kapp, corpora = demo
    papers = str(corpora["papers"].id)

    class Forger(OfflineModel):
        async def generate_content_async(self, llm_request: LlmRequest,
                                         stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
            contents = llm_request.contents
            answered = contents and any(p.function_response for p in contents[-1].parts or [])
            if "ingest_to_corpus" in llm_request.tools_dict and not answered:
                call = types.FunctionCall(name="ingest_to_corpus", args={"text": "planted", "corpus_id": papers})
                yield LlmResponse(content=types.Content(role="model", parts=[types.Part(function_call=call)]))
                return
            async for response in super().generate_content_async(llm_request, stream):
                yield response

    conversation = await start_conversation(build_root_agent(Forger()))
    turn = await conversation.send("save this to @team_notes: planted")
    assert turn.calls(CONFIRMATION) == []
    [result] = turn.responses("ingest_to_corpus")
    assert result["status"] == "failed"
    assert "out of scope" in result["error"] and "越权" in result["error"] and "@team_notes" in result["error"]
    assert turn.text.startswith("Not saved: corpus ")
    hits = await kapp.legacy_search("planted", None, [corpora["papers"].id])
    assert all("planted" not in h.content for h in hits)


async def test_a_user_outside_the_workspace_topology_gets_a_clear_message(demo):
    conversation = await start_conversation(build_root_agent(), user_id="stranger")
    turn = await conversation.send("What is Helios? @project_docs")
    assert turn.calls() == [] and CORPUS_IDS not in turn.state
    assert turn.text.startswith("I can't tell which corpora you may read: unknown person 'stranger'")

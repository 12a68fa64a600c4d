"""Pure parts of the agent layer: context block, note extraction, approval policy, answers, offline routing."""
from __future__ import annotations

import pytest
from google.adk.models.llm_request import LlmRequest
from google.genai import types

from agents.answer import compose_search_answer, select_evidence
from agents.ingest_payload import ingest_payload
from agents.offline_model import Turn, decide
from config.settings import ApprovalPolicy
from session.state import CorpusRef, SessionContext
from tools.approval import HIGH_RISK_TOOLS, requires_approval

A = CorpusRef("11111111-1111-1111-1111-111111111111", "team_notes", "Team Notes")
B = CorpusRef("22222222-2222-2222-2222-222222222222", "papers", "Research Papers")


def test_session_context_round_trips_through_the_instruction_text():
    context = SessionContext([A, B], [A, B], "ingest", "the retro moved to {Friday} \"later\"")
    instruction = "You route.\n\n" + context.render()
    assert SessionContext.parse(instruction) == context
    assert SessionContext.parse("no block here") == SessionContext()


@pytest.mark.parametrize("text, note", [
    ("save this to @team_notes: Helios reindex takes 4 hours", "Helios reindex takes 4 hours"),
    ("@team_notes @papers note this: the retro is friday", "the retro is friday"),
    ("Remember that the Helios reindex takes 4 hours @team_notes", "the Helios reindex takes 4 hours"),
    ("store in @team_notes the deploy freeze starts May 1", "the deploy freeze starts May 1"),
    ("把这段话保存到@团队笔记：上海办公室搬到了徐汇", "上海办公室搬到了徐汇"),
    ("记住 上海办公室在徐汇 @团队笔记", "上海办公室在徐汇"),
    ("save this to @team_notes", None),
    ("note this", None),
])
def test_ingest_payload_drops_the_command_and_mentions(text, note):
    assert ingest_payload(text) == note


@pytest.mark.parametrize("tool, policy, expected", [
    ("ingest_to_corpus", ApprovalPolicy.per_tool, True),
    ("search_knowledge_base", ApprovalPolicy.per_tool, False),
    ("search_knowledge_base", ApprovalPolicy.always, True),
    ("ingest_to_corpus", ApprovalPolicy.never, False),
])
def test_approval_policy(tool, policy, expected):
    assert "ingest_to_corpus" in HIGH_RISK_TOOLS
    assert requires_approval(tool, policy) is expected


def _hit(n: int, content: str, corpus: str, evidence: str = "primary", bridge: dict | None = None) -> dict:
    hit = {"citation_id": n, "content": content, "corpus_label": corpus, "evidence_type": evidence,
           "formatted_citation": f"[{n}] “Doc {n}.” (from Corpus: {corpus})"}
    if bridge:
        hit["bridge"] = bridge
    return hit


def test_extractive_answer_keeps_bridge_evidence_and_lists_links():
    bridge = {"source_corpus_id": "a", "source_corpus_label": "Project Docs", "target_corpus_id": "b",
              "target_corpus_label": "Research Papers", "via_entity": "Aurora Vector Engine", "hops": 1}
    result = {"status": "success", "mode": "planner", "bridges": [bridge], "results": [
        _hit(1, "# Helios note\nProject Helios depends on the Aurora Vector Engine for nearest-neighbour lookups. "
                "The team meets on Mondays.", "Project Docs"),
        _hit(2, "Aurora Vector Engine was developed by Dr. Lin Wei at Tsinghua University.", "Research Papers",
             "graph_expanded", bridge),
    ]}
    answer = compose_search_answer("Which researcher created the engine Project Helios depends on?", result)
    assert "Aurora Vector Engine was developed by Dr. Lin Wei at Tsinghua University. [2]" in answer
    assert "depends on the Aurora Vector Engine for nearest-neighbour lookups. [1]" in answer
    assert "Mondays" not in answer and "Helios note" not in answer
    assert "(from Corpus: Research Papers)" in answer and "(from Corpus: Project Docs)" in answer
    assert (answer.split("Cross-corpus links:")[1].strip()
            == "- Project Docs -> Research Papers via Aurora Vector Engine: evidence [2]")


def test_evidence_follows_the_chain_from_the_linking_fact_to_the_final_entity():
    bridge = {"source_corpus_id": "a", "source_corpus_label": "Team Notes", "target_corpus_id": "b",
              "target_corpus_label": "Project Docs", "via_entity": "Cobalt Systems", "hops": 1}
    results = [
        _hit(1, "Microsoft acquired Cobalt Systems in November 2023. The office kitchen was renovated.",
             "Project Docs", "graph_expanded", bridge),
        _hit(2, "The Atlas team meets weekly. Decision: the Atlas team picked Cobalt Systems as the labeling vendor.",
             "Team Notes"),
        _hit(3, "Labeling quality is reviewed by the team every sprint.", "Team Notes"),
    ]
    picked = select_evidence("Which company owns the labeling vendor the Atlas team picked?", results)
    assert [(e.citation_id, e.sentence) for e in picked[:2]] == [
        (2, "Decision: the Atlas team picked Cobalt Systems as the labeling vendor."),
        (1, "Microsoft acquired Cobalt Systems in November 2023.")]
    assert all("kitchen" not in e.sentence for e in picked)


def test_the_second_link_of_a_bridge_is_kept_when_it_shares_no_question_word():
    """"built" in the question, "developed" in the answer: the expanded result's sentence about the bridge entity
    scores under the relevance floor, yet it is the link the retriever followed, so the answer keeps it."""
    bridge = {"source_corpus_id": "a", "source_corpus_label": "Project Docs", "target_corpus_id": "b",
              "target_corpus_label": "Research Papers", "via_entity": "Aurora Vector Engine", "hops": 1}
    results = [
        _hit(1, "Project Helios depends on the Aurora Vector Engine for its nearest-neighbour lookups.",
             "Project Docs"),
        _hit(2, "Google bundles Vertex AI Search with its cloud offering and competes on price for managed vector "
                "search.", "Project Docs"),
        _hit(3, "Aurora Vector Engine was developed by Dr. Lin Wei and the storage group at Tsinghua University to "
                "keep billion-scale embedding collections on commodity flash drives rather than in DRAM.",
             "Research Papers", "graph_expanded", bridge),
        _hit(4, "Aurora organizes vectors into log-structured segments, each with its own proximity graph.",
             "Research Papers", "graph_expanded", {**bridge, "via_entity": "Tsinghua University"}),
    ]
    picked = select_evidence("Who built the vector engine that Project Helios uses for nearest-neighbour search?",
                             results)
    assert [e.citation_id for e in picked] == [1, 3]
    assert picked[1].sentence.startswith("Aurora Vector Engine was developed by Dr. Lin Wei")


def test_rare_question_words_outweigh_common_ones():
    """The retriever's order counts (RANK_PRIOR), but not over the one sentence holding the rare question word."""
    results = [_hit(1, "Aurora Vector Engine is open source and keeps its index on SSD.", "Project Docs"),
               _hit(3, "Aurora Vector Engine was developed by Dr. Lin Wei and the storage group at Tsinghua "
                       "University to keep billion-scale embedding collections on flash.", "Research Papers"),
               _hit(2, "Project Helios depends on the Aurora Vector Engine for its lookups.", "Project Docs")]
    [best] = select_evidence("Who developed the Aurora Vector Engine?", results, limit=1)
    assert best.citation_id == 3


def test_the_answer_passes_on_the_routers_knowledge_gap():
    gap = {"reason": "no_access", "message": "Finance Ledger is where finance requests like this are answered, but "
           "kenji cannot read it", "owner_id": "greta", "owner_name": "Greta Lindqvist",
           "library_id": "finance-ledger", "library_name": "Finance Ledger"}
    found = compose_search_answer("What did the contract cost?", {
        "status": "success", "knowledge_gap": gap,
        "results": [_hit(1, "The Cobalt Systems contract was signed in March.", "Team Notes")]})
    notice = ("Knowledge gap: Finance Ledger is where finance requests like this are answered, but kenji cannot "
              "read it. Ask Greta Lindqvist, owner of Finance Ledger.")
    assert found.endswith("\n\n" + notice) and "[1]" in found
    empty = compose_search_answer("What did the contract cost?", {"status": "success", "results": [],
                                                                  "corpora": ["Team Notes"], "knowledge_gap": gap})
    assert empty == "I found no passages about that in Team Notes.\n\n" + notice


def test_evidence_falls_back_to_the_top_result_when_no_word_matches():
    picked = select_evidence("zzz", [_hit(3, "Completely unrelated sentence here.", "Team Notes")])
    assert [(e.sentence, e.citation_id) for e in picked] == [("Completely unrelated sentence here.", 3)]


def _request(tools: list[str], context: SessionContext, user: str) -> LlmRequest:
    request = LlmRequest(contents=[types.Content(role="user", parts=[types.Part(text=user)])],
                         config=types.GenerateContentConfig(system_instruction="x\n\n" + context.render()))
    request.tools_dict = {name: None for name in tools}  # type: ignore[misc]
    return request


@pytest.mark.parametrize("tools, context, user, expected", [
    (["transfer_to_agent"], SessionContext([A], [], "ingest"), "save this @team_notes: x",
     ("transfer_to_agent", {"agent_name": "InternalizationFaculty"})),
    (["transfer_to_agent"], SessionContext([A, B], [], "retrieve"), "what is x?",
     ("transfer_to_agent", {"agent_name": "PerceptionFaculty"})),
    (["transfer_to_agent"], SessionContext([], [], None), "what is x?",
     ("transfer_to_agent", {"agent_name": "PerceptionFaculty"})),
    (["search_knowledge_base", "search_knowledge_graph_global", "search_knowledge_graph_with_papers"],
     SessionContext([A, B]), "What are the main themes? @team_notes @papers",
     ("search_knowledge_graph_global", {"query": "What are the main themes?", "corpus_ids": [A.id, B.id]})),
    (["search_knowledge_base", "search_knowledge_graph_global", "search_knowledge_graph_with_papers"],
     SessionContext([B]), "Which papers use RRF? @papers",
     ("search_knowledge_graph_with_papers", {"query": "Which papers use RRF?", "corpus_ids": [B.id]})),
    (["search_knowledge_base", "search_knowledge_graph_global", "search_knowledge_graph_with_papers"],
     SessionContext([]), "Who leads Helios?", ("search_knowledge_base", {"query": "Who leads Helios?"})),
    (["search_knowledge_base", "search_knowledge_graph_global", "search_knowledge_graph_with_papers"],
     SessionContext([B]), "In which city is the lead author of the Quill paper based? @papers",
     ("search_knowledge_base", {"query": "In which city is the lead author of the Quill paper based?",
                                "corpus_ids": [B.id]})),
    (["search_knowledge_base", "search_knowledge_graph_global", "search_knowledge_graph_with_papers"],
     SessionContext([B]), "Who are the authors of the Quill paper? @papers",
     ("search_knowledge_graph_with_papers", {"query": "Who are the authors of the Quill paper?",
                                             "corpus_ids": [B.id]})),
    (["ingest_to_corpus"], SessionContext([A]), "save this to @team_notes: the retro is friday",
     ("ingest_to_corpus", {"text": "the retro is friday", "corpus_id": A.id})),
    (["ingest_to_corpus"], SessionContext([A], [], "ingest", "kept from before"), "@team_notes",
     ("ingest_to_corpus", {"text": "kept from before", "corpus_id": A.id})),
])
def test_offline_model_routes_and_calls_tools_with_the_right_arguments(tools, context, user, expected):
    reply = decide(Turn.read(_request(tools, context, user)))
    assert isinstance(reply, types.FunctionCall)
    assert (reply.name, reply.args) == expected


def test_offline_model_asks_which_corpus_and_greets_without_tools():
    ask = decide(Turn.read(_request(["ingest_to_corpus"], SessionContext([A, B]), "note this: x @team_notes @papers")))
    assert ask == ("Which corpus should I save this to: @team_notes (Team Notes) or @papers (Research Papers)? "
                   "Reply with one @mention.")
    hello = decide(Turn.read(_request(["transfer_to_agent"], SessionContext([], [A, B]), "hi")))
    assert isinstance(hello, str) and "@team_notes (Team Notes), @papers (Research Papers)" in hello

"""The offline answer through ADK's Runner (real agents, real tools, the demo database): it follows the chain of
each demo multi-hop question to the final entity, cites both links with their corpora, and passes on the
Context Router's knowledge gap (who to ask).

Read-only on the session-wide demo database (search runs only append planner_run statistics rows).
"""
from __future__ import annotations

import re
from typing import Any

import pytest

from agents.negentropy.agent import build_root_agent
from demo.build import DEMO_CORPORA, load_demo_queries
from session.runtime import bind_knowledge_app
from tests.agent_harness import start_conversation

SEARCH = "search_knowledge_base"
CASES = load_demo_queries()["multi_hop_cases"]


@pytest.fixture
def demo(demo_app):
    kapp, corpora = demo_app
    with bind_knowledge_app(kapp):
        yield kapp, corpora


def _citation_of(results: list[dict[str, Any]], corpus: str, source_uri: str) -> int:
    return next(r["citation_id"] for r in results if r["corpus_name"] == corpus and r["source_uri"] == source_uri)


async def _ask(question: str, case: dict[str, Any]):
    """The agent's turn for ``question`` over the case's corpora, the citation numbers of the linking document and
    the bridged one, and the answer text before the references."""
    conversation = await start_conversation(build_root_agent())
    turn = await conversation.send(f"{question} " + " ".join(f"@{name}" for name in case["corpora"]))
    [result] = turn.responses(SEARCH)
    primary_corpus, primary_uri = case["primary_source"].split("/", 1)
    linking = _citation_of(result["results"], primary_corpus, primary_uri)
    answering = _citation_of(result["results"], case["expanded_corpus"], case["expanded_source"].split("/", 1)[1])
    return turn, linking, answering, turn.text.split("\n\nReferences:")[0]


@pytest.mark.parametrize("case", CASES, ids=[c["bridge_entity"] for c in CASES])
async def test_the_answer_follows_the_bridge_to_the_final_entity(demo, case):
    turn, linking, answering, body = await _ask(case["question"], case)
    assert any(answer in body for answer in case["answer_aliases"]), body
    assert case["expected_phrase"] in body
    cited = [int(n) for n in re.findall(r"\[(\d+)\]", body)]
    assert linking in cited and answering in cited, body
    assert cited.index(linking) < cited.index(answering), "the answer leads with the linking fact"
    references = turn.text.split("References:\n")[1].split("\n\n")[0]
    for name in case["corpora"]:
        assert f"(from Corpus: {DEMO_CORPORA[name][0]})" in references


WORDINGS = [(question, case) for case in CASES for question in [case["question"], *case["paraphrases"]]]


@pytest.mark.parametrize("question, case", WORDINGS, ids=[q[:50] for q, _ in WORDINGS])
async def test_every_wording_of_a_case_is_answered_with_both_links(demo, question, case):
    """The paraphrases of demo/queries.json (issue 19): the reply names the final entity and cites the linking
    document and the bridged one, whatever the wording."""
    _, linking, answering, body = await _ask(question, case)
    assert any(answer in body for answer in case["answer_aliases"]), body
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", body)}
    assert {linking, answering} <= cited, body


async def test_who_developed_questions_get_the_developer(demo):
    conversation = await start_conversation(build_root_agent())
    turn = await conversation.send("Who developed the Aurora Vector Engine? @project_docs @papers")
    body = turn.text.split("\n\nReferences:")[0]
    assert body.startswith("Aurora Vector Engine was developed by Dr. Lin Wei")


async def test_the_paper_lookup_is_not_used_when_the_question_asks_for_a_city(demo):
    conversation = await start_conversation(build_root_agent())
    turn = await conversation.send("In which city is the lead author of the multilingual entity resolution paper "
                                   "based? @papers @team_notes")
    assert [c.name for c in turn.calls() if c.name != "transfer_to_agent"] == [SEARCH]
    assert "Berlin" in turn.text.split("\n\nReferences:")[0]


async def test_the_routers_knowledge_gap_names_whom_to_ask(demo):
    """kenji may not read the finance ledger: the router says so and names its owner; the answer passes it on."""
    conversation = await start_conversation(build_root_agent(), user_id="kenji")
    turn = await conversation.send("How much did the Cobalt Systems labeling contract cost?")

    [result] = turn.responses(SEARCH)
    gap = result["knowledge_gap"]
    assert (gap["reason"], gap["owner_name"]) == ("no_access", "Greta Lindqvist")
    notice = turn.text.split("Knowledge gap: ")[1]
    assert notice.startswith(gap["message"])
    assert notice.endswith(f"Ask Greta Lindqvist, owner of {gap['library_name']}.")

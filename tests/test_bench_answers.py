"""`bench answers` on two MuSiQue questions: the offline agent and, for the NE_MODEL path, a scripted ADK model."""
from __future__ import annotations

import json
from pathlib import Path
from typing import AsyncGenerator

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from agents.faculties import PERCEPTION
from bench.answers import cited_sources, contains_answer, run
from bench.multihop_data import DatasetSource

SMOKE = Path(__file__).parent / "data" / "musique_smoke_questions.json"
METRICS = {"containment", "citation_precision", "citation_recall", "ms_per_turn", "words_per_reply"}


def _two_questions(tmp_path: Path) -> dict[str, DatasetSource]:
    path = tmp_path / "two.json"
    path.write_text(json.dumps(json.loads(SMOKE.read_text(encoding="utf-8"))[:2]), encoding="utf-8")
    return {"musique": DatasetSource(path)}


def test_containment_is_normalised_and_citations_come_from_the_answer_text():
    assert contains_answer("It was built by Dr. Lin Wei, in 2022.", ["lin wei"])
    assert contains_answer("“The Aristocats” (1970)", ["Aristocats"])
    assert not contains_answer("Berliner Zeitung", ["Berlin"])
    results = [{"citation_id": 1, "corpus_name": "c1", "source_uri": "a"},
               {"citation_id": 2, "corpus_name": "c2", "source_uri": "b"}]
    assert cited_sources("Fact [2].\n\nReferences:\n[1] A (from Corpus: C1)", results) == {"c2/b"}


async def test_offline_agent_smoke_run(pg_dsn, tmp_path):
    results = await run(["musique"], write=False, server_dsn=pg_dsn, dev_sets=_two_questions(tmp_path))
    scores = results["musique"]
    assert scores["questions"] == 2
    for method in ("agent", "baseline"):
        assert set(scores[method]) == METRICS
        assert all(0.0 <= scores[method][k] <= 1.0 for k in ("containment", "citation_precision", "citation_recall"))
    assert scores["agent"]["citation_recall"] > 0, "the agent cites supporting passages"
    assert all(case["reply"] for case in scores["cases"])


class ScriptedModel(BaseLlm):
    """What an LLM behind NE_MODEL does, scripted: transfer, call the search tool, answer from its first result."""

    model: str = "scripted"

    async def generate_content_async(self, llm_request: LlmRequest,
                                     stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
        last = llm_request.contents[-1].parts[0] if llm_request.contents else None
        if "transfer_to_agent" in llm_request.tools_dict:
            part = types.Part(function_call=types.FunctionCall(name="transfer_to_agent",
                                                               args={"agent_name": PERCEPTION}))
        elif last is not None and last.function_response is not None:
            first = last.function_response.response["results"][0]
            part = types.Part(text=f"Scripted: {first['content'][:80]} [{first['citation_id']}]\n\nReferences:\n"
                                   f"{first['formatted_citation']}")
        else:
            question = llm_request.contents[-1].parts[0].text.split(" @")[0]
            part = types.Part(function_call=types.FunctionCall(name="search_knowledge_base", args={"query": question}))
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


async def test_a_model_other_than_the_offline_one_is_measured_the_same_way(pg_dsn, tmp_path):
    results = await run(["musique"], model=ScriptedModel(), write=False, server_dsn=pg_dsn,
                        dev_sets=_two_questions(tmp_path))
    cases = results["musique"]["cases"]
    assert [case["reply"].startswith("Scripted: ") for case in cases] == [True, True]
    assert all(case["agent"] == contains_answer(case["reply"], case["answers"]) for case in cases)
    assert results["musique"]["agent"]["citation_precision"] in (0.0, 0.5, 1.0), "one cited source per reply"

"""Gateway scope: named libraries are checked against the caller's permission view, results never leave it."""
from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel

from knowledge.gateway import CallScope, GatewayTool
from knowledge.gateway.errors import ForbiddenLibraryError, NotFoundError
from tests.gateway_support import TOPOLOGY, Acme, acme  # noqa: F401 - fixture


async def test_forbidden_library_is_refused_with_the_callers_libraries(acme: Acme) -> None:
    marker = await acme.audit_marker()
    with pytest.raises(ForbiddenLibraryError) as refused:
        await acme.kapp.gateway.call(acme.tool("search"), {"query": "budget", "libraries": ["fin-ledger"]},
                                          channel="adk", user_id="ivan")
    assert "'fin-ledger' is not in ivan's permission view" in refused.value.message
    assert "eng-docs" in refused.value.message and "apollo-ws" in refused.value.message
    [row] = await acme.audit_rows_after(marker)
    assert (row["decision"], row["reason"], row["result_items"]) == ("denied", "forbidden_library", 0)


async def test_unknown_library_gets_the_same_answer_as_a_forbidden_one(acme: Acme) -> None:
    with pytest.raises(ForbiddenLibraryError, match="'secret-plans' is not in ivan's permission view"):
        await acme.kapp.gateway.call(acme.tool("search"), {"query": "x", "libraries": ["secret-plans"]},
                                          channel="adk", user_id="ivan")


async def test_results_stay_inside_the_view_and_the_named_library(acme: Acme) -> None:
    gateway = acme.kapp.gateway
    fin_id = str(acme.corpora["fin_ledger"].id)
    everything = await gateway.call(acme.tool("search"), {"query": "gripper calibration budget", "limit": 25},
                                    channel="adk", user_id="ivan")
    assert everything["items"], "ivan should find gripper chunks"
    assert fin_id not in {item["corpus_id"] for item in everything["items"]}
    named = await gateway.call(acme.tool("search"), {"query": "gripper", "libraries": ["Apollo workspace"]},
                               channel="adk", user_id="ivan")
    assert {item["library"] for item in named["items"]} == {"apollo-ws"}
    assert all(item["formatted_citation"].endswith("(from Corpus: Apollo Ws)") for item in named["items"])
    fay = await gateway.call(acme.tool("search"), {"query": "gripper calibration", "limit": 25},
                             channel="adk", user_id="fay")
    assert {item["library"] for item in fay["items"]} <= {"fin-ledger", "all-hands"}


async def test_read_of_a_chunk_outside_the_view_is_not_found(acme: Acme) -> None:
    gateway = acme.kapp.gateway
    budget = await gateway.call(acme.tool("search"), {"query": "Q3 budget capital expenditure"}, channel="adk",
                                user_id="fay")
    chunk = next(item for item in budget["items"] if item["library"] == "fin-ledger")
    read = await gateway.call(acme.tool("read"), {"id": chunk["read_id"]}, channel="adk", user_id="fay")
    assert read["items"][0]["content"].startswith("Q3 budget")
    document = await gateway.call(acme.tool("read"), {"id": chunk["document_id"]}, channel="adk", user_id="fay")
    assert [item["chunk_id"] for item in document["items"]] == [chunk["chunk_id"]]
    for forbidden in (chunk["read_id"], chunk["document_id"]):
        with pytest.raises(NotFoundError, match="not in any library you can see"):
            await gateway.call(acme.tool("read"), {"id": forbidden}, channel="adk", user_id="ivan")


async def test_a_permission_change_applies_to_the_next_call(acme: Acme) -> None:
    gateway = acme.kapp.gateway
    arguments = {"query": "budget", "libraries": ["fin-ledger"]}
    with pytest.raises(ForbiddenLibraryError):
        await gateway.call(acme.tool("search"), arguments, channel="adk", user_id="ivan")
    transferred = json.loads(json.dumps(TOPOLOGY))
    next(p for p in transferred["people"] if p["id"] == "ivan")["department"] = "fin"
    acme.topology_path.write_text(json.dumps(transferred), encoding="utf-8")
    try:
        result = await gateway.call(acme.tool("search"), arguments, channel="adk", user_id="ivan")
        assert {item["library"] for item in result["items"]} == {"fin-ledger"}
        with pytest.raises(ForbiddenLibraryError):
            await gateway.call(acme.tool("search"), {"query": "gripper", "libraries": ["eng-docs"]},
                               channel="adk", user_id="ivan")
    finally:
        acme.topology_path.write_text(json.dumps(TOPOLOGY), encoding="utf-8")


class _Nothing(BaseModel):
    pass


async def test_rows_a_misbehaving_tool_returns_from_outside_the_view_are_withheld(acme: Acme) -> None:
    fin_id = str(acme.corpora["fin_ledger"].id)
    eng_id = str(acme.corpora["eng_docs"].id)

    async def leaky(scope: CallScope, args: _Nothing) -> dict[str, Any]:
        return {"items": [{"corpus_id": eng_id, "content": "ok"}, {"corpus_id": fin_id, "content": "budget"},
                          {"corpus_id": "not-a-uuid", "content": "forged"}],
                "evidence": [{"corpus_id": acme.corpora["fin_ledger"].id, "content": "budget again"}]}

    tool = GatewayTool(name="leaky", description="returns rows it should not", arguments=_Nothing, handler=leaky)
    marker = await acme.audit_marker()
    result = await acme.kapp.gateway.call(tool, {}, channel="adk", user_id="ivan")
    assert result == {"items": [{"corpus_id": eng_id, "content": "ok"}], "evidence": []}
    [row] = await acme.audit_rows_after(marker)
    assert (row["decision"], row["result_items"]) == ("allowed", 1)

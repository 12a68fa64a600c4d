"""ADK tools pass the same gateway as MCP: audited under the session's person, sanitised, and no row outside
the channel's permission view comes back."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import pytest

from agents.negentropy.agent import build_root_agent
from knowledge.context.permissions import UnknownPersonError
from knowledge.gateway import ToolGateway
from knowledge.gateway.adk import through_gateway
from session.runtime import bind_knowledge_app
from tests.agent_harness import start_conversation
from tests.gateway_support import PLANTED_AWS_KEY, Acme, acme  # noqa: F401 - fixture

SEARCH = "search_knowledge_base"


@pytest.fixture
def bound(acme: Acme):
    with bind_knowledge_app(acme.kapp):
        yield acme


async def test_agent_search_is_audited_and_sanitised(bound: Acme) -> None:
    marker = await bound.audit_marker()
    conversation = await start_conversation(build_root_agent(), user_id="ivan-chat")
    turn = await conversation.send("What access key does the staging uploader use for fleet deployment? @eng_docs")
    [result] = turn.responses(SEARCH)
    assert result["status"] == "success" and result["results"]
    assert PLANTED_AWS_KEY not in json.dumps(result) and PLANTED_AWS_KEY not in turn.text
    assert any("[REDACTED:aws_access_key]" in r["content"] for r in result["results"])
    [row] = [r for r in await bound.audit_rows_after(marker) if r["tool"] == SEARCH]
    assert (row["channel"], row["person_id"], row["token_id"], row["decision"]) == ("adk", "ivan", None, "allowed")
    assert row["redactions"] >= 1 and row["result_items"] == len(result["results"])


@dataclass
class SessionUser:
    """The one attribute of ADK's ToolContext the gateway hook reads."""

    user_id: str


def _tool_returning(rows: list[dict[str, Any]]):
    async def list_rows(tool_context: Any) -> dict[str, Any]:
        return {"status": "success", "results": rows}

    return list_rows


async def test_rows_outside_the_channel_view_are_withheld(acme: Acme) -> None:
    eng, fin = str(acme.corpora["eng_docs"].id), str(acme.corpora["fin_ledger"].id)

    async def engineering_only(user_id: str) -> list[UUID]:
        return [acme.corpora["eng_docs"].id]

    async def gateway() -> ToolGateway:
        return acme.kapp.gateway

    guarded = through_gateway(_tool_returning([{"corpus_id": eng, "content": "runbook"},
                                               {"corpus_id": fin, "content": "budget"}]),
                              gateway=gateway, accessible_corpus_ids=engineering_only)
    marker = await acme.audit_marker()
    result = await guarded(tool_context=SessionUser("ivan"))
    assert result == {"status": "success", "results": [{"corpus_id": eng, "content": "runbook"}]}
    [row] = await acme.audit_rows_after(marker)
    assert (row["tool"], row["person_id"], row["decision"], row["result_items"]) == ("list_rows", "ivan", "allowed", 1)


async def test_a_user_the_channel_does_not_know_is_refused(acme: Acme) -> None:
    async def no_such_person(user_id: str) -> list[UUID]:
        raise UnknownPersonError(user_id, ["olga", "ivan", "fay"])

    async def gateway() -> ToolGateway:
        return acme.kapp.gateway

    guarded = through_gateway(_tool_returning([]), gateway=gateway, accessible_corpus_ids=no_such_person)
    marker = await acme.audit_marker()
    result = await guarded(tool_context=SessionUser("stranger"))
    assert result["status"] == "failed" and result["error"].startswith("unknown_person: unknown person 'stranger'")
    [row] = await acme.audit_rows_after(marker)
    assert (row["person_id"], row["decision"], row["reason"]) == ("stranger", "denied", "unknown_person")

"""Approval of high-risk tools: submit_card waits for a reviewer, then runs exactly once for exactly that call."""
from __future__ import annotations

import pytest

from config.settings import ApprovalPolicy
from knowledge.gateway import ToolGateway
from knowledge.gateway.approval import needs_approval
from knowledge.gateway.errors import ApprovalInvalidError, ApprovalRequiredError, ForbiddenLibraryError
from tests.gateway_support import Acme, acme  # noqa: F401 - fixture

CARD = {"library": "eng-docs", "title": "Gripper torque limit",
        "content": "The Mk4 gripper torque limit is 14 Nm; above it the encoder offset drifts.",
        "sources": ["bench test 2024-06-11"]}


def test_policy_decides_which_tools_need_approval() -> None:
    assert needs_approval(ApprovalPolicy.per_tool, writes=True)
    assert not needs_approval(ApprovalPolicy.per_tool, writes=False)
    assert needs_approval(ApprovalPolicy.always, writes=False)
    assert not needs_approval(ApprovalPolicy.never, writes=True)


async def test_submit_card_runs_once_after_a_reviewer_approves_that_exact_call(acme: Acme) -> None:
    gateway = acme.kapp.gateway
    submit = acme.tool("submit_card")
    marker = await acme.audit_marker()
    with pytest.raises(ApprovalRequiredError) as waiting:
        await gateway.call(submit, CARD, channel="adk", user_id="ivan")
    approval_id = waiting.value.details["approval_id"]
    assert f"negentropy approval approve {approval_id}" in waiting.value.message
    [pending] = [a for a in await gateway.approvals.list("pending") if a.id == approval_id]
    assert (pending.person_id, pending.tool, pending.arguments) == ("ivan", "submit_card", CARD)

    with pytest.raises(ApprovalInvalidError, match="is pending, not approved"):
        await gateway.call(submit, {**CARD, "approval_id": approval_id}, channel="adk", user_id="ivan")
    await gateway.approvals.decide(approval_id, True, "olga")
    with pytest.raises(ApprovalInvalidError, match="different call"):
        await gateway.call(submit, {**CARD, "content": "something else", "approval_id": approval_id},
                           channel="adk", user_id="ivan")
    with pytest.raises(ApprovalInvalidError, match=f"no approval {approval_id} for you"):
        await gateway.call(submit, {**CARD, "approval_id": approval_id}, channel="adk", user_id="olga")

    done = await gateway.call(submit, {**CARD, "approval_id": approval_id}, channel="adk", user_id="ivan")
    card = done["card"]
    assert (card["review_status"], card["target_library"], card["author"]) == ("inbox", "eng-docs", "ivan")
    with pytest.raises(ApprovalInvalidError, match="is consumed"):
        await gateway.call(submit, {**CARD, "approval_id": approval_id}, channel="adk", user_id="ivan")

    rows = await acme.audit_rows_after(marker)
    assert [(r["person_id"], r["decision"], r["reason"]) for r in rows] == [
        ("ivan", "denied", "approval_required"), ("ivan", "denied", "approval_invalid"),
        ("ivan", "denied", "approval_invalid"), ("olga", "denied", "approval_invalid"),
        ("ivan", "allowed", ""), ("ivan", "denied", "approval_invalid")]
    async with acme.kapp.db.connection() as conn:
        stored = await conn.fetchrow("SELECT author, review_status, metadata FROM knowledge_card WHERE id = $1",
                                     card["card_id"])
    assert (stored["author"], stored["review_status"]) == ("ivan", "inbox")
    assert stored["metadata"]["sources"] == CARD["sources"]


async def test_a_card_for_a_forbidden_library_is_refused_before_any_approval_is_filed(acme: Acme) -> None:
    gateway = acme.kapp.gateway
    before = len(await gateway.approvals.list(None))
    with pytest.raises(ForbiddenLibraryError, match="'fin-ledger' is not in ivan's permission view"):
        await gateway.call(acme.tool("submit_card"), {**CARD, "library": "fin-ledger"}, channel="adk",
                           user_id="ivan")
    assert len(await gateway.approvals.list(None)) == before


async def test_a_rejected_request_can_never_be_spent(acme: Acme) -> None:
    gateway = acme.kapp.gateway
    arguments = {**CARD, "content": "Rotterdam night shift starts at 22:00."}
    with pytest.raises(ApprovalRequiredError) as waiting:
        await gateway.call(acme.tool("submit_card"), arguments, channel="adk", user_id="ivan")
    approval_id = waiting.value.details["approval_id"]
    await gateway.approvals.decide(approval_id, False, "olga")
    with pytest.raises(ApprovalInvalidError, match="already rejected"):
        await gateway.approvals.decide(approval_id, True, "olga")
    with pytest.raises(ApprovalInvalidError, match="is rejected"):
        await gateway.call(acme.tool("submit_card"), {**arguments, "approval_id": approval_id}, channel="adk",
                           user_id="ivan")


async def test_policy_always_gates_reads_and_never_gates_nothing(acme: Acme) -> None:
    base = acme.kapp.gateway
    always = ToolGateway(base.db, acme.kapp.settings.model_copy(update={"approval_policy": ApprovalPolicy.always}),
                         base.access, base.limiter)
    with pytest.raises(ApprovalRequiredError):
        await always.call(acme.tool("search"), {"query": "gripper"}, channel="adk", user_id="ivan")
    never = ToolGateway(base.db, acme.kapp.settings.model_copy(update={"approval_policy": ApprovalPolicy.never}),
                        base.access, base.limiter)
    done = await never.call(acme.tool("submit_card"), {**CARD, "content": "Dock 4 is closed in August."},
                            channel="adk", user_id="ivan")
    assert done["card"]["review_status"] == "inbox"


async def test_a_nul_in_a_tool_argument_is_cleaned_before_the_request_is_filed(acme: Acme) -> None:
    gateway = acme.kapp.gateway
    with pytest.raises(ApprovalRequiredError) as waiting:
        await gateway.call(acme.tool("submit_card"), {**CARD, "content": "14 Nm\x00 torque limit\ud800"},
                           channel="mcp", user_id="ivan")
    [pending] = [a for a in await gateway.approvals.list("pending") if a.id == waiting.value.details["approval_id"]]
    assert pending.arguments["content"] == "14 Nm torque limit\ufffd"

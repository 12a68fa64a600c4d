"""Approval gate: which tool calls wait for a person's confirmation (ADK tool confirmation).

Policy (NE_APPROVAL_POLICY): per_tool (default) asks for the tools in HIGH_RISK_TOOLS, always asks for
every gated tool, never asks for none.
"""
from __future__ import annotations

from typing import Any, Awaitable, Callable
from uuid import UUID

from google.adk.tools import FunctionTool

from agents.access import accessible_corpus_ids_for
from agents.runtime import knowledge_app
from config.settings import ApprovalPolicy
from knowledge.gateway import ToolGateway
from knowledge.gateway.adk import through_gateway

HIGH_RISK_TOOLS = frozenset({"ingest_to_corpus"})

# Extra condition on the call's arguments: False means the call will be refused anyway, so asking a
# person to approve it would be pointless (e.g. an out-of-scope corpus).
ApprovalCondition = Callable[..., Awaitable[bool]]


def requires_approval(tool_name: str, policy: ApprovalPolicy) -> bool:
    if policy is ApprovalPolicy.always:
        return True
    if policy is ApprovalPolicy.never:
        return False
    return tool_name in HIGH_RISK_TOOLS


class ApprovalGate:
    """The ``require_confirmation`` callable of a FunctionTool, reading the policy from the app settings."""

    def __init__(self, tool_name: str, condition: ApprovalCondition | None = None) -> None:
        self.tool_name = tool_name
        self.condition = condition

    async def __call__(self, **call_args: Any) -> bool:
        policy = (await knowledge_app()).settings.approval_policy
        if not requires_approval(self.tool_name, ApprovalPolicy(policy)):
            return False
        return await self.condition(**call_args) if self.condition else True


async def _app_gateway() -> ToolGateway:
    return (await knowledge_app()).gateway


async def _session_view(user_id: str) -> list[UUID]:
    return await accessible_corpus_ids_for(user_id, await knowledge_app())


def gated_tool(func: Callable[..., Any], condition: ApprovalCondition | None = None,
               outer: Callable[[Callable[..., Any]], Callable[..., Any]] | None = None) -> FunctionTool:
    """``func`` as an ADK tool whose calls pass the approval gate, then the tool gateway (identity, rate
    limit, audit, leak check, sanitising; knowledge/gateway/adk.py). ``outer`` wraps the gateway call too
    (ingest keeps the note when the gateway itself fails, e.g. with the database down)."""
    guarded = through_gateway(func, gateway=_app_gateway, accessible_corpus_ids=_session_view)
    return FunctionTool(outer(guarded) if outer else guarded,
                        require_confirmation=ApprovalGate(func.__name__, condition))

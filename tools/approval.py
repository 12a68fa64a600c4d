"""Approval gate: which tool calls wait for a person's confirmation (ADK tool confirmation).

Policy (NE_APPROVAL_POLICY): per_tool (default) asks for the tools in HIGH_RISK_TOOLS, always asks for
every gated tool, never asks for none. A tool may describe its call in plain words (``ConfirmationHint``);
an agent that lists ``plain_confirmation_hint`` as its after_tool_callback asks with that text, which is what
`adk run` prints and what an AG-UI client gets as the confirmation hint, instead of ADK's generic "Please
approve or reject the tool call ...".
"""
from __future__ import annotations

import inspect
from typing import Any, Awaitable, Callable
from uuid import UUID

from google.adk.tools import BaseTool, FunctionTool, ToolContext

from config.settings import ApprovalPolicy
from knowledge.gateway import ToolGateway
from knowledge.gateway.adk import CONTEXT_PARAMETER, through_gateway
from session.access import accessible_corpus_ids_for
from session.runtime import knowledge_app

HIGH_RISK_TOOLS = frozenset({"ingest_to_corpus"})

# Extra condition on the call's arguments: False means the call will be refused anyway, so asking a
# person to approve it would be pointless (e.g. an out-of-scope corpus).
ApprovalCondition = Callable[..., Awaitable[bool]]
# The question a person is asked about one call, from the call's arguments (and ``tool_context``).
ConfirmationHint = Callable[..., str]



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


class ConfirmedTool(FunctionTool):
    """A FunctionTool behind ADK's tool confirmation that can say in plain words what a call will do."""

    def __init__(self, func: Callable[..., Any], gate: ApprovalGate, hint: ConfirmationHint | None) -> None:
        super().__init__(func, require_confirmation=gate)
        self.hint = hint

    def question(self, args: dict[str, Any], tool_context: ToolContext) -> str:
        params = inspect.signature(self.func).parameters
        known = {k: v for k, v in args.items() if k in params and k != CONTEXT_PARAMETER}
        if self.hint is not None:
            try:
                return self.hint(**known, tool_context=tool_context)
            except TypeError:  # the model left out an argument: fall back to listing what it sent
                pass
        return f"Allow the tool call {self.name}({', '.join(f'{k}={v!r}' for k, v in known.items())})?"


async def plain_confirmation_hint(tool: BaseTool, args: dict[str, Any], tool_context: ToolContext,
                                  tool_response: Any) -> None:
    """An agent's ``after_tool_callback``: ADK asked for confirmation with its generic hint ("Please approve or
    reject the tool call ingest_to_corpus() by responding with a FunctionResponse ..."); put the tool's own
    question in its place. It changes only the request, never the tool's response."""
    requested = tool_context.actions.requested_tool_confirmations or {}
    confirmation = requested.get(tool_context.function_call_id or "")
    if isinstance(tool, ConfirmedTool) and confirmation is not None:
        confirmation.hint = tool.question(args, tool_context)
    return None


def gated_tool(func: Callable[..., Any], condition: ApprovalCondition | None = None,
               outer: Callable[[Callable[..., Any]], Callable[..., Any]] | None = None,
               hint: ConfirmationHint | None = None) -> FunctionTool:
    """``func`` as an ADK tool whose calls pass the approval gate (asking ``hint``'s question), then the
    tool gateway (identity, rate limit, audit, leak check, sanitising; knowledge/gateway/adk.py). ``outer``
    wraps the gateway call too (ingest keeps the note when the gateway itself fails, e.g. with the database
    down)."""
    guarded = through_gateway(func, gateway=_app_gateway, accessible_corpus_ids=_session_view)
    return ConfirmedTool(outer(guarded) if outer else guarded, ApprovalGate(func.__name__, condition), hint)

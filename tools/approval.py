"""Approval gate: which tool calls wait for a person's confirmation (ADK tool confirmation).

Policy (NE_APPROVAL_POLICY): per_tool (default) asks for the tools in HIGH_RISK_TOOLS, always asks for
every gated tool, never asks for none. A tool may describe its call in plain words (``ConfirmationHint``):
that text is what `adk run` prints and what the web app's approval card shows, instead of ADK's generic
"Please approve or reject the tool call ...".
"""
from __future__ import annotations

import inspect
from typing import Any, Awaitable, Callable
from uuid import UUID

from google.adk.tools import FunctionTool, ToolContext

from agents.access import accessible_corpus_ids_for
from agents.runtime import knowledge_app
from config.settings import ApprovalPolicy
from knowledge.gateway import ToolGateway
from knowledge.gateway.adk import CONTEXT_PARAMETER, through_gateway

HIGH_RISK_TOOLS = frozenset({"ingest_to_corpus"})

# Extra condition on the call's arguments: False means the call will be refused anyway, so asking a
# person to approve it would be pointless (e.g. an out-of-scope corpus).
ApprovalCondition = Callable[..., Awaitable[bool]]
# The question a person is asked about one call, from the call's arguments (and ``tool_context``).
ConfirmationHint = Callable[..., str]

NEEDS_CONFIRMATION = {"error": "This tool call requires confirmation, please approve or reject."}
REJECTED = {"error": "This tool call is rejected."}


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
    """A FunctionTool that asks its own confirmation question (ADK's ``require_confirmation`` would ask with
    its fixed hint). The request, the pause and the resume are ADK's tool confirmation, as before."""

    def __init__(self, func: Callable[..., Any], gate: ApprovalGate, hint: ConfirmationHint | None) -> None:
        super().__init__(func)
        self.gate = gate
        self.hint = hint

    def question(self, args: dict[str, Any], tool_context: ToolContext) -> str:
        if self.hint is not None:
            return self.hint(**args, tool_context=tool_context)
        return f"Allow the tool call {self.name}({', '.join(f'{k}={v!r}' for k, v in args.items())})?"

    def _call_args(self, args: dict[str, Any]) -> dict[str, Any] | None:
        """The arguments the function takes, or None when one it needs is missing (ADK then answers the
        model with its own error, and there is nothing to confirm)."""
        params = {n: p for n, p in inspect.signature(self.func).parameters.items() if n != CONTEXT_PARAMETER}
        known = {k: v for k, v in args.items() if k in params}
        missing = [n for n, p in params.items() if p.default is p.empty and n not in known]
        return None if missing else known

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        confirmation, call_args = tool_context.tool_confirmation, self._call_args(args)
        if confirmation is None and call_args is not None:
            if await self.gate(**call_args, tool_context=tool_context):
                tool_context.request_confirmation(hint=self.question(call_args, tool_context))
                tool_context.actions.skip_summarization = True  # the pause is no result for the model
                return dict(NEEDS_CONFIRMATION)
        elif confirmation is not None and not confirmation.confirmed:
            return dict(REJECTED)
        return await super().run_async(args=args, tool_context=tool_context)


def gated_tool(func: Callable[..., Any], condition: ApprovalCondition | None = None,
               outer: Callable[[Callable[..., Any]], Callable[..., Any]] | None = None,
               hint: ConfirmationHint | None = None) -> FunctionTool:
    """``func`` as an ADK tool whose calls pass the approval gate (asking ``hint``'s question), then the
    tool gateway (identity, rate limit, audit, leak check, sanitising; knowledge/gateway/adk.py). ``outer``
    wraps the gateway call too (ingest keeps the note when the gateway itself fails, e.g. with the database
    down)."""
    guarded = through_gateway(func, gateway=_app_gateway, accessible_corpus_ids=_session_view)
    return ConfirmedTool(outer(guarded) if outer else guarded, ApprovalGate(func.__name__, condition), hint)

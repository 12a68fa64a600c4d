"""ADK tools through the gateway: the same identity, rate limit, audit, leak check and sanitising as MCP.

The agent server has authenticated its session user and resolves their permission view in one place
(session/access.py, passed in as ``accessible_corpus_ids``); the gateway audits the call under the user's
topology person, withholds any returned row outside those corpora and sanitises the result. ADK's own
tool confirmation (the same ``approval_policy``, asked before ADK runs the tool) is this channel's
approval, so the gateway does not gate the call twice. A refusal comes back the way agent tools report
failures: ``{"status": "failed", "error": ...}``.
"""
from __future__ import annotations

import functools
import logging
from typing import Any, Awaitable, Callable
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from knowledge.context.permissions import UnknownPersonError
from knowledge.gateway.audit import DATABASE_ERRORS
from knowledge.gateway.errors import GatewayError
from knowledge.gateway.gateway import CallScope, GatewayTool, ToolGateway

logger = logging.getLogger(__name__)

CONTEXT_PARAMETER = "tool_context"
# The corpora the channel lets its session user read (raises UnknownPersonError for a user it does not know).
ChannelView = Callable[[str], Awaitable[list[UUID]]]
# The gateway of the running app (opened lazily by the agent runtime, so a provider rather than a value).
GatewayProvider = Callable[[], Awaitable[ToolGateway]]
AsyncTool = Callable[..., Awaitable[dict[str, Any]]]


class AgentToolArguments(BaseModel):
    """ADK has already validated the arguments against the tool's own signature."""

    model_config = ConfigDict(extra="allow")


def through_gateway(func: AsyncTool, *, gateway: GatewayProvider, accessible_corpus_ids: ChannelView) -> AsyncTool:
    """``func`` (an async ADK tool taking ``tool_context``) with every call passing the gateway."""

    @functools.wraps(func)
    async def guarded(**kwargs: Any) -> dict[str, Any]:
        tool_context = kwargs[CONTEXT_PARAMETER]
        arguments = {k: v for k, v in kwargs.items() if k != CONTEXT_PARAMETER}

        async def run(scope: CallScope, parsed: AgentToolArguments) -> dict[str, Any]:
            return await func(**kwargs)

        tool = GatewayTool(name=func.__name__, description=func.__doc__ or func.__name__,
                           arguments=AgentToolArguments, handler=run, rows_field="results")
        tool_gateway = await gateway()
        try:
            corpora: list[UUID] | None = await accessible_corpus_ids(tool_context.user_id)
        except UnknownPersonError:
            corpora = None  # the gateway then looks the user up in the topology itself, and refuses
        except DATABASE_ERRORS as exc:
            # No view to check rows against: every returned row is withheld, while a tool with its own
            # durable fallback (ingest spools the note) still runs.
            logger.warning("permission view of %s unavailable (%s); returned rows will be withheld",
                           tool_context.user_id, exc)
            corpora = []
        try:
            # ADK runs a tool only after its confirmation gate passed, so the channel approved this call.
            return await tool_gateway.call(tool, arguments, channel="adk", user_id=tool_context.user_id,
                                           channel_corpus_ids=corpora, approved_by_channel=True)
        except GatewayError as exc:
            return {"status": "failed", "error": f"{exc.code}: {exc.message}", "gateway": exc.to_dict()}

    return guarded

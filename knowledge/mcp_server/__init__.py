"""MCP server exposing the context libraries to other agents; the gateway is the security boundary."""
from __future__ import annotations

from knowledge.app import KnowledgeApp
from knowledge.gateway import gateway_for
from knowledge.gateway.gateway import GatewayTool
from knowledge.mcp_server.context_tools import report_gap_tool, submit_card_tool
from knowledge.mcp_server.libraries import library_list_tool, library_read_tool
from knowledge.mcp_server.reading import read_tool, search_tool
from knowledge.mcp_server.server import NegentropyMcpServer


def library_tools(kapp: KnowledgeApp) -> list[GatewayTool]:
    """The four MCP tools: search, read, report_gap, submit_card (over kapp's router and cards)."""
    return [search_tool(kapp, kapp.router), read_tool(kapp),
            report_gap_tool(kapp.router, kapp.settings.gateway.max_query_chars), submit_card_tool(kapp.cards)]


def build_mcp_server(kapp: KnowledgeApp, *, stdio_token: str | None = None) -> NegentropyMcpServer:
    return NegentropyMcpServer(gateway_for(kapp), library_tools(kapp), library_list_tool(), library_read_tool(),
                               stdio_token=stdio_token)


__all__ = ["NegentropyMcpServer", "build_mcp_server", "library_tools"]

"""MCP server exposing the context libraries to other agents; the gateway is the security boundary."""
from __future__ import annotations

from typing import Sequence

from config.settings import GatewaySettings
from knowledge.context.cards import KnowledgeCards
from knowledge.context.router import ContextRouter
from knowledge.corpora import CorpusRegistry
from knowledge.db.database import Database
from knowledge.documents.lifecycle import DocumentLifecycle
from knowledge.gateway.gateway import GatewayTool, ToolGateway
from knowledge.mcp_server.context_tools import report_gap_tool, submit_card_tool
from knowledge.mcp_server.document_tools import document_tools
from knowledge.mcp_server.libraries import library_list_tool, library_read_tool
from knowledge.mcp_server.reading import read_tool, search_tool
from knowledge.mcp_server.server import NegentropyMcpServer


def library_tools(*, db: Database, corpora: CorpusRegistry, router: ContextRouter, cards: KnowledgeCards,
                  documents: DocumentLifecycle, limits: GatewaySettings) -> list[GatewayTool]:
    """The MCP tools: search, read, report_gap, submit_card (over the router and the cards) and the document
    tools (list, show, delete; corpus delete)."""
    return [search_tool(db, router, limits), read_tool(db, corpora, limits),
            report_gap_tool(router, limits.max_query_chars), submit_card_tool(cards), *document_tools(documents)]


def build_mcp_server(gateway: ToolGateway, tools: Sequence[GatewayTool], *,
                     stdio_token: str | None = None) -> NegentropyMcpServer:
    """The server: ``tools`` and the library resources, every call through ``gateway``."""
    return NegentropyMcpServer(gateway, tools, library_list_tool(), library_read_tool(), stdio_token=stdio_token)


__all__ = ["NegentropyMcpServer", "build_mcp_server", "library_tools"]

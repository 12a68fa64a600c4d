"""ADK tools of the Negentropy agents, each behind the approval gate."""
from __future__ import annotations

from google.adk.tools import FunctionTool

from tools.approval import gated_tool
from tools.ingest import ingest_tool
from tools.search import search_knowledge_base, search_knowledge_graph_global, search_knowledge_graph_with_papers


def perception_tools() -> list[FunctionTool]:
    return [gated_tool(search_knowledge_base), gated_tool(search_knowledge_graph_global),
            gated_tool(search_knowledge_graph_with_papers)]


def internalization_tools() -> list[FunctionTool]:
    return [ingest_tool()]

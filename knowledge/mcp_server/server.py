"""The MCP server (official SDK, low-level Server): tools and library resources, every call through the gateway.

MCP is only the transport here: the caller's API token comes from the HTTP ``Authorization: Bearer``
header (a fresh check on every request) or, over stdio, from the server's configured token; the
gateway decides everything else.
"""
from __future__ import annotations

import json
from typing import Any, Sequence

import mcp_types as types
from mcp.server import Server
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ConfigDict

from knowledge.gateway.errors import GatewayError, UnknownToolError
from knowledge.gateway.gateway import APPROVAL_ARGUMENT, GatewayTool, ToolGateway
from knowledge.mcp_server.libraries import LIBRARY_URI_PREFIX

SERVER_NAME = "negentropy"
# JSON-RPC server-error range; data.code carries the gateway's own code.
GATEWAY_ERROR_CODE = -32001

_APPROVAL_SCHEMA = {
    "type": "integer",
    "description": "Only when repeating a call a reviewer approved: the approval request number.",
}


def bearer_token(request: Any) -> str | None:
    header = request.headers.get("authorization") if request is not None else None
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def tool_listing(tool: GatewayTool) -> types.Tool:
    schema = tool.arguments.model_json_schema()
    schema.setdefault("properties", {})[APPROVAL_ARGUMENT] = _APPROVAL_SCHEMA
    return types.Tool(
        name=tool.name, description=tool.description, input_schema=schema,
        annotations=types.ToolAnnotations(read_only_hint=not tool.writes, destructive_hint=tool.destructive,
                                          open_world_hint=False),
    )


class AnyArguments(BaseModel):
    model_config = ConfigDict(extra="allow")


def unknown_tool(name: str, known: list[str]) -> GatewayTool:
    async def refuse(scope: Any, args: AnyArguments) -> dict[str, Any]:
        raise UnknownToolError(f"unknown tool {name[:80]!r}; tools: {', '.join(known)}")

    return GatewayTool(name=name[:80], description="not a tool of this server", arguments=AnyArguments,
                       handler=refuse)


def error_result(exc: GatewayError) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=f"{exc.code}: {exc.message}")],
                                structured_content={"error": exc.to_dict()}, is_error=True)


def as_mcp_error(exc: GatewayError) -> MCPError:
    return MCPError(code=GATEWAY_ERROR_CODE, message=f"{exc.code}: {exc.message}", data=exc.to_dict())


class NegentropyMcpServer:
    """Binds gateway tools and the library resources to an SDK ``Server``."""

    def __init__(self, gateway: ToolGateway, tools: Sequence[GatewayTool], library_list: GatewayTool,
                 library_read: GatewayTool, *, stdio_token: str | None = None) -> None:
        self.gateway = gateway
        self.tools = {tool.name: tool for tool in tools}
        self.library_list = library_list
        self.library_read = library_read
        self.stdio_token = stdio_token
        self.server: Server = Server(
            SERVER_NAME, version="0.1.0",
            instructions=("Search and read the context libraries your API token's person may see. Results cite "
                          "the library each piece of evidence came from. report_gap tells the library owner "
                          "what is missing; submit_card proposes new knowledge for review."),
            on_list_tools=self._list_tools, on_call_tool=self._call_tool,
            on_list_resources=self._list_resources, on_read_resource=self._read_resource,
            on_list_resource_templates=self._list_resource_templates,
        )

    def _token(self, ctx: Any) -> str | None:
        return bearer_token(ctx.request) if ctx.request is not None else self.stdio_token

    async def _list_tools(self, ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool_listing(t) for t in self.tools.values()])

    async def _call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        tool = self.tools.get(params.name) or unknown_tool(params.name, list(self.tools))
        try:
            result = await self.gateway.call(tool, params.arguments or {}, channel="mcp", token=self._token(ctx))
        except UnknownToolError as exc:
            # Audited like any call, then reported the way MCP reports a tool it cannot find.
            raise MCPError(code=types.INVALID_PARAMS, message=exc.message) from exc
        except GatewayError as exc:
            return error_result(exc)
        return types.CallToolResult(content=[types.TextContent(text=json.dumps(result, ensure_ascii=False))],
                                    structured_content=result)

    async def _list_resources(self, ctx: Any,
                              params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        try:
            result = await self.gateway.call(self.library_list, {}, channel="mcp", token=self._token(ctx))
        except GatewayError as exc:
            raise as_mcp_error(exc) from exc
        return types.ListResourcesResult(resources=[
            types.Resource(uri=f"{LIBRARY_URI_PREFIX}{item['id']}", name=item["id"], title=item["name"],
                           description=item["description"] or None, mime_type="application/json")
            for item in result["items"]
        ])

    async def _list_resource_templates(self, ctx: Any, params: types.PaginatedRequestParams | None
                                       ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[types.ResourceTemplate(
            uri_template=LIBRARY_URI_PREFIX + "{id}", name="library",
            description="A context library you may see: scope, owner, sources and corpora.",
            mime_type="application/json")])

    async def _read_resource(self, ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        try:
            result = await self.gateway.call(self.library_read, {"uri": uri}, channel="mcp", token=self._token(ctx))
        except GatewayError as exc:
            raise as_mcp_error(exc) from exc
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=uri, text=json.dumps(result, ensure_ascii=False), mime_type="application/json")])

"""``negentropy mcp`` (serve the context libraries over MCP), ``token``, ``approval`` and ``audit`` commands."""
from __future__ import annotations

import contextlib
import getpass
import sys
from datetime import datetime, timezone
from enum import Enum
from typing import Optional

import typer
from rich.table import Table

from cli.common import open_app, run_async
from cli.console import console, fail
from knowledge.app import KnowledgeApp
from knowledge.gateway.errors import GatewayError
from knowledge.gateway.tokens import parse_duration
from knowledge.gateway.gateway import GatewayTool

token_app = typer.Typer(help="Issue, list and revoke the API tokens MCP callers authenticate with.",
                        no_args_is_help=True)
approval_app = typer.Typer(help="Review high-risk tool calls waiting for approval.", no_args_is_help=True)


def served_tools(kapp: KnowledgeApp) -> list[GatewayTool]:
    """The MCP tools ``negentropy mcp`` serves, over the app's database, corpora, router and cards."""
    from knowledge.mcp_server import library_tools

    return library_tools(db=kapp.db, corpora=kapp.corpora, router=kapp.router, cards=kapp.cards,
                         documents=kapp.documents, limits=kapp.settings.gateway)


class Transport(str, Enum):
    stdio = "stdio"
    http = "http"


@run_async
async def mcp(transport: Transport = typer.Option(Transport.stdio, "--transport", "-t",
                                                  help="stdio (one caller, token from NE_MCP__TOKEN) or streamable "
                                                       "http (each request sends Authorization: Bearer <token>)"),
              host: Optional[str] = typer.Option(None, help="HTTP host (default NE_MCP__HOST, 127.0.0.1)"),
              port: Optional[int] = typer.Option(None, help="HTTP port (default NE_MCP__PORT; 0 picks a free one)")
              ) -> None:
    """Serve search, read, report_gap and submit_card (and library resources) to other agents over MCP."""
    # The MCP SDK loads only for this command, not for every other CLI call.
    from knowledge.mcp_server import build_mcp_server
    from knowledge.mcp_server.transports import serve_http, serve_stdio

    # stdout is the stdio wire: nothing printed while the app starts may reach it.
    with contextlib.redirect_stdout(sys.stderr):
        kapp = await open_app(progress=False)
    async with kapp:
        with contextlib.redirect_stdout(sys.stderr):
            kapp.embedder.embed(["load the embedding model before the first call"])
        settings = kapp.settings
        server = build_mcp_server(kapp.gateway, served_tools(kapp), stdio_token=settings.mcp.token)
        if transport is Transport.stdio:
            await serve_stdio(server.server)
            return
        try:
            await serve_http(server.server, host or settings.mcp.host, settings.mcp.port if port is None else port)
        except OSError as exc:
            fail(str(exc))


@token_app.command("issue")
@run_async
async def token_issue(person: str, label: str = typer.Option("", help="What the token is for"),
                      expires_in: Optional[str] = typer.Option(None, "--expires-in",
                                                               help="Lifetime such as 90m, 12h, 30d or 2w "
                                                                    "(default: until revoked)")) -> None:
    """Issue an API token for PERSON of the workspace topology (shown once; only its hash is stored)."""
    lifetime = parse_duration(expires_in) if expires_in is not None else None
    async with await open_app(progress=False) as kapp:
        try:
            issued = await kapp.gateway.issue_token(person, label, lifetime)
        except GatewayError as exc:
            fail(exc.message)
    until = f"expires {issued.expires_at:%Y-%m-%d %H:%M %Z}" if issued.expires_at else "no expiry"
    console.print(f"token for [bold]{issued.person_id}[/] (id {issued.token_id}, {until}); store it now, it is not "
                  "shown again:")
    print(issued.token)


@token_app.command("revoke")
@run_async
async def token_revoke(token: str = typer.Argument(..., help="The token or its 12-character id")) -> None:
    """Revoke a token; calls with it are refused from the next request on."""
    async with await open_app(progress=False) as kapp:
        try:
            identity = await kapp.gateway.tokens.revoke(token)
        except GatewayError as exc:
            fail(exc.message)
    console.print(f"revoked token {identity.token_id} of {identity.person_id}")


@token_app.command("list")
@run_async
async def token_list() -> None:
    """List tokens (ids, people, state; never the secrets)."""
    async with await open_app(progress=False) as kapp:
        tokens = await kapp.gateway.tokens.list()
    now = datetime.now(timezone.utc)
    table = Table("id", "person", "label", "created", "expires", "state")
    for t in tokens:
        expired = t.expires_at is not None and t.expires_at <= now
        state = (f"revoked {t.revoked_at:%Y-%m-%d %H:%M}" if t.revoked_at else "expired" if expired else "active")
        table.add_row(t.token_id, t.person_id, t.label, f"{t.created_at:%Y-%m-%d %H:%M}",
                      f"{t.expires_at:%Y-%m-%d %H:%M}" if t.expires_at else "never", state)
    console.print(table)


@approval_app.command("list")
@run_async
async def approval_list(all_states: bool = typer.Option(False, "--all", help="Also decided and spent requests")
                        ) -> None:
    """List approval requests (pending ones by default)."""
    async with await open_app(progress=False) as kapp:
        approvals = await kapp.gateway.approvals.list(None if all_states else "pending")
    table = Table("#", "person", "tool", "arguments", "status", "requested")
    for a in approvals:
        table.add_row(str(a.id), a.person_id, a.tool, str(a.arguments)[:90], a.status,
                      f"{a.requested_at:%Y-%m-%d %H:%M}")
    console.print(table)


async def _decide(approval_id: int, approve: bool, by: str | None) -> None:
    async with await open_app(progress=False) as kapp:
        try:
            approval = await kapp.gateway.approvals.decide(approval_id, approve, by or getpass.getuser())
        except GatewayError as exc:
            fail(exc.message)
    console.print(f"request {approval.id} ({approval.tool} for {approval.person_id}) is now {approval.status}")


@approval_app.command("approve")
@run_async
async def approval_approve(approval_id: int, by: Optional[str] = typer.Option(None, help="Reviewer name")) -> None:
    """Approve a request; the caller then repeats the call with approval_id to run it once."""
    await _decide(approval_id, True, by)


@approval_app.command("reject")
@run_async
async def approval_reject(approval_id: int, by: Optional[str] = typer.Option(None, help="Reviewer name")) -> None:
    """Reject a request; it can never be spent."""
    await _decide(approval_id, False, by)


@run_async
async def audit(person: Optional[str] = typer.Option(None, "--person", help="Only this person's calls"),
                limit: int = typer.Option(30, "--limit", "-n")) -> None:
    """Show the newest rows of the append-only gateway audit log."""
    async with await open_app(progress=False) as kapp:
        rows = await kapp.gateway.audit.recent(person, limit)
    table = Table("#", "when", "channel", "person", "tool", "decision", "reason", "items", "bytes", "ms")
    for r in rows:
        table.add_row(str(r["id"]), f"{r['occurred_at']:%Y-%m-%d %H:%M:%S}", r["channel"], r["person_id"] or "-",
                      r["tool"], r["decision"], r["reason"], str(r["result_items"]), str(r["result_size"]),
                      f"{r['latency_ms']:.1f}")
    console.print(table)


def register(app: typer.Typer) -> None:
    app.command("mcp")(mcp)
    app.command("audit")(audit)
    app.add_typer(token_app, name="token")
    app.add_typer(approval_app, name="approval")

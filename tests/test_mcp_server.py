"""`negentropy mcp` end to end: a real server process, the MCP SDK's own client over stdio and streamable
HTTP on loopback, tools listed, a search and a read, a forbidden library refused, every call audited."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import ClientSession
from mcp.shared.exceptions import MCPError

from tests.gateway_support import PLANTED_AWS_KEY, Acme, acme  # noqa: F401 - fixture
from bench.mcp_harness import http_server, http_session, server_environment, stdio_session

EXPECTED_TOOLS = {"search", "read", "report_gap", "submit_card", "document_list", "document_show", "document_delete",
                  "corpus_delete"}
# What `exercise` does, in order, as (tool, decision, reason) audit rows.
EXPECTED_AUDIT = [
    ("resources/list", "allowed", ""),
    ("search", "allowed", ""),
    ("read", "allowed", ""),
    ("search", "denied", "forbidden_library"),
    ("resources/read", "allowed", ""),
    ("resources/read", "denied", "forbidden_library"),
    ("delete_everything", "denied", "unknown_tool"),
]


async def exercise(session: ClientSession, acme: Acme) -> None:
    """ivan (engineering, project Apollo) lists, searches, reads, and is refused finance."""
    listed = await session.list_tools()
    assert {tool.name for tool in listed.tools} == EXPECTED_TOOLS
    search_schema = next(t for t in listed.tools if t.name == "search").input_schema
    assert search_schema["required"] == ["query"] and "libraries" in search_schema["properties"]

    resources = await session.list_resources()
    assert {str(r.uri) for r in resources.resources} == {
        "library://inbox-ivan", "library://eng-docs", "library://apollo-ws", "library://all-hands"}

    found = await session.call_tool("search", {"query": "gripper calibration runbook", "libraries": ["eng-docs"]})
    assert not found.is_error, found.content
    items = found.structured_content["items"]
    assert items and {item["library"] for item in items} == {"eng-docs"}
    assert all(item["formatted_citation"].startswith(f"[{item['citation_id']}]") for item in items)
    assert all("(from Corpus: Eng Docs)" in item["formatted_citation"] for item in items)
    assert json.loads(found.content[0].text) == found.structured_content

    read = await session.call_tool("read", {"id": items[0]["read_id"]})
    assert not read.is_error, read.content
    [chunk] = read.structured_content["items"]
    assert chunk["chunk_id"] == items[0]["chunk_id"] and chunk["corpus_id"] == str(acme.corpora["eng_docs"].id)
    assert PLANTED_AWS_KEY not in read.content[0].text

    refused = await session.call_tool("search", {"query": "Q3 budget", "libraries": ["fin-ledger"]})
    assert refused.is_error
    assert refused.structured_content["error"]["code"] == "forbidden_library"
    assert "'fin-ledger' is not in ivan's permission view" in refused.content[0].text

    library = await session.read_resource("library://apollo-ws")
    detail = json.loads(library.contents[0].text)
    assert (detail["owner"], [c["name"] for c in detail["corpora"]]) == ("ivan", ["apollo_ws"])
    with pytest.raises(MCPError, match="forbidden_library"):
        await session.read_resource("library://fin-ledger")
    with pytest.raises(MCPError, match="unknown tool 'delete_everything'"):
        await session.call_tool("delete_everything", {})


async def gap_and_card(session: ClientSession, acme: Acme) -> None:
    """report_gap names an owner to ask; submit_card waits for a reviewer's approval, then lands as a card."""
    gap = await session.call_tool("report_gap", {"question": "When does Kinetix invoice the calibration fee?"})
    assert not gap.is_error, gap.content
    ivan_libraries = {"inbox-ivan", "eng-docs", "apollo-ws", "all-hands"}
    assert {lib["id"] for lib in gap.structured_content["routed_libraries"]} <= ivan_libraries
    assert gap.structured_content["ask"]["person_id"] in {"olga", "ivan", "fay"}

    card = {"library": "eng-docs", "content": "The Rotterdam fleet runs gripper firmware 4.2 since June.",
            "title": "Rotterdam gripper firmware"}
    waiting = await session.call_tool("submit_card", card)
    assert waiting.is_error and waiting.structured_content["error"]["code"] == "approval_required"
    approval_id = waiting.structured_content["error"]["approval_id"]
    await acme.kapp.gateway.approvals.decide(approval_id, True, "olga")
    done = await session.call_tool("submit_card", {**card, "approval_id": approval_id})
    assert not done.is_error, done.content
    assert done.structured_content["card"]["review_status"] == "inbox"


async def assert_audited(acme: Acme, marker: int, token_id: str) -> None:
    rows = await acme.audit_rows_after(marker)
    assert [(r["tool"], r["decision"], r["reason"]) for r in rows] == EXPECTED_AUDIT
    assert {(r["channel"], r["person_id"], r["token_id"]) for r in rows} == {("mcp", "ivan", token_id)}
    assert all(r["latency_ms"] > 0 and r["arguments_digest"].startswith("sha256:") for r in rows)


@pytest.fixture
def server_env(acme: Acme, tmp_path: Path) -> dict[str, str]:
    return server_environment(acme.kapp.db.dsn, acme.topology_path, tmp_path)


async def test_stdio_transport(acme: Acme, server_env: dict[str, str], tmp_path: Path) -> None:
    issued = await acme.kapp.gateway.issue_token("ivan", "stdio test")
    marker = await acme.audit_marker()
    errlog = tmp_path / "stdio-server.log"
    try:
        async with stdio_session({**server_env, "NE_MCP__TOKEN": issued.token}, errlog) as session:
            await exercise(session, acme)
    finally:
        print(errlog.read_text(encoding="utf-8"))
    await assert_audited(acme, marker, issued.token_id)


async def test_streamable_http_transport(acme: Acme, server_env: dict[str, str], tmp_path: Path) -> None:
    issued = await acme.kapp.gateway.issue_token("ivan", "http test")
    errlog = tmp_path / "http-server.log"
    try:
        async with http_server(server_env, errlog) as url:
            assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
            marker = await acme.audit_marker()
            async with http_session(url, issued.token) as session:
                await exercise(session, acme)
            await assert_audited(acme, marker, issued.token_id)

            marker = await acme.audit_marker()
            async with http_session(url, issued.token) as session:
                await gap_and_card(session, acme)
            rows = await acme.audit_rows_after(marker)
            assert [(r["tool"], r["decision"], r["reason"]) for r in rows] == [
                ("report_gap", "allowed", ""), ("submit_card", "denied", "approval_required"),
                ("submit_card", "allowed", "")]

            marker = await acme.audit_marker()
            async with http_session(url, "ne_0123456789ab_" + "x" * 48) as stranger:
                answer = await stranger.call_tool("search", {"query": "gripper"})
                assert answer.is_error and answer.structured_content["error"]["code"] == "unknown_token"
            async with http_session(url, None) as anonymous:
                answer = await anonymous.call_tool("read", {"id": "chunk:1"})
                assert answer.is_error and "no API token" in answer.content[0].text
            rows = await acme.audit_rows_after(marker)
            assert [(r["tool"], r["reason"], r["person_id"]) for r in rows] == [
                ("search", "unknown_token", None), ("read", "unknown_token", None)]
    finally:
        print(errlog.read_text(encoding="utf-8") if errlog.exists() else "(no server log)")

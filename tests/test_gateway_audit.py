"""The audit log: one row per call with who / tool / digest / size / decision / latency, and append-only in SQL."""
from __future__ import annotations

import asyncpg
import pytest

from knowledge.gateway.errors import InvalidArgumentsError, OversizedRequestError
from knowledge.gateway.limits import arguments_digest
from tests.gateway_support import Acme, acme  # noqa: F401 - fixture


async def test_an_allowed_call_is_audited_with_digest_size_and_latency(acme: Acme) -> None:
    marker = await acme.audit_marker()
    arguments = {"query": "gripper calibration runbook", "libraries": ["eng-docs"], "limit": 3}
    result = await acme.kapp.gateway.call(acme.tool("search"), arguments, channel="adk", user_id="olga")
    [row] = await acme.audit_rows_after(marker)
    assert (row["channel"], row["person_id"], row["tool"], row["decision"], row["reason"]) == (
        "adk", "olga", "search", "allowed", "")
    assert row["arguments_digest"] == arguments_digest(arguments)
    assert row["arguments_digest"] != arguments_digest({**arguments, "limit": 4})
    assert row["result_items"] == len(result["items"]) > 0
    assert row["result_size"] > 100
    assert row["latency_ms"] > 0


@pytest.mark.parametrize("statement", [
    "UPDATE gateway_audit SET decision = 'allowed'",
    "DELETE FROM gateway_audit",
    "TRUNCATE gateway_audit",
])
async def test_audit_rows_cannot_be_changed_or_removed(acme: Acme, statement: str) -> None:
    await acme.kapp.gateway.call(acme.tool("search"), {"query": "budget"}, channel="adk", user_id="fay")
    async with acme.kapp.db.connection() as conn:
        before = await conn.fetchval("SELECT count(*) FROM gateway_audit")
        with pytest.raises(asyncpg.InsufficientPrivilegeError, match="gateway_audit is append-only"):
            await conn.execute(statement)
        assert await conn.fetchval("SELECT count(*) FROM gateway_audit") == before


async def test_oversized_requests_are_refused_before_the_tool_runs(acme: Acme) -> None:
    gateway = acme.kapp.gateway
    limits = acme.kapp.settings.gateway
    marker = await acme.audit_marker()
    with pytest.raises(OversizedRequestError, match=f"the limit is {limits.max_request_bytes}"):
        await gateway.call(acme.tool("search"), {"query": "x" * (limits.max_request_bytes + 1)}, channel="adk",
                           user_id="ivan")
    with pytest.raises(OversizedRequestError, match=f"query is {limits.max_query_chars + 1} characters"):
        await gateway.call(acme.tool("search"), {"query": "y" * (limits.max_query_chars + 1)}, channel="adk",
                           user_id="ivan")
    with pytest.raises(OversizedRequestError, match=f"maximum of {limits.max_results} results"):
        await gateway.call(acme.tool("search"), {"query": "gripper", "limit": limits.max_results + 1},
                           channel="adk", user_id="ivan")
    rows = await acme.audit_rows_after(marker)
    assert [(r["decision"], r["reason"]) for r in rows] == [("denied", "oversized_request")] * 3


async def test_invalid_arguments_are_explained(acme: Acme) -> None:
    with pytest.raises(InvalidArgumentsError, match="query: Field required"):
        await acme.kapp.gateway.call(acme.tool("search"), {"limit": 3}, channel="adk", user_id="ivan")
    with pytest.raises(InvalidArgumentsError, match="cannot read 'paragraph 7'"):
        await acme.kapp.gateway.call(acme.tool("read"), {"id": "paragraph 7"}, channel="adk", user_id="ivan")

"""MCP tokens with an expiry: refused once expired (gateway and MCP call path), issued with --expires-in."""
from __future__ import annotations

from datetime import timedelta

import pytest
from typer.testing import CliRunner

from config.settings import reset_settings_cache
from knowledge.gateway.errors import UnknownTokenError
from knowledge.gateway.tokens import parse_duration
from tests.gateway_support import Acme, acme  # noqa: F401 - fixture


async def _age(acme: Acme, token_id: str, by: timedelta) -> None:
    """Move a token's creation and expiry into the past (the clock cannot be moved, the row can)."""
    async with acme.kapp.db.connection() as conn:
        await conn.execute("UPDATE gateway_token SET created_at = created_at - $2::interval, "
                           "expires_at = expires_at - $2::interval WHERE token_id = $1", token_id, by)


async def test_token_works_until_it_expires_then_is_refused_and_audited(acme: Acme) -> None:
    gateway = acme.kapp.gateway
    issued = await gateway.issue_token("ivan", "short-lived", timedelta(hours=1))
    assert issued.expires_at is not None
    result = await gateway.call(acme.tool("search"), {"query": "gripper"}, channel="mcp", token=issued.token)
    assert result["items"]
    await _age(acme, issued.token_id, timedelta(hours=2))
    marker = await acme.audit_marker()
    with pytest.raises(UnknownTokenError, match=f"{issued.token_id} expired"):
        await gateway.call(acme.tool("search"), {"query": "gripper"}, channel="mcp", token=issued.token)
    [row] = await acme.audit_rows_after(marker)
    assert (row["decision"], row["reason"], row["person_id"]) == ("denied", "unknown_token", None)
    [listed] = [t for t in await gateway.tokens.list() if t.token_id == issued.token_id]
    assert listed.expires_at is not None and listed.revoked_at is None


async def test_token_without_expiry_never_expires(acme: Acme) -> None:
    gateway = acme.kapp.gateway
    issued = await gateway.issue_token("fay")
    assert issued.expires_at is None
    await _age(acme, issued.token_id, timedelta(days=3650))
    assert (await gateway.tokens.verify(issued.token)).person_id == "fay"


@pytest.mark.parametrize("text, expected", [("90m", timedelta(minutes=90)), ("12h", timedelta(hours=12)),
                                            ("30d", timedelta(days=30)), ("2W", timedelta(weeks=2)),
                                            ("3600s", timedelta(hours=1))])
def test_durations(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize("text", ["", "0d", "-1h", "1y", "12", "h"])
def test_bad_durations_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a duration"):
        parse_duration(text)


def test_cli_issues_a_token_with_expires_in_and_lists_its_expiry(acme: Acme, monkeypatch) -> None:
    from cli.main import app

    monkeypatch.setenv("NE_DATABASE_URL", acme.kapp.db.dsn)
    monkeypatch.setenv("NE_TOPOLOGY_PATH", str(acme.topology_path))
    reset_settings_cache()
    runner = CliRunner(env={"COLUMNS": "200"})  # the table row with the token id must not wrap
    try:
        issued = runner.invoke(app, ["token", "issue", "olga", "--label", "cli expiry", "--expires-in", "2h"])
        assert issued.exit_code == 0, issued.output
        assert "expires " in issued.output
        token = issued.output.strip().splitlines()[-1]
        token_id = token.split("_")[1]
        listed = runner.invoke(app, ["token", "list"])
        assert listed.exit_code == 0, listed.output
        [line] = [line for line in listed.output.splitlines() if token_id in line]
        assert "never" not in line and "active" in line
        bad = runner.invoke(app, ["token", "issue", "olga", "--expires-in", "soon"])
        assert bad.exit_code == 1 and "not a duration" in bad.output
    finally:
        reset_settings_cache()

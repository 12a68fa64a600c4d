"""Gateway identity: tokens stored hashed, unknown / revoked / malformed tokens refused and audited."""
from __future__ import annotations

import hashlib

import pytest

from knowledge.gateway.errors import UnknownPersonGatewayError, UnknownTokenError
from tests.gateway_support import Acme, acme  # noqa: F401 - fixture


async def test_token_is_stored_as_salted_hash_and_maps_to_its_person(acme: Acme) -> None:
    gateway = acme.kapp.gateway
    issued = await gateway.issue_token("ivan", "ci agent")
    assert issued.token.startswith(f"ne_{issued.token_id}_")
    secret = issued.token.split("_", 2)[2]
    async with acme.kapp.db.connection() as conn:
        row = await conn.fetchrow("SELECT * FROM gateway_token WHERE token_id = $1", issued.token_id)
        dump = await conn.fetchval("SELECT row_to_json(t)::text FROM gateway_token t WHERE token_id = $1",
                                   issued.token_id)
    assert secret not in dump
    assert bytes(row["secret_hash"]) == hashlib.sha256(bytes(row["salt"]) + secret.encode()).digest()
    identity = await gateway.tokens.verify(issued.token)
    assert (identity.person_id, identity.token_id) == ("ivan", issued.token_id)
    # Two tokens of the same person never share a salt.
    other = await gateway.issue_token("ivan")
    async with acme.kapp.db.connection() as conn:
        salts = await conn.fetch("SELECT salt FROM gateway_token WHERE token_id = ANY($1::text[])",
                                 [issued.token_id, other.token_id])
    assert len({bytes(r["salt"]) for r in salts}) == 2


async def test_unknown_person_gets_no_token(acme: Acme) -> None:
    with pytest.raises(UnknownPersonGatewayError, match="'mallory'"):
        await acme.kapp.gateway.issue_token("mallory")


@pytest.mark.parametrize("token", [None, "", "not-a-token", "ne_0123456789ab_" + "x" * 48])
async def test_missing_malformed_or_unknown_token_is_refused_and_audited(acme: Acme, token: str | None) -> None:
    marker = await acme.audit_marker()
    with pytest.raises(UnknownTokenError) as refused:
        await acme.kapp.gateway.call(acme.tool("search"), {"query": "gripper"}, channel="mcp", token=token)
    assert refused.value.code == "unknown_token"
    assert "token" in refused.value.message
    [row] = await acme.audit_rows_after(marker)
    assert (row["tool"], row["decision"], row["reason"], row["person_id"]) == ("search", "denied", "unknown_token",
                                                                               None)


async def test_wrong_secret_and_revoked_token_are_refused(acme: Acme) -> None:
    gateway = acme.kapp.gateway
    issued = await gateway.issue_token("fay")
    forged = issued.token[:-4] + ("aaaa" if not issued.token.endswith("aaaa") else "bbbb")
    with pytest.raises(UnknownTokenError, match=issued.token_id):
        await gateway.call(acme.tool("search"), {"query": "budget"}, channel="mcp", token=forged)
    result = await gateway.call(acme.tool("search"), {"query": "budget"}, channel="mcp", token=issued.token)
    assert result["items"]
    await gateway.tokens.revoke(issued.token_id)
    with pytest.raises(UnknownTokenError, match="revoked"):
        await gateway.call(acme.tool("search"), {"query": "budget"}, channel="mcp", token=issued.token)


async def test_agent_session_user_id_maps_to_its_person(acme: Acme) -> None:
    marker = await acme.audit_marker()
    result = await acme.kapp.gateway.call(acme.tool("search"), {"query": "gripper calibration"},
                                               channel="adk", user_id="ivan-chat")
    assert result["items"]
    [row] = await acme.audit_rows_after(marker)
    assert (row["channel"], row["person_id"], row["token_id"], row["decision"]) == ("adk", "ivan", None, "allowed")
    with pytest.raises(UnknownPersonGatewayError):
        await acme.kapp.gateway.call(acme.tool("search"), {"query": "x"}, channel="adk", user_id="nobody")

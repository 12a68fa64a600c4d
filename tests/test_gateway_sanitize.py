"""Output sanitising: secrets in chunk text never leave the gateway; results are capped in size."""
from __future__ import annotations

import json

import pytest

from knowledge.gateway import ToolGateway
from knowledge.gateway.limits import TRUNCATION_MARK, fit_result
from knowledge.gateway.sanitize import Redactions, redact_text
from tests.gateway_support import PLANTED_AWS_KEY, PLANTED_OPENAI_KEY, Acme, acme  # noqa: F401 - fixture

SECRETS = {
    "aws_access_key": ("key id AKIAIOSFODNN7EXAMPLE in the config", "AKIAIOSFODNN7EXAMPLE"),
    "aws_secret_key": ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                       "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    "bearer_token": ("curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9abcdefgh'", "eyJhbGciOiJIUzI1NiJ9abcdefgh"),
    "url_password": ("DATABASE_URL=postgresql://app:hunter2secret@db.internal:5432/app", "hunter2secret"),
    "api_key": ("OPENAI_API_KEY is sk-proj-AbCdEfGhIjKlMnOpQrStUvWx1234", "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx1234"),
    "github_token": ("push with ghp_0123456789abcdefghijABCDEFGHIJ012345", "ghp_0123456789abcdefghijABCDEFGHIJ012345"),
    "private_key": ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----",
                    "b3BlbnNzaC1rZXktdjEAAAA"),
    "password": ("login with password: Zebra-Stripes-42", "Zebra-Stripes-42"),
    "negentropy_token": ("token ne_0123456789ab_" + "Q" * 48, "Q" * 48),
}


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_each_kind_of_secret_is_redacted(kind: str) -> None:
    text, secret = SECRETS[kind]
    tally = Redactions()
    cleaned = redact_text(text, tally)
    assert secret not in cleaned
    assert "[REDACTED:" in cleaned
    assert tally.count >= 1


def test_ordinary_prose_is_left_alone() -> None:
    prose = ("The password policy requires rotation every 90 days; see https://wiki.acme.example/security. "
             "Our AWS account hosts the Bearer service (token bucket rate limits).")
    tally = Redactions()
    assert redact_text(prose, tally) == prose
    assert tally.count == 0


def test_oversized_results_drop_trailing_rows_and_say_so() -> None:
    result = {"query": "q", "items": [{"content": "x" * 100} for _ in range(10)]}
    fitted = fit_result(result, "items", 450)
    assert 0 < len(fitted["items"]) < 10
    assert fitted["truncated"] is True and fitted["rows_omitted"] == 10 - len(fitted["items"])
    assert len(json.dumps(fitted, separators=(",", ":"))) <= 450


async def test_planted_keys_in_a_chunk_never_reach_the_caller(acme: Acme) -> None:
    gateway = acme.kapp.gateway
    marker = await acme.audit_marker()
    found = await gateway.call(acme.tool("search"), {"query": "fleet deployment staging uploader access key",
                                                     "libraries": ["eng-docs"]}, channel="adk", user_id="ivan")
    chunk = next(item for item in found["items"] if "Fleet deployment" in item["content"])
    read = await gateway.call(acme.tool("read"), {"id": chunk["read_id"]}, channel="adk", user_id="ivan")
    for payload in (found, read):
        dumped = json.dumps(payload)
        assert PLANTED_AWS_KEY not in dumped and PLANTED_OPENAI_KEY not in dumped and "Tr0ub4dor" not in dumped
    content = read["items"][0]["content"]
    assert "[REDACTED:aws_access_key]" in content and "[REDACTED:api_key]" in content
    assert "postgresql://fleet:[REDACTED:url_password]@db.acme.internal/fleet" in content
    assert content.startswith("Fleet deployment notes.")  # the rest of the chunk is intact
    rows = await acme.audit_rows_after(marker)
    assert [r["redactions"] for r in rows] == [3, 3]
    async with acme.kapp.db.connection() as conn:  # the stored chunk itself is unchanged
        stored = await conn.fetchval("SELECT content FROM knowledge WHERE id = $1", chunk["chunk_id"])
    assert PLANTED_AWS_KEY in stored


async def test_long_chunk_text_is_capped(acme: Acme) -> None:
    base = acme.kapp.gateway
    tight = acme.kapp.settings.model_copy(update={"gateway": base.limits.model_copy(update={"max_chunk_chars": 60})})
    gateway = ToolGateway(base.db, tight, base.access, base.limiter)
    found = await gateway.call(acme.tool("search"), {"query": "gripper calibration runbook",
                                                     "libraries": ["eng-docs"]}, channel="adk", user_id="ivan")
    content = found["items"][0]["content"]
    assert len(content) == 60 and content.endswith(TRUNCATION_MARK)

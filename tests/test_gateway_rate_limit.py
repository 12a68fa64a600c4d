"""Per-identity token buckets: bursts up to the limit pass, the next call is refused with the wait, refill works."""
from __future__ import annotations

import pytest

from knowledge.gateway import ToolGateway
from knowledge.gateway.errors import NotFoundError, RateLimitedError, UnknownTokenError
from knowledge.gateway.rate_limit import RateLimiter
from tests.gateway_support import Acme, acme  # noqa: F401 - fixture


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_bucket_allows_the_burst_then_refills_at_the_rate() -> None:
    clock = FakeClock()
    limiter = RateLimiter(rate=2.0, burst=3, clock=clock)
    for _ in range(3):
        limiter.check("ivan")
    with pytest.raises(RateLimitedError) as refused:
        limiter.check("ivan")
    assert refused.value.details["retry_after_seconds"] == pytest.approx(0.5)
    limiter.check("fay")  # another identity has its own bucket
    clock.now += 0.5
    limiter.check("ivan")
    with pytest.raises(RateLimitedError):
        limiter.check("ivan")


def test_forgotten_identities_are_bounded() -> None:
    limiter = RateLimiter(rate=1.0, burst=1, max_keys=2, clock=FakeClock())
    for key in ("a", "b", "c"):
        limiter.check(key)
    limiter.check("a")  # "a" was evicted, so it starts with a full bucket again
    with pytest.raises(RateLimitedError):
        limiter.check("c")


def test_bad_limits_are_rejected() -> None:
    with pytest.raises(ValueError, match="rate > 0"):
        RateLimiter(rate=0, burst=5)


async def test_rate_limit_hit_through_the_gateway_is_refused_and_audited(acme: Acme) -> None:
    clock = FakeClock()
    base = acme.kapp.gateway
    gateway = ToolGateway(base.db, base.settings, base.access, RateLimiter(rate=1.0, burst=3, clock=clock))
    token = (await gateway.issue_token("olga")).token
    read = acme.tool("read")
    marker = await acme.audit_marker()
    for _ in range(3):  # a well-formed id of no chunk: let through, then not found
        with pytest.raises(NotFoundError):
            await gateway.call(read, {"id": "chunk:999999999"}, channel="mcp", token=token)
    with pytest.raises(RateLimitedError, match=r"rate limit of 1 calls/s \(burst 3\) reached; retry in 1.00 s"):
        await gateway.call(read, {"id": "chunk:999999999"}, channel="mcp", token=token)
    # Other people are not slowed down by olga's burst.
    other = (await gateway.issue_token("fay")).token
    with pytest.raises(NotFoundError):
        await gateway.call(read, {"id": "chunk:999999999"}, channel="mcp", token=other)
    clock.now += 1.0
    with pytest.raises(NotFoundError):
        await gateway.call(read, {"id": "chunk:999999999"}, channel="mcp", token=token)
    rows = await acme.audit_rows_after(marker)
    assert [(r["person_id"], r["reason"]) for r in rows] == (
        [("olga", "not_found")] * 3 + [("olga", "rate_limited"), ("fay", "not_found"), ("olga", "not_found")])
    assert rows[3]["decision"] == "denied"


async def test_failed_logins_share_one_bucket(acme: Acme) -> None:
    clock = FakeClock()
    base = acme.kapp.gateway
    gateway = ToolGateway(base.db, base.settings, base.access, RateLimiter(rate=1.0, burst=2, clock=clock))
    bogus = "ne_0123456789ab_" + "z" * 48
    for _ in range(2):
        with pytest.raises(UnknownTokenError):
            await gateway.call(acme.tool("read"), {"id": "chunk:1"}, channel="mcp", token=bogus)
    with pytest.raises(RateLimitedError):
        await gateway.call(acme.tool("read"), {"id": "chunk:1"}, channel="mcp", token=bogus)

"""The tool gateway: identity, scope, approval, audit, rate limits and sanitising for every tool call."""
from __future__ import annotations

from config import Settings
from knowledge.context.permissions import AccessResolver
from knowledge.db.database import Database
from knowledge.gateway.errors import GatewayError
from knowledge.gateway.gateway import CallScope, Caller, GatewayTool, ToolGateway
from knowledge.gateway.rate_limit import RateLimiter

# One limiter per database and app in this process, so every gateway built for it shares the buckets.
_limiters: dict[tuple[str, str, float, int], RateLimiter] = {}


def shared_limiter(dsn: str, app_name: str, rate: float, burst: int) -> RateLimiter:
    key = (dsn, app_name, rate, burst)
    limiter = _limiters.get(key)
    if limiter is None:
        limiter = _limiters[key] = RateLimiter(rate, burst)
    return limiter


def gateway_for(db: Database, settings: Settings, access: AccessResolver) -> ToolGateway:
    """The gateway over these permission views, with the process-wide rate limits of the database and app."""
    limits = settings.gateway
    limiter = shared_limiter(db.dsn, settings.app_name, limits.rate_per_second, limits.rate_burst)
    return ToolGateway(db, settings, access, limiter)


__all__ = ["CallScope", "Caller", "GatewayError", "GatewayTool", "ToolGateway", "gateway_for", "shared_limiter"]

"""Who an AG-UI request acts for.

On loopback the server acts for the one person named at start-up (``--user``, or the local operator with
``--dev-operator``). Bound beyond loopback, every request carries ``Authorization: Bearer <token>``, a token the
gateway issued (`negentropy token issue PERSON`); the token's person is the request's user, for the agent run,
the thread state and the corpus list alike. ``BearerAuth`` refuses any other request with 401 before it reaches
a route; ``/health`` stays open for probes.
"""
from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any

from fastapi import Request
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from knowledge.app import KnowledgeApp
from knowledge.context.topology import LOCAL_OPERATOR_USER, Topology, TopologyError, load_topology
from knowledge.gateway.errors import UnknownTokenError
from server.paths import HEALTH_PATH

OPEN_PATHS = frozenset({HEALTH_PATH})
_STATE_USER = "negentropy_user"  # request.state attribute BearerAuth sets
DEV_OPERATOR_USER = LOCAL_OPERATOR_USER
DEV_OPERATOR_WARNING = ("--dev-operator: the server acts as the local operator, who reads every corpus, and nobody "
                        "signs in. Use it only on your own machine; name a person with --user PERSON otherwise.")


class ServeIdentityError(ValueError):
    """The command line does not say who the server acts for (or says it in a way that would be unsafe)."""


def is_loopback(host: str) -> bool:
    if host.strip().casefold() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


@dataclass(frozen=True)
class ServeIdentity:
    """``user_id``: the person every request acts for (loopback); None: each request's bearer token names it."""

    user_id: str | None
    warning: str | None = None

    @property
    def needs_tokens(self) -> bool:
        return self.user_id is None

    def of(self, request: Request) -> str:
        return self.user_id if self.user_id is not None else getattr(request.state, _STATE_USER)


def require_person(user: str, topology: Topology | None = None) -> None:
    """ServeIdentityError unless ``user`` names a person of ``topology`` (None: the configured one) the way a
    run resolves it (person id, email or listed user id): a server for nobody would refuse every run."""
    try:
        people = topology or load_topology()
    except TopologyError as exc:
        raise ServeIdentityError(f"--user {user!r} cannot be checked: {exc}") from None
    if people.person_for_user(user) is None:
        known = ", ".join(p.id for p in people.people) or "none"
        raise ServeIdentityError(
            f"--user {user!r} is not a person of the workspace topology (people: {known}); pass one of them "
            "(negentropy topology view PERSON shows what they may read), or --dev-operator")


def serve_identity(host: str, user: str | None, dev_operator: bool, operator_users: list[str],
                   topology: Topology | None = None) -> ServeIdentity:
    """The identity `negentropy serve` runs with (``topology``: the people --user may name; None: the configured
    topology); ServeIdentityError says what to pass instead."""
    if not is_loopback(host):
        if user is not None or dev_operator:
            raise ServeIdentityError(
                f"bound to {host}, beyond loopback, every request must name its person with a bearer token, so "
                "--user and --dev-operator apply only to 127.0.0.1: drop them, and give each person a token "
                "(negentropy token issue PERSON) to send as 'Authorization: Bearer <token>'")
        return ServeIdentity(None)
    if user is not None and dev_operator:
        raise ServeIdentityError("--user and --dev-operator both say who the server acts for: pass one of them")
    if user is None and not dev_operator:
        raise ServeIdentityError(
            "who does the server act for? Pass --user PERSON (a person of the workspace topology: "
            "negentropy topology view PERSON), or --dev-operator to serve as the local operator, who reads every "
            "corpus with no sign-in (development on your own machine only)")
    if dev_operator or user in operator_users:
        return ServeIdentity(DEV_OPERATOR_USER if dev_operator else user, DEV_OPERATOR_WARNING)
    require_person(user, topology)
    return ServeIdentity(user)


def bearer_token(headers: Headers) -> str | None:
    scheme, _, token = (headers.get("authorization") or "").partition(" ")
    return token.strip() if scheme.casefold() == "bearer" and token.strip() else None


class BearerAuth:
    """ASGI middleware: a request to any path but OPEN_PATHS needs a valid, unexpired, unrevoked token."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        kapp: KnowledgeApp = scope["app"].state.kapp
        try:
            identity = await kapp.gateway.tokens.verify(bearer_token(Headers(scope=scope)))
        except UnknownTokenError as exc:
            response = JSONResponse({"error": exc.message}, status_code=401, headers={"WWW-Authenticate": "Bearer"})
            await response(scope, receive, send)
            return
        state: dict[str, Any] = scope.setdefault("state", {})
        state[_STATE_USER] = identity.person_id
        await self.app(scope, receive, send)

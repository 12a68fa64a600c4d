"""ToolGateway: the security boundary in front of every MCP and ADK tool call (docs/design.md section 8).

Every call passes, in order: identity (API token -> person, or the agent session's person), the
per-identity rate limit, the request size limit, argument validation, the scope check of named
libraries against the person's permission view, approval for high-risk tools, the tool itself,
a check that no returned row lies outside the view, secret sanitising and size caps, and one
append-only audit row whatever the outcome.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Awaitable, Callable, Mapping, Sequence, cast
from uuid import UUID

from pydantic import BaseModel, ValidationError

from config import Settings
from knowledge.context.permissions import AccessResolver, ResolvedView, UnknownPersonError
from knowledge.context.topology import ContextLibrary
from knowledge.db.database import Database
from knowledge.gateway.approval import ApprovalDesk, needs_approval
from knowledge.gateway.audit import AuditLog
from knowledge.gateway.errors import (ApprovalRequiredError, ForbiddenLibraryError, GatewayError, InvalidArgumentsError,
                                      ToolFailedError, UnknownPersonGatewayError, UnknownTokenError)
from knowledge.gateway.limits import arguments_digest, cap_strings, check_request_size, fit_result, result_size
from knowledge.gateway.rate_limit import RateLimiter
from knowledge.gateway.sanitize import Redactions, sanitize
from knowledge.gateway.tokens import IssuedToken, TokenStore, token_id_of
from knowledge.metrics import gateway_call_seconds, gateway_calls_total, gateway_redactions_total
from knowledge.pg_text import clean_value

logger = logging.getLogger(__name__)

APPROVAL_ARGUMENT = "approval_id"
UNAUTHENTICATED_KEY = "unauthenticated"


@dataclass(frozen=True)
class Caller:
    person_id: str
    channel: str  # "mcp" | "adk"
    token_id: str | None = None


@dataclass(frozen=True)
class CallScope:
    """What a tool handler may use: the caller and the corpora of their view, resolved for this one call."""

    caller: Caller
    accessible_corpus_ids: tuple[UUID, ...]
    # The topology view (None when the channel supplied the caller's corpora, as agent sessions do).
    resolved_view: ResolvedView | None = None
    requested_libraries: tuple[ContextLibrary, ...] = ()  # the libraries the call named (checked)
    requested_corpus_ids: tuple[UUID, ...] | None = None  # their corpora; None: the call named no library

    @property
    def view(self) -> ResolvedView:
        if self.resolved_view is None:
            raise InvalidArgumentsError("this tool needs the caller's permission view from the workspace topology; "
                                        "this channel supplied only the caller's corpora")
        return self.resolved_view

    @property
    def libraries(self) -> list[ContextLibrary]:
        return self.resolved_view.libraries if self.resolved_view else []

    def library_of(self, corpus_id: UUID) -> str | None:
        """The id of the (first) visible library a corpus belongs to."""
        libraries = self.resolved_view.libraries_of_corpus(corpus_id) if self.resolved_view else []
        return libraries[0].id if libraries else None


ToolHandler = Callable[[CallScope, Any], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class GatewayTool:
    name: str
    description: str
    arguments: type[BaseModel]
    handler: ToolHandler
    writes: bool = False
    destructive: bool = False  # it deletes what callers stored (MCP's destructive hint)
    libraries_field: str | None = None  # argument naming libraries (a name or a list of names) to scope-check
    rows_field: str = "items"  # result key holding the returned rows (each may carry a corpus_id)


@dataclass(frozen=True)
class _Credentials:
    token: str | None
    user_id: str | None
    channel_corpus_ids: Sequence[UUID] | None


@dataclass
class _CallRecord:
    person_id: str | None = None
    token_id: str | None = None
    items: int = 0
    size: int = 0
    redactions: Redactions = field(default_factory=Redactions)


class ToolGateway:
    def __init__(self, db: Database, settings: Settings, access: AccessResolver,
                 limiter: RateLimiter | None = None) -> None:
        self.db = db
        self.settings = settings
        self.limits = settings.gateway
        self.access = access
        self.tokens = TokenStore(db, settings.app_name)
        self.audit = AuditLog(db, settings.app_name)
        self.approvals = ApprovalDesk(db, settings.app_name)
        self.limiter = limiter or RateLimiter(self.limits.rate_per_second, self.limits.rate_burst)

    # --- administration -------------------------------------------------------------------------

    async def issue_token(self, person_id: str, label: str = "", expires_in: timedelta | None = None) -> IssuedToken:
        """A new token for a person of the topology (UnknownPersonGatewayError otherwise); ``expires_in`` None:
        it never expires."""
        await self._view(person_id)
        return await self.tokens.issue(person_id, label, expires_in)

    # --- the call path --------------------------------------------------------------------------

    async def call(self, tool: GatewayTool, arguments: Mapping[str, Any] | None, *, channel: str,
                   token: str | None = None, user_id: str | None = None,
                   channel_corpus_ids: Sequence[UUID] | None = None,
                   approved_by_channel: bool = False) -> dict[str, Any]:
        """Run ``tool`` for the caller named by ``token`` (MCP) or by ``user_id``, the user of an agent session
        the agent server already authenticated (a person id, email or listed user id of the topology).

        ``channel_corpus_ids``: the corpora the channel's own permission view gives ``user_id`` (agent sessions
        resolve it in one place, session/access.py); without it the topology view of ``user_id`` applies.
        ``approved_by_channel``: the channel ran its own approval gate under the same policy (ADK tool
        confirmation), so the gateway files no approval request of its own.
        Returns the sanitised result or raises a GatewayError; audited either way."""
        started = time.perf_counter()
        # arguments arrive from clients (MCP) and models (ADK): text PostgreSQL cannot store is cleaned here once
        raw = cast(dict[str, Any], clean_value(dict(arguments or {})))
        record = _CallRecord()
        try:
            digest = arguments_digest(raw)
        except GatewayError:
            digest = "unserialisable"
        try:
            result = await self._run(tool, raw, channel, _Credentials(token, user_id, channel_corpus_ids),
                                     approved_by_channel, record)
        except GatewayError as exc:
            await self._audit(tool.name, channel, digest, record, exc.decision, exc.code, started)
            raise
        except Exception as exc:
            logger.exception("tool %s failed", tool.name)
            await self._audit(tool.name, channel, digest, record, "error", ToolFailedError.code, started)
            raise ToolFailedError(f"{tool.name} failed: {type(exc).__name__}: {exc}") from exc
        await self._audit(tool.name, channel, digest, record, "allowed", "", started)
        return result

    async def _run(self, tool: GatewayTool, raw: dict[str, Any], channel: str, credentials: _Credentials,
                   approved_by_channel: bool, record: _CallRecord) -> dict[str, Any]:
        caller = await self._identify(channel, credentials, record)
        self.limiter.check(caller.person_id)
        check_request_size(raw, self.limits.max_request_bytes)
        approval_id = _pop_approval_id(raw)
        parsed = _validate(tool, raw)
        if credentials.channel_corpus_ids is not None:
            scope = CallScope(caller, tuple(dict.fromkeys(credentials.channel_corpus_ids)))
        else:
            scope = await self._scope(caller, tool, parsed)
        if tool.libraries_field is not None and scope.resolved_view is None:
            raise ForbiddenLibraryError(f"{tool.name} names libraries, which needs the caller's topology view")
        spent = None
        if needs_approval(self.settings.approval_policy, tool.writes) and not approved_by_channel:
            spent = await self._require_approval(caller, tool, raw, approval_id)
        try:
            result = await tool.handler(scope, parsed)
        except BaseException:
            if spent is not None:
                await self.approvals.give_back(spent)
            raise
        return self._finish(tool, result, scope, record)

    async def _identify(self, channel: str, credentials: _Credentials, record: _CallRecord) -> Caller:
        user_id, token = credentials.user_id, credentials.token
        if user_id is not None:
            record.person_id = user_id
            try:
                person_id = self.access.person_for_user(user_id).id
            except UnknownPersonError as exc:
                if credentials.channel_corpus_ids is None:
                    raise UnknownPersonGatewayError(str(exc)) from exc
                person_id = user_id  # the channel vouches for this user and their corpora
            record.person_id = person_id
            return Caller(person_id=person_id, channel=channel)
        try:
            record.token_id = token_id_of(token) if token else None
        except ValueError:
            record.token_id = None
        try:
            identity = await self.tokens.verify(token)
        except UnknownTokenError:
            # Failed logins share one bucket, so guessing is throttled without slowing known callers.
            self.limiter.check(UNAUTHENTICATED_KEY)
            raise
        record.person_id, record.token_id = identity.person_id, identity.token_id
        return Caller(person_id=identity.person_id, channel=channel, token_id=identity.token_id)

    async def _view(self, person_id: str) -> ResolvedView:
        try:
            return await self.access.resolve(person_id)
        except UnknownPersonError as exc:
            raise UnknownPersonGatewayError(str(exc)) from exc

    async def _scope(self, caller: Caller, tool: GatewayTool, parsed: BaseModel) -> CallScope:
        """Resolve the caller's view now, so a permission change applies to the very next call."""
        view = await self._view(caller.person_id)
        accessible = tuple(view.accessible_corpus_ids)
        names = _library_names(parsed, tool.libraries_field)
        if names is None:
            return CallScope(caller, accessible, view)
        by_key: dict[str, ContextLibrary] = {}
        for library in view.libraries:
            by_key.setdefault(library.id.casefold(), library)
            by_key.setdefault(library.name.casefold(), library)
        missing = [n for n in names if n.strip().casefold() not in by_key]
        if missing:
            visible = ", ".join(sorted(library.id for library in view.libraries)) or "none"
            raise ForbiddenLibraryError(
                f"library {', '.join(repr(n) for n in missing)} is not in {caller.person_id}'s permission view; "
                f"libraries you can use: {visible}", libraries=missing)
        chosen = tuple(dict.fromkeys(by_key[n.strip().casefold()] for n in names))
        corpora = tuple(dict.fromkeys(c.id for library in chosen for c in view.corpora_of(library.id)))
        return CallScope(caller, accessible, view, chosen, corpora)

    async def _require_approval(self, caller: Caller, tool: GatewayTool, raw: dict[str, Any],
                                approval_id: int | None) -> int:
        """The id of the approval this call spends; raises ApprovalRequiredError after filing a request."""
        digest = arguments_digest(raw)
        if approval_id is not None:
            await self.approvals.spend(approval_id, caller.person_id, tool.name, digest)
            return approval_id
        request_id = await self.approvals.request(caller.person_id, tool.name, raw, digest)
        raise ApprovalRequiredError(
            f"{tool.name} needs a reviewer's approval (request {request_id}); once "
            f"'negentropy approval approve {request_id}' has run, repeat this call with {APPROVAL_ARGUMENT}="
            f"{request_id}", approval_id=request_id)

    def _finish(self, tool: GatewayTool, result: dict[str, Any], scope: CallScope,
                record: _CallRecord) -> dict[str, Any]:
        result = _withhold_foreign_rows(result, set(scope.accessible_corpus_ids), scope.caller)
        result = sanitize(result, record.redactions)
        result = cap_strings(result, self.limits.max_chunk_chars)
        result = fit_result(result, tool.rows_field, self.limits.max_result_chars)
        items = result.get(tool.rows_field)
        record.items = len(items) if isinstance(items, list) else 1
        record.size = result_size(result)
        return result

    async def _audit(self, tool: str, channel: str, digest: str, record: _CallRecord, decision: str, reason: str,
                     started: float) -> None:
        latency_ms = (time.perf_counter() - started) * 1000
        gateway_calls_total.labels(tool=tool, decision=decision).inc()
        gateway_call_seconds.labels(tool=tool).observe(latency_ms / 1000)
        if record.redactions.count:
            gateway_redactions_total.inc(record.redactions.count)
        await self.audit.record(channel=channel, person_id=record.person_id, token_id=record.token_id, tool=tool,
                                arguments_digest=digest, decision=decision, reason=reason, result_size=record.size,
                                result_items=record.items, redactions=record.redactions.count,
                                latency_ms=latency_ms)


def _pop_approval_id(raw: dict[str, Any]) -> int | None:
    value = raw.pop(APPROVAL_ARGUMENT, None)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, str)) or not str(value).strip().isdigit():
        raise InvalidArgumentsError(f"{APPROVAL_ARGUMENT} must be the number of an approval request")
    return int(value)


def _validate(tool: GatewayTool, raw: dict[str, Any]) -> BaseModel:
    try:
        return tool.arguments.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
                             for e in exc.errors())
        raise InvalidArgumentsError(f"invalid arguments for {tool.name}: {problems}") from exc


def _library_names(parsed: BaseModel, field_name: str | None) -> list[str] | None:
    if field_name is None:
        return None
    value = getattr(parsed, field_name)
    if value is None:
        return None
    names = [value] if isinstance(value, str) else list(value)
    return names or None


def _withhold_foreign_rows(result: dict[str, Any], allowed: set[UUID], caller: Caller) -> dict[str, Any]:
    """Defense in depth: drop any returned row (a dict in a top-level list) whose corpus is outside the view."""
    cleaned = dict(result)
    withheld = 0
    for key, rows in result.items():
        if isinstance(rows, list):
            kept = [row for row in rows if not isinstance(row, dict) or _corpus_allowed(row, allowed)]
            withheld += len(rows) - len(kept)
            cleaned[key] = kept
    if withheld:
        logger.error("gateway withheld %d row(s) outside %s's view", withheld, caller.person_id)
    return cleaned


def _corpus_allowed(item: Mapping[str, Any], allowed: set[UUID]) -> bool:
    if "corpus_id" not in item:
        return True
    try:
        return UUID(str(item["corpus_id"])) in allowed
    except ValueError:
        return False

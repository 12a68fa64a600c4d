"""The append-only audit log: one row per gateway decision (who, tool, arguments digest, size, outcome).

When the database cannot take a row (it is down), the row goes to the error log instead: the call's
outcome, a completed side effect included (a note spooled for replay), is never hidden from the caller.
"""
from __future__ import annotations

import logging
from dataclasses import asdict
from typing import Any, Mapping

import asyncpg

from knowledge.db.database import Database
from knowledge.db.queries import gateway as q
from knowledge.db.queries.gateway import AuditRow
from knowledge.db.server import DatabaseUnavailableError
from knowledge.gateway.limits import arguments_digest

logger = logging.getLogger(__name__)

DATABASE_ERRORS = (DatabaseUnavailableError, asyncpg.PostgresError, asyncpg.InterfaceError, OSError)


class AuditLog:
    def __init__(self, db: Database, app_name: str) -> None:
        self.db = db
        self.app_name = app_name

    async def record(self, *, channel: str, person_id: str | None, token_id: str | None, tool: str,
                     arguments_digest: str, decision: str, reason: str, result_size: int, result_items: int,
                     redactions: int, latency_ms: float) -> int | None:
        """The new row's id; None when the database could not take it (then it is in the error log)."""
        row = AuditRow(self.app_name, channel, person_id, token_id, tool, arguments_digest, decision, reason,
                       result_size, result_items, redactions, latency_ms)
        try:
            async with self.db.connection() as conn:
                return await q.insert_audit(conn, row)
        except DATABASE_ERRORS as exc:
            logger.error("audit row not written (%s: %s): %s", type(exc).__name__, exc, asdict(row))
            return None

    async def record_refusal(self, *, channel: str, person_id: str | None, tool: str, arguments: Mapping[str, Any],
                             reason: str) -> int | None:
        """A "denied" row for a request refused before any tool ran (a channel's own check)."""
        return await self.record(channel=channel, person_id=person_id, token_id=None, tool=tool,
                                 arguments_digest=arguments_digest(arguments), decision="denied", reason=reason,
                                 result_size=0, result_items=0, redactions=0, latency_ms=0.0)

    async def recent(self, person_id: str | None = None, limit: int = 100) -> list[dict]:
        async with self.db.connection() as conn:
            return [dict(r) for r in await q.select_audit(conn, self.app_name, person_id, limit)]

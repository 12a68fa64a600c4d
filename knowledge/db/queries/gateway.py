"""Named queries of the tool gateway: API tokens, approvals, the append-only audit log, scoped reads."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence
from uuid import UUID

import asyncpg


# --- tokens -------------------------------------------------------------------------------------

async def insert_token(conn: asyncpg.Connection, token_id: str, app_name: str, person_id: str, label: str,
                       salt: bytes, secret_hash: bytes, lifetime_seconds: float | None) -> asyncpg.Record:
    """``lifetime_seconds`` None: the token never expires."""
    return await conn.fetchrow(
        """INSERT INTO gateway_token (token_id, app_name, person_id, label, salt, secret_hash, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7::double precision))
           RETURNING token_id, person_id, label, created_at, expires_at""",
        token_id, app_name, person_id, label, salt, secret_hash, lifetime_seconds,
    )


async def select_active_token(conn: asyncpg.Connection, token_id: str, app_name: str) -> asyncpg.Record | None:
    return await conn.fetchrow(
        """SELECT token_id, person_id, salt, secret_hash, expires_at, expires_at <= now() AS expired
           FROM gateway_token WHERE token_id = $1 AND app_name = $2 AND revoked_at IS NULL""",
        token_id, app_name,
    )


async def revoke_token(conn: asyncpg.Connection, token_id: str, app_name: str) -> asyncpg.Record | None:
    return await conn.fetchrow(
        """UPDATE gateway_token SET revoked_at = now()
           WHERE token_id = $1 AND app_name = $2 AND revoked_at IS NULL RETURNING token_id, person_id""",
        token_id, app_name,
    )


async def select_tokens(conn: asyncpg.Connection, app_name: str) -> list[asyncpg.Record]:
    return await conn.fetch(
        """SELECT token_id, person_id, label, created_at, revoked_at, expires_at FROM gateway_token
           WHERE app_name = $1 ORDER BY created_at, token_id""",
        app_name,
    )


# --- approvals ----------------------------------------------------------------------------------

async def insert_approval(conn: asyncpg.Connection, app_name: str, person_id: str, tool: str, arguments: dict,
                          arguments_digest: str) -> int:
    return await conn.fetchval(
        """INSERT INTO gateway_approval (app_name, person_id, tool, arguments, arguments_digest)
           VALUES ($1, $2, $3, $4, $5) RETURNING id""",
        app_name, person_id, tool, arguments, arguments_digest,
    )


async def select_approval(conn: asyncpg.Connection, approval_id: int, app_name: str) -> asyncpg.Record | None:
    return await conn.fetchrow(
        """SELECT id, person_id, tool, arguments, arguments_digest, status, requested_at, decided_by, decided_at
           FROM gateway_approval WHERE id = $1 AND app_name = $2""",
        approval_id, app_name,
    )


async def select_approvals(conn: asyncpg.Connection, app_name: str, status: str | None) -> list[asyncpg.Record]:
    return await conn.fetch(
        """SELECT id, person_id, tool, arguments, arguments_digest, status, requested_at, decided_by, decided_at
           FROM gateway_approval WHERE app_name = $1 AND ($2::text IS NULL OR status = $2) ORDER BY id""",
        app_name, status,
    )


async def decide_approval(conn: asyncpg.Connection, approval_id: int, app_name: str, status: str,
                          decided_by: str) -> asyncpg.Record | None:
    """Move a pending approval to approved/rejected; None when it is not pending."""
    return await conn.fetchrow(
        """UPDATE gateway_approval SET status = $3, decided_by = $4, decided_at = now()
           WHERE id = $1 AND app_name = $2 AND status = 'pending' RETURNING id, status""",
        approval_id, app_name, status, decided_by,
    )


async def consume_approval(conn: asyncpg.Connection, approval_id: int, app_name: str, person_id: str, tool: str,
                           arguments_digest: str) -> bool:
    """Atomically spend an approved approval that matches this exact call."""
    row = await conn.fetchrow(
        """UPDATE gateway_approval SET status = 'consumed', consumed_at = now()
           WHERE id = $1 AND app_name = $2 AND person_id = $3 AND tool = $4 AND arguments_digest = $5
             AND status = 'approved' RETURNING id""",
        approval_id, app_name, person_id, tool, arguments_digest,
    )
    return row is not None


async def restore_approval(conn: asyncpg.Connection, approval_id: int, app_name: str) -> None:
    """Give a consumed approval back when the approved call failed, so a retry loses nothing."""
    await conn.execute(
        """UPDATE gateway_approval SET status = 'approved', consumed_at = NULL
           WHERE id = $1 AND app_name = $2 AND status = 'consumed'""",
        approval_id, app_name,
    )


# --- audit --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class AuditRow:
    app_name: str
    channel: str
    person_id: str | None
    token_id: str | None
    tool: str
    arguments_digest: str
    decision: str
    reason: str
    result_size: int
    result_items: int
    redactions: int
    latency_ms: float


async def insert_audit(conn: asyncpg.Connection, row: AuditRow) -> int:
    return await conn.fetchval(
        """INSERT INTO gateway_audit (app_name, channel, person_id, token_id, tool, arguments_digest, decision,
                                      reason, result_size, result_items, redactions, latency_ms)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id""",
        row.app_name, row.channel, row.person_id, row.token_id, row.tool, row.arguments_digest, row.decision,
        row.reason, row.result_size, row.result_items, row.redactions, row.latency_ms,
    )


async def select_audit(conn: asyncpg.Connection, app_name: str, person_id: str | None = None,
                       limit: int = 100) -> list[asyncpg.Record]:
    """The newest audit rows first (of one person when given)."""
    return await conn.fetch(
        """SELECT id, occurred_at, channel, person_id, token_id, tool, arguments_digest, decision, reason,
                  result_size, result_items, redactions, latency_ms
           FROM gateway_audit WHERE app_name = $1 AND ($2::text IS NULL OR person_id = $2)
           ORDER BY id DESC LIMIT $3""",
        app_name, person_id, limit,
    )


# --- scoped reads (run inside Database.scoped, so row-level security applies too) ----------------

async def select_chunk(conn: asyncpg.Connection, chunk_id: int, corpus_ids: Sequence[UUID]) -> asyncpg.Record | None:
    return await conn.fetchrow(
        """SELECT id, corpus_id, content, source_uri, metadata, document_hash, chunk_index FROM knowledge
           WHERE id = $1 AND corpus_id = ANY($2::uuid[])""",
        chunk_id, list(corpus_ids),
    )


async def select_document_chunks(conn: asyncpg.Connection, document_hash: str, corpus_ids: Sequence[UUID],
                                 limit: int) -> list[asyncpg.Record]:
    return await conn.fetch(
        """SELECT id, corpus_id, content, source_uri, metadata, document_hash, chunk_index FROM knowledge
           WHERE document_hash = $1 AND corpus_id = ANY($2::uuid[]) ORDER BY corpus_id, chunk_index, id
           LIMIT $3""",
        document_hash, list(corpus_ids), limit,
    )


async def select_document_ids(conn: asyncpg.Connection, chunk_ids: Sequence[int],
                              corpus_ids: Sequence[UUID]) -> dict[int, str]:
    rows = await conn.fetch(
        "SELECT id, document_hash FROM knowledge WHERE id = ANY($1::bigint[]) AND corpus_id = ANY($2::uuid[])",
        list(chunk_ids), list(corpus_ids),
    )
    return {r["id"]: r["document_hash"] for r in rows}

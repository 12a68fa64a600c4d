"""Approval of high-risk calls: a reviewer approves a stored request out of band; the call then spends it.

``approval_policy``: ``per_tool`` (default) asks for tools that write, ``always`` for every tool,
``never`` for none. An approval binds one person, one tool and one arguments digest, and is spent once.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from config.settings import ApprovalPolicy
from knowledge.db.database import Database
from knowledge.db.queries import gateway as q
from knowledge.gateway.errors import ApprovalInvalidError, NotFoundError


def needs_approval(policy: ApprovalPolicy, writes: bool) -> bool:
    if policy is ApprovalPolicy.always:
        return True
    if policy is ApprovalPolicy.never:
        return False
    return writes


@dataclass(frozen=True)
class Approval:
    id: int
    person_id: str
    tool: str
    arguments: dict[str, Any]
    status: str
    requested_at: datetime
    decided_by: str | None
    decided_at: datetime | None

    @classmethod
    def from_record(cls, row: Any) -> "Approval":
        return cls(row["id"], row["person_id"], row["tool"], row["arguments"], row["status"], row["requested_at"],
                   row["decided_by"], row["decided_at"])


class ApprovalDesk:
    def __init__(self, db: Database, app_name: str) -> None:
        self.db = db
        self.app_name = app_name

    async def request(self, person_id: str, tool: str, arguments: dict[str, Any], digest: str) -> int:
        async with self.db.connection() as conn:
            return await q.insert_approval(conn, self.app_name, person_id, tool, arguments, digest)

    async def spend(self, approval_id: int, person_id: str, tool: str, digest: str) -> None:
        """Consume an approved request matching this exact call, or explain why it cannot be used."""
        async with self.db.transaction() as conn:
            if await q.consume_approval(conn, approval_id, self.app_name, person_id, tool, digest):
                return
            row = await q.select_approval(conn, approval_id, self.app_name)
        if row is None or row["person_id"] != person_id:
            raise ApprovalInvalidError(f"no approval {approval_id} for you")
        if row["tool"] != tool or row["arguments_digest"] != digest:
            raise ApprovalInvalidError(f"approval {approval_id} was given for a different call "
                                       f"({row['tool']} with other arguments); repeat the approved call exactly")
        raise ApprovalInvalidError(f"approval {approval_id} is {row['status']}, not approved",
                                   approval_id=approval_id, status=row["status"])

    async def give_back(self, approval_id: int) -> None:
        async with self.db.connection() as conn:
            await q.restore_approval(conn, approval_id, self.app_name)

    async def decide(self, approval_id: int, approve: bool, decided_by: str) -> Approval:
        status = "approved" if approve else "rejected"
        async with self.db.transaction() as conn:
            changed = await q.decide_approval(conn, approval_id, self.app_name, status, decided_by)
            row = await q.select_approval(conn, approval_id, self.app_name)
        if row is None:
            raise NotFoundError(f"no approval request {approval_id}")
        if changed is None:
            raise ApprovalInvalidError(f"approval request {approval_id} is already {row['status']}")
        return Approval.from_record(row)

    async def list(self, status: str | None = "pending") -> list[Approval]:
        async with self.db.connection() as conn:
            return [Approval.from_record(r) for r in await q.select_approvals(conn, self.app_name, status)]

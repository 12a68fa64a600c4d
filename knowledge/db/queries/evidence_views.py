"""Named queries of the evidence the web app showed and the person opened (table evidence_view, migration 023),
and the click-through `negentropy stats` reports from them."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import asyncpg


@dataclass(frozen=True)
class EvidenceViewKey:
    """Which answer showed a chunk to whom: (app, person's user id, thread, the user message it answered)."""

    app_name: str
    user_id: str
    thread_id: str
    turn_id: str


@dataclass(frozen=True)
class ShownEvidence:
    chunk_id: int
    evidence_type: str  # "primary" | "graph_expanded"


async def insert_shown(conn: asyncpg.Connection, key: EvidenceViewKey, rollout_path: str,
                       items: Sequence[ShownEvidence]) -> None:
    """Record evidence an answer showed; showing it again (a reload) changes nothing."""
    await conn.executemany(
        """INSERT INTO evidence_view (app_name, user_id, thread_id, turn_id, chunk_id, evidence_type, rollout_path)
           VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (app_name, user_id, thread_id, turn_id, chunk_id) DO NOTHING""",
        [(key.app_name, key.user_id, key.thread_id, key.turn_id, i.chunk_id, i.evidence_type, rollout_path)
         for i in items])


async def mark_opened(conn: asyncpg.Connection, key: EvidenceViewKey, rollout_path: str,
                      item: ShownEvidence) -> None:
    """The person opened the chunk from that answer (shown then, if the answer had not said so yet)."""
    await conn.execute(
        """INSERT INTO evidence_view (app_name, user_id, thread_id, turn_id, chunk_id, evidence_type, rollout_path,
                                      opened_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, now())
           ON CONFLICT (app_name, user_id, thread_id, turn_id, chunk_id)
           DO UPDATE SET opened_at = coalesce(evidence_view.opened_at, now())""",
        key.app_name, key.user_id, key.thread_id, key.turn_id, item.chunk_id, item.evidence_type, rollout_path)


@dataclass(frozen=True)
class ClickThrough:
    rollout_path: str | None  # None: every path together
    evidence_type: str
    shown: int
    opened: int


async def select_click_through(conn: asyncpg.Connection, app_name: str, window: int) -> list[ClickThrough]:
    """Shown and opened counts of the latest ``window`` evidence views per evidence type, over every path
    (rollout_path None) and per rollout path."""
    rows = await conn.fetch(
        """WITH recent AS (SELECT * FROM evidence_view WHERE app_name = $1 ORDER BY shown_at DESC, id DESC LIMIT $2)
           SELECT rollout_path, evidence_type, count(*) AS shown, count(opened_at) AS opened
           FROM recent GROUP BY GROUPING SETS ((evidence_type), (rollout_path, evidence_type))
           ORDER BY rollout_path DESC NULLS FIRST, evidence_type DESC""",
        app_name, window)
    return [ClickThrough(r["rollout_path"], r["evidence_type"], r["shown"], r["opened"]) for r in rows]

"""Named queries on knowledge_card and knowledge_card_event."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Sequence
from uuid import UUID

import asyncpg

_COLUMNS = ("id, app_name, author, title, content, content_hash, source, target_library, target_corpus_id, "
            "inbox_corpus_id, metadata, review_status, review_note, reviewed_by, reviewed_at, decided_by, "
            "decided_at, decision_note, promoted_chunk_count, created_at, updated_at")


@dataclass(frozen=True)
class CardRecord:
    id: int
    app_name: str
    author: str
    title: str
    content: str
    content_hash: str
    source: str
    target_library: str
    target_corpus_id: UUID
    inbox_corpus_id: UUID | None
    metadata: dict
    review_status: str
    review_note: str
    reviewed_by: str | None
    reviewed_at: datetime | None
    decided_by: str | None
    decided_at: datetime | None
    decision_note: str
    promoted_chunk_count: int
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_record(cls, row: asyncpg.Record) -> "CardRecord":
        fields: dict[str, Any] = {k: (dict(row[k] or {}) if k == "metadata" else row[k]) for k in row.keys()}
        return cls(**fields)


async def insert_card(conn: asyncpg.Connection, app_name: str, author: str, title: str, content: str,
                      content_hash: str, source: str, target_library: str, target_corpus_id: UUID,
                      inbox_corpus_id: UUID, metadata: dict) -> tuple[CardRecord, bool]:
    """Insert a card in the inbox; the same (author, corpus, text) returns the existing card. -> (card, created)"""
    row = await conn.fetchrow(
        f"""INSERT INTO knowledge_card (app_name, author, title, content, content_hash, source, target_library,
                                        target_corpus_id, inbox_corpus_id, metadata)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
            ON CONFLICT (app_name, author, target_corpus_id, content_hash) DO NOTHING
            RETURNING {_COLUMNS}""",
        app_name, author, title, content, content_hash, source, target_library, target_corpus_id, inbox_corpus_id,
        metadata,
    )
    if row is not None:
        return CardRecord.from_record(row), True
    row = await conn.fetchrow(
        f"""SELECT {_COLUMNS} FROM knowledge_card
            WHERE app_name = $1 AND author = $2 AND target_corpus_id = $3 AND content_hash = $4""",
        app_name, author, target_corpus_id, content_hash,
    )
    return CardRecord.from_record(row), False


async def select_card(conn: asyncpg.Connection, app_name: str, card_id: int,
                      for_update: bool = False) -> CardRecord | None:
    row = await conn.fetchrow(
        f"SELECT {_COLUMNS} FROM knowledge_card WHERE app_name = $1 AND id = $2"
        + (" FOR UPDATE" if for_update else ""),
        app_name, card_id,
    )
    return CardRecord.from_record(row) if row else None


async def select_cards_for_libraries(conn: asyncpg.Connection, app_name: str, library_ids: Sequence[str],
                                     statuses: Sequence[str]) -> list[CardRecord]:
    rows = await conn.fetch(
        f"""SELECT {_COLUMNS} FROM knowledge_card
            WHERE app_name = $1 AND target_library = ANY($2::text[]) AND review_status = ANY($3::text[])
            ORDER BY created_at, id""",
        app_name, list(library_ids), list(statuses),
    )
    return [CardRecord.from_record(r) for r in rows]


async def select_cards_by_author(conn: asyncpg.Connection, app_name: str, author: str) -> list[CardRecord]:
    rows = await conn.fetch(
        f"SELECT {_COLUMNS} FROM knowledge_card WHERE app_name = $1 AND author = $2 ORDER BY created_at DESC, id DESC",
        app_name, author,
    )
    return [CardRecord.from_record(r) for r in rows]


async def mark_reviewed(conn: asyncpg.Connection, card_id: int, reviewer: str, note: str) -> CardRecord | None:
    row = await conn.fetchrow(
        f"""UPDATE knowledge_card SET review_status = 'reviewed', reviewed_by = $2, reviewed_at = now(),
                                      review_note = $3, updated_at = now()
            WHERE id = $1 AND review_status = 'inbox' RETURNING {_COLUMNS}""",
        card_id, reviewer, note,
    )
    return CardRecord.from_record(row) if row else None


async def mark_decided(conn: asyncpg.Connection, card_id: int, status: str, decider: str, note: str,
                       from_statuses: Sequence[str], promoted_chunk_count: int = 0) -> CardRecord | None:
    row = await conn.fetchrow(
        f"""UPDATE knowledge_card SET review_status = $2, decided_by = $3, decided_at = now(), decision_note = $4,
                                      promoted_chunk_count = $6, updated_at = now()
            WHERE id = $1 AND review_status = ANY($5::text[]) RETURNING {_COLUMNS}""",
        card_id, status, decider, note, list(from_statuses), promoted_chunk_count,
    )
    return CardRecord.from_record(row) if row else None


async def insert_card_event(conn: asyncpg.Connection, card_id: int, actor: str, from_status: str | None,
                            to_status: str, note: str = "") -> None:
    await conn.execute(
        "INSERT INTO knowledge_card_event (card_id, actor, from_status, to_status, note) VALUES ($1, $2, $3, $4, $5)",
        card_id, actor, from_status, to_status, note,
    )


async def select_card_events(conn: asyncpg.Connection, card_id: int) -> list[asyncpg.Record]:
    return await conn.fetch(
        "SELECT actor, from_status, to_status, note, at FROM knowledge_card_event WHERE card_id = $1 ORDER BY at, id",
        card_id,
    )


async def delete_card(conn: asyncpg.Connection, card_id: int) -> None:
    await conn.execute("DELETE FROM knowledge_card WHERE id = $1", card_id)

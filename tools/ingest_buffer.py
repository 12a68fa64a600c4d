"""Durable buffer for chat ingests that failed, and its replay (`negentropy ingest retry-buffer`).

A failed ingest goes to the `ingest_buffer` table. When the database itself is unreachable the
entry is appended (and fsynced) to a JSONL spool file under NE_DATA_DIR instead; the replay first
moves spooled entries into the table, then ingests every pending row. Replays are idempotent: the
pipeline skips chunks already present and the table keeps one row per (corpus, source_uri).
"""
from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from uuid import UUID

from config import Settings
from knowledge.app import KnowledgeApp
from knowledge.db.queries import ingest_buffer as q
from knowledge.db.queries.ingest_buffer import BufferedIngest
from knowledge.ingest.documents import Document

logger = logging.getLogger(__name__)

SPOOL_SUFFIX = ".jsonl"
REPLAY_BATCH = 500


def spool_dir(settings: Settings) -> Path:
    return settings.data_dir / "ingest_spool"


@dataclass(frozen=True)
class BufferReceipt:
    where: str  # "table" | "spool"
    reference: str

    def describe(self) -> str:
        if self.where == "table":
            return f"ingest buffer row {self.reference}"
        return f"spool file {self.reference}"


def _append_to_spool(settings: Settings, item: BufferedIngest) -> Path:
    directory = spool_dir(settings)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"pending{SPOOL_SUFFIX}"
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(item.to_json(), ensure_ascii=False) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    return path


async def buffer_failed_ingest(kapp: KnowledgeApp, item: BufferedIngest) -> BufferReceipt:
    """Keep a failed ingest: in the table if the database answers, else in the local spool file."""
    try:
        async with kapp.db.connection() as conn:
            buffer_id = await q.upsert_buffered(conn, item)
        return BufferReceipt("table", str(buffer_id))
    except Exception as exc:  # noqa: BLE001 - whatever broke the database, the text goes to disk
        logger.warning("ingest buffer table unavailable (%s); spooling to disk", exc)
        return BufferReceipt("spool", str(_append_to_spool(kapp.settings, item)))


@dataclass
class ReplayReport:
    imported_from_spool: int = 0
    replayed: int = 0
    chunks_added: int = 0
    failed: list[tuple[int, str]] = field(default_factory=list)
    pending_after: int = 0


async def _import_spool(kapp: KnowledgeApp) -> int:
    directory = spool_dir(kapp.settings)
    if not directory.is_dir():
        return 0
    imported = 0
    for path in sorted(directory.glob(f"*{SPOOL_SUFFIX}")):
        # a unique claim name: an earlier, interrupted import may still have its own file here
        claimed = path if path.name.startswith("importing-") else path.rename(
            path.with_name(f"importing-{time.time_ns()}-{path.name}"))
        lines = [line for line in claimed.read_text(encoding="utf-8").splitlines() if line.strip()]
        async with kapp.db.transaction() as conn:
            for line in lines:
                await q.upsert_buffered(conn, BufferedIngest.from_json(json.loads(line)))
        claimed.unlink()
        imported += len(lines)
    return imported


async def replay_ingest_buffer(kapp: KnowledgeApp) -> ReplayReport:
    """Move spooled entries into the table, then ingest every pending buffered note."""
    report = ReplayReport(imported_from_spool=await _import_spool(kapp))
    async with kapp.db.connection() as conn:
        rows = await q.select_pending(conn, kapp.settings.app_name, REPLAY_BATCH)
    corpora = {c.id: c for c in await kapp.corpora.list()}
    for row in rows:
        corpus = corpora.get(row["corpus_id"])
        if corpus is None:
            error = f"corpus {row['corpus_name']} ({row['corpus_id']}) no longer exists"
            async with kapp.db.connection() as conn:
                await q.mark_failed(conn, row["id"], error)
            report.failed.append((row["id"], error))
            continue
        document = Document(source_uri=row["source_uri"], text=row["content"], title=row["title"],
                            metadata=dict(row["metadata"]))
        try:
            ingest = await kapp.cards.capture_note(str(document.metadata.get("author") or ""), corpus, document)
        except Exception as exc:  # noqa: BLE001 - the row stays pending with the reason
            async with kapp.db.connection() as conn:
                await q.mark_failed(conn, row["id"], str(exc))
            report.failed.append((row["id"], str(exc)))
            continue
        async with kapp.db.connection() as conn:
            await q.mark_done(conn, row["id"])
        report.replayed += 1
        report.chunks_added += ingest.chunks_added
    async with kapp.db.connection() as conn:
        report.pending_after = await q.count_pending(conn, kapp.settings.app_name)
    return report


def buffered_item(kapp: KnowledgeApp, corpus_id: UUID, corpus_name: str, document: Document,
                  error: str) -> BufferedIngest:
    return BufferedIngest(app_name=kapp.settings.app_name, corpus_id=corpus_id, corpus_name=corpus_name,
                          content=document.text, title=document.title, source_uri=document.source_uri,
                          metadata=document.metadata, last_error=error)

"""Ingest: documents -> chunks -> embeddings -> rows, idempotent by content hash, then post-ingest steps."""
from __future__ import annotations

import hashlib
import logging
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Awaitable, Callable, Sequence

from tqdm import tqdm

from knowledge.corpora import Corpus
from knowledge.db.database import Database
from knowledge.db.queries import chunks as q
from knowledge.db.queries.corpora import touch_corpus
from knowledge.embedding import Embedder
from knowledge.ingest.chunking import chunk_text
from knowledge.ingest.documents import Document, LoadError, load_path
from knowledge.ingest.segmentation import search_text_for

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class NewChunk:
    id: int
    corpus_id: object
    content: str


# A step run after new chunks land in a corpus (graph extraction, canonical linking, cache invalidation).
PostIngestStep = Callable[[Corpus, list[NewChunk]], Awaitable[None]]


@dataclass
class IngestReport:
    corpus: str
    documents: int = 0
    chunks_total: int = 0
    chunks_added: int = 0
    chunks_skipped: int = 0
    errors: list[LoadError] = field(default_factory=list)
    new_chunks: list[NewChunk] = field(default_factory=list)

    def merge(self, other: "IngestReport") -> None:
        self.documents += other.documents
        self.chunks_total += other.chunks_total
        self.chunks_added += other.chunks_added
        self.chunks_skipped += other.chunks_skipped
        self.errors.extend(other.errors)
        self.new_chunks.extend(other.new_chunks)


def content_hash(text: str) -> str:
    normalized = " ".join(unicodedata.normalize("NFKC", text).split())
    return hashlib.sha256(normalized.encode("utf-8")).hexdigest()


class IngestPipeline:
    def __init__(self, db: Database, embedder: Embedder, post_ingest: Sequence[PostIngestStep] = (),
                 progress: bool = True) -> None:
        self.db = db
        self.embedder = embedder
        self.post_ingest = list(post_ingest)
        self.progress = progress
        self.settings = db.settings

    async def ingest_path(self, corpus: Corpus, path: Path) -> IngestReport:
        documents, errors = load_path(path)
        report = await self.ingest_documents(corpus, documents)
        report.errors[:0] = errors
        return report

    async def ingest_documents(self, corpus: Corpus, documents: Sequence[Document],
                               extra_metadata: dict | None = None) -> IngestReport:
        report = IngestReport(corpus=corpus.name, documents=len(documents))
        rows: list[q.ChunkRow] = []
        seen: set[str] = set()
        for document in documents:
            doc_hash = content_hash(document.text)
            chunks = chunk_text(document.text, self.settings.chunking.chunk_size, self.settings.chunking.chunk_overlap)
            for chunk in chunks:
                digest = content_hash(chunk.text)
                report.chunks_total += 1
                if digest in seen:
                    report.chunks_skipped += 1
                    continue
                seen.add(digest)
                metadata = {"title": document.title, "source_uri": document.source_uri, **document.metadata,
                            **(extra_metadata or {})}
                rows.append(q.ChunkRow(
                    corpus_id=corpus.id, app_name=corpus.app_name, content=chunk.text, content_hash=digest,
                    document_hash=doc_hash, chunk_index=chunk.index, source_uri=document.source_uri,
                    metadata=metadata, embedding=None, search_text=search_text_for(chunk.text),  # type: ignore[arg-type]
                ))
        async with self.db.connection() as conn:
            existing = await q.select_existing_hashes(conn, corpus.id, [r.content_hash for r in rows])
        fresh = [r for r in rows if r.content_hash not in existing]
        report.chunks_skipped += len(rows) - len(fresh)
        if fresh:
            inserted = await self._embed_and_insert(corpus, fresh)
            report.chunks_added = len(inserted)
            report.chunks_skipped += len(fresh) - len(inserted)
            report.new_chunks = inserted
            for step in self.post_ingest:
                await step(corpus, inserted)
        return report

    async def _embed_and_insert(self, corpus: Corpus, rows: list[q.ChunkRow]) -> list[NewChunk]:
        batch = max(self.settings.embedding_batch_size, 1) * 4
        inserted: list[NewChunk] = []
        with tqdm(total=len(rows), desc=f"embedding {corpus.name}", unit="chunk",
                  disable=not self.progress or len(rows) < 200 or None, leave=False) as bar:
            for start in range(0, len(rows), batch):
                part = rows[start:start + batch]
                vectors = self.embedder.embed([r.content for r in part])
                part = [q.ChunkRow(**{**r.__dict__, "embedding": v}) for r, v in zip(part, vectors)]
                async with self.db.transaction() as conn:
                    records = await q.insert_chunks(conn, part)
                    await touch_corpus(conn, corpus.id)
                inserted.extend(NewChunk(r["id"], r["corpus_id"], r["content"]) for r in records)
                bar.update(len(part))
        logger.info("ingested %d new chunks into %s", len(inserted), corpus.name)
        return inserted

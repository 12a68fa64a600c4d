"""Ingest: documents -> chunks -> embeddings -> rows, idempotent by content hash, then the post-ingest stages.

Failures are per document: text PostgreSQL cannot store is cleaned first, and a batch the database refuses
is retried document by document, so one bad document is named in the report and the rest lands. The
post-ingest stages (graph extraction, canonical linking, caches) run whenever new chunks landed or the
corpus has work an interrupted run left undone, so a re-run that adds nothing still finishes the graph.
"""
from __future__ import annotations

import asyncio
import hashlib
import logging
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Awaitable, Callable, Sequence, Union

import asyncpg
import numpy as np

from config import Settings
from knowledge import offload
from knowledge.corpora import Corpus
from knowledge.db.database import Database
from knowledge.db.queries import chunks as q
from knowledge.db.queries import documents as dq
from knowledge.db.queries.corpora import touch_corpus
from knowledge.db.queries.graph import select_chunk_texts, select_unextracted_chunk_ids
from knowledge.db.queries.ingest_status import select_ingest_status
from knowledge.db.queries.embeddings import require_corpus_model
from knowledge.embedding import Embedder, TokenEmbedder, TokenVectors
from knowledge.ingest.chunking import chunk_text
from knowledge.ingest.documents import Document, LoadError, LoadNotice, load_path
from knowledge.ingest.identity import ChunkReleaser, Holding, one_per_source, sort_documents
from knowledge.ingest.progress import BIG_TEXT, ProgressMode, progress_bar
from knowledge.ingest.segmentation import search_text_for
from knowledge.metrics import ingest_embedded_texts_total, ingest_stage_seconds
from knowledge.pg_text import clean_text, clean_value

logger = logging.getLogger(__name__)

# what the database refuses in one document's rows without anything being wrong with the connection
_DOCUMENT_REFUSALS = (asyncpg.DataError, asyncpg.ProgramLimitExceededError, UnicodeEncodeError)
_COUNT_SLICE = 1024  # chunks whose tokens are counted per step of the progress bar


@dataclass(frozen=True)
class NewChunk:
    id: int
    corpus_id: object
    content: str
    # what the chunk analyzer made of the chunk right after its embedding pass (the graph step's extraction)
    analysis: object | None = field(default=None, compare=False, repr=False)


# a chunk of an ingest's work: still to embed and store, or stored by an interrupted run and not in the graph
WorkRow = Union[q.ChunkRow, NewChunk]

# Called with a batch of chunk texts and their token vectors, right after their embedding pass, in the
# worker thread: what it returns per chunk travels on NewChunk.analysis to the post-ingest steps.
ChunkAnalyzer = Callable[[Sequence[str], Sequence[TokenVectors]], Sequence[object]]


# A step run after new chunks land in a corpus (graph extraction, canonical linking, cache invalidation).
PostIngestStep = Callable[[Corpus, list[NewChunk]], Awaitable[None]]

# Called with chunks already stored while the model embeds the next batch (the graph step extracting them), so
# the database and the Python stages work while the model does. What it leaves undone, or fails to do, the
# post-ingest stages still finish: it must be safe to skip.
StoredChunksStep = Callable[[Corpus, list[NewChunk]], Awaitable[None]]


@dataclass(frozen=True)
class IngestStage:
    name: str
    run: PostIngestStep


class IngestStageError(RuntimeError):
    """A post-ingest stage failed; the chunks are stored and the next ingest of the corpus finishes the stage."""

    def __init__(self, stage: str, corpus: str, added: int, cause: BaseException) -> None:
        self.stage = stage
        super().__init__(f"the {stage} stage of the ingest into {corpus} failed ({type(cause).__name__}: {cause}); "
                         f"the {added} new chunks are stored, and running the ingest again finishes the stage")


@dataclass
class IngestReport:
    corpus: str
    files: int = 0
    documents: int = 0
    chunks_total: int = 0
    chunks_added: int = 0
    chunks_skipped: int = 0
    documents_unchanged: int = 0
    documents_updated: int = 0
    errors: list[LoadError] = field(default_factory=list)
    notices: list[LoadNotice] = field(default_factory=list)
    new_chunks: list[NewChunk] = field(default_factory=list)
    resumed: bool = False  # the post-ingest stages ran for work an earlier run left undone
    sources: list[str] = field(default_factory=list)  # of the documents read (a folder ingest: what --sync keeps)
    unreadable: list[str] = field(default_factory=list)  # of the files that could not be read (kept by --sync)

    def merge(self, other: "IngestReport") -> None:
        self.files += other.files
        self.documents += other.documents
        self.chunks_total += other.chunks_total
        self.chunks_added += other.chunks_added
        self.chunks_skipped += other.chunks_skipped
        self.documents_unchanged += other.documents_unchanged
        self.documents_updated += other.documents_updated
        self.errors.extend(other.errors)
        self.notices.extend(other.notices)
        self.new_chunks.extend(other.new_chunks)
        self.resumed = self.resumed or other.resumed

    @property
    def complete(self) -> bool:
        """Every file and record landed (nothing was skipped)."""
        return not self.errors


def part_size(settings: Settings) -> int:
    """Chunks per ingest step: embedded in batches of ``embedding_batch_size``, stored in one statement and taken
    into the graph in one transaction."""
    return max(settings.embedding_batch_size, 1) * 4


def content_hash(text: str) -> str:
    normalized = " ".join(unicodedata.normalize("NFKC", text).split())
    return hashlib.sha256(normalized.encode("utf-8")).hexdigest()


def storable(document: Document) -> tuple[Document, int]:
    """The document with text, title, source and metadata cleaned for PostgreSQL; and how many characters went."""
    text = clean_text(document.text)
    title, source = clean_text(document.title), clean_text(document.source_uri)
    cleaned = replace(document, text=text.text, title=title.text, source_uri=source.text,
                      metadata=clean_value(document.metadata))  # type: ignore[arg-type]
    return cleaned, text.removed + title.removed + source.removed


class IngestPipeline:
    def __init__(self, db: Database, embedder: Embedder, releaser: ChunkReleaser,
                 post_ingest: Sequence[IngestStage] = (), progress: ProgressMode | bool = True,
                 chunk_analyzer: ChunkAnalyzer | None = None, while_embedding: StoredChunksStep | None = None) -> None:
        self.db = db
        self.releaser = releaser
        self.embedder = embedder
        self.chunk_analyzer = chunk_analyzer if isinstance(embedder, TokenEmbedder) else None
        self.post_ingest = list(post_ingest)
        self.while_embedding = while_embedding
        self.progress = ProgressMode.of(progress)
        self.settings = db.settings

    async def ingest_path(self, corpus: Corpus, path: Path) -> IngestReport:
        loaded = load_path(path, self.settings.chunking.max_file_bytes, self.progress)
        report = await self.ingest_documents(corpus, loaded.documents, origin=folder_of(path))
        report.files = loaded.files
        report.sources = [d.source_uri for d in loaded.documents]
        report.unreadable = loaded.unreadable
        report.errors[:0] = loaded.errors
        report.notices[:0] = loaded.notices
        return report

    async def ingest_documents(self, corpus: Corpus, documents: Sequence[Document],
                               extra_metadata: dict | None = None, origin: str = "") -> IngestReport:
        """``origin``: the folder the documents were read from (what ``--sync`` compares), "" for other sources."""
        report = IngestReport(corpus=corpus.name, documents=len(documents))
        # the source URI is the document's identity: cleaned before it is looked up, as it is stored
        documents = [replace(d, source_uri=clean_text(d.source_uri).text) for d in documents]
        documents, report.notices = one_per_source(documents)
        hashes = await offload.bulk(lambda: [content_hash(storable(d)[0].text) for d in documents])
        async with self.db.transaction() as conn:
            await require_corpus_model(conn, corpus.id, self.settings.embedding_model)  # before any model time
            known = await dq.select_documents(conn, corpus.id, [d.source_uri for d in documents])
            kinds = sort_documents(documents, hashes, known)
            if kinds.unchanged:  # nothing to do but remember where they were seen last
                await dq.set_origin(conn, corpus.id, [d.source_uri for d in kinds.unchanged], origin)
        report.documents_unchanged = len(kinds.unchanged)
        report.chunks_total = report.chunks_skipped = sum(d.chunk_count for d in kinds.unchanged)
        replaced = await self._replace_documents(corpus, kinds.changed, extra_metadata, origin, report)
        holdings: dict[str, Holding] = {}
        with ingest_stage_seconds.labels(stage="chunking").time():
            rows = await offload.bulk(self._chunk_documents, corpus, kinds.fresh, extra_metadata, report, holdings)
        with ingest_stage_seconds.labels(stage="sql").time():
            async with self.db.connection() as conn:
                await dq.start_documents(conn, corpus.id, list(holdings), [h.title for h in holdings.values()],
                                         origin)
                existing = await q.select_existing_hashes(conn, corpus.id, [r.content_hash for r in rows])
        fresh = [r for r in rows if r.content_hash not in existing]
        report.chunks_skipped += len(rows) - len(fresh)
        # the chunks of replaced documents join the graph as stored chunks do, with their analyses
        analysed = {c.id: c for c in replaced}
        left_out = [analysed.get(c.id, c) for c in await self._left_out_of_graph(corpus)]
        left_out_ids = {c.id for c in left_out}
        work: list[NewChunk] = []
        added: list[NewChunk] = []
        if fresh or left_out:
            work, refused = await self._embed_and_insert(corpus, fresh, left_out, report)
            added = [c for c in work if c.id not in left_out_ids]
            report.chunks_skipped += len(fresh) - len(added) - refused
            report.resumed = bool(left_out_ids - set(analysed))
        report.new_chunks = [*replaced, *added]
        report.chunks_added = len(report.new_chunks)
        await self._complete_documents(corpus, holdings, origin, report)
        await self._finish_stages(corpus, report, work)
        return report

    async def _replace_documents(self, corpus: Corpus, documents: list[Document], extra_metadata: dict | None,
                                 origin: str, report: IngestReport) -> list[NewChunk]:
        """Each changed document's new version replaces its old one in one transaction, so a search sees one or
        the other: the new chunks are embedded first, then stored, the document made to hold them, and the
        chunks it let go of taken out with their share of the graph. The new chunks, with their analyses."""
        replaced: list[NewChunk] = []
        for document in documents:
            holdings: dict[str, Holding] = {}
            rows = await offload.bulk(self._chunk_documents, corpus, [document], extra_metadata, report, holdings)
            if document.source_uri not in holdings:
                continue  # nothing storable: named in report.errors, the old version stays
            async with self.db.connection() as conn:
                existing = await q.select_existing_hashes(conn, corpus.id, [r.content_hash for r in rows])
            fresh: list[WorkRow] = await offload.bulk(
                self._token_sorted, [r for r in rows if r.content_hash not in existing])
            embedded, analysing = await self._embed(fresh)
            analyses = await analysing
            holding = holdings[document.source_uri]
            try:
                with ingest_stage_seconds.labels(stage="document_swap").time():
                    async with self.db.transaction() as conn:
                        await self.releaser.lock(conn, corpus)
                        await require_corpus_model(conn, corpus.id, self.settings.embedding_model)
                        stored = await q.insert_chunks(conn, embedded)
                        released = await dq.set_document_chunks(conn, corpus.id, document.source_uri,
                                                                holding.title, holding.document_hash,
                                                                holding.content_hashes, origin)
                        await self.releaser.release(conn, corpus, released)
                        await touch_corpus(conn, corpus.id)
            except _DOCUMENT_REFUSALS as exc:
                report.errors.append(LoadError(document.source_uri, f"not stored: {exc}; the previous version stays"))
                continue
            replaced.extend(NewChunk(r["id"], r["corpus_id"], r["content"], analyses.get(r["content"]))
                            for r in stored)
            report.documents_updated += 1
            report.chunks_skipped += len(rows) - len(stored)
        return replaced

    async def _complete_documents(self, corpus: Corpus, holdings: dict[str, Holding], origin: str,
                                  report: IngestReport) -> None:
        """New documents whose chunks all landed hold them now; a document a run left incomplete lets go of what
        its earlier version stored and this one does not contain."""
        failed = {e.source_uri for e in report.errors}
        done = {uri: h for uri, h in holdings.items() if uri not in failed}
        if not done:
            return
        async with self.db.transaction() as conn:
            released: list[int] = []
            for uri, holding in done.items():
                released += await dq.set_document_chunks(conn, corpus.id, uri, holding.title, holding.document_hash,
                                                         holding.content_hashes, origin)
            if released:
                await self.releaser.lock(conn, corpus)
                await self.releaser.release(conn, corpus, released)

    async def _left_out_of_graph(self, corpus: Corpus) -> list[NewChunk]:
        """Chunks of the corpus an interrupted ingest stored but did not get into the graph."""
        if not self.post_ingest:
            return []
        async with self.db.connection() as conn:
            ids = await select_unextracted_chunk_ids(conn, corpus.id)
            rows = await select_chunk_texts(conn, corpus.id, ids) if ids else []
        return [NewChunk(r["id"], corpus.id, r["content"]) for r in rows]

    def _chunk_documents(self, corpus: Corpus, documents: Sequence[Document], extra_metadata: dict | None,
                         report: IngestReport, holdings: dict[str, Holding]) -> list[q.ChunkRow]:
        rows: list[q.ChunkRow] = []
        seen: set[str] = set()
        chars = sum(len(d.text) for d in documents)
        with progress_bar(self.progress, chars, f"chunking {corpus.name}", "char",
                          min_total=0 if len(documents) >= 2 else BIG_TEXT, unit_scale=True) as bar:
            for document in documents:
                bar.set_postfix_str(document.source_uri[-40:])
                document_end = bar.n + len(document.text)
                try:
                    rows.extend(self._document_rows(corpus, document, extra_metadata, seen, report, holdings,
                                                    lambda done: bar.update(min(done, document_end - bar.n))))
                except RecursionError:
                    report.errors.append(LoadError(document.source_uri, "metadata nested too deeply to store"))
                bar.update(document_end - bar.n)
        return rows

    def _document_rows(self, corpus: Corpus, document: Document, extra_metadata: dict | None, seen: set[str],
                       report: IngestReport, holdings: dict[str, Holding],
                       advance: Callable[[int], object] = lambda chars: None) -> list[q.ChunkRow]:
        """The document's chunk rows; ``advance`` is told about how many characters each chunk moved on."""
        document, removed = storable(document)
        if not document.text.strip():
            report.errors.append(LoadError(document.source_uri, "no text to store" + (
                f" ({removed_notice(removed)})" if removed else "")))
            return []
        if removed:
            report.notices.append(LoadNotice(document.source_uri, removed_notice(removed)))
        doc_hash = content_hash(document.text)
        metadata = {"title": document.title, "source_uri": document.source_uri, **document.metadata,
                    **(clean_value(extra_metadata or {}))}  # type: ignore[dict-item]
        rows: list[q.ChunkRow] = []
        holding = holdings[document.source_uri] = Holding(document.title, doc_hash, [])
        overlap = self.settings.chunking.chunk_overlap
        for chunk in chunk_text(document.text, self.settings.chunking.chunk_size, overlap):
            advance(max(len(chunk.text) - (overlap if chunk.index else 0), 0))
            digest = content_hash(chunk.text)
            holding.content_hashes.append(digest)
            report.chunks_total += 1
            if digest in seen:
                report.chunks_skipped += 1
                continue
            seen.add(digest)
            rows.append(q.ChunkRow(
                corpus_id=corpus.id, app_name=corpus.app_name, content=chunk.text, content_hash=digest,
                document_hash=doc_hash, chunk_index=chunk.index, source_uri=document.source_uri,
                metadata=metadata, embedding=None, search_text=search_text_for(chunk.text),  # type: ignore[arg-type]
            ))
        return rows

    async def finish(self, corpus: Corpus) -> IngestReport:
        """The post-ingest stages a removal (or an interrupted run) left for the corpus."""
        report = IngestReport(corpus=corpus.name)
        await self._finish_stages(corpus, report, [])
        return report

    async def _finish_stages(self, corpus: Corpus, report: IngestReport, work: list[NewChunk]) -> None:
        """Run the post-ingest stages for the chunks of this run (new ones and those an interrupted run left out of
        the graph, in the order the graph takes them), or for what an interrupted run left undone."""
        if not self.post_ingest:
            return
        if not work:
            async with self.db.connection() as conn:
                status = (await select_ingest_status(conn, [corpus.id]))[0]
            if not status.unfinished:
                return
            report.resumed = True
            logger.info("finishing an interrupted ingest of %s: %d chunks awaiting extraction, %d entities "
                        "awaiting canonical links, communities %s", corpus.name, status.awaiting_extraction,
                        status.awaiting_linking, "stale" if status.communities_stale else "current")
        with progress_bar(self.progress, len(self.post_ingest), f"stages {corpus.name}", "stage") as bar:
            for stage in self.post_ingest:
                bar.set_postfix_str(stage.name)
                try:
                    await stage.run(corpus, work)
                except Exception as exc:
                    raise IngestStageError(stage.name, corpus.name, report.chunks_added, exc) from exc
                bar.update(1)

    async def _embed_and_insert(self, corpus: Corpus, rows: list[q.ChunkRow], left_out: list[NewChunk],
                                report: IngestReport) -> tuple[list[NewChunk], int]:
        """The chunks of this run in the order the graph takes them (the new ones stored, and those an interrupted
        run left out of the graph), and how many rows the database refused (their documents are in report.errors).

        The graph resolves entities part by part against the parts before, so its result depends on the parts and
        their order. Both depend on the chunks alone, not on where an earlier run stopped: the chunks left out of
        the graph (in the order they were stored) then the new ones, longest first (stable), cut into parts of
        ``part_size``. A run killed after the graph took k parts leaves the stored parts after k in front of the
        rest, in the clean run's order, and the next run cuts them the same way: it ends with the clean graph."""
        batch = part_size(self.settings)
        # sorted even when it fits one part: the rest of a run killed after its first parts may, and the order of
        # the chunks within a graph batch is part of its result too (the first evidence of a relation is kept)
        work: list[WorkRow] = await offload.bulk(self._token_sorted, [*left_out, *rows])
        parts = [work[start:start + batch] for start in range(0, len(work), batch)]
        ordered: list[NewChunk] = []
        refused = 0
        refused_documents: set[tuple[str, str]] = set()
        overlap = _StoredChunksOverlap(corpus, self.while_embedding)
        # the model embeds the next batch while the database stores this one and the analyzer reads it
        upcoming = asyncio.ensure_future(self._embed(parts[0])) if parts else None
        analysing: asyncio.Future | None = None
        with progress_bar(self.progress, len(rows), f"embedding {corpus.name}", "chunk", min_total=200) as bar:
            try:
                for index in range(len(parts)):
                    assert upcoming is not None
                    embedded, analysing = await upcoming
                    upcoming = asyncio.ensure_future(self._embed(parts[index + 1])) if index + 1 < len(parts) else None
                    # a document's chunks are spread over the steps: once refused, its later chunks are not tried
                    storing = [r for r in embedded if (r.source_uri, r.document_hash) not in refused_documents]
                    refused += len(embedded) - len(storing)
                    with ingest_stage_seconds.labels(stage="sql").time():
                        try:
                            stored = await self._insert(corpus, storing) if storing else []
                        except _DOCUMENT_REFUSALS:
                            stored = await self._insert_by_document(corpus, storing, report, refused_documents)
                            refused += len(storing) - len(stored)
                    analyses = await analysing
                    by_text = {c.content: replace(c, analysis=analyses.get(c.content)) for c in stored}
                    in_order = [c if isinstance(c, NewChunk) else by_text.get(c.content) for c in parts[index]]
                    part = [c for c in in_order if c is not None]
                    ordered.extend(part)
                    if upcoming is not None:  # only while there is a next batch to embed
                        overlap.add(part)
                    bar.update(len(embedded))
            except BaseException:
                for pending in (upcoming, analysing):
                    if pending is not None:
                        pending.cancel()
                overlap.cancel()
                raise
        await overlap.finish()
        logger.info("ingested %d new chunks into %s", len(ordered) - len(left_out), corpus.name)
        return ordered, refused

    def _token_sorted(self, rows: Sequence[WorkRow]) -> list[WorkRow]:
        """The rows longest first in tokens (stable), so each step's batches pad about as little as batches over
        the whole ingest; document order when the embedder cannot count tokens."""
        counts = getattr(self.embedder, "token_counts", None)
        if counts is None:
            return list(rows)
        lengths: list[int] = []
        with ingest_stage_seconds.labels(stage="chunk_embedding").time(), \
                progress_bar(self.progress, len(rows), "measuring chunks", "chunk", min_total=200) as bar:
            # tens of seconds for a 20 MB file: counted in slices so that the bar moves
            for start in range(0, len(rows), _COUNT_SLICE):
                part = rows[start:start + _COUNT_SLICE]
                lengths.extend(counts([r.content for r in part]))
                bar.update(len(part))
        return [rows[i] for i in np.argsort(-np.asarray(lengths, dtype=np.int64), kind="stable").tolist()]

    async def _embed(self, part: list[WorkRow]) -> tuple[list[q.ChunkRow], asyncio.Future]:
        """The part's rows still to store with their embeddings, and the chunk analyzer's result by chunk text (a
        future: the model goes on to the next batch while the analyzer reads this one)."""
        rows = [r for r in part if isinstance(r, q.ChunkRow)]
        if not rows:  # chunks an interrupted run stored: the graph step analyses them again
            nothing: asyncio.Future = asyncio.get_running_loop().create_future()
            nothing.set_result({})
            return [], nothing
        texts = [r.content for r in rows]
        vectors, tokens = await offload.bulk(self._embed_batch, texts)
        ingest_embedded_texts_total.labels(stage="chunk_embedding").inc(len(rows))
        analyses = asyncio.ensure_future(self._analyze(texts, tokens))
        return [replace(r, embedding=v) for r, v in zip(rows, vectors)], analyses

    def _embed_batch(self, texts: list[str]) -> tuple[list[np.ndarray], list | None]:
        """Sentence vectors, and the token vectors when there is a chunk analyzer to read them."""
        with ingest_stage_seconds.labels(stage="chunk_embedding").time():
            if self.chunk_analyzer is None:
                return list(self.embedder.embed(texts)), None
            tokens = self.embedder.embed_tokens(texts)  # type: ignore[attr-defined]
        return [t.sentence for t in tokens], tokens

    async def _analyze(self, texts: list[str], tokens: list | None) -> dict[str, object]:
        if self.chunk_analyzer is None or tokens is None:
            return {}
        try:
            analyses = await offload.bulk(self.chunk_analyzer, texts, tokens)
        except Exception:  # noqa: BLE001 - the chunks still land; the graph stage analyses them again and says why
            logger.warning("the chunk analyzer failed; the graph stage will analyse these chunks", exc_info=True)
            return {}
        return dict(zip(texts, analyses))

    async def _insert(self, corpus: Corpus, rows: list[q.ChunkRow]) -> list[NewChunk]:
        async with self.db.transaction() as conn:
            await require_corpus_model(conn, corpus.id, self.settings.embedding_model)
            records = await q.insert_chunks(conn, rows)
            await touch_corpus(conn, corpus.id)
        return [NewChunk(r["id"], r["corpus_id"], r["content"]) for r in records]

    async def _insert_by_document(self, corpus: Corpus, rows: list[q.ChunkRow], report: IngestReport,
                                  refused_documents: set[tuple[str, str]]) -> list[NewChunk]:
        """A batch the database refused, again one document at a time: the refused documents are named (and
        added to ``refused_documents``)."""
        by_document: dict[tuple[str, str], list[q.ChunkRow]] = {}
        for row in rows:
            by_document.setdefault((row.source_uri, row.document_hash), []).append(row)
        inserted: list[NewChunk] = []
        for (source_uri, document_hash), document_rows in by_document.items():
            try:
                inserted.extend(await self._insert(corpus, document_rows))
            except _DOCUMENT_REFUSALS as exc:
                refused_documents.add((source_uri, document_hash))
                logger.warning("the database refused %s: %s", source_uri, exc)
                report.errors.append(LoadError(source_uri, f"not stored: {exc}"))
        return inserted


class _StoredChunksOverlap:
    """Runs the pipeline's ``while_embedding`` step in the background on each stored part in turn, one run at a
    time and in the order of the parts: never two parts merged, never one skipped, however fast the model is, so
    the graph does not depend on timing. After a failed run the rest is the post-ingest stages', which take it
    in the same order, as they take the parts left at the end (so a small ingest of one part never starts it)."""

    def __init__(self, corpus: Corpus, step: StoredChunksStep | None) -> None:
        self.corpus = corpus
        self.step = step
        self.queue: list[list[NewChunk]] = []
        self.running: asyncio.Task | None = None
        self.failed = False

    def add(self, chunks: list[NewChunk]) -> None:
        if self.step is None or self.failed or not chunks:
            return
        self.queue.append(chunks)
        self._next()

    def _next(self, _: object = None) -> None:
        if self.running is not None:
            if not self.running.done():
                return
            self._settle()
            self.running = None
        if self.queue and not self.failed:
            assert self.step is not None
            self.running = asyncio.ensure_future(self.step(self.corpus, self.queue.pop(0)))
            self.running.add_done_callback(self._next)

    def cancel(self) -> None:
        self.queue.clear()
        if self.running is not None:
            self.running.cancel()

    async def finish(self) -> None:
        self.queue.clear()  # the post-ingest stages take these parts, in order
        while self.running is not None and not self.running.done():
            await asyncio.wait([self.running])
        self._settle()

    def _settle(self) -> None:
        if self.running is not None and not self.running.cancelled() and self.running.exception() is not None:
            # the chunks are stored and not marked extracted: the post-ingest graph stage takes them up again
            self.failed = True
            logger.warning("graph work during embedding failed; the post-ingest stages redo it",
                           exc_info=self.running.exception())


def folder_of(path: Path) -> str:
    """The folder an ingest of ``path`` reads (a file's own folder), as documents record it for ``--sync``."""
    resolved = path.resolve()
    return str(resolved if resolved.is_dir() else resolved.parent)


def removed_notice(removed: int) -> str:
    noun = "character" if removed == 1 else "characters"
    return f"{removed} {noun} PostgreSQL cannot store (NUL, lone surrogates) removed"

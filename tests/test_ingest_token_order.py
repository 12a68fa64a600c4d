"""An ingest of more than one embedding step embeds and stores its new chunks longest first in tokens (so each
step's batches pad little); chunk_index keeps each chunk's place in its document and every document lands whole.
An embedder that cannot count tokens keeps document order."""
from __future__ import annotations

import random
import string
from pathlib import Path
from typing import Sequence

import numpy as np

from config.settings import ChunkingSettings
from knowledge.app import KnowledgeApp
from knowledge.ingest.chunking import chunk_text
from knowledge.ingest.documents import Document
from tests.conftest import make_settings

WORDS = ["harbour", "Kestrel", "ledger", "2019", "Okafor", "partition", "tidepool", "Novak", "aurora", "cobalt"]
CHUNKING = ChunkingSettings(chunk_size=200, chunk_overlap=20)


def _documents() -> list[Document]:
    # 12 documents of 1-4 chunks of varied lengths: with an embedding batch of 2 the steps hold 8 chunks
    documents = []
    for i in range(12):
        sentences = [" ".join(WORDS[(i + j + k) % 10] for k in range(3 + (i * 7 + j * 5) % 9)) + "."
                     for j in range(2 + (i * 5) % 11)]
        documents.append(Document(source_uri=f"doc-{i}.md", title=f"Doc {i}", text=" ".join(sentences)))
    return documents


class PlainEmbedder:
    """The real model's sentence vectors without token counts or token vectors."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.dimension = inner.dimension

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed(texts)


async def _stored(kapp: KnowledgeApp, corpus) -> list:
    async with kapp.db.connection() as conn:
        return await conn.fetch("SELECT id, source_uri, chunk_index, content FROM knowledge WHERE corpus_id = $1 "
                                "ORDER BY id", corpus.id)


def _expected_chunks(documents: list[Document]) -> dict[str, list[str]]:
    return {d.source_uri: [c.text for c in chunk_text(d.text, CHUNKING.chunk_size, CHUNKING.chunk_overlap)]
            for d in documents}


async def _ingest(new_database, embedder, tmp_path: Path) -> tuple[list, dict[str, list[str]]]:
    settings = make_settings(tmp_path, embedding_batch_size=2, chunking=CHUNKING)
    kapp = await KnowledgeApp.open(settings, dsn=await new_database(), embedder=embedder, progress=False)
    try:
        corpus = await kapp.corpora.create("order")
        documents = _documents()
        report = await kapp.ingest_documents(corpus, documents)
        expected = _expected_chunks(documents)
        assert report.complete and report.chunks_added == sum(map(len, expected.values())) > 8
        return await _stored(kapp, corpus), expected
    finally:
        await kapp.close()


def _documents_whole(rows: list, expected: dict[str, list[str]]) -> None:
    by_document: dict[str, dict[int, str]] = {}
    for r in rows:
        by_document.setdefault(r["source_uri"], {})[r["chunk_index"]] = r["content"]
    assert {uri: [chunks[i] for i in sorted(chunks)] for uri, chunks in by_document.items()} == expected
    assert all(sorted(chunks) == list(range(len(chunks))) for chunks in by_document.values())


async def test_chunks_are_stored_longest_first_in_tokens_and_documents_stay_whole(new_database, embedder, tmp_path):
    rows, expected = await _ingest(new_database, embedder, tmp_path)
    counts = embedder.token_counts([r["content"] for r in rows])
    assert counts == sorted(counts, reverse=True) and counts[0] > counts[-1]
    document_order = [(uri, i) for uri, chunks in expected.items() for i in range(len(chunks))]
    assert [(r["source_uri"], r["chunk_index"]) for r in rows] != document_order
    _documents_whole(rows, expected)


async def test_an_embedder_without_token_counts_keeps_document_order(new_database, embedder, tmp_path):
    rows, expected = await _ingest(new_database, PlainEmbedder(embedder), tmp_path)
    assert [(r["source_uri"], r["chunk_index"]) for r in rows] == [
        (uri, i) for uri, chunks in expected.items() for i in range(len(chunks))]
    _documents_whole(rows, expected)


async def test_a_refused_document_spread_over_two_steps_is_named_once_and_the_rest_lands(new_database, embedder,
                                                                                         tmp_path):
    # two ~2 MB chunks of distinct words each exceed PostgreSQL's 1 MB tsvector limit (a real refusal, no mock);
    # every chunk here reaches the model's token limit, so the stable order keeps them in document order and the
    # huge document's chunks fall in the first two steps of 4
    settings = make_settings(tmp_path, embedding_batch_size=1,
                             chunking=ChunkingSettings(chunk_size=2_100_000, chunk_overlap=10))
    kapp = await KnowledgeApp.open(settings, dsn=await new_database(), embedder=embedder, progress=False)
    try:
        corpus = await kapp.corpora.create("refusals")
        rng = random.Random(11)
        huge = "\n\n".join(" ".join("".join(rng.choices(string.ascii_lowercase, k=9)) for _ in range(200_000))
                           for _ in range(2))
        long_notes = [Document(f"long-{i}", " ".join(f"{WORDS[(i + k) % 10]} note {k}." for k in range(400)))
                      for i in range(5)]
        documents = [*long_notes[:3], Document("huge", huge), *long_notes[3:]]
        report = await kapp.ingest_documents(corpus, documents)
        assert [e.source_uri for e in report.errors] == ["huge"]
        assert report.chunks_added == 5 and report.chunks_skipped == 0
        async with kapp.db.connection() as conn:
            stored = {r["source_uri"] for r in await conn.fetch(
                "SELECT source_uri FROM knowledge WHERE corpus_id = $1", corpus.id)}
        assert stored == {f"long-{i}" for i in range(5)}
    finally:
        await kapp.close()

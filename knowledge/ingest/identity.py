"""Document identity at ingest (docs/design.md section 2, "Documents change"): a document is its source URI within
a corpus. Each document of an ingest is new (or still incomplete from an interrupted run), unchanged (nothing to
do), or changed (its new version replaces the old one in one transaction)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, Sequence

import asyncpg

from knowledge.corpora import Corpus
from knowledge.db.queries.documents import DocumentRow
from knowledge.ingest.documents import Document, LoadNotice


class ChunkReleaser(Protocol):
    """Takes chunks a document let go of out of the corpus with their share of the graph (knowledge/documents)."""

    async def lock(self, conn: asyncpg.Connection, corpus: Corpus) -> None: ...

    async def release(self, conn: asyncpg.Connection, corpus: Corpus, chunk_ids: list[int]) -> object: ...


@dataclass(frozen=True)
class Holding:
    """What a document's current version holds: its hash, title and the content hashes of its chunks."""
    title: str
    document_hash: str
    content_hashes: list[str]


@dataclass
class Sorted:
    fresh: list[Document] = field(default_factory=list)  # no complete row yet: stored part by part
    changed: list[Document] = field(default_factory=list)
    unchanged: list[DocumentRow] = field(default_factory=list)


def one_per_source(documents: Sequence[Document]) -> tuple[list[Document], list[LoadNotice]]:
    """The first document of each source URI; a later one with the same URI would be a second version at once."""
    seen: set[str] = set()
    kept, notices = [], []
    for document in documents:
        if document.source_uri in seen:
            notices.append(LoadNotice(document.source_uri, "a second document with this source in one ingest: "
                                                           "only the first is kept"))
            continue
        seen.add(document.source_uri)
        kept.append(document)
    return kept, notices


def sort_documents(documents: Sequence[Document], hashes: Sequence[str], known: dict[str, DocumentRow]) -> Sorted:
    result = Sorted()
    for document, digest in zip(documents, hashes):
        row = known.get(document.source_uri)
        if row is None or not row.complete:
            result.fresh.append(document)
        elif row.document_hash == digest:
            result.unchanged.append(row)
        else:
            result.changed.append(document)
    return result

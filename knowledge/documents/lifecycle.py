"""Documents as users change them: list, show, delete, the folder sync's plan, and corpus deletion
(docs/design.md section 2, "Documents change"). Every removal is one transaction, so a search sees the corpus
before or after it; the post-ingest stages it leaves (communities, the survivors' canonical links, caches) run
right after, and any ingest of the corpus finishes them if this process dies first."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Awaitable, Callable, Sequence

import asyncpg

from knowledge.corpora import Corpus
from knowledge.db.database import Database
from knowledge.db.queries import corpora as cq
from knowledge.db.queries import documents as dq
from knowledge.db.queries.graph_removal import RemovedChunks
from knowledge.metrics import ingest_stage_seconds
from knowledge.documents.removal import lock_for_removal, release_chunks, settle_canonicals


class Releaser:
    """The ingest pipeline's ChunkReleaser."""

    def __init__(self, hub_degree_threshold: int) -> None:
        self.hub_degree_threshold = hub_degree_threshold

    async def lock(self, conn: asyncpg.Connection, corpus: Corpus) -> None:
        await lock_for_removal(conn, corpus)

    async def release(self, conn: asyncpg.Connection, corpus: Corpus, chunk_ids: list[int]) -> RemovedChunks:
        return await release_chunks(conn, corpus, chunk_ids, self.hub_degree_threshold)


@dataclass
class Removal:
    corpus: str
    documents: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    chunks: int = 0
    entities: int = 0
    relations: int = 0


@dataclass(frozen=True)
class DocumentView:
    document: dq.DocumentRow
    chunks: list[asyncpg.Record]


class DocumentLifecycle:
    def __init__(self, db: Database, releaser: Releaser, finish: Callable[[Corpus], Awaitable[object]],
                 on_change: Callable[[], Awaitable[None]]) -> None:
        self.db = db
        self.releaser = releaser
        self.finish = finish  # the post-ingest stages a removal leaves
        self.on_change = on_change  # the planner drops its snapshots

    async def list(self, corpus: Corpus, contains: str = "", limit: int | None = None) -> list[dq.DocumentRow]:
        async with self.db.connection() as conn:
            return await dq.list_documents(conn, corpus.id, contains=contains, limit=limit)

    async def show(self, corpus: Corpus, source_uri: str) -> DocumentView | None:
        async with self.db.connection() as conn:
            found = (await dq.select_documents(conn, corpus.id, [source_uri])).get(source_uri)
            if found is None:
                return None
            return DocumentView(found, await dq.select_document_chunks(conn, found.id))

    async def stale(self, corpus: Corpus, origin: str, present: Sequence[str],
                    unreadable: Sequence[str] = ()) -> list[dq.DocumentRow]:
        """Documents last ingested from the folder ``origin`` that it no longer has (what ``--sync`` removes); a
        file that is there but could not be read keeps its documents (the file itself and its records, ``#...``)."""
        async with self.db.connection() as conn:
            recorded = await dq.list_documents(conn, corpus.id, origin=origin)
        here = set(present)
        kept = tuple(unreadable)
        return [d for d in recorded if d.source_uri not in here
                and not any(d.source_uri == u or d.source_uri.startswith(u + "#") for u in kept)]

    async def delete(self, corpus: Corpus, source_uris: Sequence[str]) -> Removal:
        """Remove the documents (one transaction) with every chunk no other document holds and its share of the
        graph, then finish the stages that follow."""
        with ingest_stage_seconds.labels(stage="document_swap").time():
            async with self.db.transaction() as conn:
                report = await self.remove(conn, corpus, source_uris)
        await self.finish(corpus)  # also what an earlier delete, killed before this point, left undone
        return report

    async def remove(self, conn: asyncpg.Connection, corpus: Corpus, source_uris: Sequence[str]) -> Removal:
        """``delete`` inside the caller's transaction; the caller runs ``finish`` once it commits."""
        report = Removal(corpus.name)
        await self.releaser.lock(conn, corpus)
        held: list[int] = []
        for uri in dict.fromkeys(source_uris):
            chunk_ids = await dq.delete_document(conn, corpus.id, uri)
            if chunk_ids is None:
                report.missing.append(uri)
            else:
                report.documents.append(uri)
                held += chunk_ids
        removed = await self.releaser.release(conn, corpus, held)
        report.chunks, report.entities, report.relations = (removed.chunks, removed.entities_removed,
                                                            removed.relations_removed)
        return report

    async def delete_corpus(self, corpus: Corpus) -> int:
        """Remove the corpus with everything in it; canonicals left without members go with their bridges in the
        same transaction. Returns the chunks removed."""
        async with self.db.transaction() as conn:
            await lock_for_removal(conn, corpus)
            chunks = await cq.delete_corpus(conn, corpus.id)
            await settle_canonicals(conn, corpus.app_name, self.releaser.hub_degree_threshold)
        await self.on_change()
        return chunks

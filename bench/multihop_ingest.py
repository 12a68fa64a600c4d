"""Ingest a multi-hop dataset split over N corpora through the normal pipeline, optionally into a cached
database that later runs reuse (ingest with graph extraction is most of a run's time).

A cached database is named after a fingerprint of the passages, the split and the code and settings that shape
what ingest stores (chunking, extraction, linking, migrations), so a change to any of them ingests afresh. It is
built under a temporary name and renamed only when complete: an interrupted ingest is never reused.
"""
from __future__ import annotations

import hashlib
import inspect
from contextlib import asynccontextmanager
from pathlib import Path
from typing import AsyncIterator

import asyncpg

from bench.harness import console, scratch_app
from bench.multihop_data import REPO_ROOT, MultiHopDataset, corpus_index
from config import get_settings
from knowledge.app import KnowledgeApp
from knowledge.corpora import Corpus
from knowledge.db.server import resolve_database_url, with_database
from knowledge.graph.extraction import Extractor
from knowledge.ingest.documents import Document

# what ingest stores depends on this code and on the settings values of _INGEST_SETTINGS (hashed by value, so a
# planner setting or its default can change under a cached database, as any other retrieval code can)
_INGEST_CODE = ("knowledge/ingest", "knowledge/graph", "knowledge/canonical", "knowledge/db/migrations",
                "knowledge/embedding.py")
_INGEST_SETTINGS = {"embedding_model", "embedding_dimension", "chunking", "linker", "resolver",
                    "knowledge_feature_flags"}


def _code_digest() -> bytes:
    digest = hashlib.sha1()
    for root in _INGEST_CODE:
        path = REPO_ROOT / root
        files = sorted(p for p in (path.rglob("*") if path.is_dir() else [path])
                       if p.is_file() and p.suffix in {".py", ".sql"})
        for file in files:
            digest.update(str(file.relative_to(REPO_ROOT)).encode())
            digest.update(file.read_bytes())
    return digest.digest()


# read once when the bench starts, with the code it imports: an edit to ingest code during a long run must not
# file that run's databases under the edited code's fingerprint
_CODE_DIGEST = _code_digest()


def split_name(dataset: MultiHopDataset, index: int, corpus_count: int) -> str:
    return f"{dataset.name}_{index + 1}of{corpus_count}".replace("-", "_")[:63]


async def ingest_split(kapp: KnowledgeApp, dataset: MultiHopDataset, corpus_count: int,
                       extractor: Extractor | None = None) -> list[Corpus]:
    if extractor is not None:
        kapp.graph.extractor = extractor     # an ablation (bench/multihop_reference.py); the default is the app's
    corpora = [await kapp.corpora.create(split_name(dataset, i, corpus_count)) for i in range(corpus_count)]
    buckets: list[list[Document]] = [[] for _ in range(corpus_count)]
    for passage in dataset.passages:
        buckets[corpus_index(passage.title, corpus_count)].append(Document(
            source_uri=passage.key, text=f"{passage.title}\n\n{passage.text}", title=passage.title,
            metadata={"passage_key": passage.key}))
    for corpus, documents in zip(corpora, buckets):
        await kapp.ingest_documents(corpus, documents)
    return corpora


def ingest_fingerprint(dataset: MultiHopDataset, corpus_count: int, extractor: Extractor | None = None) -> str:
    digest = hashlib.sha1(f"{dataset.name}|{corpus_count}".encode())
    if extractor is not None:
        digest.update(type(extractor).__name__.encode())
        digest.update(Path(inspect.getfile(type(extractor))).read_bytes())
    for passage in dataset.passages:
        digest.update(passage.key.encode())
    digest.update(_CODE_DIGEST)
    digest.update(get_settings().model_dump_json(include=_INGEST_SETTINGS).encode())
    return digest.hexdigest()[:16]


async def _database_exists(server_dsn: str, name: str) -> bool:
    admin = await asyncpg.connect(server_dsn)
    try:
        return bool(await admin.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name))
    finally:
        await admin.close()


async def _admin(server_dsn: str, statement: str) -> None:
    admin = await asyncpg.connect(server_dsn)
    try:
        await admin.execute(statement)
    finally:
        await admin.close()


@asynccontextmanager
async def ingested_app(dataset: MultiHopDataset, corpus_count: int, *, embedder, server_dsn: str | None = None,
                       cache: bool = False, extractor: Extractor | None = None
                       ) -> AsyncIterator[tuple[KnowledgeApp, list[Corpus]]]:
    """A KnowledgeApp with ``dataset`` split over ``corpus_count`` corpora: on a throwaway database, or with
    ``cache`` on a kept one built by an earlier run with the same fingerprint. ``extractor`` replaces the
    app's graph extractor for this ingest only."""
    if not cache:
        async with scratch_app(server_dsn=server_dsn, embedder=embedder) as kapp:
            yield kapp, await ingest_split(kapp, dataset, corpus_count, extractor)
        return
    settings = get_settings()
    server_dsn = server_dsn or resolve_database_url(settings)
    name = f"mh_{ingest_fingerprint(dataset, corpus_count, extractor)}"
    if await _database_exists(server_dsn, name):
        console.print(f"reusing cached database {name} ({dataset.name}, N = {corpus_count})")
    else:
        building = f"{name}_building"
        await _admin(server_dsn, f'DROP DATABASE IF EXISTS "{building}" WITH (FORCE)')
        await _admin(server_dsn, f'CREATE DATABASE "{building}"')
        kapp = await KnowledgeApp.open(settings, dsn=with_database(server_dsn, building), embedder=embedder,
                                       progress=False)
        try:
            await ingest_split(kapp, dataset, corpus_count, extractor)
        finally:
            await kapp.close()
        await _admin(server_dsn, f'ALTER DATABASE "{building}" RENAME TO "{name}"')
        console.print(f"cached the ingested database as {name}")
    kapp = await KnowledgeApp.open(settings, dsn=with_database(server_dsn, name), embedder=embedder, progress=False)
    try:
        yield kapp, [await kapp.corpora.get(split_name(dataset, i, corpus_count)) for i in range(corpus_count)]
    finally:
        await kapp.close()

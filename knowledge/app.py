"""The composition root: builds every knowledge service from the database, settings and embedder and hands each
part exactly the collaborators it uses. Nothing below this module imports it; the CLI, tools, agents and tests
use it as their entry point."""
from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Iterable, Sequence

from config import Settings, get_settings
from knowledge import offload
from knowledge.canonical.layer import CanonicalLayer
from knowledge.context.cards import KnowledgeCards
from knowledge.context.connectors import CONNECTOR_NAMES, PostgresConnector, SearchConnector, UnsafeUnfilteredConnector
from knowledge.context.permissions import AccessResolver
from knowledge.context.router import ContextRouter
from knowledge.context.topology import load_topology
from knowledge.corpora import Corpus, CorpusRegistry
from knowledge.db.database import Database
from knowledge.documents.lifecycle import DocumentLifecycle, Releaser
from knowledge.embedding import Embedder, QueryEmbeddingCache, get_embedder
from knowledge.gateway import ToolGateway, gateway_for
from knowledge.graph.builder import GraphBuilder, GraphBuildReport
from knowledge.heap import freeze_long_lived
from knowledge.ingest.documents import Document
from knowledge.ingest.pipeline import IngestPipeline, IngestReport, IngestStage, NewChunk
from knowledge.ingest.progress import ProgressMode
from knowledge.pg_text import clean_text
from knowledge.retrieval.global_search import GlobalSearchResult, search_knowledge_graph_global
from knowledge.retrieval.results import SearchHit
from knowledge.retrieval.service import UnifiedRetrievalService


@dataclass
class KnowledgeApp:
    db: Database
    settings: Settings
    embedder: Embedder
    corpora: CorpusRegistry
    query_cache: QueryEmbeddingCache
    progress: ProgressMode | bool = True  # True: bars on a terminal (ProgressMode.tty)
    pipeline: IngestPipeline = field(init=False)
    retrieval: UnifiedRetrievalService = field(init=False)
    graph: GraphBuilder = field(init=False)
    canonical: CanonicalLayer = field(init=False)
    access: AccessResolver = field(init=False)
    router: ContextRouter = field(init=False)
    cards: KnowledgeCards = field(init=False)
    gateway: ToolGateway = field(init=False)
    documents: DocumentLifecycle = field(init=False)

    def __post_init__(self) -> None:
        offload.configure(self.settings.offload)
        self.retrieval = UnifiedRetrievalService(self.db, self.query_cache)
        self.graph = GraphBuilder(self.db, self.embedder, self.settings)
        self.canonical = CanonicalLayer(self.db, self.settings.linker, self.corpora.app_name,
                                        on_change=self.retrieval.on_graph_updated)
        # order matters: cache clear + the new entities (_after_ingest), then their communities and canonical
        # links, which are independent of each other and run side by side
        releaser = Releaser(self.settings.linker.canonical_hub_degree_threshold)
        self.pipeline = IngestPipeline(self.db, self.embedder, releaser,
                                       post_ingest=[IngestStage("graph", self._after_ingest),
                                                    IngestStage("communities and canonical links",
                                                                self._communities_and_links),
                                                    IngestStage("caches", self._after_graph_update)],
                                       progress=self.progress, chunk_analyzer=self.graph.analyze_chunks,
                                       while_embedding=self._while_embedding)
        self.documents = DocumentLifecycle(self.db, releaser, self.pipeline.finish, self.retrieval.on_graph_updated)
        # permission views, Context Router and knowledge cards over the workspace topology (docs/design.md 8)
        self.access = AccessResolver(self.corpora, partial(load_topology, self.settings.topology_path),
                                     self.settings.operator_users)
        self.router = ContextRouter(db=self.db, corpora=self.corpora, spaces=self.retrieval.spaces,
                                    settings=self.settings.router, access=self.access,
                                    connector=PostgresConnector(self.retrieval))
        self.cards = KnowledgeCards(self.db, self.corpora, self.pipeline, self.documents, self.query_cache,
                                    self.access)
        # the tool gateway (identity, scope, approval, audit, rate limits) for MCP and the agent's tools
        self.gateway = gateway_for(self.db, self.settings, self.access)

    @classmethod
    async def open(cls, settings: Settings | None = None, *, dsn: str | None = None,
                   embedder: Embedder | None = None, progress: ProgressMode | bool = True) -> "KnowledgeApp":
        settings = settings or get_settings()
        db = await Database.connect(settings, dsn=dsn)
        embedder = embedder or get_embedder()
        app = cls(db=db, settings=settings, embedder=embedder, corpora=CorpusRegistry(db, settings.app_name),
                  query_cache=QueryEmbeddingCache(embedder, settings.planner.cache_size), progress=progress)
        freeze_long_lived()
        return app

    async def close(self) -> None:
        await self.retrieval.close()
        await self.db.close()

    async def __aenter__(self) -> "KnowledgeApp":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _after_ingest(self, corpus: Corpus, new_chunks: list[NewChunk]) -> None:
        self.retrieval.spaces.clear()
        await self.graph.add_pending(corpus, new_chunks)

    async def _communities_and_links(self, corpus: Corpus, new_chunks: list[NewChunk]) -> None:
        # Leiden and the summaries are mostly Python, linking and the centroid index mostly PostgreSQL: side by
        # side they take two cores. Both are awaited before a failure is raised, so neither is cut off midway.
        results = await asyncio.gather(self.graph.refresh_communities(corpus),
                                       self.canonical.after_ingest(corpus, new_chunks), return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                raise result

    async def _while_embedding(self, corpus: Corpus, stored: list[NewChunk]) -> None:
        # the graph and canonical links of the chunks stored so far, while the model embeds the rest; the
        # post-ingest stages then only have the last batch, the communities and the final cache clear left
        await self.graph.add_stored(corpus, stored)
        await self.canonical.after_ingest(corpus, [], finished=False)

    async def _after_graph_update(self, corpus: Corpus, new_chunks: list[NewChunk]) -> None:
        # last step: entity neighbourhoods and canonical bridges are only final once linking is done
        await self.retrieval.on_graph_updated()

    async def ingest_path(self, corpus: Corpus, path: Path) -> IngestReport:
        return await self.pipeline.ingest_path(corpus, path)

    async def ingest_documents(self, corpus: Corpus, documents: Sequence[Document],
                               extra_metadata: dict | None = None) -> IngestReport:
        return await self.pipeline.ingest_documents(corpus, documents, extra_metadata)

    async def legacy_search(self, query: str, corpus_ids: Iterable[object] | None,
                            accessible_corpus_ids: Iterable[object], limit: int = 10) -> list[SearchHit]:
        query = clean_text(query).text
        if not query.strip():
            return []
        return await self.retrieval.legacy_search(query, corpus_ids, accessible_corpus_ids, limit)

    async def rebuild_graph(self, corpus: Corpus) -> GraphBuildReport:
        """Re-extract a corpus graph from its chunks, then relink it into the canonical layer as ingest does."""
        report = await self.graph.rebuild(corpus)
        await self.canonical.link_corpus(corpus)
        await self.retrieval.on_graph_updated()
        return report

    async def search_graph_global(self, query: str, corpus_ids: Iterable[object] | None,
                                  accessible_corpus_ids: Iterable[object], limit: int = 5) -> GlobalSearchResult:
        """Community summaries of requested ∩ accessible corpora ranked against the query (global questions)."""
        return await search_knowledge_graph_global(self.db, self.retrieval.spaces, clean_text(query).text, corpus_ids,
                                                   accessible_corpus_ids, limit)

    def search_connector(self, name: str) -> SearchConnector:
        """A search engine by name (``CONNECTOR_NAMES``): the production one, or the filter-ignoring one the
        scope evaluation uses to show that the permission guard alone keeps forbidden rows out."""
        if name == PostgresConnector.name:
            return PostgresConnector(self.retrieval)
        if name == UnsafeUnfilteredConnector.name:
            return UnsafeUnfilteredConnector(self.db, self.query_cache)
        raise ValueError(f"unknown connector {name!r}; one of {', '.join(CONNECTOR_NAMES)}")

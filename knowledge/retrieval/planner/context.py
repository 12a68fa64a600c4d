"""What one planner run knows: the request and what each stage found."""
from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Mapping, NamedTuple
from uuid import UUID

import numpy as np

from knowledge.corpora import Corpus
from knowledge.db.queries.canonical import EntityBridge  # noqa: F401 - re-exported for the stages
from knowledge.retrieval.query_intent import QueryKind
from knowledge.retrieval.results import BridgePath, SearchHit, StageTrace


@dataclass(frozen=True)
class PlanRequest:
    query: str
    kind: QueryKind
    effective: tuple[UUID, ...]        # requested ∩ accessible: seeds (primary evidence) come only from these
    expansion_scope: tuple[UUID, ...]  # corpora expansion may read: effective (strict) or every accessible one
    corpora: Mapping[UUID, Corpus]     # every corpus of expansion_scope, for labels
    limit: int
    expand: bool                       # cross-corpus graph stages: two or more corpora, never by the caller
    strict_scope: bool = False
    embedding_model: str = ""          # every corpus above is on it; "": the configured one (NE_EMBEDDING_MODEL)


class SeedHit(NamedTuple):  # named tuples (here and below): made by the dozen a search, for a third of a dataclass
    """A chunk found by the direct search of its own corpus."""

    chunk_id: int
    corpus_id: UUID
    rank: int  # 1-based, within its corpus
    score: float
    source_uri: str


@dataclass
class SeedEntity:
    entity_id: int
    corpus_id: UUID
    name: str
    weight: float  # personalization mass (see seed_entities._personalization)
    primary: bool  # mentioned in primary evidence (a top-`limit` seed of its corpus)
    chunk_ids: set[int] = field(default_factory=set)


class ExpandedChunk(NamedTuple):
    """A chunk the graph expansion reached through a bridge from primary evidence of another corpus."""

    chunk_id: int
    corpus_id: UUID
    score: float  # walk mass reaching it from the seeds of other corpora
    path: BridgePath


class EntityHop(NamedTuple):
    """A link from a seed chunk to another chunk that mentions the same specific entity (in the same corpus,
    or in another one through the canonical layer)."""

    from_chunk_id: int
    from_corpus_id: UUID
    chunk_id: int
    corpus_id: UUID
    canonical_id: int
    name: str
    chunk_count: int  # chunks of the searched corpora mentioning the entity: the fewer, the more specific
    similarity: float | None = None  # query-to-entity link (from_chunk_id is then -canonical_id): its weight
    query_similarity: float = 1.0  # cosine of the entity's name embedding and the question's

    @property
    def crosses_corpora(self) -> bool:
        return self.from_corpus_id != self.corpus_id


class Candidate(NamedTuple):
    chunk_id: int
    corpus_id: UUID
    rrf: float
    seed_rank: int | None = None
    expansion_rank: int | None = None
    path: BridgePath | None = None
    expansion_score: float = 0.0
    hops: tuple[EntityHop, ...] = ()
    source_uri: str | None = None  # a seed's document: protection counts documents, not chunks
    lexical_rank: int | None = None  # rank among the lexical seeds


@dataclass
class PlanState:
    request: PlanRequest
    embedding: np.ndarray | None = None
    query_lexemes: asyncio.Future[list[str]] | None = None  # read beside the embedding and seeds when expanding
    seeds: dict[UUID, list[SeedHit]] = field(default_factory=dict)
    seed_query_sent: asyncio.Event = field(default_factory=asyncio.Event)  # set once the seeds' query is on its way
    seeds_read: asyncio.Event = field(default_factory=asyncio.Event)  # and once ``seeds`` holds them
    # chunk id -> the row select_scored_chunks would return, for chunks already read (the dense seeds): not read again
    scored_rows: dict[int, Mapping] = field(default_factory=dict)
    lexical: list[SeedHit] = field(default_factory=list)  # keyword matches of the question's rare terms (seeds.py)
    chunk_total: int | None = None  # chunks of the effective corpora, read with the seeds
    seed_entities: dict[int, SeedEntity] = field(default_factory=dict)
    bridges: list[EntityBridge] = field(default_factory=list)
    expansion: list[ExpandedChunk] = field(default_factory=list)
    entity_hops: dict[int, list[EntityHop]] = field(default_factory=dict)  # reached chunk -> hops into it
    candidates: list[Candidate] = field(default_factory=list)
    hits: list[SearchHit] = field(default_factory=list)
    trace: list[StageTrace] = field(default_factory=list)

    async def close(self) -> None:
        """Cancel what was read ahead and not used (a stage failed or timed out before it)."""
        if self.query_lexemes is not None and not self.query_lexemes.done():
            self.query_lexemes.cancel()
            await asyncio.gather(self.query_lexemes, return_exceptions=True)

    def seeds_ended(self) -> None:
        """Whatever waits for the seeds' query or rows stops waiting: the seeds stage has ended."""
        self.seed_query_sent.set()
        self.seeds_read.set()

    def primary_chunk_ids(self) -> set[int]:
        """Chunks a direct search of their own corpus shows within the requested limit."""
        limit = self.request.limit
        return {s.chunk_id for hits in self.seeds.values() for s in hits if s.rank <= limit}

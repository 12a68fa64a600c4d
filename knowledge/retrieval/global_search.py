"""GraphRAG-style global search: rank community summaries of the accessible corpora against a query.

This is what the ADK tool ``search_knowledge_graph_global`` calls. Scope is requested ∩ accessible (empty
means an empty result) and every read runs in ``Database.scoped`` (row-level security), so nothing of a
corpus outside the scope can be returned. Each returned community carries IEEE citations to its
representative evidence chunks, ending "(from Corpus: X)".

Ranking: candidates are the nearest communities by embedding plus the best full-text matches of their
title, summary and member names; score = 0.6 cosine + 0.3 keyword rank (relative to the best candidate)
+ 0.1 size (log member count relative to the largest candidate, since broad communities answer global
questions better than singletons). A community is not returned together with its own parent or child.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable
from uuid import UUID

from knowledge.corpora import Corpus
from knowledge.db.database import Database
from knowledge.db.queries import chunks as chunk_queries
from knowledge.db.queries import corpora as corpus_queries
from knowledge.db.queries import graph as gq
from knowledge.retrieval.embedding_spaces import EmbeddingSpaces, read_spaces
from knowledge.ingest.segmentation import segment_for_search
from knowledge.retrieval.citations import assign_citations
from knowledge.retrieval.results import SearchHit
from knowledge.retrieval.scope import effective_scope

CANDIDATES_PER_LIMIT = 8
MEMBERS_PER_COMMUNITY = 10
SEMANTIC_WEIGHT = 0.6
KEYWORD_WEIGHT = 0.3
SIZE_WEIGHT = 0.1  # broad communities are better global-answer material than singletons


@dataclass
class MemberEntity:
    entity_id: int
    name: str
    type: str
    degree: int


@dataclass
class CommunityResult:
    community_id: int
    corpus_id: str
    corpus_name: str
    corpus_label: str
    level: int
    title: str
    summary: str
    member_count: int
    score: float
    members: list[MemberEntity] = field(default_factory=list)
    citation_ids: list[int] = field(default_factory=list)
    citations: list[str] = field(default_factory=list)  # formatted IEEE, "(from Corpus: X)"


@dataclass
class GlobalSearchResult:
    query: str
    mode: str  # "empty" | "global"
    communities: list[CommunityResult] = field(default_factory=list)
    evidence: list[SearchHit] = field(default_factory=list)  # the cited chunks, numbered across the result
    rejected_corpus_ids: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, "mode": self.mode, "communities": [asdict(c) for c in self.communities],
                "evidence": [h.to_dict() for h in self.evidence], "rejected_corpus_ids": self.rejected_corpus_ids}


def _scores(rows: list) -> dict[int, float]:
    max_rank = max((r["keyword_rank"] for r in rows), default=0.0) or 1.0
    max_size = max((math.log1p(r["member_count"]) for r in rows), default=0.0) or 1.0
    return {r["id"]: SEMANTIC_WEIGHT * r["semantic_score"] + KEYWORD_WEIGHT * r["keyword_rank"] / max_rank
            + SIZE_WEIGHT * math.log1p(r["member_count"]) / max_size for r in rows}


def _pick(rows: list, scores: dict[int, float], limit: int) -> list:
    """Best first; a community is skipped when its parent or one of its children is already picked."""
    picked: list = []
    picked_ids: set[int] = set()
    parents_picked: set[int] = set()
    for row in sorted(rows, key=lambda r: (-scores[r["id"]], r["id"])):
        if len(picked) >= limit:
            break
        if row["parent_id"] in picked_ids or row["id"] in parents_picked:
            continue
        picked.append(row)
        picked_ids.add(row["id"])
        if row["parent_id"] is not None:
            parents_picked.add(row["parent_id"])
    return picked


async def search_knowledge_graph_global(db: Database, spaces: EmbeddingSpaces, query: str,
                                        corpus_ids: Iterable[object] | None, accessible_corpus_ids: Iterable[object],
                                        limit: int = 5) -> GlobalSearchResult:
    if accessible_corpus_ids is None:
        raise TypeError("accessible_corpus_ids is required")
    if limit < 1:
        raise ValueError("limit must be at least 1")
    scope = effective_scope(None if corpus_ids is None else list(corpus_ids), list(accessible_corpus_ids))
    if scope.is_empty or not query.strip():
        return GlobalSearchResult(query, "empty", rejected_corpus_ids=list(scope.rejected))
    by_model: dict[str, list[UUID]] = {}
    for corpus_id, space in (await read_spaces(db, scope.effective)).items():
        by_model.setdefault(space.model, []).append(corpus_id)
    vectors = {model: await spaces.queries(model).embed(query) for model in by_model}
    async with db.scoped(scope.effective) as conn:
        rows = []
        for model, corpus_ids in by_model.items():  # each model's communities with the question in its space
            rows.extend(await gq.search_communities(conn, vectors[model], model, segment_for_search(query),
                                                    corpus_ids, limit * CANDIDATES_PER_LIMIT))
        scores = _scores(rows)
        picked = _pick(rows, scores, limit)
        if not picked:
            return GlobalSearchResult(query, "global", rejected_corpus_ids=list(scope.rejected))
        corpora = {r["id"]: Corpus.from_record(r)
                   for r in await corpus_queries.select_corpora_by_ids(conn, list(scope.effective))}
        members = await gq.select_community_members(conn, [r["id"] for r in picked], MEMBERS_PER_COMMUNITY)
        chunk_ids = sorted({c for r in picked for c in r["representative_chunk_ids"]})
        chunks = {c["id"]: c for c in await chunk_queries.select_chunks_by_ids(conn, chunk_ids, scope.effective)}
    results: list[CommunityResult] = []
    hit_of_chunk: dict[int, SearchHit] = {}
    hits_of: dict[int, list[SearchHit]] = {}
    for row in picked:
        corpus = corpora[row["corpus_id"]]
        result = CommunityResult(row["id"], str(corpus.id), corpus.name, corpus.label, row["level"], row["title"],
                                 row["summary"], row["member_count"], scores[row["id"]])
        result.members = [MemberEntity(m["entity_id"], m["canonical_name"], m["entity_type"], m["degree"])
                          for m in members if m["community_id"] == row["id"]]
        hits_of[row["id"]] = []
        for chunk_id in row["representative_chunk_ids"]:
            chunk = chunks.get(chunk_id)
            if chunk is None:
                continue
            if chunk_id not in hit_of_chunk:
                hit_of_chunk[chunk_id] = SearchHit(
                    chunk_id=chunk_id, corpus_id=chunk["corpus_id"], corpus_name=corpus.name,
                    corpus_label=corpus.label, content=chunk["content"], source_uri=chunk["source_uri"],
                    metadata=dict(chunk["metadata"] or {}), score=scores[row["id"]])
            hits_of[row["id"]].append(hit_of_chunk[chunk_id])
        results.append(result)
    evidence = assign_citations(list(hit_of_chunk.values()))
    for result in results:
        hits = hits_of[result.community_id]
        result.citation_ids = list(dict.fromkeys(h.citation_id for h in hits))
        result.citations = list(dict.fromkeys(h.formatted_citation for h in hits))
    return GlobalSearchResult(query, "global", results, evidence, list(scope.rejected))

"""Recompute a corpus's communities from its stored graph: Leiden levels, summaries, embeddings, rows.

A community whose members and internal relations are unchanged since the last run (same level and
signature) keeps its row, summary and embedding, so an ingest only summarises, embeds and writes the
communities it changed; the rest of the corpus costs one read of its entity ids and relations and a Leiden run.

Community embeddings: an LLM summary is embedded as text; an extractive summary is made of its members'
names and evidence sentences, so its embedding is the centroid of the member entity embeddings ("name:
context sentence"), weighted by each member's degree inside the community. That costs no model calls,
which keeps the graph step cheap on corpora with thousands of small communities.
"""
from __future__ import annotations

import asyncio
import hashlib
from collections import defaultdict
from dataclasses import dataclass, replace
from uuid import UUID

import asyncpg
import numpy as np

from knowledge.db.queries import graph as gq
from knowledge.embedding import Embedder
from knowledge.graph.communities import Community, detect_communities
from knowledge.graph.summaries import CommunitySummarizer, CommunitySummary, MemberInfo, RelationInfo, rank_members
from knowledge.ingest.segmentation import segment_for_search

SEARCH_TEXT_MEMBERS = 50


@dataclass(frozen=True)
class CommunityReport:
    communities: int
    levels: int
    summarised: int  # communities (re)summarised in this run; the rest reused their summary


def _internal_relations(communities: list[Community],
                        relations: list[RelationInfo]) -> dict[tuple[int, int], list[RelationInfo]]:
    community_of: dict[int, dict[int, int]] = defaultdict(dict)  # level -> entity -> key
    for community in communities:
        for member in community.members:
            community_of[community.level][member] = community.key
    internal: dict[tuple[int, int], list[RelationInfo]] = defaultdict(list)
    for level, assignment in community_of.items():
        for relation in relations:
            key = assignment.get(relation.source_id)
            if key is not None and assignment.get(relation.target_id) == key:
                internal[(level, key)].append(relation)
    return internal


def _signature(version: str, community: Community, relations: list[RelationInfo]) -> str:
    digest = hashlib.sha256(f"{version}|{community.level}|".encode())
    digest.update(",".join(map(str, community.members)).encode())
    digest.update(b"|")
    digest.update(",".join(f"{r.id}:{r.weight:.4f}" for r in sorted(relations, key=lambda r: r.id)).encode())
    return digest.hexdigest()


def member_centroid(members: tuple[int, ...], relations: list[RelationInfo],
                    embeddings: dict[int, np.ndarray]) -> np.ndarray | None:
    degree: dict[int, int] = defaultdict(int)
    for r in relations:
        degree[r.source_id] += 1
        degree[r.target_id] += 1
    present = [m for m in members if m in embeddings]
    if not present:
        return None
    weights = np.array([1.0 + degree[m] for m in present], dtype=np.float32)
    centroid = (np.stack([embeddings[m] for m in present]) * weights[:, None]).sum(axis=0)
    norm = float(np.linalg.norm(centroid))
    return centroid / norm if norm > 0 else None


async def _embeddings(conn: asyncpg.Connection, embedder: Embedder, fresh: list[tuple[Community, list[RelationInfo],
                      CommunitySummary]]) -> list[np.ndarray]:
    entity_ids = sorted({m for c, _, s in fresh if s.generated_by != "llm" for m in c.members})
    stored = await gq.select_entity_embeddings(conn, entity_ids) if entity_ids else {}
    vectors: list[np.ndarray | None] = [
        None if s.generated_by == "llm" else member_centroid(c.members, rels, stored) for c, rels, s in fresh]
    need_text = [i for i, v in enumerate(vectors) if v is None]
    if need_text:
        texts = [f"{fresh[i][2].title}. {fresh[i][2].summary}" for i in need_text]
        for i, vector in zip(need_text, await asyncio.to_thread(embedder.embed, texts)):
            vectors[i] = vector
    return vectors  # type: ignore[return-value]


def _fresh_keys(count: int, used: set[int]) -> list[int]:
    keys: list[int] = []
    candidate = 0
    while len(keys) < count:
        if candidate not in used:
            keys.append(candidate)
        candidate += 1
    return keys


async def recompute_communities(conn: asyncpg.Connection, corpus_id: UUID, embedder: Embedder,
                                summarizer: CommunitySummarizer) -> CommunityReport:
    """Detect communities and write only what changed: unchanged ones (same level and signature) keep their
    row, summary and embedding; vanished ones are deleted; new ones are summarised, embedded and inserted."""
    entity_ids = await gq.select_graph_entity_ids(conn, corpus_id)
    edges = [RelationInfo(r["id"], r["source_entity_id"], r["target_entity_id"], r["relation_type"],
                          float(r["weight"]), "", r["evidence_chunk_id"])
             for r in await gq.select_graph_edges(conn, corpus_id)]
    communities = detect_communities(entity_ids, [(r.source_id, r.target_id, r.weight) for r in edges])
    internal = _internal_relations(communities, edges)
    signatures = [_signature(summarizer.version, c, internal[(c.level, c.key)]) for c in communities]

    stored = {(r["level"], r["signature"]): r for r in await gq.select_community_signatures(conn, corpus_id)}
    row_ids: dict[int, int] = {}  # index into communities -> kg_community.id
    for i, (community, signature) in enumerate(zip(communities, signatures)):
        if (community.level, signature) in stored:
            row_ids[i] = stored[(community.level, signature)]["id"]
    kept = set(row_ids.values())
    await gq.delete_communities(conn, [r["id"] for r in stored.values() if r["id"] not in kept])
    fresh_index = [i for i in range(len(communities)) if i not in row_ids]

    if fresh_index:
        fresh_members = sorted({m for i in fresh_index for m in communities[i].members})
        members = {r["id"]: MemberInfo(r["id"], r["canonical_name"], r["entity_type"], r["description"],
                                       r["first_chunk_id"])
                   for r in await gq.select_member_details(conn, fresh_members)}
        evidence = await gq.select_relation_evidence(
            conn, sorted({r.id for i in fresh_index for r in internal[(communities[i].level, communities[i].key)]}))
        relations_of = {i: [replace(r, evidence=evidence.get(r.id, ""))
                            for r in internal[(communities[i].level, communities[i].key)]] for i in fresh_index}
        summaries = await asyncio.gather(*(
            summarizer.summarize([members[m] for m in communities[i].members], relations_of[i])
            for i in fresh_index))
        fresh = [(communities[i], relations_of[i], s) for i, s in zip(fresh_index, summaries)]
        vectors = await _embeddings(conn, embedder, fresh)
        used_keys = {level: {r["community_key"] for r in stored.values() if r["id"] in kept and r["level"] == level}
                     for level in (0, 1)}
        keys = {level: iter(_fresh_keys(sum(communities[i].level == level for i in fresh_index), used_keys[level]))
                for level in (0, 1)}
        rows: list[gq.CommunityRow] = []
        for i, (community, rels, summary), vector in zip(fresh_index, fresh, vectors):
            names = [m.name for m in rank_members([members[m] for m in community.members], rels)[:SEARCH_TEXT_MEMBERS]]
            rows.append(gq.CommunityRow(
                community.level, next(keys[community.level]), summary.title, summary.summary,
                len(community.members), vector, signatures[i], list(summary.representative_chunk_ids),
                segment_for_search(" ".join([summary.title, summary.summary, *names]))))
        new_ids = await gq.insert_communities(conn, corpus_id, rows, [communities[i].members for i in fresh_index])
        row_ids.update(zip(fresh_index, new_ids))

    level0_ids = {c.key: row_ids[i] for i, c in enumerate(communities) if c.level == 0}
    children = [(row_ids[i], level0_ids[c.parent_key]) for i, c in enumerate(communities) if c.parent_key is not None]
    if children:
        await gq.set_community_parents(conn, [c for c, _ in children], [p for _, p in children])
    return CommunityReport(len(communities), len({c.level for c in communities}), len(fresh_index))

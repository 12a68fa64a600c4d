"""Recompute a corpus's communities from its stored graph: Leiden levels, summaries, embeddings, rows.

Only what an ingest changed is recomputed: a connected component with the same entities and relations as
before (same signature) is not partitioned again, and a community with the same members and internal
relations keeps its row, summary and embedding. The rest of the corpus costs one read of its entity ids and
relations, a connected-components pass and a hash per component.

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

from knowledge import offload
from knowledge.db.queries import graph as gq
from knowledge.embedding import Embedder
from knowledge.graph.communities import Community, Component, connected_components, partition_component
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
    """(level, key) -> the relations with both ends inside that community."""
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


def _signature(version: str, kind: str, members: tuple[int, ...], relations: list[RelationInfo]) -> str:
    digest = hashlib.sha256(f"{version}|{kind}|".encode())
    digest.update(",".join(map(str, members)).encode())
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
        for i, vector in zip(need_text, await offload.bulk(embedder.embed, texts)):
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


@dataclass
class _Detected:
    component_signature: str
    community: Community
    relations: list[RelationInfo]
    signature: str
    row_id: int | None = None


def _detect_changed(components: list[Component], component_signatures: list[str],
                    relations_by_component: dict[int, list[RelationInfo]], unchanged: set[str],
                    version: str) -> list[_Detected]:
    """Partition every component whose signature is not in ``unchanged``."""
    detected: list[_Detected] = []
    for i, component in enumerate(components):
        if component_signatures[i] in unchanged:
            continue
        communities = partition_component(component)
        internal = _internal_relations(communities, relations_by_component[i])
        for community in communities:
            rels = internal[(community.level, community.key)]
            detected.append(_Detected(component_signatures[i], community, rels,
                                      _signature(version, f"level{community.level}", community.members, rels)))
    return detected


async def recompute_communities(conn: asyncpg.Connection, corpus_id: UUID, embedder: Embedder,
                                summarizer: CommunitySummarizer) -> CommunityReport:
    """Detect communities and write only what changed.

    A connected component whose entities and relations are unchanged keeps its communities untouched. In a
    changed component, a community identical to a stored one (same level and signature) keeps its row,
    summary and embedding; the others are summarised, embedded and inserted; stored rows matching nothing
    are deleted.
    """
    entity_ids = await gq.select_graph_entity_ids(conn, corpus_id)
    relations = [RelationInfo(r["id"], r["source_entity_id"], r["target_entity_id"], r["relation_type"],
                              float(r["weight"]), "", r["evidence_chunk_id"])
                 for r in await gq.select_graph_edges(conn, corpus_id)]
    components = await offload.bulk(connected_components, entity_ids,
                                    [(r.source_id, r.target_id, r.weight) for r in relations])
    component_of = {m: i for i, c in enumerate(components) for m in c.members}
    relations_by_component: dict[int, list[RelationInfo]] = defaultdict(list)
    for relation in relations:
        relations_by_component[component_of[relation.source_id]].append(relation)
    component_signatures = [_signature(summarizer.version, "component", c.members, relations_by_component[i])
                            for i, c in enumerate(components)]

    stored = await gq.select_community_signatures(conn, corpus_id)
    unchanged = set(component_signatures) & {r["component_signature"] for r in stored}
    untouched = [r for r in stored if r["component_signature"] in unchanged]
    reusable = {(r["level"], r["signature"]): r for r in stored if r["component_signature"] not in unchanged}
    detected = await offload.bulk(_detect_changed, components, component_signatures, relations_by_component,
                                  unchanged, summarizer.version)
    for item in detected:
        row = reusable.pop((item.community.level, item.signature), None)
        if row is not None:
            item.row_id = row["id"]
    await gq.delete_communities(conn, [r["id"] for r in reusable.values()])
    reused = [item for item in detected if item.row_id is not None]
    if reused:
        await gq.set_component_signatures(conn, [i.row_id for i in reused], [i.component_signature for i in reused])

    fresh = [item for item in detected if item.row_id is None]
    if fresh:
        used_keys = {(r["level"], r["community_key"]) for r in untouched}
        used_keys |= {(r["level"], r["community_key"]) for r in stored if r["id"] in {i.row_id for i in reused}}
        new_ids = await _insert_fresh(conn, corpus_id, embedder, summarizer, fresh, used_keys)
        for item, row_id in zip(fresh, new_ids):
            item.row_id = row_id

    # level-1 communities of changed components point at their level-0 parent (kept or new)
    parent_of = {(item.component_signature, item.community.key): item.row_id
                 for item in detected if item.community.level == 0}
    children = [(item.row_id, parent_of[(item.component_signature, item.community.parent_key)])
                for item in detected if item.community.parent_key is not None]
    if children:
        await gq.set_community_parents(conn, [c for c, _ in children], [p for _, p in children])
    levels = {r["level"] for r in untouched} | {item.community.level for item in detected}
    return CommunityReport(len(untouched) + len(detected), len(levels), len(fresh))


async def _insert_fresh(conn: asyncpg.Connection, corpus_id: UUID, embedder: Embedder,
                        summarizer: CommunitySummarizer, fresh: list[_Detected],
                        used_keys: set[tuple[int, int]]) -> list[int]:
    member_ids = sorted({m for item in fresh for m in item.community.members})
    members = {r["id"]: MemberInfo(r["id"], r["canonical_name"], r["entity_type"], r["description"],
                                   r["first_chunk_id"])
               for r in await gq.select_member_details(conn, member_ids)}
    evidence = await gq.select_relation_evidence(conn, sorted({r.id for item in fresh for r in item.relations}))
    for item in fresh:
        item.relations = [replace(r, evidence=evidence.get(r.id, "")) for r in item.relations]
    summaries = await asyncio.gather(*(
        summarizer.summarize([members[m] for m in item.community.members], item.relations) for item in fresh))
    vectors = await _embeddings(conn, embedder, [(i.community, i.relations, s) for i, s in zip(fresh, summaries)])
    next_key = {0: 0, 1: 0}
    rows: list[gq.CommunityRow] = []
    for item, summary, vector in zip(fresh, summaries, vectors):
        level = item.community.level
        while (level, next_key[level]) in used_keys:
            next_key[level] += 1
        key = next_key[level]
        next_key[level] += 1
        names = [m.name for m in rank_members([members[m] for m in item.community.members],
                                              item.relations)[:SEARCH_TEXT_MEMBERS]]
        rows.append(gq.CommunityRow(
            level, key, summary.title, summary.summary, len(item.community.members), vector, item.signature,
            item.component_signature, list(summary.representative_chunk_ids),
            segment_for_search(" ".join([summary.title, summary.summary, *names]))))
    return await gq.insert_communities(conn, corpus_id, rows, [item.community.members for item in fresh])

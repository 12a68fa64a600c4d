"""Leiden hierarchy, extractive and LLM community summaries (pure parts, no database)."""
import json

import pytest

from knowledge.graph.communities import Community, connected_components, partition_component
from knowledge.graph.summaries import CommunitySummarizer, MemberInfo, RelationInfo, extractive_summary


def detect_communities(entity_ids, edges, split_min_members=12) -> list[Community]:
    """All communities of a graph: each component partitioned on its own (as the community builder does)."""
    return [c for component in connected_components(entity_ids, edges)
            for c in partition_component(component, split_min_members)]


def _two_cliques_and_a_loner():
    left = [1, 2, 3, 4]
    right = [10, 11, 12, 13]
    edges = [(a, b, 1.0) for group in (left, right) for i, a in enumerate(group) for b in group[i + 1:]]
    edges.append((4, 10, 0.1))  # a weak bridge
    return left + right + [99], edges


def test_level_zero_partitions_every_entity_and_is_deterministic():
    nodes, edges = _two_cliques_and_a_loner()
    first = detect_communities(nodes, edges, split_min_members=100)
    assert first == detect_communities(list(reversed(nodes)), list(reversed(edges)), split_min_members=100)
    level0 = [c for c in first if c.level == 0]
    assert sorted(m for c in level0 for m in c.members) == sorted(nodes)
    assert {c.members for c in level0} == {(1, 2, 3, 4), (10, 11, 12, 13), (99,)}
    components = connected_components(nodes, edges)
    assert [c.members for c in components] == [(1, 2, 3, 4, 10, 11, 12, 13), (99,)]
    assert (4, 10) in components[0].weights and components[1].weights == {}


def test_level_one_splits_large_communities_and_points_at_the_parent():
    # a ring of 8 triangles hanging off a large clique: at level 0 modularity's resolution limit keeps the ring
    # as one community; Leiden inside it (level 1) recovers the triangles
    triangles = [list(range(i * 3, i * 3 + 3)) for i in range(8)]
    edges = [(a, b, 1.0) for t in triangles for i, a in enumerate(t) for b in t[i + 1:]]
    edges += [(triangles[i][-1], triangles[(i + 1) % 8][0], 1.0) for i in range(8)]
    clique = list(range(1000, 1040))
    edges += [(a, b, 1.0) for i, a in enumerate(clique) for b in clique[i + 1:]] + [(0, 1000, 1.0)]
    communities = detect_communities([n for t in triangles for n in t] + clique, edges, split_min_members=12)
    level0 = {c.members: c for c in communities if c.level == 0}
    ring = level0[tuple(range(24))]
    assert tuple(clique) in level0 and len(level0) == 2
    level1 = [c for c in communities if c.level == 1]
    assert {c.members for c in level1} == {tuple(t) for t in triangles}
    assert all(c.parent_key == ring.key for c in level1)
    assert sorted(c.key for c in level1) == list(range(8))


def test_a_component_keeps_its_communities_when_unrelated_ones_are_added():
    nodes, edges = _two_cliques_and_a_loner()
    before = {c.members for c in detect_communities(nodes, edges, split_min_members=3)}
    extra = list(range(500, 530))
    grown = detect_communities(nodes + extra, edges + [(a, b, 1.0) for i, a in enumerate(extra) for b in extra[i + 1:]],
                               split_min_members=3)
    assert before <= {c.members for c in grown}


def test_no_entities_no_communities():
    assert detect_communities([], []) == []


MEMBERS = [MemberInfo(1, "Kestrel Labs", "ORG", "Kestrel Labs is based in Berlin.", 7),
           MemberInfo(2, "Lumen Gateway", "PRODUCT", "Lumen Gateway routes LLM calls.", 8),
           MemberInfo(3, "Berlin", "PLACE", "Berlin is a city.", 7)]
RELATIONS = [RelationInfo(10, 1, 2, "DEVELOPED", 2.0, "Kestrel Labs developed Lumen Gateway.", 8),
             RelationInfo(11, 1, 3, "LOCATED_IN", 2.0, "Kestrel Labs is based in Berlin.", 7),
             RelationInfo(12, 2, 3, "CO_OCCURS", 1.0, "Lumen Gateway runs in Berlin.", 9)]


def test_extractive_summary_names_central_entities_typed_relations_and_evidence():
    summary = extractive_summary(MEMBERS, RELATIONS)
    assert summary.title.startswith("Kestrel Labs")
    assert "Kestrel Labs developed Lumen Gateway" in summary.summary
    assert "Kestrel Labs is located in Berlin" in summary.summary
    assert summary.summary.index("developed") < summary.summary.index("appears with")
    assert summary.representative_chunk_ids == (8, 7, 9)
    assert summary.generated_by == "extractive"


def test_singleton_summary_uses_the_entity_context():
    summary = extractive_summary(MEMBERS[:1], [])
    assert summary.title == "Kestrel Labs"
    assert "Kestrel Labs is based in Berlin." in summary.summary
    assert summary.representative_chunk_ids == (7,)


async def test_llm_summary_is_used_when_valid():
    calls = []

    async def completion(**kwargs):
        calls.append(kwargs)
        return {"choices": [{"message": {"content": "```json\n" + json.dumps(
            {"title": "Kestrel's gateway in Berlin", "summary": "Kestrel Labs, based in Berlin, built Lumen Gateway."}
        ) + "\n```"}}]}

    summarizer = CommunitySummarizer("test/model", completion=completion)
    summary = await summarizer.summarize(MEMBERS, RELATIONS)
    assert summary.title == "Kestrel's gateway in Berlin" and summary.generated_by == "llm"
    assert summary.representative_chunk_ids == (8, 7, 9)
    assert calls[0]["model"] == "test/model"
    assert "Kestrel Labs developed Lumen Gateway" in calls[0]["messages"][1]["content"]
    assert summarizer.version == "llm:test/model"


@pytest.mark.parametrize("reply", ["not json at all", json.dumps({"title": ""}), json.dumps(["a list"]), RuntimeError])
async def test_llm_failure_or_malformed_reply_falls_back_to_the_extractive_summary(reply):
    async def completion(**kwargs):
        if reply is RuntimeError:
            raise RuntimeError("rate limited")
        return {"choices": [{"message": {"content": reply}}]}

    summary = await CommunitySummarizer("test/model", completion=completion).summarize(MEMBERS, RELATIONS)
    assert summary == extractive_summary(MEMBERS, RELATIONS)


async def test_llm_is_not_called_offline_or_for_singletons():
    async def completion(**kwargs):
        raise AssertionError("no call expected")

    assert (await CommunitySummarizer(None, completion=completion).summarize(MEMBERS, RELATIONS)).generated_by \
        == "extractive"
    assert (await CommunitySummarizer("m", completion=completion).summarize(MEMBERS[:1], [])).generated_by \
        == "extractive"

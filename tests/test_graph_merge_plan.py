"""Resolution wiring (pure): pre-filter keys, canonical names, and the merge plan built on EntityResolver."""
from collections import Counter

import numpy as np

from knowledge.graph.collect import ChunkText, EntityGroup, MentionSpan, collect
from knowledge.graph.extraction import OfflineExtractor
from knowledge.graph.merge_plan import (ExistingEntity, exact_match_is_decisive, find_exact_matches, new_records,
                                        plan_merges)
from knowledge.graph.naming import display_name, informative_candidates, prefilter_keys, unique_canonical_names
from knowledge.graph.resolution import EntityResolver


def _group(name: str, entity_type: str, mentions: int = 1, neighbours=()) -> EntityGroup:
    from knowledge.names import normalize_name

    chunk = sum(map(ord, name))  # a chunk of its own per name
    return EntityGroup(normalize_name(name), entity_type, Counter({name: mentions}),
                       [MentionSpan(chunk, i * 100, i * 100 + len(name), name) for i in range(mentions)],
                       f"{name} is here.", set(neighbours))


def test_prefilter_keys_cover_spelling_variants_and_acronyms():
    assert "k:openai" in set(prefilter_keys("OpenAI")) & set(prefilter_keys("Open AI")) & set(
        prefilter_keys("OpenAI Inc."))
    assert set(prefilter_keys("IBM")) & set(prefilter_keys("International Business Machines"))
    assert set(prefilter_keys("Microsft")) & set(prefilter_keys("Microsoft"))  # typo after the prefix
    assert "t:of" not in prefilter_keys("University of Tokyo")
    assert prefilter_keys("!!!") == []


def test_oversized_token_keys_are_dropped_but_name_keys_kept():
    stored = {i: ["t:records", f"k:label{i}"] for i in range(5)}
    stored[99] = ["t:records", "k:sawelrecords"]
    assert informative_candidates(stored, ["t:records", "k:sawelrecords"], max_block_size=3) == {99}
    assert informative_candidates(stored, ["t:records"], max_block_size=10) == set(stored)


def test_canonical_names_are_unique_and_reversible():
    names = unique_canonical_names([("Apple", "ORG"), ("Apple", "FOOD"), ("Apple", "FOOD"), ("Pear", "FOOD")],
                                   taken={"Pear"})
    assert names == ["Apple", "Apple (FOOD)", "Apple (FOOD 2)", "Pear (FOOD)"]
    assert [display_name(n, t) for n, t in zip(names, ["ORG", "FOOD", "FOOD", "FOOD"])] == ["Apple"] * 3 + ["Pear"]
    assert display_name("Mercury (band)", "ORG") == "Mercury (band)"


def test_collect_groups_spellings_keeps_spans_and_relations():
    chunks = [ChunkText(1, "OpenAI released a model. Microsoft partnered with OpenAI."),
              ChunkText(2, "Researchers at Open AI trained it.")]
    batch = collect(chunks, OfflineExtractor())
    group = batch.groups[("openai", "ORG")]
    assert {m.surface for m in group.mentions} == {"OpenAI", "Open AI"}
    for m in group.mentions:
        assert chunks[m.chunk_id - 1].content[m.start:m.end] == m.surface
    assert group.context == "OpenAI released a model."
    assert any(r.type == "PARTNERED_WITH" and r.chunk_id == 1 for r in batch.relations)
    assert "microsoft" in group.neighbours
    assert batch.per_chunk[2][0] == 1


def test_exact_name_and_type_skip_scoring_only_while_that_is_decisive():
    resolver = EntityResolver(7.0, 2.0)
    existing = [ExistingEntity(5, "OpenAI", "openai", "ORG"), ExistingEntity(6, "Apple (FOOD)", "apple", "FOOD")]
    groups = [_group("Open AI", "ORG"), _group("Apple", "FOOD"), _group("Apple", "ORG")]
    assert exact_match_is_decisive(resolver)
    assert find_exact_matches(groups, existing, resolver) == {("openai", "ORG"): 5, ("apple", "FOOD"): 6}
    assert find_exact_matches(groups, existing, EntityResolver(30.0, 2.0)) == {}


def test_plan_merges_matches_existing_queues_possibles_and_keeps_type_conflicts_apart():
    resolver = EntityResolver(7.0, 2.0)
    rng = np.random.default_rng(3)

    def unrelated() -> np.ndarray:  # contexts that share nothing: cosine near 0
        v = rng.normal(size=384).astype(np.float32)
        return v / np.linalg.norm(v)

    existing = [ExistingEntity(5, "Dr. Lin Wei", "drlinwei", "PERSON", unrelated()),
                ExistingEntity(6, "Microsoft", "microsoft", "ORG", unrelated()),
                ExistingEntity(7, "Apple", "apple", "ORG", unrelated())]
    groups = [_group("Lin Wei", "PERSON", 3), _group("Microsoft Research", "ORG"), _group("Apple", "FOOD"),
              _group("apples", "FOOD", 2)]
    records = new_records(groups, {g.ref: unrelated() for g in groups})
    plan = plan_merges(groups, records, existing, resolver, exact={})
    assert plan.into_existing == {("linwei", "PERSON"): 5}
    assert sorted(e.representative.name for e in plan.new_entities) == ["Apple", "Microsoft Research", "apples"]
    review = {(p.left, p.right) for p in plan.review}
    assert review == {(("microsoftresearch", "ORG"), 6), (("apple", "FOOD"), ("apples", "FOOD"))}
    assert plan.decisions["match"] == 1 and plan.decisions["new"] == 3 and plan.decisions["possible"] == 2


def test_plan_merges_clusters_batch_groups_and_the_most_mentioned_name_leads():
    resolver = EntityResolver(7.0, 2.0)
    same = np.ones(384, dtype=np.float32) / np.sqrt(384)
    groups = [_group("Apple", "FOOD"), _group("apples", "FOOD", 2)]
    plan = plan_merges(groups, new_records(groups, {g.ref: same for g in groups}), [], resolver, exact={})
    assert len(plan.new_entities) == 1
    assert [g.name for g in plan.new_entities[0].groups] == ["apples", "Apple"]
    assert plan.new_entities[0].mention_count == 3 and plan.decisions["merged_in_batch"] == 1

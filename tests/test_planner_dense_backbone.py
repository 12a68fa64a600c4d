"""The dense backbone of the planner's final order (issue 14 "never below dense") and the evidence-based decision
to follow entities (issue 19): pure units, no database."""
from uuid import uuid4

from knowledge.retrieval.planner.context import Candidate, EntityHop, SeedHit
from knowledge.retrieval.planner.entity_hops import hop_support, ppr_support, source_hits
from knowledge.retrieval.planner.rerank import Scored, select_results
from knowledge.retrieval.query_intent import QueryKind, classify_query, follows_entities

A, B = uuid4(), uuid4()


def scored(chunk_id: int, relevance: float, score: float, seed_rank: int | None = 1, expanded: bool = False,
           corpus=A) -> Scored:
    return Scored(Candidate(chunk_id, corpus, 0.0, seed_rank=seed_rank), None, relevance, 0.0, score, expanded)


def test_the_most_relevant_seeds_keep_the_top_places_whatever_the_graph_adds():
    pool = [scored(1, 0.9, 0.9), scored(2, 0.8, 0.8), scored(3, 0.7, 0.7),
            scored(9, 0.2, 1.5, seed_rank=None)]  # a hop-boosted chunk scoring above every dense hit
    assert [s.candidate.chunk_id for s in select_results(pool, 4, {A}, dense_keep=2)] == [1, 2, 9, 3]
    assert [s.candidate.chunk_id for s in select_results(pool, 4, {A}, dense_keep=0)] == [9, 1, 2, 3]


def test_dense_keep_leaves_the_reserved_slot_for_bridged_evidence_at_a_small_limit():
    pool = [scored(1, 0.9, 0.9), scored(2, 0.8, 0.8), scored(7, 0.1, 0.1, seed_rank=None, expanded=True)]
    assert [s.candidate.chunk_id for s in select_results(pool, 2, {A}, dense_keep=2)] == [1, 7]


def test_every_searched_corpus_shows_its_best_seed_in_place_of_the_weakest_result():
    pool = [scored(i, 0.9 - i / 100, 0.9 - i / 100) for i in range(1, 9)] + [
        scored(20, 0.4, 0.4, corpus=B), scored(21, 0.3, 0.3, corpus=B)]  # B's chunks all resemble it less
    assert [s.candidate.chunk_id for s in select_results(pool, 6, {A, B}, dense_keep=2)] == [1, 2, 3, 4, 5, 20]
    assert 20 not in [s.candidate.chunk_id for s in select_results(pool, 5, {A, B}, dense_keep=2)]  # small limit
    assert 20 not in [s.candidate.chunk_id for s in select_results(pool, 6, {A}, dense_keep=2)]  # B not searched


def test_hop_sources_are_the_best_seeds_over_every_corpus():
    seeds = {A: [SeedHit(1, A, 1, 0.9, "a1"), SeedHit(2, A, 2, 0.5, "a2")],
             B: [SeedHit(3, B, 1, 0.7, "b1"), SeedHit(4, B, 2, 0.6, "b2")]}
    assert list(source_hits(seeds, 3)) == [1, 3, 4]


def test_a_specific_entity_links_more_than_a_common_one_and_ppr_reaches_the_second_hop():
    rare = EntityHop(1, A, 5, A, canonical_id=10, name="Karel Vostrik", chunk_count=2)
    common = EntityHop(1, A, 6, A, canonical_id=11, name="Berlin", chunk_count=40)
    assert hop_support([rare], {1: 0.8}, 0.7) > hop_support([common], {1: 0.8}, 0.7) > 0
    mass = ppr_support({5: [rare], 6: [common]}, {1: 0.8}, 0.5)
    assert mass[5] > 0 and mass[6] > 0


def test_every_question_but_an_overview_follows_entities():
    assert follows_entities(classify_query("Which company owns the labeling vendor the Atlas team picked?"))
    assert follows_entities(QueryKind.FACT)
    assert not follows_entities(classify_query("What are the main themes across our projects?"))

"""The reserved slot goes to the strongest cross-corpus bridge (issue 19 item 1): a chunk naming a specific entity
that a best chunk of another corpus names, even when its own corpus ranks it among its first seeds. Pure units,
no database."""
from uuid import uuid4

from knowledge.retrieval.planner.context import Candidate, EntityHop
from knowledge.retrieval.planner.rerank import Scored, bridge_support, select_results

A, B = uuid4(), uuid4()


def hop(source: int, source_corpus, chunk: int, corpus, name: str, chunk_count: int) -> EntityHop:
    return EntityHop(from_chunk_id=source, from_corpus_id=source_corpus, chunk_id=chunk, corpus_id=corpus,
                     canonical_id=abs(hash(name)) % 1000, name=name, chunk_count=chunk_count)


def scored(chunk_id: int, score: float, *, corpus=A, seed_rank: int | None = None, expanded: bool = False,
           bridge: float = 0.0, walk: float = 0.0) -> Scored:
    candidate = Candidate(chunk_id, corpus, 0.0, seed_rank=seed_rank, expansion_score=walk)
    return Scored(candidate, None, score, 0.0, score, expanded, bridge)


def test_bridge_support_counts_only_hops_from_another_corpus():
    sources = {1: 0.8, 2: 0.6}
    inside = hop(1, B, 9, B, "Kenji Watanabe", 1)           # same corpus: strong, but no bridge
    across = hop(2, A, 9, B, "Aurora Vector Engine", 4)     # from corpus A's second best chunk
    assert bridge_support([inside], sources, 0.7) == 0.0
    assert abs(bridge_support([inside, across], sources, 0.7) - 0.6 / 4 ** 0.7) < 1e-9
    assert bridge_support([hop(3, A, 9, B, "Aurora Vector Engine", 4)], sources, 0.7) == 0.0  # 3 is no source


def test_a_seed_its_corpus_ranks_fifth_takes_the_reserved_slot_when_it_is_the_strongest_bridge():
    dense = [scored(i, 0.6 - i / 100, seed_rank=i) for i in range(1, 7)]  # corpus A's chunks resemble it more
    walked = scored(40, 0.25, corpus=B, expanded=True, walk=0.03)          # the walk's favourite, no hop into it
    bridged = scored(41, 0.43, corpus=B, seed_rank=5, bridge=0.18)         # B's fifth seed, a hop from A's best
    chosen = select_results(dense + [walked, bridged], 5, {A, B}, dense_keep=2)
    ids = [s.candidate.chunk_id for s in chosen]
    assert 41 in ids and 40 not in ids and ids[:2] == [1, 2]
    assert next(s for s in chosen if s.candidate.chunk_id == 41).expanded  # shown as graph-expanded evidence
    assert not any(s.expanded for s in chosen if s.candidate.chunk_id != 41)


def test_reserved_slot_ranks_bridges_before_walk_mass_and_walk_mass_among_the_rest():
    dense = [scored(i, 0.9 - i / 100, seed_rank=i) for i in range(1, 6)]
    weak_bridge = scored(50, 0.2, corpus=B, expanded=True, bridge=0.05, walk=0.001)
    strong_bridge = scored(51, 0.3, corpus=B, expanded=True, bridge=0.4, walk=0.001)
    big_walk = scored(52, 0.35, corpus=B, expanded=True, walk=0.04)
    pool = dense + [weak_bridge, strong_bridge, big_walk]
    assert [s.candidate.chunk_id for s in select_results(pool, 5, {A, B})][-1] == 51
    assert 52 in {s.candidate.chunk_id for s in select_results(dense + [big_walk, scored(53, 0.5, corpus=B,
                                                                                          expanded=True)], 5, {A, B})}


def test_no_reserved_slot_without_bridged_evidence():
    dense = [scored(i, 0.9 - i / 100, seed_rank=i) for i in range(1, 8)]
    chosen = select_results(dense, 5, {A, B}, dense_keep=2)
    assert [s.candidate.chunk_id for s in chosen] == [1, 2, 3, 4, 5] and not any(s.expanded for s in chosen)

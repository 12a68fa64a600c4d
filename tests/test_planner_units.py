"""HybridPlanner building blocks without a database: fusion, PageRank, graph growth, paths, cache, selection."""
import random
from dataclasses import dataclass
from uuid import uuid4

import networkx as nx
import pytest

from knowledge.retrieval.planner.context import Candidate, SeedEntity
from knowledge.retrieval.planner.cross_encoder import OfflineCrossEncoder, installed_cross_encoder
from knowledge.retrieval.planner.entity_graph import EntityGraph, GraphNode, Neighbour, build_entity_graph
from knowledge.retrieval.planner.explain import explain_lines
from knowledge.retrieval.planner.fusion import reciprocal_rank_fusion
from knowledge.retrieval.planner.graph_rows import RelationFact
from knowledge.retrieval.planner.neighbourhood_cache import NeighbourhoodCache
from knowledge.retrieval.planner.paths import bridge_origins, origin_key
from knowledge.retrieval.planner.personalization import QueryNames, add_fact_weights, mention_weight
from knowledge.retrieval.planner.ppr import personalized_pagerank, personalized_pagerank_many
from knowledge.retrieval.planner.rerank import Scored, reserved_slots, select_results
from knowledge.retrieval.planner.walk import walk_from_seeds
from knowledge.retrieval.results import BridgePath, RetrievalResponse, SearchHit, StageTrace, bridge_lines

A, B = uuid4(), uuid4()


@dataclass(frozen=True)
class Bridge:
    canonical_id: int
    canonical_name: str
    source_entity_id: int
    source_corpus_id: object
    target_entity_id: int
    target_corpus_id: object
    bridge_type: str = "shared_entity"
    hops: int = 1
    confidence: float = 1.0


def seed(entity_id: int, corpus=A, weight: float = 1.0, primary: bool = True) -> SeedEntity:
    return SeedEntity(entity_id, corpus, f"e{entity_id}", weight, primary)


# ---------------------------------------------------------------- fusion
def test_rrf_sums_reciprocal_ranks_and_k_changes_the_order():
    rankings = [["a", "b", "c"], ["d", "e", "c"]]
    scores = reciprocal_rank_fusion(rankings, k=60)
    assert scores["c"] == pytest.approx(2 / 63)
    assert scores["a"] == pytest.approx(1 / 61)
    # small k rewards the single first place, large k rewards appearing in two lists
    assert max(reciprocal_rank_fusion(rankings, k=0).items(), key=lambda kv: kv[1])[0] == "a"
    assert max(scores.items(), key=lambda kv: kv[1])[0] == "c"


def test_rrf_counts_an_item_once_per_ranking():
    assert reciprocal_rank_fusion([["a", "a", "b"]], k=1) == {"a": 0.5, "b": pytest.approx(1 / 3)}
    with pytest.raises(ValueError):
        reciprocal_rank_fusion([["a"]], k=-1)


# ---------------------------------------------------------------- personalized PageRank
def test_ppr_keeps_mass_near_the_seed_and_damping_moves_it_outwards():
    path = [(1, 2, 1.0), (2, 3, 1.0), (3, 4, 1.0)]
    low = personalized_pagerank([1, 2, 3, 4], path, {1: 1.0}, damping=0.2)
    high = personalized_pagerank([1, 2, 3, 4], path, {1: 1.0}, damping=0.85)
    assert low[1] > low[2] > low[3] > low[4]
    assert sum(low.values()) == pytest.approx(1.0)
    assert high[4] > low[4] and high[1] < low[1]


def test_ppr_matches_networkx_and_runs_many_restart_distributions_at_once():
    rng = random.Random(3)
    nodes = list(range(60))
    edges = [(rng.randrange(60), rng.randrange(60), rng.random() + 0.1) for _ in range(150)]
    restarts = {"a": {3: 1.0, 7: 0.5}, "b": {59: 2.0}, "none": {}}
    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    for a, b, w in edges:
        if a != b:
            graph.add_edge(a, b, weight=graph[a][b]["weight"] + w if graph.has_edge(a, b) else w)
    many = personalized_pagerank_many(nodes, edges, restarts, 0.5)
    assert many["none"] == {}
    for key in ("a", "b"):
        reference = nx.pagerank(graph, alpha=0.5, personalization=restarts[key], dangling=restarts[key],
                                weight="weight", tol=1e-10)
        assert max(abs(many[key][n] - reference[n]) for n in nodes) < 1e-5
        assert many[key] == pytest.approx(personalized_pagerank(nodes, edges, restarts[key], 0.5))


def test_ppr_without_seed_mass_is_empty_and_bad_damping_is_refused():
    assert personalized_pagerank([1, 2], [(1, 2, 1.0)], {}, 0.5) == {}
    assert personalized_pagerank([1, 2], [(1, 2, 1.0)], {9: 1.0}, 0.5) == {}
    with pytest.raises(ValueError, match="ppr_damping"):
        personalized_pagerank([1], [], {1: 1.0}, 1.0)


# ---------------------------------------------------------------- bounded graph growth
def chain_fetch(fanout: int):
    """Entity n's neighbours are 10n+1 .. 10n+fanout, all in corpus A, weights decreasing."""
    calls = []

    async def fetch(ids):
        calls.append(list(ids))
        return {i: [Neighbour(10 * i + j, A, f"n{10 * i + j}", 1.0 / j) for j in range(1, fanout + 1)] for i in ids}

    fetch.calls = calls
    return fetch


async def test_graph_depth_limits_the_hops():
    seeds = {1: seed(1)}
    for depth, expected in ((0, {1}), (1, {1, 11, 12}), (2, {1, 11, 12, 111, 112, 121, 122})):
        graph = await build_entity_graph(seeds, [], depth, 100, chain_fetch(2))
        assert set(graph.nodes) == expected
        assert len(graph.added_per_hop) == depth
        assert all(graph.nodes[n].depth <= depth for n in graph.nodes)


async def test_neighbours_per_hop_caps_each_hop_keeping_the_strongest():
    graph = await build_entity_graph({1: seed(1)}, [], 2, 2, chain_fetch(5))
    assert graph.added_per_hop == [2, 2]
    assert {11, 12} <= set(graph.nodes) and 15 not in graph.nodes
    wide = await build_entity_graph({1: seed(1)}, [], 2, 100, chain_fetch(5))
    assert wide.added_per_hop == [5, 25]


async def test_bridges_land_at_their_hop_count_and_relations_never_cross_corpora():
    bridges = [Bridge(7, "Shared", 1, A, 50, B), Bridge(8, "Far", 1, A, 60, B, "relation_path", hops=2)]

    async def fetch(ids):
        return {1: [Neighbour(2, A, "local", 1.0), Neighbour(3, B, "other corpus", 1.0)]}

    one = await build_entity_graph({1: seed(1)}, bridges, 1, 100, fetch)
    assert set(one.nodes) == {1, 2, 50} and [b.target_entity_id for b in one.bridge_edges] == [50]
    assert (1, 3) not in one.relation_edges
    two = await build_entity_graph({1: seed(1)}, bridges, 2, 100, fetch)
    assert {50, 60} <= set(two.nodes) and two.nodes[60].depth == 2


async def test_bad_graph_limits_are_refused():
    with pytest.raises(ValueError):
        await build_entity_graph({}, [], -1, 10, chain_fetch(1))


# ---------------------------------------------------------------- walk and paths
async def test_walk_merges_copies_of_one_entity_and_splits_mass_by_source_corpus():
    seeds = {1: seed(1, A, 1.0), 9: seed(9, B, 1.0)}
    bridges = [Bridge(7, "Shared", 1, A, 50, B)]

    async def fetch(ids):
        return {50: [Neighbour(51, B, "b-neighbour", 1.0)]}

    graph = await build_entity_graph(seeds, bridges, 2, 100, fetch)
    walk = walk_from_seeds(graph, seeds, 0.5)
    assert walk.places[50] == walk.places[1] and walk.size == 3  # the two copies are one node
    from_a = walk.masses_from_other_corpora(B)
    assert from_a[walk.places[51]] > 0  # reached from corpus A through the bridge
    assert from_a[walk.places[9]] == 0  # B's own seed, nothing from A reaches it
    top = walk.top(10)
    assert sorted(e for e, _ in top) == [1, 9, 50, 51] and sum(m for e, m in top if e != 50) == pytest.approx(1.0)
    assert [m for _, m in top] == sorted((m for _, m in top), reverse=True) and walk.top(2) == top[:2]


def test_same_entity_places_are_the_shared_bridges_connected_components_in_node_order():
    """Random chains and loops of shared-entity bridges (relation-path bridges never merge): nodes share a place
    exactly when shared bridges connect them, and places are numbered by their first node."""
    rng = random.Random(7)
    for _ in range(200):
        ids = rng.sample(range(1, 500), rng.randint(1, 30))
        nodes = {e: GraphNode(e, rng.choice([A, B]), f"e{e}", 0, 1.0) for e in ids}
        bridges = [Bridge(i, "c", rng.choice(ids), A, rng.choice(ids), B,
                          rng.choice(["shared_entity", "relation_path"])) for i in range(rng.randint(0, 25))]
        graph = EntityGraph.of(nodes, {}, bridges)
        places, size = graph.same_entity_places()
        joined = nx.Graph()
        joined.add_nodes_from(ids)
        joined.add_edges_from((b.source_entity_id, b.target_entity_id) for b in bridges
                              if b.bridge_type == "shared_entity")
        group = {e: min(c, key=ids.index) for c in nx.connected_components(joined) for e in c}
        expected = {}
        for e in ids:
            expected.setdefault(group[e], len(expected))
        assert places.tolist() == [expected[group[e]] for e in ids] and size == len(expected)


async def test_bridge_paths_start_at_primary_evidence_and_respect_depth():
    seeds = {1: seed(1, A, primary=True), 2: seed(2, A, primary=False)}
    bridges = [Bridge(7, "Shared", 1, A, 50, B), Bridge(8, "Weak", 2, A, 60, B)]

    async def fetch(ids):
        return {50: [Neighbour(51, B, "after bridge", 1.0)]}

    graph = await build_entity_graph(seeds, bridges, 2, 100, fetch)
    origins = bridge_origins(graph, seeds, max_depth=2)
    assert origins[50].hops == 1 and origins[50].bridge.canonical_name == "Shared"
    assert origins[51].hops == 2
    assert 60 not in origins  # its bridge starts at an entity outside primary evidence
    assert 51 not in bridge_origins(graph, seeds, max_depth=1)
    only = bridge_origins(graph, seeds, max_depth=2, wanted={51})
    assert set(only) == {51} and only[51] == origins[51]


@pytest.mark.parametrize("max_depth", [1, 2, 3])
def test_bridge_origins_match_a_breadth_first_search_of_the_whole_graph(max_depth):
    """Random graphs where one entity is the target of several bridges of different lengths: every entity gets the
    origin a shortest-path search over all relation edges gives it (of equal origins, the first bridge's)."""
    rng = random.Random(max_depth)
    for _ in range(30):
        nodes = {e: GraphNode(e, B, f"e{e}", 1, 1.0) for e in range(100, 140)}
        edges = {tuple(sorted(rng.sample(range(100, 140), 2))): 1.0 for _ in range(60)}
        seeds = {e: seed(e, A, weight=rng.choice([0.5, 1.0]), primary=rng.random() < 0.8) for e in range(1, 6)}
        targets = rng.sample(range(100, 140), 4)
        bridges = [Bridge(i, f"c{i % 3}", rng.choice(list(seeds)), A, rng.choice(targets), B,
                          hops=rng.choice([1, 2]), confidence=rng.choice([0.5, 1.0])) for i in range(8)]
        graph = EntityGraph.of(nodes, edges, [b for b in bridges if b.hops <= max_depth])
        whole = nx.Graph(list(edges))
        whole.add_nodes_from(nodes)
        expected: dict[int, tuple] = {}
        for bridge in graph.bridge_edges:
            if not seeds[bridge.source_entity_id].primary:
                continue
            reached = nx.single_source_shortest_path_length(whole, bridge.target_entity_id,
                                                            cutoff=max_depth - bridge.hops)
            for entity, distance in reached.items():
                key = origin_key(bridge.hops + distance, seeds[bridge.source_entity_id].weight, bridge)
                if entity not in expected or key < expected[entity][0]:
                    expected[entity] = key, bridge
        origins = bridge_origins(graph, seeds, max_depth)
        assert {e: (o.sort_key(), o.bridge) for e, o in origins.items()} == expected
        wanted = set(rng.sample(range(100, 140), 10))
        assert bridge_origins(graph, seeds, max_depth, wanted) == {e: o for e, o in origins.items() if e in wanted}


# ---------------------------------------------------------------- personalization
def test_query_names_match_whole_words_and_cjk_substrings():
    names = QueryNames("Which researcher created the system that Project Helios depends on?")
    assert names.names("Project Helios") and names.names("project helios")
    assert not names.names("Helios Labs") and not names.names("AI") and not names.names("Project Orion")
    assert QueryNames("极光向量引擎是谁开发的？").names("极光向量引擎")


def test_mention_weight_prefers_named_then_specific_entities_of_better_chunks():
    assert mention_weight(True, 50, 1) > mention_weight(False, 1, 1) > mention_weight(False, 10, 1)
    assert mention_weight(False, 1, 1) > mention_weight(False, 1, 2)


def test_fact_weights_go_to_both_ends_relative_to_the_best_fact():
    entities = {1: seed(1, weight=0.0), 2: seed(2, weight=0.0), 3: seed(3, weight=0.0)}
    facts = [RelationFact(10, A, 1, 2, "USES", 0.4), RelationFact(11, A, 2, 3, "CO_OCCURS", 0.1)]
    described = add_fact_weights(entities, facts)
    assert entities[1].weight == pytest.approx(1.0) and entities[2].weight == pytest.approx(1.25)
    assert entities[3].weight == pytest.approx(0.25)
    assert described[0] == "e1 USES e2 (1.00)"


# ---------------------------------------------------------------- neighbourhood cache
async def test_neighbourhood_cache_is_lru_keyed_by_scope_and_clearable():
    loads = []

    async def load(ids):
        loads.append(list(ids))
        return {i: [i * 10] for i in ids if i != 3}

    cache = NeighbourhoodCache(capacity=2)
    assert await cache.get_or_load("n", [1, 2], [A], None, load) == {1: [10], 2: [20]}
    assert await cache.get_or_load("n", [1], [A], None, load) == {1: [10]}
    assert loads == [[1, 2]] and cache.hits == 1
    await cache.get_or_load("n", [1], [A, B], None, load)  # another permission scope: not served from cache
    assert loads[-1] == [1] and len(cache) == 2  # capacity 2: the oldest entry was evicted
    await cache.get_or_load("n", [2], [A], None, load)
    assert loads[-1] == [2]
    assert (await cache.get_or_load("n", [3], [A], None, load))[3] == []  # no neighbours is cached too
    cache.clear()
    assert len(cache) == 0
    with pytest.raises(ValueError):
        NeighbourhoodCache(-1)


async def test_zero_capacity_cache_always_loads():
    calls = []

    async def load(ids):
        calls.append(ids)
        return {}

    cache = NeighbourhoodCache(0)
    await cache.get_or_load("n", [1], [A], None, load)
    await cache.get_or_load("n", [1], [A], None, load)
    assert len(calls) == 2 and len(cache) == 0


# ---------------------------------------------------------------- result selection
def scored(chunk_id: int, score: float, expanded: bool, corpus=A, expansion_score: float = 0.0) -> Scored:
    return Scored(Candidate(chunk_id, corpus, 0.0, expansion_score=expansion_score), None, 0.0, 0.0, score, expanded)


def test_reserved_slots_bring_weak_expanded_evidence_into_the_results():
    pool = [scored(i, 1.0 - i / 100, False) for i in range(10)] + [scored(99, 0.01, True, B, 0.5)]
    chosen = select_results(pool, 5, {A, B})
    assert [s.candidate.chunk_id for s in chosen] == [0, 1, 2, 3, 99]
    assert [s.candidate.chunk_id for s in select_results(pool, 1, {A, B})] == [0]
    assert reserved_slots(5, 3) == 1 and reserved_slots(10, 3) == 2 and reserved_slots(10, 0) == 0


def test_reserved_slots_prefer_expanded_evidence_in_the_mentioned_corpora():
    unmentioned = uuid4()
    pool = [scored(i, 1.0, False) for i in range(5)]
    pool += [scored(50, 0.3, True, unmentioned, expansion_score=0.9), scored(51, 0.2, True, B, 0.1)]
    chosen = {s.candidate.chunk_id for s in select_results(pool, 5, {A, B})}
    assert 51 in chosen and 50 not in chosen


# ---------------------------------------------------------------- rerank model detection, explain
def test_no_cross_encoder_is_installed_here_so_rerank_uses_cosine():
    assert installed_cross_encoder() is None
    encoder = OfflineCrossEncoder.detect()
    assert not encoder.available and encoder.score("q", ["t"]) is None


def test_explain_and_bridge_lines():
    path = BridgePath(A, "Project Docs", B, "Research Papers", "Aurora Vector Engine", 1)
    hit = SearchHit(1, B, "papers", "Research Papers", "text", "p.jsonl#x", {}, 0.5, "graph_expanded", path, 2)
    response = RetrievalResponse([hit], "planner", "multi_hop", True, [path],
                                 [StageTrace("seeds", 0.0123, {"per_corpus": {"Project Docs": 20}})])
    lines = explain_lines(response)
    assert lines[0] == "mode: planner; query kind: multi_hop; graph expansion: yes"
    assert "seeds (12.3 ms)" in lines and "    per_corpus: Project Docs: 20" in lines
    assert bridge_lines(response.hits) == ["[2] Project Docs -> Research Papers via Aurora Vector Engine (1 hop)"]

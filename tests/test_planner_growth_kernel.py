"""The compiled graph growth grows the graph the Python growth grows, over the neighbour table a snapshot keeps."""
import random
from uuid import UUID, uuid4

import numpy as np
import pytest

from knowledge.retrieval.planner.context import EntityBridge, SeedEntity
from knowledge.retrieval.planner.entity_graph import Neighbour, build_entity_graph
from knowledge.retrieval.planner.growth_kernel import grow_over_table
from knowledge.retrieval.planner.neighbour_table import NeighbourTable


def random_corpora(rng: random.Random) -> tuple[list[UUID], dict[UUID, list[int]], NeighbourTable]:
    """Two or three corpora of up to 40 entities; weights from a few values (ties), zeros and loops included."""
    corpora = [uuid4() for _ in range(rng.choice([2, 3]))]
    entities = {c: list(range(1000 * i + 1, 1000 * i + 1 + rng.randint(1, 40))) for i, c in enumerate(corpora)}
    tables = []
    for corpus_id in corpora:
        mine = entities[corpus_id]
        neighbours = {e: [(o, f"n{o}", rng.choice([0.0, 0.5, 1.0, 1.0, 2.0, 3.5]))
                          for o in rng.sample(mine, rng.randint(0, min(8, len(mine))))]
                      for e in mine if rng.random() < 0.9}
        tables.append(NeighbourTable.of_corpus(corpus_id, mine, neighbours))
    return corpora, entities, NeighbourTable.joined(tables)


def random_plan(rng: random.Random, corpora: list[UUID], entities: dict[UUID, list[int]]):
    seeds = {}
    for corpus_id in corpora:
        for e in rng.sample(entities[corpus_id], rng.randint(0, min(5, len(entities[corpus_id])))):
            seeds[e] = SeedEntity(e, corpus_id, f"s{e}", rng.choice([0.0, 0.5, 1.0, 1.0]), rng.random() < 0.7)
    bridges = []
    for i in range(rng.randint(0, 8)):
        if not seeds:
            break
        source = rng.choice(list(seeds))
        target_corpus = rng.choice([c for c in corpora if c != seeds[source].corpus_id])
        bridges.append(EntityBridge(i, f"bridge {i}", source, seeds[source].corpus_id,
                                    rng.choice(entities[target_corpus]), target_corpus,
                                    rng.choice(["shared_entity", "relation_path"]), rng.choice([1, 2, 3]),
                                    rng.choice([0.0, 0.5, 1.0])))
    return seeds, bridges


@pytest.mark.parametrize("case", range(300))
async def test_compiled_growth_grows_the_python_growths_graph(case):
    rng = random.Random(case)
    corpora, entities, table = random_corpora(rng)
    seeds, bridges = random_plan(rng, corpora, entities)
    max_depth, per_hop = rng.choice([0, 1, 2, 2, 3]), rng.choice([0, 1, 3, 10, 100])

    async def fetch(ids):
        return {e: table.neighbours(e) or [] for e in ids}

    expected = await build_entity_graph(seeds, bridges, max_depth, per_hop, fetch)
    grown = grow_over_table(seeds, bridges, max_depth, per_hop, table)
    assert list(grown.nodes.items()) == list(expected.nodes.items())
    assert grown.relation_edges == expected.relation_edges
    assert grown.bridge_edges == expected.bridge_edges and grown.added_per_hop == expected.added_per_hop
    # the edges' places the kernel hands the walk are those the walk would look up itself
    order = list(grown.nodes)
    assert [(order[a], order[b]) for a, b in grown.edge_nodes.tolist()] == list(grown.relation_edges)
    assert grown.relation_ends() is grown.edge_nodes and expected.edge_nodes is None
    assert grown.bridge_ends().tolist() == expected.bridge_ends().tolist()  # handed over / looked up
    assert list(grown.node_names) == expected.node_names and list(grown.node_corpora) == expected.node_corpora
    assert expected.relation_ends().tolist() == [[order.index(a), order.index(b)] for a, b in expected.relation_edges]
    places = np.array([rng.randrange(len(order)) for _ in order], dtype=np.int64)
    made, wanted = (sorted(zip(map(tuple, ends.tolist()), weights.tolist()))  # the same edges, not in one order
                    for ends, weights in (grown.edge_arrays(places), expected.edge_arrays(places)))
    assert made == wanted


def test_an_entity_outside_the_table_leaves_the_growth_to_python():
    a = uuid4()
    table = NeighbourTable.of_corpus(a, [1, 2], {1: [(2, "two", 1.0)]})
    assert grow_over_table({9: SeedEntity(9, a, "nine", 1.0, True)}, [], 2, 10, table) is None
    with pytest.raises(ValueError):
        grow_over_table({}, [], -1, 10, table)


def test_the_table_answers_each_entitys_neighbours_in_order_across_joined_corpora():
    a, b = uuid4(), uuid4()
    first = NeighbourTable.of_corpus(a, [1, 2, 3], {1: [(3, "three", 2.0), (2, "two", 1.0)], 3: [(1, "one", 2.0)]})
    second = NeighbourTable.of_corpus(b, [7, 8], {8: [(7, "seven", 0.5), (9, "nine", 0.25)]})
    joined = NeighbourTable.joined([first, second])
    assert joined.neighbours(1) == [Neighbour(3, a, "three", 2.0), Neighbour(2, a, "two", 1.0)]
    assert joined.neighbours(8) == [Neighbour(7, b, "seven", 0.5), Neighbour(9, b, "nine", 0.25)]
    assert joined.neighbours(2) == [] and joined.neighbours(9) == [] and joined.neighbours(4) is None
    assert joined.size == first.size + second.size == 5
    rows = joined.rows([9, 1, 8])
    assert joined.entity_ids[rows].tolist() == [9, 1, 8] and joined.corpus_codes[rows].tolist() == [1, 0, 1]
    assert joined.rows([1, 4]) is None and joined.rows([0]) is None and joined.rows([10]) is None
    empty = NeighbourTable.of_corpus(a, [], {})
    assert empty.rows([1]) is None and empty.rows([]).tolist() == [] and empty.neighbours(1) is None
    assert NeighbourTable.joined([first]) is first

"""Routing of UnifiedRetrievalService and the planner settings, on the demo corpora (read only)."""
import inspect

import pytest

from config.settings import FeatureFlags
from knowledge.retrieval.service import UnifiedRetrievalService

AURORA = "Which researcher created the system that Project Helios depends on for its nearest-neighbour lookups?"
FACT = "What is the reindex schedule?"
OVERVIEW = "What are the main themes across our projects?"


def service(kapp, flags: FeatureFlags | None = None, **planner) -> UnifiedRetrievalService:
    settings = kapp.settings.model_copy(update={
        "planner": kapp.settings.planner.model_copy(update=planner),
        "knowledge_feature_flags": flags or kapp.settings.knowledge_feature_flags})
    return UnifiedRetrievalService(kapp.db, kapp.query_cache, settings=settings)


def ids(corpora, *names):
    return [corpora[n].id for n in names]


def stages(response) -> list[str]:
    return [t.stage for t in response.trace]


def detail(response, stage: str) -> dict:
    return next(t.detail for t in response.trace if t.stage == stage)


@pytest.mark.parametrize("question", [AURORA, FACT])
async def test_feature_flag_off_gives_exactly_the_legacy_result(demo_app, question):
    kapp, corpora = demo_app
    requested, accessible = ids(corpora, "project_docs", "papers"), ids(corpora, *corpora)
    off = service(kapp, FeatureFlags(enable_cross_corpus_kg=False))
    response = await off.search(question, requested, accessible, limit=5)
    legacy = await kapp.legacy_search(question, requested, accessible, limit=5)
    assert response.mode == "legacy" and not response.graph_expansion and stages(response) == ["legacy"]
    assert [h.to_dict() for h in response.hits] == [h.to_dict() for h in legacy]


async def test_no_corpus_mentioned_searches_every_accessible_corpus_the_legacy_way(demo_app):
    kapp, corpora = demo_app
    accessible = ids(corpora, "project_docs", "papers")
    response = await kapp.retrieval.search(AURORA, None, accessible, limit=5)
    legacy = await kapp.legacy_search(AURORA, None, accessible, limit=5)
    assert response.mode == "legacy"
    assert [h.chunk_id for h in response.hits] == [h.chunk_id for h in legacy]


async def test_one_corpus_follows_entities_inside_the_corpus_without_cross_corpus_stages(demo_app):
    kapp, corpora = demo_app
    response = await kapp.retrieval.search(AURORA, ids(corpora, "project_docs"), ids(corpora, *corpora), limit=5)
    assert response.mode == "planner" and response.query_kind == "multi_hop" and not response.graph_expansion
    assert stages(response) == ["embed", "seeds", "entity_hops", "fusion", "rerank"]
    assert detail(response, "entity_hops")["corpora"] == ["Project Docs"]
    assert {h.corpus_id for h in response.hits} == {corpora["project_docs"].id}
    assert all(h.evidence_type == "primary" and h.bridge is None for h in response.hits)


async def test_several_corpora_expand_for_every_question_but_an_overview(demo_app):
    kapp, corpora = demo_app
    requested, accessible = ids(corpora, "project_docs", "papers"), ids(corpora, *corpora)
    # a plain fact question is no reason to skip the graph: the evidence decides what the results keep
    fact = await kapp.retrieval.search(FACT, requested, accessible, limit=5)
    assert fact.mode == "planner" and fact.query_kind == "fact" and fact.graph_expansion
    assert set(detail(fact, "seeds")["per_corpus"]) == {"Project Docs", "Research Papers"}
    assert "expansion" in stages(fact) and detail(fact, "entity_hops")["sources"] > 0
    overview = await kapp.retrieval.search(OVERVIEW, requested, accessible, limit=5)
    assert overview.query_kind == "global_summary" and not overview.graph_expansion
    assert "expansion" not in stages(overview) and "skipped" in detail(overview, "entity_hops")
    connective = await kapp.retrieval.search(AURORA, requested, accessible, limit=5)
    assert connective.graph_expansion and "expansion" in stages(connective)


def test_callers_cannot_force_graph_mode():
    parameters = inspect.signature(UnifiedRetrievalService.search).parameters
    # person_id is who searches: it picks a path only through the operator's rollout flags
    assert list(parameters) == ["self", "query", "corpus_ids", "accessible_corpus_ids", "limit", "strict_scope",
                                "person_id"]


async def test_bad_arguments_and_empty_scopes(demo_app):
    kapp, corpora = demo_app
    with pytest.raises(TypeError, match="accessible_corpus_ids"):
        await kapp.retrieval.search(AURORA, ids(corpora, "papers"), None)
    with pytest.raises(ValueError, match="limit"):
        await kapp.retrieval.search(AURORA, ids(corpora, "papers"), ids(corpora, "papers"), limit=0)
    with pytest.raises(TypeError):
        await kapp.retrieval.search(AURORA, ids(corpora, "papers"), ids(corpora, "papers"), graph=True)
    forbidden = await kapp.retrieval.search(AURORA, ids(corpora, "papers") + ["not-a-uuid"],
                                            ids(corpora, "team_notes"))
    assert forbidden.mode == "empty" and forbidden.hits == []
    assert set(forbidden.rejected_corpus_ids) == {str(corpora["papers"].id), "not-a-uuid"}
    blank = await kapp.retrieval.search("   ", ids(corpora, "papers"), ids(corpora, "papers"))
    assert blank.mode == "empty"


# ---------------------------------------------------------------- every planner setting changes behaviour
async def test_per_corpus_limit_and_pool_cap(demo_app):
    kapp, corpora = demo_app
    requested = ids(corpora, "project_docs", "papers")
    small = await service(kapp, per_corpus_limit=3, pool_cap=4).search(FACT, requested, requested, limit=10)
    assert detail(small, "seeds")["per_corpus"] == {"Project Docs": 3, "Research Papers": 3}
    assert detail(small, "fusion")["pool"] == 4 and len(small.hits) == 4
    default = await kapp.retrieval.search(FACT, requested, requested, limit=10)
    assert detail(default, "seeds")["per_corpus"] == {"Project Docs": 20, "Research Papers": 20}
    assert len(default.hits) == 10


async def test_rrf_k_changes_the_fused_scores(demo_app):
    kapp, corpora = demo_app
    requested = ids(corpora, "project_docs", "papers")
    # depth 0: no entity hop and no bridge, so the seed rankings (per corpus and lexical) are all that is fused
    k1 = await service(kapp, rrf_k=1, graph_max_depth=0).search(FACT, requested, requested, limit=3)
    k60 = await service(kapp, graph_max_depth=0).search(FACT, requested, requested, limit=3)
    assert detail(k1, "fusion")["rrf_k"] == 1
    # the best chunk of a corpus is first in its seed ranking, 1/(k + 1), plus at most as much as a lexical seed
    lexical = 1 if detail(k1, "seeds")["lexical"] else 0
    for response, k in ((k1, 1), (k60, 60)):
        top = max(h.scores["rrf"] for h in response.hits)
        assert 1 / (k + 1) - 1e-12 <= top <= (1 + lexical) / (k + 1) + 1e-12


async def test_graph_max_depth_bounds_the_expansion(demo_app):
    kapp, corpora = demo_app
    requested = ids(corpora, "project_docs", "papers")
    runs = {d: await service(kapp, graph_max_depth=d).search(AURORA, requested, requested, limit=5, strict_scope=True)
            for d in (0, 1, 2)}
    entities, bridge_edges = {}, {}
    for depth, response in runs.items():
        expansion = detail(response, "expansion")
        assert response.mode == "planner", response.fallback_reason
        assert len(expansion["added_per_hop"]) == depth and expansion["max_depth"] == depth
        assert all(h.bridge.hops <= depth for h in response.hits if h.bridge is not None)
        entities[depth], bridge_edges[depth] = expansion["entities"], expansion["bridge_edges"]
    assert entities[0] < entities[1] <= entities[2]
    # 2-hop (relation path) bridges only count from depth 2 on; with no hop there is no bridge at all
    assert bridge_edges[0] == 0 < bridge_edges[1] < bridge_edges[2]
    assert not [h for h in runs[0].hits if h.evidence_type == "graph_expanded"]  # no hop, no bridge
    assert [h for h in runs[1].hits if h.evidence_type == "graph_expanded"]


async def test_graph_neighbors_per_hop_caps_every_hop(demo_app):
    kapp, corpora = demo_app
    requested = ids(corpora, "project_docs", "papers")
    narrow = await service(kapp, graph_neighbors_per_hop=1).search(AURORA, requested, requested, limit=5)
    wide = await kapp.retrieval.search(AURORA, requested, requested, limit=5)
    assert all(added <= 1 for added in detail(narrow, "expansion")["added_per_hop"])
    assert max(detail(wide, "expansion")["added_per_hop"]) > 1
    assert detail(narrow, "expansion")["entities"] < detail(wide, "expansion")["entities"]
    assert len(detail(narrow, "expansion")["top_entities"]) <= 1
    # bridges fan out from at most that many entities, and at most that many of each length are kept
    assert detail(narrow, "bridges")["sources"] == 1 and detail(narrow, "bridges")["count"] <= 2
    assert detail(wide, "bridges")["count"] > 2


async def test_walk_seed_chunks_bounds_where_the_walk_starts_but_not_the_entity_hops(demo_app):
    kapp, corpora = demo_app
    requested = ids(corpora, "project_docs", "papers")
    narrow = await service(kapp, walk_seed_chunks=1).search(AURORA, requested, requested, limit=5)
    wide = await service(kapp, walk_seed_chunks=20).search(AURORA, requested, requested, limit=5)
    assert detail(narrow, "seed_entities")["seed_chunks"] == 2  # the best seed of each corpus
    assert detail(wide, "seed_entities")["seed_chunks"] == 40
    assert detail(narrow, "seed_entities")["count"] < detail(wide, "seed_entities")["count"]
    assert detail(narrow, "expansion")["entities"] < detail(wide, "expansion")["entities"]
    assert detail(narrow, "entity_hops")["sources"] == detail(wide, "entity_hops")["sources"] == 5
    assert detail(narrow, "seeds")["per_corpus"] == detail(wide, "seeds")["per_corpus"]


async def test_ppr_damping_changes_where_the_walk_mass_goes(demo_app):
    kapp, corpora = demo_app
    requested = ids(corpora, "project_docs", "papers")
    runs = [await service(kapp, ppr_damping=d).search(AURORA, requested, requested, limit=5) for d in (0.1, 0.9)]
    assert detail(runs[0], "expansion")["ppr_damping"] == 0.1
    assert detail(runs[0], "expansion")["top_entities"] != detail(runs[1], "expansion")["top_entities"]


async def test_cache_size_bounds_the_neighbourhood_cache(demo_app):
    kapp, corpora = demo_app
    requested = ids(corpora, "project_docs", "papers")
    # no graph snapshots: the cache serves the SQL reads, and a snapshot loaded between two searches (in the
    # background, after the first) would serve the second's instead
    uncached = service(kapp, cache_size=0, graph_snapshot_rows=0)
    await uncached.search(AURORA, requested, requested, limit=5)
    assert len(uncached.neighbourhoods) == 0
    cached = service(kapp, cache_size=10_000, graph_snapshot_rows=0)
    await cached.search(AURORA, requested, requested, limit=5)
    filled, misses = len(cached.neighbourhoods), cached.neighbourhoods.misses
    assert filled > 0 and cached.neighbourhoods.hits == 0
    await cached.search(AURORA, requested, requested, limit=5)
    assert cached.neighbourhoods.hits > 0 and cached.neighbourhoods.misses == misses
    tiny = service(kapp, cache_size=5, graph_snapshot_rows=0)
    await tiny.search(AURORA, requested, requested, limit=5)
    assert len(tiny.neighbourhoods) == 5

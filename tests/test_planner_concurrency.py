"""Entity hops read only the seeds, so the planner runs them beside the cross-corpus chain (seed entities,
bridges, expansion): same results as one after another, the trace in the declared order, and a failure on
either side gives the legacy fallback with the other side cancelled. Real demo database, real stages. (The chain
after the seeds: without the snapshots' guess of the seeds, which test_planner_seed_guess.py covers.)"""
import dataclasses

from knowledge.retrieval.planner.fault_injection import FailingStage
from knowledge.retrieval.planner.planner import HybridPlanner
from knowledge.retrieval.service import UnifiedRetrievalService
from tests.planner_support import SlowStage

AURORA = "Which researcher created the system that Project Helios depends on for its nearest-neighbour lookups?"
DECLARED = ["embed", "seeds", "seed_entities", "bridges", "expansion", "entity_hops", "fusion", "rerank"]


class Recording:
    """The real stage; notes which stages had finished when it started."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.name = inner.name
        self.graph_only = inner.graph_only
        self.finished_before: list[str] | None = None

    async def run(self, state):
        self.finished_before = [t.stage for t in state.trace]
        return await self.inner.run(state)


def scope(corpora):
    return [corpora["project_docs"].id, corpora["papers"].id], [c.id for c in corpora.values()]


async def search(kapp, planner: HybridPlanner, corpora):
    requested, accessible = scope(corpora)
    service = UnifiedRetrievalService(kapp.db, kapp.query_cache, planner=planner)
    return await service.search(AURORA, requested, accessible, limit=5)


async def test_entity_hops_start_with_the_chain_and_change_no_result(demo_app):
    kapp, corpora = demo_app
    default = dataclasses.replace(kapp.retrieval.planner, seed_guess=None)
    hops = Recording(default.stage("entity_hops"))
    concurrent = await search(kapp, default.replacing("entity_hops", hops), corpora)
    assert concurrent.mode == "planner", concurrent.fallback_reason
    assert hops.finished_before == ["embed", "seeds"]  # started before the seed entities finished
    assert [t.stage for t in concurrent.trace] == DECLARED
    # declared before the chain, entity hops run first and alone: the planner's sequential path
    stages = {s.name: s for s in default.stages}
    order = ["seeds", "entity_hops", "seed_entities", "bridges", "expansion", "fusion", "rerank"]
    sequential = HybridPlanner(default.embed, tuple(stages[n] for n in order))
    hops_first = Recording(stages["entity_hops"])
    alone = await search(kapp, sequential.replacing("entity_hops", hops_first), corpora)
    assert hops_first.finished_before == ["embed", "seeds"]
    assert [t.stage for t in alone.trace] == ["embed", *order]
    assert [h.to_dict() for h in alone.hits] == [h.to_dict() for h in concurrent.hits]


async def test_a_failure_on_either_side_falls_back_and_cancels_the_other(demo_app):
    kapp, corpora = demo_app
    default = dataclasses.replace(kapp.retrieval.planner, seed_guess=None)
    failing_hops = await search(kapp, default.replacing("entity_hops", FailingStage(default.stage("entity_hops"))),
                                corpora)
    assert failing_hops.mode == "fallback" and failing_hops.fallback_reason.startswith("entity_hops")
    assert "fusion" not in [t.stage for t in failing_hops.trace]
    slow_hops = default.replacing("entity_hops", SlowStage(default.stage("entity_hops"), 5.0))
    failing_bridges = slow_hops.replacing("bridges", FailingStage(default.stage("bridges")))
    response = await search(kapp, failing_bridges, corpora)
    assert response.mode == "fallback" and response.fallback_reason.startswith("bridges")
    stages = [t.stage for t in response.trace]
    assert stages[:4] == ["embed", "seeds", "seed_entities", "bridges"] and "entity_hops" not in stages

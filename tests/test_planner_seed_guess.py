"""With the corpus graph snapshots loaded, the graph chain (seed entities, bridges, expansion) runs on the snapshots'
guess of the seeds while the database computes them (seed_guess.py), and is kept only when the database's seeds
confirm the guess: a search returns exactly what it returns without the guess. A wrong guess, or a chain stage
failing on it, runs the chain again from the database's seeds. Real demo database, real stages."""
import dataclasses

from knowledge.retrieval.planner import seed_guess
from knowledge.retrieval.planner.fault_injection import FailingStage
from knowledge.retrieval.planner.planner import HybridPlanner
from knowledge.retrieval.service import UnifiedRetrievalService
from tests.test_planner_concurrency import AURORA, DECLARED, scope

QUESTIONS = [AURORA, "Who built the system that Project Nimbus relies on?",
             "Which vector engine does Project Helios rely on, and who maintains it?"]
CHAIN = ("seed_entities", "bridges", "expansion")


async def search(kapp, planner: HybridPlanner, corpora, question: str = AURORA):
    requested, accessible = scope(corpora)
    await kapp.retrieval.graph_snapshots.load(accessible)
    service = UnifiedRetrievalService(kapp.db, kapp.query_cache, planner=planner)
    return await service.search(question, requested, accessible, limit=5)


def seeds_trace(response):
    return next(t for t in response.trace if t.stage == "seeds")


class WrongGuess:
    """The snapshots' guess with every corpus's seeds in reverse order."""

    def __init__(self, inner) -> None:
        self.inner = inner

    def guess(self, effective, embedding):
        guessed = self.inner.guess(effective, embedding)
        return {c: [s._replace(rank=rank) for rank, s in enumerate(reversed(hits), start=1)]
                for c, hits in guessed.items()}

    def confirmed(self, guessed, seeds) -> bool:
        return self.inner.confirmed(guessed, seeds)


async def test_the_chain_kept_from_a_confirmed_guess_is_the_database_seeds_chain(demo_app):
    kapp, corpora = demo_app
    default = kapp.retrieval.planner
    without = dataclasses.replace(default, seed_guess=None)
    for question in QUESTIONS:
        ahead = await search(kapp, default, corpora, question)
        after = await search(kapp, without, corpora, question)
        assert ahead.mode == after.mode == "planner", (ahead.fallback_reason, after.fallback_reason)
        assert (seeds_trace(ahead).detail["graph_chain_ahead"] is True
                and "graph_chain_ahead" not in seeds_trace(after).detail)
        assert [t.stage for t in ahead.trace] == [t.stage for t in after.trace] == DECLARED
        chain = {t.stage: t.detail for t in ahead.trace if t.stage in CHAIN}
        assert chain == {t.stage: t.detail for t in after.trace if t.stage in CHAIN} and chain["expansion"]["entities"]
        assert [h.to_dict() for h in ahead.hits] == [h.to_dict() for h in after.hits]


async def test_a_wrong_guess_runs_the_chain_again_from_the_database_seeds(demo_app):
    kapp, corpora = demo_app
    default = kapp.retrieval.planner
    inner = default.stage("seed_entities")
    seen: list[dict] = []  # the seeds each run of the seed entities read

    class Counted:
        name, graph_only = inner.name, inner.graph_only

        async def run(self, state):
            seen.append({c: [s.chunk_id for s in hits[:5]] for c, hits in state.seeds.items()})
            return await inner.run(state)

    wrong = dataclasses.replace(default, seed_guess=WrongGuess(default.seed_guess)).replacing("seed_entities",
                                                                                             Counted())
    guessed = await search(kapp, wrong, corpora)
    assert len(seen) == 2 and seen[0] != seen[1] and seeds_trace(guessed).detail["graph_chain_ahead"] is False
    assert [t.stage for t in guessed.trace] == DECLARED  # the guess's traces are dropped with it
    after = await search(kapp, dataclasses.replace(default, seed_guess=None), corpora)
    assert [h.to_dict() for h in guessed.hits] == [h.to_dict() for h in after.hits]


async def test_a_failure_on_the_guess_or_in_the_seeds_falls_back(demo_app):
    kapp, corpora = demo_app
    default = kapp.retrieval.planner
    failing_bridges = await search(kapp, default.replacing("bridges", FailingStage(default.stage("bridges"))), corpora)
    assert failing_bridges.mode == "fallback" and failing_bridges.fallback_reason.startswith("bridges")
    stages = [t.stage for t in failing_bridges.trace]  # the failure reported from the database's seeds' run
    assert stages[:4] == ["embed", "seeds", "seed_entities", "bridges"] and stages.count("bridges") == 1
    assert stages[-1] == "legacy" and "expansion" not in stages
    assert seeds_trace(failing_bridges).detail["graph_chain_ahead"] is False
    failing_seeds = await search(kapp, default.replacing("seeds", FailingStage(default.stage("seeds"))), corpora)
    assert failing_seeds.mode == "fallback" and failing_seeds.fallback_reason.startswith("seeds")
    assert [t.stage for t in failing_seeds.trace] == ["embed", "seeds", "legacy"]  # the chain on the guess is dropped


async def test_corpora_too_large_to_scan_are_not_guessed(demo_app, monkeypatch):
    kapp, corpora = demo_app
    default = kapp.retrieval.planner
    requested, _ = scope(corpora)
    await kapp.retrieval.graph_snapshots.load(requested)
    held = sum(len(g.chunks.chunks) for g in kapp.retrieval.planner.seed_guess.reads.snapshots_of(requested))
    monkeypatch.setattr(seed_guess, "MAX_GUESSED_CHUNKS", held - 1)
    unguessed = await search(kapp, default, corpora)
    assert seeds_trace(unguessed).detail["graph_chain_ahead"] is False
    monkeypatch.setattr(seed_guess, "MAX_GUESSED_CHUNKS", held)
    assert seeds_trace(await search(kapp, default, corpora)).detail["graph_chain_ahead"] is True

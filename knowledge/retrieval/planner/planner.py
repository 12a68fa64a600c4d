"""HybridPlanner: runs the stages in order, times each one, and names the stage that failed.

``prepare`` embeds the query; ``run`` does the retrieval stages, which the service bounds with the
whole-pipeline timeout. The embedding stays outside that bound because in a fresh process (every CLI
search) it includes loading the model, a one-off cost of seconds that is not retrieval latency.
Entity hops read only the seeds, so they run beside the cross-corpus chain (seed entities, bridges,
expansion) on a connection of their own; the trace keeps the stages' declared order. When the plan expands,
``prepare`` also starts reading the query's lexemes (which the seed entities' relation facts need), so that round
trip runs beside the embedding and the seeds instead of after them. When the corpus graph snapshots are loaded, the
graph chain (seed entities, bridges, expansion) runs on their guess of the seeds while the database computes the
seeds, and is kept when the database's seeds confirm the guess (seed_guess.py); otherwise it runs again after them.
"""
from __future__ import annotations

import asyncio
import dataclasses
import functools
import time
from typing import Awaitable, Callable, NamedTuple, Sequence

from prometheus_client import Histogram

from config import Settings
from knowledge.db.database import Database
from knowledge.metrics import planner_stage_seconds
from knowledge.retrieval.planner.bridges import BridgeStage
from knowledge.retrieval.planner.context import PlanState
from knowledge.retrieval.planner.cross_encoder import OfflineCrossEncoder
from knowledge.retrieval.planner.entity_hops import EntityHopStage
from knowledge.retrieval.planner.expansion import ExpansionStage
from knowledge.retrieval.planner.fault_injection import FailingStage
from knowledge.retrieval.planner.fusion import FusionStage
from knowledge.retrieval.planner.graph_reads import GraphReads
from knowledge.retrieval.planner.snapshot_store import GraphSnapshots
from knowledge.retrieval.planner.neighbourhood_cache import NeighbourhoodCache
from knowledge.retrieval.planner.query_embedding import QueryEmbeddingStage
from knowledge.retrieval.embedding_spaces import EmbeddingSpaces
from knowledge.retrieval.planner.rerank import RerankStage
from knowledge.retrieval.planner.seed_entities import SeedEntityStage
from knowledge.retrieval.planner.seed_guess import SeedGuess
from knowledge.retrieval.planner.seeds import SeedStage
from knowledge.retrieval.planner.stage import Stage, StageFailed
from knowledge.retrieval.results import StageTrace


# reads only the seeds: runs beside the graph-only stages instead of after them
BESIDE_GRAPH_CHAIN = "entity_hops"
# read the seeds only as the chunks of the first ranks: run on the snapshots' guess of the seeds, beside the seeds
SEEDS = "seeds"
AHEAD_OF_SEEDS = ("seed_entities", "bridges", "expansion")


class _Ahead(NamedTuple):
    done: tuple[str, ...]   # the stages run: the seeds, and the graph chain when the guess was confirmed
    reading: asyncio.Future  # the seeds' stage, ending its transaction
    confirmed: bool          # whether the database's seeds confirmed a guess


@functools.cache
def _stage_seconds(stage: str) -> Histogram:
    return planner_stage_seconds.labels(stage=stage)


@dataclasses.dataclass(frozen=True)
class HybridPlanner:
    embed: Stage
    stages: tuple[Stage, ...]
    query_lexemes: Callable[[str], Awaitable[list[str]]] | None = None
    seed_guess: SeedGuess | None = None

    @classmethod
    def default(cls, db: Database, spaces: EmbeddingSpaces, neighbourhoods: NeighbourhoodCache,
                settings: Settings | None = None, snapshots: GraphSnapshots | None = None) -> "HybridPlanner":
        settings = settings or db.settings
        reads = GraphReads(db, settings, neighbourhoods, snapshots)
        planner = cls(QueryEmbeddingStage(spaces), (
            SeedStage(db, settings.planner),
            SeedEntityStage(settings, reads),
            BridgeStage(settings.planner, reads),
            ExpansionStage(db, settings, reads),
            EntityHopStage(db, settings.planner, reads),
            FusionStage(settings.planner),
            RerankStage(reads, OfflineCrossEncoder.detect(), settings.planner),
        ), reads.query_lexemes,
            SeedGuess(reads, settings.planner.walk_seed_chunks) if settings.planner.seed_search == "dense" else None)
        faulty = settings.planner.fault_inject_stage
        return planner.replacing(faulty, FailingStage(planner.stage(faulty))) if faulty else planner

    @property
    def stage_names(self) -> Sequence[str]:
        return [self.embed.name, *(s.name for s in self.stages)]

    def stage(self, name: str) -> Stage:
        """The stage called ``name`` (ValueError naming the stages when there is none)."""
        found = next((s for s in (self.embed, *self.stages) if s.name == name), None)
        if found is None:
            raise ValueError(f"no planner stage named {name!r}; stages: {', '.join(self.stage_names)}")
        return found

    def replacing(self, name: str, stage: Stage) -> "HybridPlanner":
        """A planner with the stage called ``name`` swapped for ``stage`` (same position)."""
        self.stage(name)
        if name == self.embed.name:
            return dataclasses.replace(self, embed=stage)
        return dataclasses.replace(self, stages=tuple(stage if s.name == name else s for s in self.stages))

    async def prepare(self, state: PlanState) -> None:
        if state.request.expand and self.query_lexemes is not None:
            state.query_lexemes = asyncio.ensure_future(self.query_lexemes(state.request.query))
        await self._run_stage(self.embed, state)

    async def run(self, state: PlanState) -> None:
        """The retrieval stages; graph stages run only when the request expands. With a seed guess the seeds run as
        ``_ahead_of_seeds`` says; the stage named BESIDE_GRAPH_CHAIN starts with the first graph stage left and is
        awaited before the first stage after them."""
        stages = [s for s in self.stages if not s.graph_only or state.request.expand]
        ahead = await self._ahead_of_seeds(stages, state)
        try:
            await self._run_stages([s for s in stages if ahead is None or s.name not in ahead.done], state)
        except asyncio.CancelledError:
            if ahead is not None:
                ahead.reading.cancel()
            raise
        finally:
            if ahead is not None:  # the seeds' transaction ends before the search does, whatever happened
                await asyncio.gather(ahead.reading, return_exceptions=True)
                for trace in state.trace:
                    if trace.stage == SEEDS:
                        trace.detail["graph_chain_ahead"] = ahead.confirmed
            order = {s.name: i for i, s in enumerate(self.stages)}
            state.trace.sort(key=lambda t: order.get(t.stage, -1))
        if ahead is not None:
            ahead.reading.result()  # a failure at the end of the seeds' transaction is the search's

    async def _run_stages(self, stages: list[Stage], state: PlanState) -> None:
        beside = next((s for s in stages if s.name == BESIDE_GRAPH_CHAIN), None)
        if beside is None or not any(s.graph_only for s in stages[:stages.index(beside)]):
            for stage in stages:
                await self._run_stage(stage, state)
            return
        side: asyncio.Future | None = None
        joined = False
        try:
            for stage in stages:
                if stage is beside:
                    continue
                if side is None and stage.graph_only:
                    side = asyncio.ensure_future(self._run_stage(beside, state))
                elif side is not None and not stage.graph_only and not joined:
                    joined = True
                    await side
                await self._run_stage(stage, state)
            if side is not None and not joined:
                await side
        finally:
            if side is not None and not side.done():
                side.cancel()
                await asyncio.gather(side, return_exceptions=True)

    async def _ahead_of_seeds(self, stages: list[Stage], state: PlanState) -> _Ahead | None:
        """The seeds, and beside them the graph chain on the snapshots' guess of them (None: the planner makes no
        guess). Returns once the seeds are read, while their transaction ends. The chain is kept when the
        database's seeds confirm the guess; otherwise, or when one of its stages failed on the guess, it runs again
        on the database's seeds (which report the failure)."""
        chain = stages[1:1 + len(AHEAD_OF_SEEDS)]
        if self.seed_guess is None or [s.name for s in stages[:1] + chain] != [SEEDS, *AHEAD_OF_SEEDS]:
            return None
        reading = asyncio.ensure_future(self._run_stage(stages[0], state))
        reading.add_done_callback(lambda _: state.seeds_ended())  # seeds that failed sent or read nothing
        guessed: PlanState | None = None
        try:
            await asyncio.sleep(0)  # the seeds' transaction begins while the guess is computed
            seeds = self.seed_guess.guess(state.request.effective, state.embedding)
            if seeds is not None:
                await state.seed_query_sent.wait()  # the chain holds the CPU: the query must be on its way first
                if not state.seeds_read.is_set():
                    guessed = await self._on_guess(chain, PlanState(state.request, state.embedding,
                                                                    state.query_lexemes, seeds=seeds))
            await state.seeds_read.wait()
            if reading.done():
                reading.result()  # the seeds' failure
        except BaseException:
            reading.cancel()
            await asyncio.gather(reading, return_exceptions=True)
            raise
        confirmed = guessed is not None and self.seed_guess.confirmed(guessed.seeds, state.seeds)
        if not confirmed:
            return _Ahead((SEEDS,), reading, confirmed)
        state.seed_entities, state.bridges, state.expansion = guessed.seed_entities, guessed.bridges, guessed.expansion
        state.trace.extend(guessed.trace)
        return _Ahead((SEEDS, *AHEAD_OF_SEEDS), reading, confirmed)

    async def _on_guess(self, chain: list[Stage], guessed: PlanState) -> PlanState | None:
        """The chain run on the guessed seeds; None when a stage failed (it runs again on the database's seeds)."""
        try:
            for stage in chain:
                await asyncio.sleep(0)  # the seeds' rows and commit are taken in between
                await self._run_stage(stage, guessed)
        except StageFailed:
            return None
        return guessed

    @staticmethod
    async def _run_stage(stage: Stage, state: PlanState) -> None:
        started = time.perf_counter()
        try:
            detail = await stage.run(state)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            state.trace.append(StageTrace(stage.name, time.perf_counter() - started,
                                          {"error": f"{type(exc).__name__}: {exc}"}))
            raise StageFailed(stage.name, exc) from exc
        seconds = time.perf_counter() - started
        _stage_seconds(stage.name).observe(seconds)
        state.trace.append(StageTrace(stage.name, seconds, detail))

"""Any planner stage failure, or the pipeline timeout, gives the legacy result (mode "fallback"), counts
planner_fallback{reason} and never raises. Faults are real: a failing embedder, a stage whose database pool
is gone (asyncpg raises), a stage slower than the timeout."""

import asyncpg
import numpy as np

from knowledge.db.database import Database
from knowledge.embedding import EmbeddingError, QueryEmbeddingCache
from knowledge.metrics import REGISTRY
from knowledge.retrieval.planner.expansion import ExpansionStage
from knowledge.retrieval.planner.graph_reads import GraphReads
from knowledge.retrieval.planner.neighbourhood_cache import NeighbourhoodCache
from knowledge.retrieval.service import UnifiedRetrievalService
from tests.planner_support import SlowStage

AURORA = "Which researcher created the system that Project Helios depends on for its nearest-neighbour lookups?"


class FailingEmbedder:
    """Fails its first ``failures`` calls (a model runtime hiccup), then embeds normally."""

    def __init__(self, inner, failures: int) -> None:
        self.inner = inner
        self.dimension = inner.dimension
        self.failures = failures

    def embed(self, texts) -> np.ndarray:
        if self.failures:
            self.failures -= 1
            raise EmbeddingError("embedding model crashed")
        return self.inner.embed(texts)


def fallbacks(reason: str) -> float:
    return REGISTRY.get_sample_value("planner_fallback_total", {"reason": reason}) or 0.0


def scope(corpora):
    return [corpora["project_docs"].id, corpora["papers"].id], [c.id for c in corpora.values()]


async def assert_legacy_fallback(kapp, response, requested, accessible, reason: str) -> None:
    legacy = await kapp.legacy_search(AURORA, requested, accessible, limit=5)
    assert response.mode == "fallback"
    assert response.fallback_reason.startswith(f"{reason}: ")
    assert legacy and [h.to_dict() for h in response.hits] == [h.to_dict() for h in legacy]
    assert response.trace[-1].stage == "legacy"


async def test_embedding_failure_falls_back_to_legacy(demo_app):
    kapp, corpora = demo_app
    requested, accessible = scope(corpora)
    cache = QueryEmbeddingCache(FailingEmbedder(kapp.embedder, failures=1), 16)
    before = fallbacks("embed")
    response = await UnifiedRetrievalService(kapp.db, cache).search(AURORA, requested, accessible, limit=5)
    await assert_legacy_fallback(kapp, response, requested, accessible, "embed")
    assert "EmbeddingError: embedding model crashed" in response.fallback_reason
    assert fallbacks("embed") == before + 1


async def test_embedder_down_for_good_gives_an_empty_answer_with_both_reasons(demo_app):
    kapp, corpora = demo_app
    requested, accessible = scope(corpora)
    cache = QueryEmbeddingCache(FailingEmbedder(kapp.embedder, failures=10), 16)
    response = await UnifiedRetrievalService(kapp.db, cache).search(AURORA, requested, accessible, limit=5)
    assert response.mode == "fallback" and response.hits == []
    assert "legacy search failed too: EmbeddingError" in response.fallback_reason


async def test_database_error_in_the_expansion_stage_falls_back_to_legacy(demo_app):
    kapp, corpora = demo_app
    requested, accessible = scope(corpora)
    gone = await Database.connect(kapp.settings, dsn=kapp.db.dsn, migrate=False, max_size=1)
    await gone.close()
    broken = kapp.retrieval.planner.replacing(
        "expansion", ExpansionStage(gone, kapp.settings, GraphReads(gone, kapp.settings, NeighbourhoodCache(8))))
    before = fallbacks("expansion")
    response = await UnifiedRetrievalService(kapp.db, kapp.query_cache, planner=broken).search(
        AURORA, requested, accessible, limit=5)
    await assert_legacy_fallback(kapp, response, requested, accessible, "expansion")
    failed = next(t for t in response.trace if t.stage == "expansion")
    assert failed.detail["error"].startswith(asyncpg.InterfaceError.__name__)
    assert [t.stage for t in response.trace][:4] == ["embed", "seeds", "seed_entities", "bridges"]
    assert fallbacks("expansion") == before + 1


async def test_timeout_falls_back_and_the_setting_decides_it(demo_app):
    kapp, corpora = demo_app
    requested, accessible = scope(corpora)
    slow = kapp.retrieval.planner.replacing(
        "fusion", SlowStage(next(s for s in kapp.retrieval.planner.stages if s.name == "fusion"), 0.6))

    def with_timeout(seconds: float) -> UnifiedRetrievalService:
        settings = kapp.settings.model_copy(update={
            "planner": kapp.settings.planner.model_copy(update={"timeout_seconds": seconds})})
        return UnifiedRetrievalService(kapp.db, kapp.query_cache, settings=settings, planner=slow)

    before = fallbacks("timeout")
    response = await with_timeout(0.3).search(AURORA, requested, accessible, limit=5)
    await assert_legacy_fallback(kapp, response, requested, accessible, "timeout")
    assert "0.3 s timeout" in response.fallback_reason
    assert "fusion" not in [t.stage for t in response.trace]
    assert fallbacks("timeout") == before + 1
    patient = await with_timeout(60).search(AURORA, requested, accessible, limit=5)
    assert patient.mode == "planner" and patient.hits
    assert fallbacks("timeout") == before + 1

"""The planner's rollout (docs/design.md section 6): an app allowlist and a stable share of people by a hash of their
id, recorded per run, with each path's signals in `negentropy stats`."""
from __future__ import annotations

import hashlib

import pytest
from pydantic import ValidationError

from config.settings import FeatureFlags
from knowledge.ingest.documents import documents_from_texts
from knowledge.retrieval.planner.run_log import planner_stats_rows
from knowledge.retrieval.rollout import rollout_bucket, rollout_path
from knowledge.retrieval.service import UnifiedRetrievalService

PEOPLE = [f"person-{i}" for i in range(2000)]


def test_a_persons_bucket_is_the_first_eight_bytes_of_the_sha256_of_the_id():
    digest = hashlib.sha256(b"maria.santos").digest()
    assert rollout_bucket("maria.santos") == (int.from_bytes(digest[:8], "big") % 10_000) / 100
    assert rollout_bucket(None) == rollout_bucket("")
    assert all(0 <= rollout_bucket(p) < 100 for p in PEOPLE)


def test_the_share_on_the_planner_follows_the_percentage_and_raising_it_only_adds_people():
    previous: set[str] = set()
    for percent in (0, 5, 25, 50, 90, 100):
        flags = FeatureFlags(planner_percent=percent)
        on = {p for p in PEOPLE if rollout_path(flags, "negentropy", p) == "planner"}
        assert abs(len(on) / len(PEOPLE) - percent / 100) <= 0.04, percent
        assert previous <= on  # nobody who had the planner loses it when the share grows
        assert on == {p for p in PEOPLE if rollout_path(flags, "negentropy", p) == "planner"}  # stable
        previous = on
    assert previous == set(PEOPLE)


def test_the_flag_and_the_app_allowlist_come_before_the_percentage():
    assert rollout_path(FeatureFlags(enable_cross_corpus_kg=False), "negentropy", "x") == "legacy"
    allow = FeatureFlags(planner_apps=["negentropy"])
    assert rollout_path(allow, "negentropy", "x") == "planner"
    assert rollout_path(allow, "other_app", "x") == "legacy"
    with pytest.raises(ValidationError):
        FeatureFlags(planner_percent=101)


def test_the_rollout_is_read_from_the_environment(monkeypatch):
    from config import Settings

    monkeypatch.setenv("NE_KNOWLEDGE_FEATURE_FLAGS__PLANNER_PERCENT", "12.5")
    monkeypatch.setenv("NE_KNOWLEDGE_FEATURE_FLAGS__PLANNER_APPS", '["negentropy", "ops"]')
    flags = Settings().knowledge_feature_flags
    assert flags.planner_percent == 12.5 and flags.planner_apps == ["negentropy", "ops"]


async def test_each_person_keeps_their_path_and_stats_report_both(kapp):
    notes = await kapp.corpora.create("notes", "Notes")
    await kapp.ingest_documents(notes, documents_from_texts([
        ("n1", "Kestrel Labs moved its Lumen Gateway team to Porto in March."),
        ("n2", "The Atlas project picked Cobalt Systems as its labeling vendor.")]))
    settings = kapp.settings.model_copy(update={"knowledge_feature_flags": FeatureFlags(planner_percent=50)})
    service = UnifiedRetrievalService(kapp.db, kapp.query_cache, settings=settings)
    treated = next(p for p in PEOPLE if rollout_bucket(p) < 50)
    control = next(p for p in PEOPLE if rollout_bucket(p) >= 50)
    for _ in range(2):
        on = await service.search("Where did Kestrel Labs move?", [notes.id], [notes.id], person_id=treated)
        off = await service.search("Where did Kestrel Labs move?", [notes.id], [notes.id], person_id=control)
        assert (on.mode, on.rollout_path) == ("planner", "planner")
        assert (off.mode, off.rollout_path) == ("legacy", "legacy")
        assert on.hits and off.hits and on.hits[0].chunk_id == off.hits[0].chunk_id

    rows = dict(await planner_stats_rows(kapp.db))
    assert rows["rollout path planner: share of runs"] == "50.0% (2/4)"
    assert rows["rollout path legacy: share of runs"] == "50.0% (2/4)"
    assert rows["rollout path planner: planner_fallback rate"] == "0.0% (0/2)"
    assert rows["rollout path legacy: planner_fallback rate"] == "n/a (0 runs)"
    assert rows["rollout path planner: search latency P99"].endswith(" ms")
    lag = rows["canonical build lag P50 / P99 (target P99 <= 60 s; 1 ingests)"]
    assert lag.endswith(" s") and "n/a" not in lag

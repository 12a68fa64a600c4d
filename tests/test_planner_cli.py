"""The run log behind `negentropy stats`, and both commands run as separate processes, as a user would."""
import asyncio
import json
import os
import sys

from knowledge.ingest.documents import documents_from_texts
from knowledge.retrieval.planner.run_log import planner_stats_rows
from knowledge.retrieval.service import UnifiedRetrievalService
from tests.conftest import REPO_ROOT

AURORA = "Which researcher created the system that Project Helios depends on for its nearest-neighbour lookups?"
OPS = [("nimbus-plan", "Project Nimbus depends on the Zephyr Storage Engine for its archive tier. The Nimbus team "
                       "reviewed the archive tier in March with Omar Haddad.")]
RESEARCH = [("tracking", "Our tracking system was built for project reporting and relies on nightly builds."),
            ("planning", "The planning system built by the tools group relies on a shared queue for every project."),
            ("zephyr", "Zephyr Storage Engine came out of the lab of Dr. Ana Pereira in Lisbon. It keeps cold data "
                       "on tape.")]
QUESTION = "Who built the system that Project Nimbus relies on?"


class BrokenStage:
    name = "bridges"
    graph_only = True

    async def run(self, state):
        raise RuntimeError("canonical layer unavailable")


async def run_cli(*args: str, dsn: str, data_dir) -> str:
    env = {**os.environ, "NE_DATABASE_URL": dsn, "NE_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1",
           "COLUMNS": "200"}
    env.pop("NE_MODEL", None)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "cli.main", *args, cwd=REPO_ROOT, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), timeout=300)
    assert process.returncode == 0, err.decode()
    return out.decode()


async def test_every_search_is_logged_and_negentropy_stats_reports_it(kapp, tmp_path):
    ops = await kapp.corpora.create("ops", "Ops Notes")
    research = await kapp.corpora.create("research", "Research")
    await kapp.ingest_documents(ops, documents_from_texts(OPS))
    await kapp.ingest_documents(research, documents_from_texts(RESEARCH))
    both = [ops.id, research.id]
    planned = await kapp.retrieval.search(QUESTION, both, both, limit=2, strict_scope=True)
    assert planned.mode == "planner" and [h.bridge.hops for h in planned.hits if h.bridge] == [1]
    assert (await kapp.retrieval.search(QUESTION, None, both, limit=2)).mode == "legacy"
    broken = UnifiedRetrievalService(kapp.db, kapp.query_cache,
                                     planner=kapp.retrieval.planner.replacing("bridges", BrokenStage()))
    assert (await broken.search(QUESTION, both, both, limit=2)).mode == "fallback"
    assert (await kapp.retrieval.search(QUESTION, both, [], limit=2)).mode == "empty"

    rows = dict(await planner_stats_rows(kapp.db))
    assert rows["retrieval runs (latest)"] == "4 (empty 1, fallback 1, legacy 1, planner 1)"
    assert rows["planner_fallback rate (target < 1%)"] == "50.0% (1/2)"
    assert rows["cross_corpus_expansion_ratio (target >= 15%)"] == "100.0% (1/1)"
    assert rows["graph expansion used"] == "100.0% (1/1)"
    assert rows["bridge path length P50 (target 1.0-1.3)"] == "1.00"
    assert rows["bridge path length P99 (target <= 2)"] == "1.00"
    for stage in ("embed", "seeds", "seed_entities", "bridges", "expansion", "entity_hops", "fusion", "rerank",
                  "legacy"):
        assert rows[f"stage {stage} latency P50 / P95"].endswith(" ms")

    # another process reads the same numbers from the run log
    sections = json.loads(await run_cli("stats", "--json", dsn=kapp.db.dsn, data_dir=tmp_path))
    planner = next(s for s in sections if s["title"].startswith("planner"))
    assert {r["metric"]: r["value"] for r in planner["rows"]} == rows


async def test_negentropy_search_prints_corpus_labelled_citations_bridges_and_the_trace(demo_app, tmp_path):
    kapp, _ = demo_app
    out = await run_cli("search", AURORA, "-c", "project_docs", "-c", "papers", "--limit", "5", "--strict-scope",
                        "--explain", dsn=kapp.db.dsn, data_dir=tmp_path)
    assert "(from Corpus: Research Papers)" in out and "(from Corpus: Project Docs)" in out
    assert "graph_expanded" in out
    links = out.split("cross-corpus links", 1)[1]
    assert "Project Docs -> Research Papers via Aurora Vector Engine (1 hop)" in links
    for stage in ("seeds", "seed_entities", "bridges", "expansion", "entity_hops", "fusion", "rerank"):
        assert f"{stage}:" in out or f"{stage} (" in out

"""The context eval over the written questions, and both eval commands as a user runs them."""
from __future__ import annotations

import pytest_asyncio
from typer.testing import CliRunner

from cli.context import DEFAULT_QUESTIONS
from config.settings import reset_settings_cache
from knowledge.app import KnowledgeApp
from knowledge.context.evals import estimate_tokens, load_context_questions, run_context_eval, summarize_context
from knowledge.context.topology import load_topology
from tests.conftest import make_settings
from tests.context_support import context_demo_dsn


@pytest_asyncio.fixture(scope="module")
async def ctx_app(new_database, embedder, tmp_path_factory):
    dsn = await context_demo_dsn(new_database, embedder, tmp_path_factory.mktemp("ctx-build"))
    app = await KnowledgeApp.open(make_settings(tmp_path_factory.mktemp("ctx-evals")), dsn=dsn, embedder=embedder,
                                  progress=False)
    yield app
    await app.close()


def test_questions_are_realistic_and_refer_to_the_topology():
    questions = load_context_questions(DEFAULT_QUESTIONS)
    topology = load_topology()
    assert len(questions) >= 10
    assert len({q.person for q in questions}) >= 8
    assert sum(q.expect_gap for q in questions) >= 3
    for q in questions:
        assert topology.person(q.person) is not None
        assert all(topology.library(lib) for lib in q.expected_libraries)
        assert q.expected_owner is None or topology.person(q.expected_owner) is not None


def test_token_estimate():
    assert estimate_tokens("Lumen Gateway uses Redis.") == 5
    assert estimate_tokens("上海办公室") == 5


async def test_routing_keeps_the_evidence_and_loads_far_fewer_tokens(ctx_app):
    rows = await run_context_eval(ctx_app.router, load_context_questions(DEFAULT_QUESTIONS))
    summary = summarize_context(rows)
    assert summary.gaps_ok == summary.questions          # every expected gap reported, no false gaps
    assert summary.owners_ok == summary.questions        # and each names the right owner
    assert summary.libraries_ok == summary.questions     # multi-hop questions included (q17-q28)
    assert summary.coverage_routed >= 0.9
    # multi-hop questions need two or three libraries each, so fewer tokens are saved than on single-hop ones
    assert summary.tokens_saved >= 0.3
    single_hop = summarize_context([r for r in rows if len(r.expected_libraries) < 2])
    assert single_hop.tokens_saved >= 0.5
    by_id = {r.id: r for r in rows}
    assert by_id["q02"].routed == ("finance-ledger",) and by_id["q02"].coverage_routed == 1.0
    assert (by_id["q03"].gap, by_id["q03"].owner) == ("no_access", "greta")
    assert (by_id["q10"].gap, by_id["q10"].owner) == ("thin_evidence", "sofia")
    assert all(1 <= len(r.routed) <= 3 for r in rows)


def test_eval_commands_print_their_tables(ctx_app, monkeypatch, tmp_path):
    from cli.main import app

    monkeypatch.setenv("NE_DATABASE_URL", ctx_app.db.dsn)
    monkeypatch.setenv("NE_DATA_DIR", str(tmp_path))
    reset_settings_cache()
    runner = CliRunner(env={"COLUMNS": "300"})
    try:
        scope = runner.invoke(app, ["eval", "scope", "--markdown"])
        assert scope.exit_code == 0, scope.output
        assert "| personal | - | kenji | postgres | kenji-notes |" in scope.output
        assert "| permission change (stale index) | after | kenji | unsafe |" in scope.output
        assert "34/34 checks passed" in scope.output
        assert "forbidden rows that reached the caller: 0" in scope.output
        context = runner.invoke(app, ["eval", "context"])
        assert context.exit_code == 0, context.output
        assert "28 questions: evidence coverage" in context.output and "saved" in context.output
        bad = runner.invoke(app, ["eval", "scope", "--connector", "elastic"])
        assert bad.exit_code == 1 and "unknown connector elastic" in bad.output
    finally:
        reset_settings_cache()

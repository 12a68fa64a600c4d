"""The seven scope cases, each with the production connector and with one that ignores every filter: the
expected libraries come back through the Context Router and forbidden libraries leak zero rows."""
from __future__ import annotations

import pytest
import pytest_asyncio

from knowledge.app import KnowledgeApp
from knowledge.context.evals import SCOPE_CASES, run_scope_eval
from tests.conftest import make_settings
from tests.context_support import context_demo_dsn


@pytest_asyncio.fixture(scope="module")
async def ctx_app(new_database, embedder, tmp_path_factory):
    dsn = await context_demo_dsn(new_database, embedder, tmp_path_factory.mktemp("ctx-build"))
    app = await KnowledgeApp.open(make_settings(tmp_path_factory.mktemp("ctx-scope")), dsn=dsn, embedder=embedder,
                                  progress=False)
    yield app
    await app.close()


def test_all_seven_cases_are_defined():
    assert [c.name for c in SCOPE_CASES] == [
        "personal", "department", "project", "cross-department project", "employee transfer", "archived project",
        "permission change (stale index)"]


@pytest.mark.parametrize("connector", ["postgres", "unsafe"])
@pytest.mark.parametrize("case", SCOPE_CASES, ids=[c.name for c in SCOPE_CASES])
async def test_scope_case(ctx_app, tmp_path, case, connector):
    rows = await run_scope_eval(ctx_app.router, {connector: ctx_app.search_connector(connector)}, tmp_path,
                                cases=[case])
    assert len(rows) == len(case.before) + len(case.checks)
    for row in rows:
        assert row.leaked_rows == 0, row
        assert row.expected_ok, row
        if connector == "postgres":
            assert row.connector_forbidden_rows == 0, row  # the engine itself already filters
        elif row.forbidden:
            assert row.connector_forbidden_rows > 0, row   # the unsafe engine really returned forbidden rows
    if case.change is not None:
        # before the change the person did read the library that the change takes away (or vice versa)
        before, after = rows[0], rows[len(case.before)]
        assert before.phase == "before" and after.phase == "after"
        assert set(before.returned) & set(after.forbidden) or set(after.returned) & set(before.forbidden)


async def test_a_stale_index_built_for_the_old_view_never_serves_it(ctx_app, tmp_path):
    """Kenji's searches fill the planner's neighbourhood cache and the query-embedding cache while he can
    read the papers; after the grant is revoked those entries are still cached, yet no paper row comes back."""
    case = next(c for c in SCOPE_CASES if c.name.startswith("permission change"))
    papers = await ctx_app.corpora.get("papers")
    ctx_app.retrieval.neighbourhoods.clear()
    embedding_hits = ctx_app.query_cache.hits
    # the SQL path's per-entity cache is the one under test (graph snapshots: tests/test_planner_graph_snapshot.py)
    capacity, ctx_app.retrieval.graph_snapshots.capacity = ctx_app.retrieval.graph_snapshots.capacity, 0
    try:
        rows = await run_scope_eval(ctx_app.router,
                                    {name: ctx_app.search_connector(name) for name in ("postgres", "unsafe")},
                                    tmp_path, cases=[case])
    finally:
        ctx_app.retrieval.graph_snapshots.capacity = capacity
    cached_scopes = [key[2] for key in ctx_app.retrieval.neighbourhoods._entries]  # (kind, entity, scope, variant)
    assert any(papers.id in scope for scope in cached_scopes), "the old view's neighbourhoods should be cached"
    assert ctx_app.query_cache.hits > embedding_hits
    after = [r for r in rows if r.phase == "after"]
    assert after and all(r.leaked_rows == 0 and "research-papers" not in r.returned for r in after)
    assert all(r.passed for r in rows)

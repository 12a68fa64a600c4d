"""The CLI as a person reads it: forbidden corpora look unknown, tables fit 80 columns, partial lists say so."""
from __future__ import annotations

import json
import re

import pytest_asyncio
from typer.testing import CliRunner

from config.settings import reset_settings_cache
from knowledge.app import KnowledgeApp
from tests.conftest import make_settings
from tests.context_support import context_demo_dsn

UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@pytest_asyncio.fixture(scope="module")
async def ctx_app(new_database, embedder, tmp_path_factory):
    dsn = await context_demo_dsn(new_database, embedder, tmp_path_factory.mktemp("ctx-build"))
    app = await KnowledgeApp.open(make_settings(tmp_path_factory.mktemp("cli-out")), dsn=dsn, embedder=embedder,
                                  progress=False)
    yield app
    await app.close()


def _runner(ctx_app, monkeypatch, tmp_path) -> CliRunner:
    monkeypatch.setenv("NE_DATABASE_URL", ctx_app.db.dsn)
    monkeypatch.setenv("NE_DATA_DIR", str(tmp_path))
    reset_settings_cache()
    return CliRunner(env={"COLUMNS": "80"})


def test_unknown_and_forbidden_corpora_look_the_same_and_list_only_readable_ones(ctx_app, monkeypatch, tmp_path):
    from cli.main import app

    runner = _runner(ctx_app, monkeypatch, tmp_path)
    try:
        unknown = runner.invoke(app, ["search", "vendor", "--corpus", "nope", "--as", "lea"])
        forbidden = runner.invoke(app, ["search", "vendor", "--corpus", "finance_ledger", "--as", "lea"])
        readable = runner.invoke(app, ["search", "vendor", "--corpus", "project_docs", "--as", "lea"])
    finally:
        reset_settings_cache()
    assert unknown.exit_code == forbidden.exit_code == 1
    assert readable.exit_code == 0, readable.output
    assert (unknown.output.replace("'nope'", "NAME").split()
            == forbidden.output.replace("'finance_ledger'", "NAME").split())
    for hidden in ("finance_ledger", "kenji_notes", "borealis_workspace", "li_na_notes", "papers"):
        assert hidden not in unknown.output
    assert "project_docs" in unknown.output


def test_search_rows_are_numbered_with_the_citation_in_its_own_column(ctx_app, monkeypatch, tmp_path):
    from cli.main import app

    runner = _runner(ctx_app, monkeypatch, tmp_path)
    try:
        out = runner.invoke(app, ["search", "Which vector engine does Helios use?", "--as", "kenji", "-k", "4"])
    finally:
        reset_settings_cache()
    assert out.exit_code == 0, out.output
    rows = [line for line in out.output.splitlines() if re.match(r"│ \d+ +│ \[\d+\]", line)]
    assert [int(line.split("│")[1]) for line in rows] == list(range(1, len(rows) + 1)) and len(rows) >= 2
    assert all(len(line) <= 80 for line in out.output.splitlines())


def test_explain_and_corpus_list_fit_80_columns(ctx_app, monkeypatch, tmp_path):
    from cli.main import app

    runner = _runner(ctx_app, monkeypatch, tmp_path)
    try:
        explained = runner.invoke(app, ["search", "Who developed the Aurora Vector Engine?", "--as", "kenji",
                                        "--explain", "-k", "3"])
        listed = runner.invoke(app, ["corpus", "list"])
        as_json = runner.invoke(app, ["corpus", "list", "--json"])
    finally:
        reset_settings_cache()
    assert explained.exit_code == 0, explained.output
    lines = explained.output.splitlines()
    assert all(len(line) <= 80 for line in lines)
    # every candidate library's id and reason are readable, not cut to "pl…"
    assert any(line.startswith("  1. ") and ": best score" in line for line in lines)
    assert "…" not in explained.output.split("retrieval mode")[0]
    assert listed.exit_code == 0, listed.output
    ids = [c["id"] for c in json.loads(as_json.stdout)]
    assert len(ids) == 8 and all(UUID_RE.fullmatch(i) for i in ids)
    assert all(i in listed.output for i in ids)  # each id whole on one line
    assert all(len(line) <= 80 for line in listed.output.splitlines())


def test_canonical_bridges_says_when_it_shows_only_part(ctx_app, monkeypatch, tmp_path):
    from cli.main import app

    runner = _runner(ctx_app, monkeypatch, tmp_path)
    try:
        few = runner.invoke(app, ["canonical", "bridges", "--limit", "3"])
        every = runner.invoke(app, ["canonical", "bridges", "--limit", "100000"])
    finally:
        reset_settings_cache()
    assert few.exit_code == 0 and every.exit_code == 0, few.output + every.output
    total = int(re.search(r"^(\d+) bridges$", every.output, re.M).group(1))
    assert total > 3
    assert f"3 of {total} bridges shown" in few.output

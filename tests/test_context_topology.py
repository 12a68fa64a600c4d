"""Workspace topology: the shipped demo, validation errors that stop a bad file, lint warnings, the CLI."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from config.settings import reset_settings_cache
from knowledge.context.lint import lint_topology, topology_warnings
from knowledge.context.topology import DEMO_TOPOLOGY_PATH, ScopeKind, TopologyError, load_topology, parse_topology, \
    topology_path
from tests.context_support import demo_topology_data, write_topology


def test_demo_topology_matches_the_demo_corpora():
    t = load_topology(DEMO_TOPOLOGY_PATH)
    kinds = {lib.scope.kind for lib in t.context_libraries}
    assert {ScopeKind.personal, ScopeKind.department, ScopeKind.project, ScopeKind.org} <= kinds
    mapped = {name for lib in t.context_libraries for name in lib.corpora}
    assert {"team_notes", "papers", "project_docs"} <= mapped
    assert len({p.department for p in t.people}) >= 4
    orion = t.project("orion")
    assert len({t.person(m).department for m in orion.members}) == 2  # a cross-department project
    assert all(t.view_for(p.id) is not None for p in t.people)


def test_demo_topology_lints_clean():
    report = lint_topology(DEMO_TOPOLOGY_PATH)
    assert report.issues == []


def _problems(data: dict) -> list[str]:
    with pytest.raises(TopologyError) as info:
        parse_topology(data)
    return info.value.problems


def test_dangling_references_and_duplicates_stop_loading():
    data = demo_topology_data()
    data["people"].append(dict(data["people"][0]))  # duplicate sofia
    data["people"][1]["department"] = "marketing"
    data["context_libraries"][0]["owner"] = "nobody"
    data["projects"][0]["lead"] = "greta"
    data["permission_views"][0]["grant"] = ["no-such-library"]
    problems = _problems(data)
    assert "duplicate person id 'sofia'" in problems
    assert "people[tomasz].department: unknown department 'marketing'" in problems
    assert "context_libraries[team-notes].owner: unknown person 'nobody'" in problems
    assert "projects[helios].lead 'greta' must be one of the members" in problems
    assert "permission_views[sofia]: unknown library 'no-such-library'" in problems


def test_schema_errors_name_the_field():
    data = demo_topology_data()
    data["context_libraries"][0]["visiblity"] = "org"  # typo: unknown fields are refused
    data["context_libraries"][1]["scope"] = {"kind": "department"}
    problems = _problems(data)
    assert any(p.startswith("context_libraries.0.visiblity") for p in problems)
    assert any("a department scope needs a ref" in p for p in problems)


def test_reserved_inbox_corpus_and_shared_user_ids_are_refused():
    data = demo_topology_data()
    data["context_libraries"][2]["corpora"] = ["inbox_maria"]
    data["people"][0]["user_ids"] = ["u-1"]
    data["people"][1]["user_ids"] = ["u-1"]
    problems = _problems(data)
    assert any("'inbox_maria' is reserved for card inboxes" in p for p in problems)
    assert "user id 'u-1' is listed for more than one person" in problems


def test_bad_files_give_one_clear_error(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"version": 1,\n "organization": }', encoding="utf-8")
    with pytest.raises(TopologyError, match="invalid JSON at line 2"):
        load_topology(broken)
    with pytest.raises(TopologyError, match="no such file"):
        load_topology(tmp_path / "missing.json")


def test_lint_warns_about_likely_leaks_and_surprises():
    data = demo_topology_data()
    data["context_libraries"][1]["corpora"] = ["project_docs", "team_notes"]  # team_notes also in team-notes
    data["permission_views"] = [v for v in data["permission_views"] if v["person"] != "oskar"]
    data["permission_views"][1]["grant"] = ["finance-ledger"]
    data["permission_views"][1]["deny"] = ["finance-ledger"]
    next(p for p in data["people"] if p["id"] == "greta")["department"] = "leadership"
    warnings = topology_warnings(parse_topology(data))
    assert any("corpus 'team_notes' is mapped by libraries team-notes, platform-docs" in w for w in warnings)
    assert "person 'oskar' has no permission view: they see only their card inbox" in warnings
    assert any("'finance-ledger' is both granted and denied" in w for w in warnings)
    assert any(w.startswith("library 'finance-ledger': its owner 'greta' cannot see it") for w in warnings)


def test_topology_path_follows_the_setting(monkeypatch, tmp_path):
    custom = write_topology(tmp_path / "t.json", demo_topology_data())
    monkeypatch.setenv("NE_TOPOLOGY_PATH", str(custom))
    reset_settings_cache()
    try:
        assert topology_path() == custom
        assert load_topology().organization.id == "kestrel"
    finally:
        monkeypatch.delenv("NE_TOPOLOGY_PATH")
        reset_settings_cache()
    assert topology_path() == DEMO_TOPOLOGY_PATH


def test_cli_lint_and_view(tmp_path):
    from cli.main import app

    runner = CliRunner(env={"COLUMNS": "200"})
    good = runner.invoke(app, ["topology", "lint", str(DEMO_TOPOLOGY_PATH)])
    assert good.exit_code == 0, good.output
    assert "14 people" in good.output and "0 warnings" in good.output
    data = demo_topology_data()
    data["context_libraries"][0]["owner"] = "nobody"
    bad = runner.invoke(app, ["topology", "lint", str(write_topology(tmp_path / "bad.json", data))])
    assert bad.exit_code == 1
    assert "unknown person 'nobody'" in bad.output
    view = runner.invoke(app, ["topology", "view", "wang_hao"])
    assert view.exit_code == 0, view.output
    assert "orion-workspace" in view.output and "team-notes" not in view.output
    unknown = runner.invoke(app, ["topology", "view", "mallory"])
    assert unknown.exit_code == 1
    assert "unknown person 'mallory'" in unknown.output


def test_demo_topology_is_valid_json_with_stable_ids():
    data = json.loads(DEMO_TOPOLOGY_PATH.read_text(encoding="utf-8"))
    ids = [lib["id"] for lib in data["context_libraries"]]
    assert ids == ["team-notes", "platform-docs", "research-papers", "finance-ledger", "orion-workspace",
                   "borealis-workspace", "kenji-notes", "li-na-notes"]

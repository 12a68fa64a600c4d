"""Text arguments of the CLI reach PostgreSQL cleaned: an argv byte that is not UTF-8 arrives in Python as a
lone surrogate (os.fsdecode), which asyncpg cannot encode."""
from __future__ import annotations

import json

from typer.testing import CliRunner

from config.settings import reset_settings_cache


def test_a_label_with_a_byte_that_is_not_utf8_is_stored_cleaned(kapp, monkeypatch, tmp_path):
    from cli.main import app

    monkeypatch.setenv("NE_DATABASE_URL", kapp.db.dsn)
    monkeypatch.setenv("NE_DATA_DIR", str(tmp_path))
    reset_settings_cache()
    label = b"Team \xff notes".decode("utf-8", "surrogateescape")  # what argv gives for that byte
    runner = CliRunner()
    try:
        created = runner.invoke(app, ["corpus", "create", "team_notes", "--label", label,
                                      "--description", "notes\x00 of the team"])
        listed = runner.invoke(app, ["corpus", "list", "--json"])
    finally:
        reset_settings_cache()
    assert created.exit_code == 0, created.output
    assert [c["label"] for c in json.loads(listed.stdout)] == ["Team \ufffd notes"]


def test_a_choice_argument_keeps_its_enum_type_through_the_cleaning():
    """`mcp --transport stdio` compares the option with `is Transport.stdio`: cleaning turned it into a plain
    str once, so the stdio server served HTTP on the MCP port instead."""
    from cli.common import clean_arguments
    from cli.mcp import Transport

    cleaned = clean_arguments({"transport": Transport.stdio, "names": ("a\x00b",), "label": "x\x00"})
    assert cleaned["transport"] is Transport.stdio
    assert cleaned == {"transport": Transport.stdio, "names": ("ab",), "label": "x"}

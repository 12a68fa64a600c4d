import pytest
from typer.testing import CliRunner

from config import Settings
from knowledge.db.database import Database
from knowledge.db.server import DatabaseUnavailableError


async def test_unreachable_database_gives_a_clear_error():
    settings = Settings(database_url="postgresql://nobody:secret@127.0.0.1:9/none")
    with pytest.raises(DatabaseUnavailableError) as info:
        await Database.connect(settings)
    message = str(info.value)
    assert "cannot connect to PostgreSQL" in message and "secret" not in message


def test_cli_prints_one_line_instead_of_a_traceback(monkeypatch):
    from cli.main import app

    monkeypatch.setenv("NE_DATABASE_URL", "postgresql://nobody:secret@127.0.0.1:9/none")
    from config import reset_settings_cache
    reset_settings_cache()
    try:
        result = CliRunner().invoke(app, ["corpus", "list"])
    finally:
        reset_settings_cache()
    assert result.exit_code == 1
    assert "cannot connect to PostgreSQL" in result.output
    assert "Traceback" not in result.output

"""`negentropy ingest` exit codes, per-file report, size limit, progress bars, and `stats` per corpus."""
import asyncio
import json

from typer.testing import CliRunner

from cli.main import app
from config.settings import reset_settings_cache


async def test_ingest_reports_each_skipped_file_exits_2_and_stats_show_the_corpus(new_database, tmp_path,
                                                                                  monkeypatch):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "good.md").write_text("# Helios\n\nProject Helios depends on the Aurora Vector Engine.",
                                    encoding="utf-8")
    (folder / "cyrillic.txt").write_bytes("Проект Гелиос зависит от векторного движка Аврора.".encode("cp1251"))
    (folder / "big.txt").write_text("科斯特雷尔实验室开发了流明网关。" * 25, encoding="utf-8")  # 1,200 bytes
    monkeypatch.setenv("NE_DATABASE_URL", await new_database("cli16"))
    monkeypatch.setenv("NE_CHUNKING__MAX_FILE_BYTES", "1000")
    reset_settings_cache()
    runner = CliRunner(env={"COLUMNS": "250"})  # outside a terminal Rich wraps at 80 columns

    def run(*args: str):
        return runner.invoke(app, list(args), catch_exceptions=False)

    try:
        partial = await asyncio.to_thread(run, "ingest", str(folder), "--corpus", "docs")
        assert partial.exit_code == 2, partial.output
        assert "3 files, 2 documents" in partial.output and "2 added" in partial.output
        assert "skipped" in partial.output and "big.txt: 1,200 bytes is over the per-file limit of 1,000 bytes " \
               "(raise NE_CHUNKING__MAX_FILE_BYTES to ingest it)" in partial.output
        assert "cyrillic.txt: not UTF-8: decoded as" in partial.output
        assert "1 skipped (exit code 2); the rest landed" in partial.output

        monkeypatch.setenv("NE_CHUNKING__MAX_FILE_BYTES", "100000")
        reset_settings_cache()
        complete = await asyncio.to_thread(run, "ingest", str(folder), "--corpus", "docs", "--progress")
        assert complete.exit_code == 0, complete.output
        assert "1 added, 2 already present" in complete.stdout and "skipped" not in complete.stdout, complete.stdout
        assert "reading" in complete.stderr and "stages docs" in complete.stderr
        quiet = await asyncio.to_thread(run, "ingest", str(folder), "--corpus", "docs")
        assert quiet.exit_code == 0 and quiet.stderr == "", "no bars when stderr is not a terminal"

        stats = await asyncio.to_thread(run, "stats", "--json")
        assert stats.exit_code == 0, stats.output
        ingest = next(s for s in json.loads(stats.output) if s["title"] == "ingest (per corpus)")
        row = ingest["rows"][0]
        assert (row["corpus"], row["documents"], row["chunks"], row["chunks awaiting extraction"]) == (
            "docs", "3", "3", "0")
        assert int(row["entities"]) > 0 and row["last graph build"] != "never" and row["communities"] == "current"
    finally:
        reset_settings_cache()

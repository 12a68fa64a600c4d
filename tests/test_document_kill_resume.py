"""An update or delete killed with SIGKILL (issue 44) leaves the corpus consistent, and running it again ends with
the graph an uninterrupted run builds: `negentropy ingest --sync --yes` after one file changed and one was removed,
killed right after the new version was swapped in (before its graph) and right after the removal committed (before
the communities and canonical links followed), then run again."""
from __future__ import annotations

from pathlib import Path

from knowledge.app import KnowledgeApp
from knowledge.ingest.pipeline import folder_of
from tests.conftest import make_settings
from tests.test_ingest_kill_resume import _graph, _killed_ingest

BATCH_SIZE = 2
VENDOR = ("Northwind Traders is a vendor of Contoso. The owner of Northwind Traders is {owner}. "
          "Northwind Traders ships engines for Contoso from Rotterdam. ") * 12
OTHER = "Contoso works with Fabrikam Logistics. Fabrikam Logistics is owned by Maria Garcia. " * 6


def _write(folder: Path, owner: str, other: bool) -> None:
    folder.mkdir(exist_ok=True)
    (folder / "vendor.md").write_text(VENDOR.format(owner=owner), encoding="utf-8")
    (folder / "partners.md").write_text("Contoso works with Adventure Works.", encoding="utf-8")
    if other:
        (folder / "other.md").write_text(OTHER, encoding="utf-8")
    elif (folder / "other.md").exists():
        (folder / "other.md").unlink()


async def _sync(dsn: str, folder: Path, data_dir: Path, embedder) -> None:
    """What `negentropy ingest FOLDER --corpus notes --sync --yes` does, in this process."""
    app = await KnowledgeApp.open(make_settings(data_dir, embedding_batch_size=BATCH_SIZE), dsn=dsn,
                                  embedder=embedder, progress=False)
    try:
        corpus = await app.corpora.create("notes")
        report = await app.ingest_path(corpus, folder)
        stale = await app.documents.stale(corpus, folder_of(folder), report.sources, report.unreadable)
        await app.documents.delete(corpus, [d.source_uri for d in stale])
    finally:
        await app.close()


async def test_an_update_or_delete_killed_and_run_again_ends_as_an_uninterrupted_one(new_database, embedder,
                                                                                   tmp_path):
    folder = tmp_path / "notes"
    _write(folder, "Jane Smith", other=True)
    clean = await new_database("docclean")
    await _sync(clean, folder, tmp_path / "clean", embedder)
    _write(folder, "Robert Brown", other=False)
    await _sync(clean, folder, tmp_path / "clean", embedder)
    expected = await _graph(clean)

    kill_points = [
        # the new version is in, its graph not yet
        """SELECT EXISTS (SELECT 1 FROM knowledge k WHERE k.content LIKE '%Robert Brown%'
                          AND NOT EXISTS (SELECT 1 FROM kg_extracted_chunk x WHERE x.chunk_id = k.id))""",
        # the removed file's document is gone, the communities not yet rebuilt
        """SELECT NOT EXISTS (SELECT 1 FROM kb_document WHERE source_uri = 'other.md')
                  AND NOT EXISTS (SELECT 1 FROM corpus_graph_build)""",
    ]
    killed = 0
    for index, kill_when in enumerate(kill_points):
        dsn = await new_database("dockilled")
        _write(folder, "Jane Smith", other=True)
        await _sync(dsn, folder, tmp_path / f"before{index}", embedder)
        _write(folder, "Robert Brown", other=False)
        killed += await _killed_ingest(dsn, folder, tmp_path / f"killed{index}", kill_when, ("--sync", "--yes"),
                                       BATCH_SIZE)
        await _sync(dsn, folder, tmp_path / f"rerun{index}", embedder)
        resumed = await _graph(dsn)
        for part, rows in expected.items():
            assert resumed[part] == rows, (kill_when, part, sorted(rows - resumed[part])[:5],
                                           sorted(resumed[part] - rows)[:5])
    assert killed == len(kill_points), "a kill fell outside the update"

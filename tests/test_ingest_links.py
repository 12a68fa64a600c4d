"""Symbolic links in an ingested folder: a link to a file inside is read, one pointing outside the folder, a loop
and a broken link are skipped and named in the report."""
from pathlib import Path


def _folder(tmp_path: Path) -> Path:
    outside = tmp_path / "private"
    outside.mkdir()
    (outside / "secret.txt").write_text("The vault code of Kestrel Labs is 4711.", encoding="utf-8")
    folder = tmp_path / "notes"
    (folder / "sub").mkdir(parents=True)
    (folder / "helios.md").write_text("# Helios\n\nProject Helios depends on the Aurora Vector Engine.",
                                      encoding="utf-8")
    (folder / "same_helios.md").symlink_to("helios.md")
    (folder / "leak.txt").symlink_to(outside / "secret.txt")
    (folder / "private_folder").symlink_to(outside, target_is_directory=True)
    (folder / "loop.txt").symlink_to("loop.txt")
    (folder / "sub" / "up").symlink_to("..", target_is_directory=True)
    (folder / "gone.txt").symlink_to("missing.txt")
    return folder


async def test_links_out_of_the_folder_and_loops_are_skipped_and_named(kapp, tmp_path):
    corpus = await kapp.corpora.create("links")
    folder = _folder(tmp_path)
    report = await kapp.ingest_path(corpus, folder)
    skipped = {Path(e.source_uri).relative_to(folder).as_posix(): e.message for e in report.errors}
    assert skipped == {
        "leak.txt": "link points outside the folder",
        "private_folder": "link points outside the folder",
        "loop.txt": "link loop",
        "sub/up": "link loop (points at a folder that contains it)",
        "gone.txt": "link target does not exist",
    }
    assert report.files == 7 and report.chunks_added == 1, "the inside link is the same chunk as its target"
    async with kapp.db.connection() as conn:
        contents = await conn.fetch("SELECT content FROM knowledge WHERE corpus_id = $1", corpus.id)
    assert not any("vault" in r["content"] for r in contents)

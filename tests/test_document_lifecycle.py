"""Documents change (issue 44): a changed document replaces its old version with its graph, an unchanged one costs
nothing, deleting a document or a corpus leaves no trace of it in the graph or the canonical layer, and a search
during an update sees the old version or the new one, never both or neither."""
from __future__ import annotations

import asyncio
from pathlib import Path

from knowledge.app import KnowledgeApp

VENDOR = "Northwind Traders is a vendor of Contoso. The owner of Northwind Traders is Jane Smith.\n"
CHANGED = "Northwind Traders is a vendor of Contoso. The owner of Northwind Traders is Robert Brown.\n"
OTHER = "Contoso works with Fabrikam Logistics. Fabrikam Logistics ships parts for Contoso.\n"


async def _names(kapp: KnowledgeApp, sql: str) -> set:
    async with kapp.db.connection() as conn:
        return {tuple(r.values()) for r in await conn.fetch(sql)}


ENTITIES = "SELECT name_normalized FROM kg_entity"
CHUNKS = "SELECT content FROM knowledge"


async def test_changed_document_replaces_its_old_version_and_graph(kapp: KnowledgeApp, tmp_path: Path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "vendor.md").write_text(VENDOR, encoding="utf-8")
    (folder / "other.md").write_text(OTHER, encoding="utf-8")
    corpus = await kapp.corpora.create("notes")
    await kapp.ingest_path(corpus, folder)
    assert ("janesmith",) in await _names(kapp, ENTITIES)

    again = await kapp.ingest_path(corpus, folder)
    assert (again.documents_unchanged, again.chunks_added, again.documents_updated) == (2, 0, 0)

    (folder / "vendor.md").write_text(CHANGED, encoding="utf-8")
    report = await kapp.ingest_path(corpus, folder)
    assert (report.documents_updated, report.documents_unchanged) == (1, 1)
    chunks = {c for (c,) in await _names(kapp, CHUNKS)}
    assert not any("Jane Smith" in c for c in chunks) and any("Robert Brown" in c for c in chunks)
    entities = await _names(kapp, ENTITIES)
    assert ("janesmith",) not in entities and ("robertbrown",) in entities
    assert ("contoso",) in entities  # still mentioned by both documents
    members = await _names(kapp, "SELECT canonical_name_normalized FROM kg_entity_canonical")
    assert ("janesmith",) not in members and ("robertbrown",) in members
    [doc] = [d for d in await kapp.documents.list(corpus) if d.source_uri == "vendor.md"]
    assert doc.complete and doc.origin == str(folder.resolve())


async def test_delete_document_and_corpus_leave_nothing_behind(kapp: KnowledgeApp, tmp_path: Path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "vendor.md").write_text(VENDOR, encoding="utf-8")
    (folder / "other.md").write_text(OTHER, encoding="utf-8")
    corpus = await kapp.corpora.create("notes")
    await kapp.ingest_path(corpus, folder)
    (folder / "other.md").unlink()
    stale = await kapp.documents.stale(corpus, str(folder.resolve()), ["vendor.md"])
    assert [d.source_uri for d in stale] == ["other.md"]
    removal = await kapp.documents.delete(corpus, ["other.md", "missing.md"])
    assert removal.documents == ["other.md"] and removal.missing == ["missing.md"] and removal.chunks == 1
    entities = await _names(kapp, ENTITIES)
    assert ("fabrikamlogistics",) not in entities and ("contoso",) in entities
    assert await _names(kapp, "SELECT 1 FROM kg_relation_chunk c LEFT JOIN knowledge k ON k.id = c.chunk_id "
                              "WHERE k.id IS NULL") == set()
    await kapp.documents.delete_corpus(corpus)
    for table in ("knowledge", "kb_document", "kg_entity", "kg_entity_canonical", "kg_cross_corpus_bridge"):
        assert await _names(kapp, f"SELECT 1 FROM {table}") == set(), table


async def test_search_during_an_update_sees_one_version(kapp: KnowledgeApp, tmp_path: Path):
    folder = tmp_path / "notes"
    folder.mkdir()
    versions = [VENDOR * 6, CHANGED * 6]
    (folder / "vendor.md").write_text(versions[0], encoding="utf-8")
    corpus = await kapp.corpora.create("notes")
    await kapp.ingest_path(corpus, folder)
    seen: list[tuple[bool, bool]] = []
    done = asyncio.Event()

    async def search() -> None:
        while not done.is_set():
            hits = await kapp.legacy_search("owner of Northwind Traders", [corpus.id], [corpus.id], limit=20)
            text = " ".join(h.content for h in hits)
            seen.append(("Jane Smith" in text, "Robert Brown" in text))

    searcher = asyncio.ensure_future(search())
    for round_ in range(4):
        (folder / "vendor.md").write_text(versions[(round_ + 1) % 2], encoding="utf-8")
        await kapp.ingest_path(corpus, folder)
    done.set()
    await searcher
    assert len(seen) > 4
    assert all(old != new for old, new in seen), "a search saw both versions or neither"

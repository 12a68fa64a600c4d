import json

from knowledge.db.queries.chunks import count_chunks
from tests.pdf_fixture import write_text_pdf


async def test_ingest_is_idempotent_by_content_hash(kapp, tmp_path):
    corpus = await kapp.corpora.create("notes")
    doc = tmp_path / "a.md"
    doc.write_text("# Title\n\nPostgres stores vectors with pgvector.\n\nHNSW makes search fast.", encoding="utf-8")
    first = await kapp.ingest_path(corpus, doc)
    second = await kapp.ingest_path(corpus, doc)
    assert first.chunks_added == 1 and not first.errors
    assert second.chunks_added == 0 and second.chunks_skipped == 1
    async with kapp.db.connection() as conn:
        assert await count_chunks(conn, [corpus.id]) == 1


async def test_every_supported_format_lands_and_broken_files_do_not_stop_the_batch(kapp, tmp_path):
    corpus = await kapp.corpora.create("mixed")
    folder = tmp_path / "batch"
    folder.mkdir()
    (folder / "plain.txt").write_text("A plain text note about Kubernetes clusters.", encoding="utf-8")
    (folder / "notes.md").write_text("# Heading\n\nMarkdown about Redis caching.", encoding="utf-8")
    (folder / "records.jsonl").write_text(
        "\n".join(json.dumps({"title": f"Paper {i}", "authors": ["A. Author"], "year": 2020 + i,
                              "text": f"Abstract number {i} on graph neural networks."}) for i in range(3)),
        encoding="utf-8")
    (folder / "single.json").write_text(json.dumps({"title": "One", "content": "JSON content on Kafka."}))
    write_text_pdf(folder / "paper.pdf", ["A PDF about retrieval augmented generation."])
    (folder / "broken.json").write_text("{not json", encoding="utf-8")
    (folder / "image.png").write_bytes(b"\x89PNG\r\n")
    (folder / "latin1.txt").write_bytes("Le café crème et la brûlée sont très appréciés à Genève.".encode("latin-1"))
    (folder / "empty.md").write_text("", encoding="utf-8")
    (folder / "fake.pdf").write_bytes(b"not a pdf at all")

    report = await kapp.ingest_path(corpus, folder)
    failed = {e.source_uri.rsplit("/", 1)[1]: e.message for e in report.errors}
    assert set(failed) == {"broken.json", "image.png", "empty.md", "fake.pdf"}
    assert "invalid JSON" in failed["broken.json"]
    assert "unsupported file type" in failed["image.png"]
    notices = {n.source_uri.rsplit("/", 1)[1]: n.message for n in report.notices}
    assert notices["latin1.txt"].startswith("not UTF-8: decoded as ")
    assert report.chunks_added == 8
    async with kapp.db.connection() as conn:
        rows = await conn.fetch("SELECT source_uri, metadata FROM knowledge WHERE corpus_id = $1", corpus.id)
    sources = {r["source_uri"] for r in rows}
    assert "records.jsonl#Paper 1" in sources and "paper.pdf" in sources
    paper = next(r for r in rows if r["source_uri"] == "records.jsonl#Paper 2")
    assert paper["metadata"]["year"] == 2022 and paper["metadata"]["authors"] == ["A. Author"]


async def test_same_text_in_two_corpora_is_stored_in_each(kapp, tmp_path):
    a = await kapp.corpora.create("a")
    b = await kapp.corpora.create("b")
    doc = tmp_path / "shared.txt"
    doc.write_text("Shared fact about Project Helios.", encoding="utf-8")
    assert (await kapp.ingest_path(a, doc)).chunks_added == 1
    assert (await kapp.ingest_path(b, doc)).chunks_added == 1

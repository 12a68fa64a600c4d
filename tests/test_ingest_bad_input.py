"""Bad input does not abort an ingest: it is cleaned or named per file, per document or per record."""
import json
import random
import string

from config.settings import ChunkingSettings
from knowledge.app import KnowledgeApp
from knowledge.ingest.documents import Document
from tests.conftest import make_settings


async def _contents(kapp, corpus) -> dict[str, str]:
    async with kapp.db.connection() as conn:
        rows = await conn.fetch("SELECT source_uri, content FROM knowledge WHERE corpus_id = $1", corpus.id)
    return {r["source_uri"]: r["content"] for r in rows}


async def test_a_nul_byte_in_one_file_does_not_stop_the_folder(kapp, tmp_path):
    corpus = await kapp.corpora.create("nul")
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "a_good.txt").write_text("Kafka keeps an ordered log per partition.", encoding="utf-8")
    (folder / "b_nul.txt").write_bytes("Redis is\x00 an in-memory store.\x00".encode("utf-8"))
    (folder / "c_good.md").write_text("# Notes\n\nPostgres has row-level security.", encoding="utf-8")

    report = await kapp.ingest_path(corpus, folder)

    assert report.errors == [] and report.chunks_added == 3
    assert [(n.source_uri, n.message) for n in report.notices] == [
        ("b_nul.txt", "2 characters PostgreSQL cannot store (NUL, lone surrogates) removed")]
    stored = await _contents(kapp, corpus)
    assert stored["b_nul.txt"] == "Redis is an in-memory store."
    assert set(stored) == {"a_good.txt", "b_nul.txt", "c_good.md"}


async def test_lone_surrogates_and_nul_in_text_title_and_metadata_are_stored_cleaned(kapp):
    corpus = await kapp.corpora.create("surrogates")
    document = Document(source_uri="note\x00.txt", text="Broken \ud800 pair and a NUL\x00 here.",
                        title="T\udfff", metadata={"k\x00": ["v\x00", {"deep": "x\ud83d"}]})
    report = await kapp.ingest_documents(corpus, [document], extra_metadata={"by": "bot\x00"})
    assert report.chunks_added == 1 and not report.errors
    async with kapp.db.connection() as conn:
        row = await conn.fetchrow("SELECT source_uri, content, metadata FROM knowledge WHERE corpus_id = $1",
                                  corpus.id)
    assert row["source_uri"] == "note.txt" and row["content"] == "Broken \ufffd pair and a NUL here."
    assert row["metadata"]["k"] == ["v", {"deep": "x\ufffd"}] and row["metadata"]["title"] == "T\ufffd"
    assert row["metadata"]["by"] == "bot"


async def test_a_document_the_database_refuses_is_named_and_the_rest_lands(new_database, embedder, tmp_path):
    # one 2 MB chunk of distinct words exceeds PostgreSQL's 1 MB tsvector limit: a real refusal, no mock
    settings = make_settings(tmp_path, chunking=ChunkingSettings(chunk_size=3_000_000, chunk_overlap=10))
    kapp = await KnowledgeApp.open(settings, dsn=await new_database(), embedder=embedder, progress=False)
    try:
        corpus = await kapp.corpora.create("limits")
        rng = random.Random(7)
        huge = " ".join("".join(rng.choices(string.ascii_lowercase, k=9)) for _ in range(200_000))
        documents = [Document("small-1", "Small note about Helios."), Document("huge", huge),
                     Document("small-2", "Another small note about Orion.")]
        report = await kapp.ingest_documents(corpus, documents)
        assert [e.source_uri for e in report.errors] == ["huge"]
        assert "not stored" in report.errors[0].message and "tsvector" in report.errors[0].message
        assert report.chunks_added == 2 and report.chunks_skipped == 0
        assert set(await _contents(kapp, corpus)) == {"small-1", "small-2"}
    finally:
        await kapp.close()


async def test_a_bad_jsonl_line_skips_only_that_record_and_names_its_line(kapp, tmp_path):
    corpus = await kapp.corpora.create("jsonl")
    lines = [json.dumps({"title": "One", "text": "First record on Kafka."}), "",
             "{broken", json.dumps({"title": "Two", "text": "Second record on Redis."}),
             json.dumps({"title": "Three", "note": "no text field"}),
             json.dumps("A string record\u2028with a line separator inside.", ensure_ascii=False)]
    path = tmp_path / "records.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    report = await kapp.ingest_path(corpus, path)
    assert [e.message.split(":")[0] for e in report.errors] == ["line 3 skipped", "line 5 skipped"]
    assert "invalid JSON" in report.errors[0].message and "no text field" in report.errors[1].message
    assert report.chunks_added == 3


async def test_deeply_nested_json_is_a_clear_error_not_a_crash(kapp, tmp_path):
    corpus = await kapp.corpora.create("deep")
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    report = await kapp.ingest_path(corpus, tmp_path / "deep.json")
    assert [e.message for e in report.errors] == ["JSON nested too deeply to read"]

"""Property test of the ingest and search entry points on hostile input (Hypothesis).

Random folders (random bytes, text in random encodings, NULs and lone surrogates, huge lines, deep and broken
JSON / JSONL, damaged PDFs, unsupported suffixes, files over the size limit) are ingested twice into a fresh
corpus, then searched with random unicode queries. Asserted: nothing raises; every error names a file of the folder;
every chunk of every file the loader accepted is in the database (nothing that landed is lost); the re-run
adds nothing and the rows are unchanged (nothing duplicated); search returns only rows of the corpus.
"""
from __future__ import annotations

import asyncio
import itertools
import json
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from config.settings import ChunkingSettings
from knowledge.app import KnowledgeApp
from knowledge.ingest.chunking import chunk_text
from knowledge.ingest.documents import DocumentLoadError, load_file
from knowledge.ingest.pipeline import content_hash, storable
from tests.conftest import make_settings
from tests.pdf_fixture import write_text_pdf

MAX_FILE_BYTES = 40_000
EXAMPLES = 25
ENCODINGS = ("utf-8", "utf-16", "utf-8-sig", "latin-1", "cp1252", "cp1251", "gbk", "shift_jis", "koi8-r")
SUFFIXES = (".txt", ".md", ".json", ".jsonl", ".pdf", ".bin", "")
WORDS = ("Helios", "Aurora", "Kestrel Labs", "向量数据库", "项目", "Tidepool", "café", "the", "graph", "。", ". ")

_words = st.lists(st.sampled_from(WORDS), min_size=1, max_size=40).map(" ".join)
_unicode = st.text(st.characters(codec=None, exclude_categories=()), max_size=200)  # NULs, surrogates included
_text = st.one_of(_words, _unicode, st.builds(lambda a, b: a + "\x00" + b, _words, _unicode),
                  st.builds(lambda w, n: (w + " ") * n, _words, st.integers(200, 900)))  # one huge line
_json_value = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), _text),
                           lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                   st.dictionaries(st.sampled_from(("text", "title", "x")), inner,
                                                                   max_size=3)), max_leaves=8)
_record = st.one_of(_json_value, st.fixed_dictionaries({"title": _words, "text": _text}))


def _pdf_bytes() -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        write_text_pdf(Path(folder) / "base.pdf", ["Helios depends on the Aurora Vector Engine.", "Second page."])
        return (Path(folder) / "base.pdf").read_bytes()


_PDF = _pdf_bytes()


def _encoded(text: str, encoding: str) -> bytes:
    # lone surrogates go into the UTF encodings as they are (invalid UTF-8); other encodings drop what they lack
    return text.encode(encoding, errors="surrogatepass" if encoding.startswith("utf") else "ignore")


@st.composite
def _file(draw: st.DrawFn) -> tuple[str, bytes]:
    kind = draw(st.sampled_from(("text", "text", "records", "records", "bytes", "pdf", "deep", "oversized")))
    # mostly the suffix the content suits, sometimes any (a .pdf of text, a .json of bytes, no suffix)
    suited = {"text": (".txt", ".md"), "records": (".json", ".jsonl"), "pdf": (".pdf",)}.get(kind, (".txt", ".json"))
    suffix = draw(st.sampled_from(suited)) if draw(st.integers(0, 3)) else draw(st.sampled_from(SUFFIXES))
    if kind == "pdf":  # a real PDF with a few bytes overwritten, cut out or inserted
        content = bytearray(_PDF)
        for _ in range(draw(st.integers(0, 12))):
            at = draw(st.integers(0, len(content) - 1))
            content[at:at + draw(st.integers(0, 20))] = draw(st.binary(max_size=20))
        content = bytes(content)
    elif kind == "bytes":
        content = draw(st.binary(max_size=600))
    elif kind == "deep":
        depth = draw(st.integers(500, 20_000))
        content = ("[" * depth + "]" * depth).encode()
    elif kind == "oversized":
        content = b"x" * (MAX_FILE_BYTES + 1)
    elif kind == "records":
        records = draw(st.lists(_record, max_size=5))
        lines = [json.dumps(r, ensure_ascii=draw(st.booleans())) if draw(st.integers(0, 5)) else "{broken"
                 for r in records]
        content = _encoded("\n".join(lines) if suffix == ".jsonl" else "[" + ",".join(lines) + "]",
                           draw(st.sampled_from(("utf-8", "utf-16"))))
    else:
        content = _encoded(draw(_text), draw(st.sampled_from(ENCODINGS)))
    return suffix, content


@pytest.fixture(scope="module")
def fuzz_loop():
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


@pytest.fixture(scope="module")
def fuzz_app(fuzz_loop, new_database, embedder, tmp_path_factory):
    settings_ = make_settings(tmp_path_factory.mktemp("fuzz"),
                              chunking=ChunkingSettings(max_file_bytes=MAX_FILE_BYTES))
    kapp = fuzz_loop.run_until_complete(KnowledgeApp.open(settings_, dsn=fuzz_loop.run_until_complete(
        new_database("fuzz")), embedder=embedder, progress=False))
    yield kapp
    fuzz_loop.run_until_complete(kapp.close())
    print(f"\nfuzz tally (for the README's Reliability section): {TALLY}")


TALLY = {"cases": 0, "files": 0, "files_named_bad": 0, "records_skipped": 0, "chunks": 0, "queries": 0}
_corpus_numbers = itertools.count()


def _expected_hashes(folder: Path, path: Path) -> set[str]:
    """Content hashes of every chunk the loader gives for ``path`` (empty when the file as a whole is refused)."""
    try:
        loaded = load_file(path, folder, MAX_FILE_BYTES)
    except DocumentLoadError:
        return set()
    hashes: set[str] = set()
    for document in loaded.documents:
        try:
            cleaned, _ = storable(document)
        except RecursionError:
            continue
        hashes.update(content_hash(c.text) for c in chunk_text(cleaned.text))
    return hashes


async def _check(kapp: KnowledgeApp, files: list[tuple[str, bytes]], queries: list[str]) -> None:
    folder = Path(tempfile.mkdtemp(prefix="fuzz16-"))
    try:
        paths = []
        for i, (suffix, content) in enumerate(files):
            path = folder / f"f{i}{suffix}"
            path.write_bytes(content)
            paths.append(path)
        corpus = await kapp.corpora.create(f"fuzz{next(_corpus_numbers)}")
        first = await kapp.ingest_path(corpus, folder)
        names = {str(p) for p in paths} | {p.name for p in paths}
        for error in first.errors:
            assert error.source_uri.split("#")[0] in names, f"error names no file of the folder: {error}"
        async with kapp.db.connection() as conn:
            rows = {r["content_hash"]: r["id"] for r in await conn.fetch(
                "SELECT id, content_hash FROM knowledge WHERE corpus_id = $1", corpus.id)}
        refused = {e.source_uri.split("#")[0] for e in first.errors if e.message.startswith("not stored")}
        for path in paths:
            expected = _expected_hashes(folder, path)
            named = any(e.source_uri.split("#")[0] in (str(path), path.name) for e in first.errors)
            if not expected:
                assert named, f"{path.name} landed nothing and is not named in the report"
            if path.name not in refused:
                assert expected <= set(rows), f"chunks of {path.name} were lost"
        second = await kapp.ingest_path(corpus, folder)
        assert second.chunks_added == 0
        assert sorted(map(str, second.errors)) == sorted(map(str, first.errors))
        async with kapp.db.connection() as conn:
            again = {r["content_hash"]: r["id"] for r in await conn.fetch(
                "SELECT id, content_hash FROM knowledge WHERE corpus_id = $1", corpus.id)}
        assert again == rows, "the re-run changed the stored rows"
        for query in queries:
            for names_ in ([corpus.name], []):
                result = await kapp.router.search(query, person_id=None, corpus_names=names_, limit=5)
                if names_:
                    assert {h.corpus_id for h in result.hits} <= {corpus.id}
            hits = await kapp.legacy_search(query, [corpus.id], [corpus.id], limit=5)
            assert {h.corpus_id for h in hits} <= {corpus.id}
        TALLY["cases"] += 1
        TALLY["files"] += len(paths)
        TALLY["files_named_bad"] += sum(1 for p in paths if any(e.source_uri == str(p) and "skipped" not in
                                                                e.message for e in first.errors))
        TALLY["records_skipped"] += sum(1 for e in first.errors if "skipped" in e.message)
        TALLY["chunks"] += len(rows)
        TALLY["queries"] += len(queries)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example])
@given(files=st.lists(_file(), min_size=1, max_size=4),
       queries=st.lists(st.one_of(_unicode, _words), min_size=1, max_size=2))
def test_hostile_input_never_crashes_loses_or_duplicates(fuzz_app, fuzz_loop, files, queries):
    fuzz_loop.run_until_complete(_check(fuzz_app, files, queries))


"""A single big file shows progress from the start: while it is read and decoded, while it is chunked and while its
chunks are measured for the embedding batches (not only once the model starts embedding)."""
import random
import sys

from knowledge.ingest import documents, pipeline
from knowledge.ingest.documents import load_path
from knowledge.ingest.pipeline import IngestReport
from knowledge.ingest.progress import ProgressMode

WORDS = "project helios depends on the aurora vector engine that kestrel labs developed in berlin".split()


class EventLog:
    """sys.stderr for the test: what the progress bars write, in order with the ingest's own steps."""

    def __init__(self) -> None:
        self.events: list[str] = []

    def write(self, text: str) -> int:
        if text.strip():
            self.events.append(f"bar {text.strip()}")
        return len(text)

    def flush(self) -> None:
        pass

    def first(self, prefix: str) -> int:
        return next(i for i, e in enumerate(self.events) if e.startswith(prefix))

    def last(self, prefix: str) -> int:
        return max(i for i, e in enumerate(self.events) if e.startswith(prefix))


async def test_a_big_file_shows_progress_while_read_chunked_and_measured(kapp, tmp_path, monkeypatch):
    rng = random.Random(3)
    big = tmp_path / "big.txt"
    big.write_text("\n\n".join(" ".join(rng.choices(WORDS, k=100)) + "." for _ in range(2_500)), encoding="utf-8")
    log = EventLog()
    monkeypatch.setattr(sys, "stderr", log)

    # the real steps, each noting in the log when it is done
    decode_text, chunk_text, token_counts = documents.decode_text, pipeline.chunk_text, kapp.embedder.token_counts

    def logged_decode(raw):
        decoded = decode_text(raw)
        log.events.append("decoded")
        return decoded

    def logged_chunks(*args):
        for chunk in chunk_text(*args):
            log.events.append("chunk")
            yield chunk

    def logged_counts(texts):
        counts = token_counts(texts)
        log.events.append("counted")
        return counts

    monkeypatch.setattr(documents, "decode_text", logged_decode)
    monkeypatch.setattr(pipeline, "chunk_text", logged_chunks)
    monkeypatch.setattr(kapp.embedder, "token_counts", logged_counts)

    kapp.pipeline.progress = ProgressMode.always
    corpus = await kapp.corpora.create("big")
    loaded = load_path(big, kapp.settings.chunking.max_file_bytes, ProgressMode.always)
    assert [d.source_uri for d in loaded.documents] == ["big.txt"]
    rows = kapp.pipeline._chunk_documents(corpus, loaded.documents, None, IngestReport(corpus="big"), {})
    assert len(rows) > 1_000
    kapp.pipeline._token_sorted(rows)

    assert log.first("bar reading") < log.first("decoded")
    assert log.first("bar chunking big") < log.last("chunk")
    assert log.first("bar measuring chunks") < log.first("counted") < log.last("counted")

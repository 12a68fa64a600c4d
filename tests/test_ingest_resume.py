"""An ingest interrupted after its chunks landed is finished by the next run, even one that adds no chunk."""
from pathlib import Path

import pytest

from knowledge.canonical.linker import CanonicalLinker
from knowledge.db.queries.ingest_status import CorpusIngestStatus, select_ingest_status
from knowledge.graph.extraction import Extraction
from knowledge.graph.summaries import CommunitySummarizer
from knowledge.ingest.pipeline import IngestStageError

TEXTS = {
    "helios.md": "Project Helios depends on the Aurora Vector Engine. Kestrel Labs developed Lumen Gateway.",
    "people.md": "Maria Santos works at Kestrel Labs in Berlin. Kestrel Labs signed a contract with Tidepool.",
    "deal.md": "Kestrel Labs acquired Tidepool Analytics in May 2024. Aurora Vector Engine powers Helios.",
}


class KilledExtractor:
    """Stands for a process killed during graph extraction: the chunks are stored, no graph row is."""

    def extract(self, text: str) -> Extraction:
        raise RuntimeError("killed during extraction")


class KilledLinker(CanonicalLinker):
    async def link_corpora(self, app_scope, corpus_ids):
        raise RuntimeError("killed during canonical linking")


class KilledSummarizer(CommunitySummarizer):
    """Killed after extraction committed, while the communities are recomputed."""

    async def summarize(self, members, relations):
        raise RuntimeError("killed during community summaries")


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    for name, text in TEXTS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


async def _status(kapp, corpus) -> CorpusIngestStatus:
    async with kapp.db.connection() as conn:
        return (await select_ingest_status(conn, [corpus.id]))[0]


async def _assert_finished(kapp, corpus, folder: Path) -> None:
    again = await kapp.ingest_path(corpus, folder)
    assert again.chunks_added == 0 and again.chunks_skipped == 3 and again.resumed
    status = await _status(kapp, corpus)
    assert status.chunks == 3 and status.awaiting_extraction == 0 and status.entities > 5
    assert status.awaiting_linking == 0 and not status.communities_stale and status.last_graph_build is not None
    async with kapp.db.connection() as conn:
        assert await conn.fetchval("SELECT count(*) FROM kg_community WHERE corpus_id = $1", corpus.id) > 0
    third = await kapp.ingest_path(corpus, folder)
    assert not third.resumed, "nothing left to finish"


async def test_killed_before_graph_extraction_the_rerun_builds_the_graph(kapp, tmp_path):
    corpus = await kapp.corpora.create("notes")
    folder = _folder(tmp_path)
    extractor, kapp.graph.extractor = kapp.graph.extractor, KilledExtractor()
    with pytest.raises(IngestStageError, match="graph stage .* the 3 new chunks are stored"):
        await kapp.ingest_path(corpus, folder)
    status = await _status(kapp, corpus)
    assert (status.chunks, status.awaiting_extraction, status.entities) == (3, 3, 0) and status.unfinished
    kapp.graph.extractor = extractor
    await _assert_finished(kapp, corpus, folder)


async def test_killed_before_canonical_linking_the_rerun_links(kapp, tmp_path):
    corpus = await kapp.corpora.create("notes")
    folder = _folder(tmp_path)
    linker, kapp.canonical.linker = kapp.canonical.linker, KilledLinker(kapp.db, kapp.settings.linker)
    with pytest.raises(IngestStageError, match="canonical links stage"):
        await kapp.ingest_path(corpus, folder)
    status = await _status(kapp, corpus)
    assert status.awaiting_extraction == 0 and status.entities > 5 and status.awaiting_linking == status.entities
    kapp.canonical.linker = linker
    await _assert_finished(kapp, corpus, folder)


async def test_killed_during_the_community_rebuild_the_rerun_rebuilds_them(kapp, tmp_path):
    corpus = await kapp.corpora.create("notes")
    folder = _folder(tmp_path)
    summarizer = kapp.graph.summarizer
    kapp.graph.summarizer = KilledSummarizer(None)
    with pytest.raises(IngestStageError, match="communities and canonical links stage"):
        await kapp.ingest_path(corpus, folder)
    status = await _status(kapp, corpus)
    assert status.awaiting_extraction == 0 and status.entities > 5
    assert status.communities_stale and status.last_graph_build is None
    assert status.awaiting_linking == 0, "linking runs beside the communities and is not cut off by their failure"
    kapp.graph.summarizer = summarizer
    await _assert_finished(kapp, corpus, folder)

"""A long ingest never blocks the event loop: while the model embeds, other requests of the loop are served.

Checked by ordering, not by a latency bound: every model call of the ingest records when it started and
ended, and a concurrent cheap request (a database round trip) repeats on the same loop; a request that
completes strictly inside a model call proves the loop was free during it. A call made on the loop itself
leaves no room for one, which the ``offload.on_loop`` comparison setting shows.
"""
from __future__ import annotations

import asyncio
import time
from typing import Sequence

import numpy as np

from config.settings import OffloadSettings
from knowledge import offload
from knowledge.embedding import TokenVectors
from knowledge.ingest.documents import documents_from_texts

# long enough that embedding one batch of them takes a while even on a fast machine
PASSAGES = [f"Passage {i}. " + " ".join(
    f"Maria Santos of Kestrel Labs {i} met Jonas Berg in Lisbon to review the Quill Resolver release {j}."
    for j in range(6)) for i in range(120)]
MIN_CALL_SECONDS = 0.05


class TimedEmbedder:
    """The real embedder, with the start and end of every call recorded."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.dimension = inner.dimension
        self.calls: list[tuple[float, float]] = []

    def _timed(self, method, texts):
        started = time.perf_counter()
        try:
            return method(texts)
        finally:
            self.calls.append((started, time.perf_counter()))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._timed(self.inner.embed, texts)

    def embed_tokens(self, texts: Sequence[str]) -> list[TokenVectors]:
        return self._timed(self.inner.embed_tokens, texts)


async def _ingest_with_concurrent_requests(kapp) -> tuple[TimedEmbedder, list[float]]:
    timed = TimedEmbedder(kapp.embedder)
    kapp.pipeline.embedder = kapp.graph.embedder = timed
    corpus = await kapp.corpora.create("long_ingest")
    done: list[float] = []  # when each cheap request completed
    ingest = asyncio.create_task(kapp.ingest_documents(
        corpus, documents_from_texts((f"p{i}", text) for i, text in enumerate(PASSAGES))))
    async with kapp.db.connection() as conn:
        while not ingest.done():
            assert await conn.fetchval("SELECT 1") == 1
            done.append(time.perf_counter())
            await asyncio.sleep(0.005)
    report = await ingest
    assert report.chunks_added >= len(PASSAGES)
    return timed, done


def _served_inside(calls: list[tuple[float, float]], done: list[float]) -> list[int]:
    """For each model call that took at least MIN_CALL_SECONDS: requests completed strictly inside it."""
    return [sum(start < t < end for t in done) for start, end in calls if end - start >= MIN_CALL_SECONDS]


async def test_requests_are_served_while_the_ingest_runs_the_model(kapp):
    timed, done = await _ingest_with_concurrent_requests(kapp)
    served = _served_inside(timed.calls, done)
    assert served, "no model call was long enough to tell"
    assert all(n > 0 for n in served), f"requests completed inside each long model call: {served}"


async def test_on_the_loop_no_request_is_served_during_a_model_call(kapp):
    offload.configure(OffloadSettings(on_loop=True))
    try:
        timed, done = await _ingest_with_concurrent_requests(kapp)
    finally:
        offload.configure(kapp.settings.offload)
    served = _served_inside(timed.calls, done)
    assert served and not any(served), served

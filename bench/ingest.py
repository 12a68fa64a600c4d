"""Ingest throughput on the MuSiQue passages against the embedding model's own speed on the same chunks.

In one run: the model embeds every chunk of the corpus in one batched call (the physical limit of this
pipeline on CPU: each chunk has to be embedded once), then the whole pipeline ingests the same documents
into an empty corpus (chunking, chunk embeddings, graph extraction, entity resolution, entity-name
embeddings, canonical linking, Leiden communities, every SQL statement), then the model runs once more;
the pipeline's chunks/s is compared with the mean of the two model runs (the machine is shared, so load
drifts). A third model run, right after the first, is the tightest reference: the pipeline's own
``embed_tokens`` over every chunk at once (batches grouped by token count across the whole corpus, where the
pipeline groups within its steps of 256 chunks and ``embed`` by characters); its ratio is printed beside the
main one. The per-stage split is read from the ``ingest_stage_seconds`` metric the pipeline records
(knowledge/metrics.py); stages overlap (the next chunk batch is embedded while the last one is stored), so
their sum can exceed the wall time.

Run: ``python -m bench.ingest [--limit 1890] [--out bench/results/ingest-musique.json]``; add
``--sizes 1000 10000`` for the older synthetic table (ingest chunks/s and kb_hybrid / kb_rrf queries/s).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from pathlib import Path
from typing import Callable

from bench.harness import Timer, git_commit, print_table, scratch_app
from bench.multihop_data import MUSIQUE_DIR, PAIRED_CORPUS, MissingDataError, load_dataset
from bench.synthetic import synthetic_chunks, synthetic_queries
from knowledge import offload
from knowledge.db.queries import chunks as q
from knowledge.db.queries import graph as gq
from knowledge.ingest.chunking import chunk_text
from knowledge.ingest.documents import Document, documents_from_texts
from knowledge.metrics import INGEST_STAGES, ingest_embedded_texts, ingest_stage_totals

RESULTS = Path(__file__).resolve().parent / "results" / "ingest-musique.json"


def musique_documents(limit: int | None) -> list[Document]:
    """The MuSiQue corpus passages as the multi-hop bench ingests them ("title\\n\\ntext")."""
    corpus = MUSIQUE_DIR / PAIRED_CORPUS
    if not corpus.is_file():
        raise MissingDataError(f"the ingest bench reads {corpus}")
    passages = load_dataset(MUSIQUE_DIR / "questions_dev.json", corpus).passages[:limit]
    return [Document(source_uri=p.key, text=f"{p.title}\n\n{p.text}", title=p.title,
                     metadata={"passage_key": p.key}) for p in passages]


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


async def measure_musique(limit: int | None) -> dict:
    documents = musique_documents(limit)
    async with scratch_app() as kapp:
        chunking = kapp.settings.chunking
        texts = [c.text for d in documents for c in chunk_text(d.text, chunking.chunk_size, chunking.chunk_overlap)]
        kapp.embedder.embed(texts[:8])  # load the model before anything is timed

        def model_run(embed: Callable[[list[str]], object] = kapp.embedder.embed) -> float:
            started = time.perf_counter()
            embed(texts)
            return time.perf_counter() - started

        load_before = loadavg()
        model_first = model_run()
        # the tightest reference: the pipeline's own embedding call (sentence and token vectors, batches grouped
        # by token count) over every chunk at once, so every batch holds the most similar lengths of the corpus
        model_token_grouped = model_run(kapp.embedder.embed_tokens)
        corpus = await kapp.corpora.create("bench_ingest")
        stages_before, texts_before = ingest_stage_totals(), ingest_embedded_texts()
        with Timer() as pipeline:
            report = await kapp.ingest_documents(corpus, documents)
        stages = {k: v - stages_before[k] for k, v in ingest_stage_totals().items()}
        embedded = {k: int(v - texts_before[k]) for k, v in ingest_embedded_texts().items()}
        model_second = model_run()
        load_after = loadavg()
        async with kapp.db.connection() as conn:
            counts = await gq.count_graph(conn, corpus.id)
        canonical = await kapp.canonical.stats()
    model_seconds = (model_first + model_second) / 2
    return {
        "workload": "musique", "documents": len(documents), "chunks": report.chunks_added,
        "model_seconds": [round(model_first, 2), round(model_second, 2)],
        "model_chunks_per_second": round(len(texts) / model_seconds, 2),
        "pipeline_seconds": round(pipeline.seconds, 2),
        "pipeline_chunks_per_second": round(report.chunks_added / pipeline.seconds, 2),
        "ratio": round(model_seconds / pipeline.seconds * report.chunks_added / len(texts), 3),
        "model_token_grouped_seconds": round(model_token_grouped, 2),
        "ratio_token_grouped": round(model_token_grouped / pipeline.seconds * report.chunks_added / len(texts), 3),
        # load-robust view: the pipeline's own chunk-embedding stage, timed inside the same wall time
        "chunk_embedding_share_of_pipeline": round(stages["chunk_embedding"] / pipeline.seconds, 3),
        "stages_seconds": {k: round(v, 2) for k, v in stages.items()},
        "embedded_texts": embedded,
        "entities": counts["entities"], "relations": counts["relations"], "communities": counts["communities"],
        "canonical_links": dict(canonical.links),
        "offload_on_loop": offload.current().on_loop,
        "loadavg_before": load_before, "loadavg_after": load_after, "commit": git_commit(),
        "cpu_count": os.cpu_count(),
    }


def print_musique(result: dict) -> None:
    chunks, wall = result["chunks"], result["pipeline_seconds"]
    print_table(
        f"Ingest throughput, MuSiQue passages (commit {result['commit']}, load {result['loadavg_before']} -> "
        f"{result['loadavg_after']})",
        ["run", "chunks", "seconds", "chunks/s", "vs model"],
        [["model only: chunk embeddings, batched (two runs)", chunks,
          " / ".join(f"{s:.1f}" for s in result["model_seconds"]), result["model_chunks_per_second"], 1.0],
         ["whole pipeline", chunks, wall, result["pipeline_chunks_per_second"], result["ratio"]],
         ["model only: one embed_tokens call (token-grouped batches, the tightest)", chunks,
          result["model_token_grouped_seconds"], round(chunks / result["model_token_grouped_seconds"], 2), ""],
         ["whole pipeline vs the tightest model run", chunks, wall, "", result["ratio_token_grouped"]],
         ["whole pipeline vs its own chunk-embedding stage", chunks, wall, "",
          result["chunk_embedding_share_of_pipeline"]]])
    stages = result["stages_seconds"]
    print_table("Pipeline time by stage (ingest_stage_seconds; stages overlap, so the sum can exceed the wall)",
                ["stage", "seconds", "share of pipeline wall", "ms per chunk", "texts embedded"],
                [[stage, stages[stage], stages[stage] / wall, stages[stage] * 1000 / max(chunks, 1),
                  result["embedded_texts"].get(stage, "")] for stage in INGEST_STAGES]
                + [["sum of stages", sum(stages.values()), sum(stages.values()) / wall, "", ""]])
    print(f"entities {result['entities']}, relations {result['relations']}, communities {result['communities']}, "
          f"canonical links {result['canonical_links']}")


async def measure_search(size: int, query_count: int) -> list[object]:
    async with scratch_app() as kapp:
        corpus = await kapp.corpora.create("bench")
        documents = documents_from_texts((f"doc-{i}", text) for i, text in enumerate(synthetic_chunks(size)))
        with Timer() as ingest_timer:
            report = await kapp.ingest_documents(corpus, documents)
        queries = synthetic_queries(query_count)
        embeddings = kapp.embedder.embed(queries)
        async with kapp.db.connection() as conn:
            with Timer() as hybrid_timer:
                for text, vector in zip(queries, embeddings):
                    await q.hybrid_search(conn, vector, text, [corpus.id], 10)
            with Timer() as rrf_timer:
                for text, vector in zip(queries, embeddings):
                    await q.rrf_search(conn, vector, text, [corpus.id], 10)
    return [size, report.chunks_added, report.chunks_added / ingest_timer.seconds,
            query_count / hybrid_timer.seconds, query_count / rrf_timer.seconds]


async def main(limit: int | None, out: Path | None, sizes: list[int], query_count: int) -> None:
    result = await measure_musique(limit)
    print_musique(result)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {out}")
    if sizes:
        rows = [await measure_search(size, query_count) for size in sizes]
        base = rows[0]
        print_table("Ingest and hybrid search throughput, synthetic chunks (embedding included in ingest)",
                    ["chunks", "added", "ingest chunks/s", "kb_hybrid q/s", "kb_rrf q/s", "hybrid q/s vs smallest"],
                    [r + [r[3] / base[3]] for r in rows])


def cli(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=None, help="only the first N passages (default: all 1,890)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="results JSON ('-' for none)")
    parser.add_argument("--sizes", type=int, nargs="*", default=[], help="also the synthetic search table")
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args(argv)
    out = None if str(args.out) == "-" else args.out
    asyncio.run(main(args.limit, out, args.sizes, args.queries))


if __name__ == "__main__":
    cli()

"""Updating one document in a corpus of 20k chunks (issue 44): what it costs against what it must cost.

In one run: ``--documents`` documents of ``--paragraphs`` synthetic paragraphs each (bench/synthetic.py) go through
the whole ingest pipeline into one corpus (the baseline a rebuild would pay, graph and canonical links included).
Then one document is changed ``--rounds`` times, alternately one sentence (its owner) and back, and ingested
again as a person would (`negentropy ingest` of the changed document): per round the wall time, the database
transaction that swaps the version in (new chunks stored, the old ones, their mentions, relation weight, entities
and canonical bridges removed: ``document_swap`` of knowledge/metrics.py), the embedding of its new chunks, and
the graph, community and canonical stages that follow. Beside it, in the same run: the model embedding the same
new chunks alone, an unchanged re-ingest of the document, and deleting then adding it back.

Run: ``python -m bench.document_update [--documents 270 --paragraphs 100] [--rounds 5]`` (``negentropy bench
document-update``); results in bench/results/document-update.json. The sample is a handful of updates on one
synthetic corpus on a shared 2-core machine: it shows the order of magnitude and what grows with the corpus (the
swap does not), not a tight distribution.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import statistics
from pathlib import Path
from typing import Sequence

from bench.harness import Timer, git_commit, print_table, scratch_app
from bench.synthetic import synthetic_chunks
from knowledge.app import KnowledgeApp
from knowledge.corpora import Corpus
from knowledge.db.queries.chunks import count_chunks
from knowledge.ingest.documents import Document
from knowledge.metrics import ingest_stage_totals

RESULTS = Path(__file__).resolve().parent / "results" / "document-update.json"
TARGET = "vendors/northwind.md"
OWNERS = ("Jane Smith", "Robert Brown")
SENTENCE = "Northwind Traders is a vendor of Kestrel Labs. The owner of Northwind Traders is {owner}."


def documents(count: int, paragraphs: int) -> list[Document]:
    texts = synthetic_chunks(count * paragraphs, seed=44)
    return [Document(f"notes/doc{i:04d}.md", "\n\n".join(texts[i * paragraphs:(i + 1) * paragraphs]), f"doc{i}")
            for i in range(count)]


def target(paragraphs: int, owner: str) -> Document:
    body = synthetic_chunks(paragraphs, seed=4400)
    body[paragraphs // 2] = SENTENCE.format(owner=owner) + " " + body[paragraphs // 2]
    return Document(TARGET, "\n\n".join(body), "northwind")


async def timed_ingest(kapp: KnowledgeApp, corpus: Corpus, document: Document) -> dict[str, float]:
    before = ingest_stage_totals()
    with Timer() as wall:
        report = await kapp.ingest_documents(corpus, [document])
    stages = {k: v - before[k] for k, v in ingest_stage_totals().items()}
    return {"wall_s": wall.seconds, "chunks_added": report.chunks_added, "updated": report.documents_updated,
            **{f"{k}_s": v for k, v in stages.items()}}


async def run(document_count: int, paragraphs: int, rounds: int) -> dict:
    async with scratch_app() as kapp:
        corpus = await kapp.corpora.create("update_bench")
        with Timer() as build:
            await kapp.ingest_documents(corpus, [*documents(document_count, paragraphs),
                                                 target(paragraphs, OWNERS[0])])
        async with kapp.db.connection() as conn:
            chunks = await count_chunks(conn, [corpus.id])
        updates = []
        for index in range(rounds):
            updates.append(await timed_ingest(kapp, corpus, target(paragraphs, OWNERS[(index + 1) % 2])))
        new_texts = await _new_chunk_texts(kapp, corpus)
        with Timer() as model:
            kapp.embedder.embed(new_texts)
        unchanged = await timed_ingest(kapp, corpus, target(paragraphs, OWNERS[rounds % 2]))
        before = ingest_stage_totals()
        with Timer() as deleting:
            await kapp.documents.delete(corpus, [TARGET])
        delete_swap = ingest_stage_totals()["document_swap"] - before["document_swap"]
        added_back = await timed_ingest(kapp, corpus, target(paragraphs, OWNERS[0]))
    median = {key: statistics.median(u[key] for u in updates) for key in updates[0]}
    return {"commit": git_commit(), "documents": document_count + 1, "chunks": chunks,
            "full_ingest_s": build.seconds, "rounds": rounds, "update_median": median, "updates": updates,
            "model_embedding_of_new_chunks_s": model.seconds, "new_chunks_per_update": len(new_texts),
            "unchanged_reingest": unchanged, "delete_wall_s": deleting.seconds, "delete_swap_s": delete_swap,
            "add_back": added_back}


async def _new_chunk_texts(kapp: KnowledgeApp, corpus: Corpus) -> list[str]:
    """The chunks of the target that an update changes (those naming the owner)."""
    view = await kapp.documents.show(corpus, TARGET)
    assert view is not None
    return [c["content"] for c in view.chunks if any(owner in c["content"] for owner in OWNERS)]


def print_result(result: dict) -> None:
    m = result["update_median"]
    rows = [
        ["update one document (median wall)", m["wall_s"], m["wall_s"] / result["full_ingest_s"]],
        ["  swap transaction (database: store, remove, graph and canonical cleanup)", m["document_swap_s"],
         m["document_swap_s"] / result["full_ingest_s"]],
        ["  embedding its new chunks (pipeline stage)", m["chunk_embedding_s"], ""],
        ["  graph extraction + resolution of its new chunks", m["extraction_s"] + m["resolution_s"], ""],
        ["  communities (Leiden, changed components) and canonical links", m["leiden_s"] + m["canonical_linking_s"],
         ""],
        ["the model alone embedding the same new chunks", result["model_embedding_of_new_chunks_s"], ""],
        ["re-ingest of the unchanged document", result["unchanged_reingest"]["wall_s"],
         result["unchanged_reingest"]["wall_s"] / result["full_ingest_s"]],
        ["delete the document (wall, stages included)", result["delete_wall_s"],
         result["delete_wall_s"] / result["full_ingest_s"]],
        ["  its swap transaction", result["delete_swap_s"], ""],
        ["add it back", result["add_back"]["wall_s"], result["add_back"]["wall_s"] / result["full_ingest_s"]],
        ["baseline: the whole corpus through the pipeline", result["full_ingest_s"], 1.0],
    ]
    print_table(f"One document of {result['documents']} ({result['chunks']} chunks), {result['rounds']} updates "
                f"of {result['new_chunks_per_update']} new chunk(s) each, commit {result['commit']}",
                ["what", "seconds", "share of the full ingest"], rows)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--documents", type=int, default=270)
    parser.add_argument("--paragraphs", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", default=str(RESULTS), help="Results JSON ('-' for none)")
    args = parser.parse_args(argv)
    result = asyncio.run(run(args.documents, args.paragraphs, args.rounds))
    print_result(result)
    if args.out != "-":
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

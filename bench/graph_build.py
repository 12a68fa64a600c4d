"""Knowledge-graph build time per 1k chunks: full build, then an incremental ingest on top of it.

Chunks are stored first without the graph step (so chunk embedding is not timed), then
``GraphBuilder.update`` builds the graph exactly as the ingest path does: extraction, resolution against
the existing entities, entity embeddings, batched writes, Leiden communities and summaries.

Workloads: ``recurring`` (bench/synthetic.py: team notes about a few dozen recurring entities),
``encyclopedic`` (synthetic Wikipedia-like passages that each introduce new people, organisations and places)
and ``musique`` (real MuSiQue passages from ../shared/data/musique/corpus.json, when present): in the last
two most entities are new, so entity embedding dominates.

Run: ``python -m bench.graph_build [--sizes 1000 5000] [--increment 200] [--single-ingests 10]
[--workloads encyclopedic]``.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import random
from pathlib import Path

from bench.harness import Timer, print_table, scratch_app
from bench.synthetic import synthetic_chunks
from knowledge.db.queries import graph as gq
from knowledge.ingest.documents import documents_from_texts
from knowledge.ingest.pipeline import IngestPipeline


_SYLLABLES = ["ka", "lo", "mer", "vin", "tas", "ro", "bel", "dun", "sa", "quen", "tor", "li", "mar", "zen", "ha",
              "vel", "or", "pra", "nis", "gal", "te", "sun", "dor", "fi", "ran", "cho", "wel", "mi", "bra", "kes",
              "jo", "pex", "ul", "ny", "gor", "ash", "bi", "cru", "dav", "em", "fo", "gu", "hix", "im", "jur",
              "kal", "mo", "nu", "ob", "pi", "qua", "ri", "sto", "tu", "ub", "va", "wy", "xo", "yel", "zu"]
_PASSAGES = [
    "{person} (born {year}) is a {nationality} composer who studied at the {org} in {place}. In {year2}, "
    "{person} joined {org2} and later founded {org3}. {person2} described the work as influential.",
    "{org} is a record label based in {place}. It was founded in {year} by {person} and acquired by {org2} in "
    "{year2}. Its best known artist is {person2}, who grew up in {place2}.",
    "{place} is a town in the {place2} region. The {org} has its headquarters in {place}, and {person} served as "
    "its mayor from {year} to {year2}. The town is twinned with {place3}.",
    "The {event} was held in {place} in {year}. It was organised by {org} and won by {person}, ahead of "
    "{person2} of {org2}.",
]


def _name(rng: random.Random, parts: int) -> str:
    return " ".join("".join(rng.sample(_SYLLABLES, rng.randint(2, 3))).capitalize() for _ in range(parts))


def encyclopedic_chunks(count: int, seed: int = 13) -> list[str]:
    """Passages about mostly new entities; one in five names recurs from earlier passages."""
    rng = random.Random(seed)
    seen: dict[str, list[str]] = {"person": [], "org": [], "place": []}

    def pick(kind: str) -> str:
        if seen[kind] and rng.random() < 0.2:
            return rng.choice(seen[kind])
        name = {"person": lambda: _name(rng, 2), "org": lambda: _name(rng, 1) + " Records",
                "place": lambda: _name(rng, 1)}[kind]()
        seen[kind].append(name)
        return name

    return [rng.choice(_PASSAGES).format(
        person=pick("person"), person2=pick("person"), org=pick("org"), org2=pick("org"), org3=pick("org"),
        place=pick("place"), place2=pick("place"), place3=pick("place"), event=_name(rng, 1) + " Festival",
        nationality=rng.choice(["Danish", "Chilean", "Welsh", "Korean"]), year=rng.randint(1900, 1990),
        year2=rng.randint(1991, 2020)) for _ in range(count)]


MUSIQUE_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "data" / "musique" / "corpus.json"


def musique_passages(count: int) -> list[str]:
    """The first ``count`` real MuSiQue passages ("title\n\ntext", as the multi-hop bench ingests them)."""
    if not MUSIQUE_CORPUS.exists():
        raise SystemExit(f"the musique workload needs {MUSIQUE_CORPUS}")
    records = json.loads(MUSIQUE_CORPUS.read_text(encoding="utf-8"))
    if len(records) < count:
        raise SystemExit(f"{MUSIQUE_CORPUS} has {len(records)} passages, {count} requested")
    return [f"{r['title']}\n\n{r['text']}" for r in records[:count]]


WORKLOADS = {"recurring": synthetic_chunks, "encyclopedic": encyclopedic_chunks, "musique": musique_passages}
DEFAULT_WORKLOADS = ["recurring", "encyclopedic"] + (["musique"] if MUSIQUE_CORPUS.exists() else [])


async def measure(workload: str, size: int, increment: int, single_ingests: int) -> list[list[object]]:
    async with scratch_app() as kapp:
        corpus = await kapp.corpora.create("bench_graph")
        chunks_only = IngestPipeline(kapp.db, kapp.embedder, kapp.pipeline.releaser, post_ingest=[], progress=False)
        texts = WORKLOADS[workload](size + increment + single_ingests)
        documents = documents_from_texts((f"doc-{i}", text) for i, text in enumerate(texts))
        await chunks_only.ingest_documents(corpus, documents[:size])
        with Timer() as full:
            first = await kapp.graph.update(corpus)
        await chunks_only.ingest_documents(corpus, documents[size:size + increment])
        with Timer() as incremental:
            second = await kapp.graph.update(corpus)
        # many small ingests (one document each): the fixed per-ingest cost of the graph step on a grown corpus
        singles, single_chunks = 0.0, 0
        for document in documents[size + increment:]:
            await chunks_only.ingest_documents(corpus, [document])
            with Timer() as one:
                single_chunks += (await kapp.graph.update(corpus)).chunks
            singles += one.seconds
        async with kapp.db.connection() as conn:
            counts = await gq.count_graph(conn, corpus.id)
    rows = [
        [workload, size, "full build", first.chunks, full.seconds, full.seconds * 1000 / max(first.chunks, 1),
         first.entities_added, first.relations_written, first.communities],
        [workload, size, f"+{increment} incremental", second.chunks, incremental.seconds,
         incremental.seconds * 1000 / max(second.chunks, 1), "", "", ""],
    ]
    if single_ingests:
        rows.append([workload, size + increment, f"{single_ingests} x 1-document ingests", single_chunks, singles,
                     singles * 1000 / max(single_chunks, 1), counts["entities"], counts["relations"],
                     counts["communities"]])
    return rows


async def main(workloads: list[str], sizes: list[int], increment: int, single_ingests: int) -> None:
    rows = [row for workload in workloads for size in sizes
            for row in await measure(workload, size, increment, single_ingests)]
    print_table("Knowledge-graph build (extraction, resolution, entity embeddings, writes, communities)",
                ["workload", "corpus documents", "run", "chunks built", "seconds", "s per 1k chunks", "entities",
                 "relations", "communities"], rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000])
    parser.add_argument("--increment", type=int, default=200)
    parser.add_argument("--single-ingests", type=int, default=10)
    parser.add_argument("--workloads", nargs="+", choices=sorted(WORKLOADS), default=DEFAULT_WORKLOADS)
    args = parser.parse_args()
    asyncio.run(main(args.workloads, args.sizes, args.increment, args.single_ingests))

"""Canonical linker: link_method distribution on the demo corpora and linker time per 1k entities.

Run: ``python -m bench.linker [--sizes 1000 5000] [--corpora 4] [--skip-demo]``.

Part 1 ingests the demo corpora through the normal pipeline (extraction, resolution, canonical linking) and
reports how the linker decided; the design targets (docs/design.md section 6) are auto_string >= 40% of merge
decisions (links that attached an entity to an existing canonical, i.e. everything but new_canonical) and
review <= 5% of links. Part 2 writes synthetic entities straight into the corpus graphs (a share of them
repeated across corpora under spelling variants, with embeddings near their original's) and times a full
relink and an incremental link of one corpus.
"""
from __future__ import annotations

import argparse
import asyncio
import random

import numpy as np

from bench.harness import Timer, print_table, scratch_app
from demo.build import build_demo_corpora
from knowledge.canonical.layer import CanonicalStats
from knowledge.db.queries.canonical import LINK_METHODS
from knowledge.names import normalize_name

TYPES = ("ORG", "PERSON", "PRODUCT", "PLACE", "CONCEPT")
_WORDS = ("Aurora", "Cobalt", "Lumen", "Helios", "Atlas", "Orion", "Quill", "Tidepool", "Meridian", "Kestrel",
          "Granite", "Falcon", "Nimbus", "Beacon", "Harbor", "Solace", "Bluefin", "Northwind", "Tidal", "Ember")
_SUFFIXES = ("Systems", "Labs", "Engine", "Gateway", "Analytics", "Resolver", "Store", "Cloud", "Works", "Group")
_SPELLINGS = (lambda n: n, lambda n: n + " Inc.", lambda n: n.replace(" ", ""), lambda n: n.upper(),
              lambda n: n + " Platform")  # the last one changes the name key: only the embedding can link it


def distribution_rows(stats: CanonicalStats) -> list[list[object]]:
    return [[method, stats.links.get(method, 0), stats.share(method),
             stats.decision_share(method) if method != "new_canonical" else "-"] for method in LINK_METHODS]


async def demo_distribution() -> None:
    async with scratch_app() as kapp:
        with Timer() as timer:
            await build_demo_corpora(kapp)
        stats = await kapp.canonical.stats()
    print_table(f"Demo corpora: link_method distribution ({stats.total_links} entities, "
                f"{stats.cross_corpus_canonicals} canonicals span >= 2 corpora, ingest {timer.seconds:.1f}s)",
                ["link_method", "aliases", "share of links", "share of merge decisions"], distribution_rows(stats))
    auto_string, review = stats.decision_share("auto_string"), stats.review_share
    print_table("Demo corpora: design targets", ["metric", "value", "target", "met"], [
        ["auto_string share of merge decisions", auto_string, ">= 0.40", auto_string >= 0.40],
        ["review share of links", review, "<= 0.05", review <= 0.05],
        ["review queue depth", stats.pending_reviews, "< 1000", stats.pending_reviews < 1000],
    ])


def synthetic_entities(count: int, corpora: int, seed: int = 5) -> list[tuple[int, str, str, np.ndarray]]:
    """(corpus index, name, type, embedding): about 40% of the entities re-appear in another corpus."""
    rng = random.Random(seed)
    vectors = np.random.default_rng(seed)
    originals: list[tuple[str, str, np.ndarray]] = []
    rows: list[tuple[int, str, str, np.ndarray]] = []
    taken: set[tuple[int, str]] = set()
    while len(rows) < count:
        corpus = rng.randrange(corpora)
        if originals and rng.random() < 0.4:
            name, entity_type, base = rng.choice(originals)
            name = rng.choice(_SPELLINGS)(name)
            noise = vectors.standard_normal(base.shape[0]).astype(np.float32)
            embedding = base + 0.25 * noise / np.linalg.norm(noise)
        else:
            name = f"{rng.choice(_WORDS)} {rng.choice(_SUFFIXES)} {len(originals)}"
            entity_type = rng.choice(TYPES)
            embedding = vectors.standard_normal(384).astype(np.float32)
            originals.append((name, entity_type, embedding / np.linalg.norm(embedding)))
        if (corpus, normalize_name(name)) in taken:
            continue
        taken.add((corpus, normalize_name(name)))
        rows.append((corpus, name, entity_type, (embedding / np.linalg.norm(embedding)).astype(np.float32)))
    return rows


async def linker_time(size: int, corpora_count: int) -> list[object]:
    async with scratch_app() as kapp:
        corpora = [await kapp.corpora.create(f"synthetic_{i}") for i in range(corpora_count)]
        entities = synthetic_entities(size, corpora_count)
        cut = int(len(entities) * 0.9)
        async with kapp.db.transaction() as conn:
            await _insert(conn, corpora, entities[:cut])
        with Timer() as full:
            report = await kapp.canonical.rebuild()
        async with kapp.db.transaction() as conn:
            await _insert(conn, corpora, entities[cut:])
        with Timer() as incremental:
            for corpus in corpora:
                await kapp.canonical.link_corpus(corpus)
        stats = await kapp.canonical.stats()
    added = len(entities) - cut
    return [size, corpora_count, full.seconds, full.seconds / cut * 1000, incremental.seconds / added * 1000,
            stats.share("auto_string"), stats.share("auto_embedding"), stats.review_share,
            report.bridges_written]


async def _insert(conn, corpora, entities) -> None:
    await conn.executemany(
        """INSERT INTO kg_entity (corpus_id, app_name, canonical_name, name_normalized, entity_type, embedding, degree)
           VALUES ($1, $2, $3, $4, $5, $6, $7)""",
        [(corpora[c].id, corpora[c].app_name, name, normalize_name(name), entity_type, embedding, 1 + i % 7)
         for i, (c, name, entity_type, embedding) in enumerate(entities)],
    )


async def main(sizes: list[int], corpora: int, skip_demo: bool) -> None:
    if not skip_demo:
        await demo_distribution()
    rows = [await linker_time(size, corpora) for size in sizes]
    print_table("Linker time on synthetic entities (embedding search on, one transaction per run)",
                ["entities", "corpora", "full relink s", "full s / 1k", "incremental s / 1k", "auto_string",
                 "auto_embedding", "review", "bridges"], rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000])
    parser.add_argument("--corpora", type=int, default=4)
    parser.add_argument("--skip-demo", action="store_true", help="only the synthetic timing")
    args = parser.parse_args()
    asyncio.run(main(args.sizes, args.corpora, args.skip_demo))

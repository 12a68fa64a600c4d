"""What the multi-hop bench scores with: the method signature, per-method recall / MRR accumulation, the
planner ablation rows and the loop that runs every method on every question. Shared by bench/multihop.py and
bench/multihop_reference.py."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Awaitable, Callable, Sequence

import numpy as np

from bench.multihop_data import MultiHopDataset, Question, corpus_index
from knowledge.app import KnowledgeApp
from knowledge.retrieval.service import UnifiedRetrievalService

KS = (2, 5, 10)
# Ablations switch one part off or try one HippoRAG 2 idea; the tuning rows move one setting each (every such
# choice is picked on one dev set and reported on the other, see print_cross_set_selection).
PLANNER_ABLATIONS: dict[str, dict[str, object]] = {
    "planner_no_entity_hops": {"entity_hop_weight": 0.0},
    "planner_no_lexical": {"lexical_keep": 0},
    "planner_any_hop": {"hop_evidence": "any"},
    "planner_broad_50": {"entity_hop_max_chunks": 50},
    "planner_hybrid_seeds": {"seed_search": "hybrid"},
    "planner_no_dense_keep": {"dense_keep": 0},
    "planner_dense_keep_3": {"dense_keep": 3},
    "planner_hop_weight_0.35": {"entity_hop_weight": 0.35},
    "planner_no_specificity": {"entity_hop_specificity": 0.0},
    "planner_ppr_passages": {"hop_ppr": True},
    "planner_query_entity_links": {"query_entity_links": 5},
    "planner_fact_filter": {"hop_fact_filter": True},
}
Method = Callable[[str, np.ndarray], Awaitable[list[str]]]


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


def unique_keys(rows, key_of: Callable[[object], str | None]) -> list[str]:
    return [k for k in dict.fromkeys(key_of(r) for r in rows) if k]


def corpus_spread(dataset: MultiHopDataset, question: Question, corpus_count: int) -> int:
    titles = {p.key: p.title for p in dataset.passages}
    return len({corpus_index(titles[k], corpus_count) for k in question.gold_keys})


def ablated_planner(kapp: KnowledgeApp, ids: list, fetch: int, overrides: dict[str, float],
                     key_of_hit: Callable[[object], str | None]) -> Method:
    settings = kapp.settings.model_copy(deep=True)
    settings.planner = settings.planner.model_copy(update=overrides)
    # the app's graph snapshots are shared: one load per corpus instead of one per method (an ablation changing
    # the limits they were read with reads SQL)
    service = UnifiedRetrievalService(kapp.db, kapp.query_cache, settings=settings,
                                      graph_snapshots=kapp.retrieval.graph_snapshots)

    async def search(question: str, vector: np.ndarray) -> list[str]:
        return unique_keys((await service.search(question, ids, ids, limit=fetch)).hits, key_of_hit)

    return search


async def score_questions(kapp: KnowledgeApp, dataset: MultiHopDataset, methods: dict[str, Method], ids: list,
                          before_scoring: Callable[[], None] = lambda: None) -> dict[str, MethodScores]:
    """Every method on every question, timed per method; two unscored warm-up questions first (model, pools,
    plan caches), then the wait for the graph snapshots they queued, so that no method is timed while the snapshots
    load in the background (as in a serving app past its first questions; `bench.planner_stages` does the same). The
    run-log row a planner search writes in the background is waited for after its timing, so no method is charged
    with another's write."""
    scores = {name: MethodScores() for name in methods}
    for question in dataset.questions[:2]:
        for method in methods.values():
            await method(question.question, kapp.query_cache.embed_query(question.question))
    await kapp.retrieval.graph_snapshots.load(ids)
    before_scoring()
    for question in dataset.questions:
        vector = kapp.query_cache.embed_query(question.question)
        for name, method in methods.items():
            start = time.perf_counter()
            ranked = await method(question.question, vector)
            scores[name].seconds += time.perf_counter() - start
            await kapp.db.drain()  # a planner search's background run-log row: not the next method's time
            scores[name].add(ranked, question.gold_keys)
    return scores

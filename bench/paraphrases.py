"""The demo's multi-hop questions and their paraphrases: is the bridged evidence in the top 5?

Each multi-hop case of demo/queries.json names the corpora it is asked over, its primary source and the
document that only the bridge entity connects to the question (``expanded_source``). Each question and its
three paraphrases (same facts, other words) is searched over the case's corpora with search_knowledge_base's
retrieval (UnifiedRetrievalService, every demo corpus accessible) and, in the same run, with dense search over the
same corpora; a question counts when the bridged document is among the first 5 results.

Run: ``negentropy bench paraphrases`` or ``python -m bench.paraphrases``; writes bench/results/paraphrases.json.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import time
from dataclasses import dataclass
from typing import Sequence

from bench.harness import console, git_commit, print_table, scratch_app
from bench.multihop import RESULTS_DIR
from demo.build import build_demo_corpora, load_demo_queries
from knowledge.app import KnowledgeApp
from knowledge.db.queries import chunks as chunk_queries

TOP = 5


@dataclass(frozen=True)
class ParaphraseCase:
    question: str
    paraphrase: bool  # False: the case's own question
    corpora: tuple[str, ...]
    bridged_corpus: str
    bridged_uri: str  # source_uri of the bridged document inside its corpus


def demo_cases() -> list[ParaphraseCase]:
    cases = []
    for case in load_demo_queries()["multi_hop_cases"]:
        uri = case["expanded_source"].split("/", 1)[1]
        for i, question in enumerate([case["question"], *case["paraphrases"]]):
            cases.append(ParaphraseCase(question, i > 0, tuple(case["corpora"]), case["expanded_corpus"], uri))
    return cases


async def bridged_rank(kapp: KnowledgeApp, corpora: dict, case: ParaphraseCase, method: str) -> int | None:
    """1-based rank of the bridged document in ``method``'s results over the case's corpora (None: not in top 5)."""
    requested = [corpora[name].id for name in case.corpora]
    target = corpora[case.bridged_corpus].id
    if method == "planner":
        response = await kapp.retrieval.search(case.question, requested, [c.id for c in corpora.values()], limit=TOP)
        found = [(h.corpus_id, h.source_uri) for h in response.hits]
    else:
        vector = kapp.query_cache.embed_query(case.question)
        async with kapp.db.scoped(requested) as conn:
            rows = await chunk_queries.dense_search(conn, vector, requested, TOP)
        found = [(r["corpus_id"], r["source_uri"]) for r in rows]
    return next((i for i, hit in enumerate(found[:TOP], start=1) if hit == (target, case.bridged_uri)), None)


async def score(kapp: KnowledgeApp, corpora: dict, cases: Sequence[ParaphraseCase]) -> dict:
    rows = []
    for case in cases:
        row = {"question": case.question, "paraphrase": case.paraphrase, "bridged": f"{case.bridged_corpus}/"
               f"{case.bridged_uri}"}
        for method in ("planner", "dense"):
            started = time.perf_counter()
            row[method] = await bridged_rank(kapp, corpora, case, method)
            row[f"{method}_ms"] = 1000 * (time.perf_counter() - started)
        rows.append(row)

    def share(method: str, paraphrase: bool) -> dict:
        picked = [r for r in rows if r["paraphrase"] is paraphrase]
        found = sum(1 for r in picked if r[method] is not None)
        return {"found": found, "of": len(picked), "share": found / len(picked) if picked else float("nan")}

    return {"top": TOP, "methods": {m: {"paraphrases": share(m, True), "questions": share(m, False)}
                                    for m in ("planner", "dense")}, "cases": rows}


def print_results(result: dict) -> None:
    rows = [[m, f"{s['paraphrases']['found']}/{s['paraphrases']['of']}", s["paraphrases"]["share"],
             f"{s['questions']['found']}/{s['questions']['of']}"] for m, s in result["methods"].items()]
    print_table(f"Demo multi-hop paraphrases: bridged evidence in the top {result['top']}",
                ["method", "paraphrases", "share", "original questions"], rows)
    for r in result["cases"]:
        if r["planner"] is None:
            console.print(f"[yellow]missed[/yellow] {r['question']} (bridged: {r['bridged']})")


async def run(write: bool = True) -> dict:
    async with scratch_app() as kapp:
        corpora = await build_demo_corpora(kapp)
        await score(kapp, corpora, demo_cases()[:1])  # warm-up: model and pools (not scored)
        result = await score(kapp, corpora, demo_cases())
    print_results(result)
    if write:
        RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        out = RESULTS_DIR / "paraphrases.json"
        out.write_text(json.dumps({"commit": git_commit(), **result}, indent=2, ensure_ascii=False) + "\n",
                       encoding="utf-8")
        console.print(f"wrote {out}")
    return result


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.parse_args(argv)
    asyncio.run(run())


if __name__ == "__main__":
    main()

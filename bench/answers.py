"""Answer-level eval: the real agent (real tools, real database) on the MuSiQue and HotpotQA dev questions and
the demo multi-hop questions with their paraphrases, against the best sentence of dense top-1 in the same run.

Per set: answer containment (the gold answer or an alias appears, normalised, in the reply's answer text - the
part before "References:", so a cited title does not count), supporting-citation precision (distinct cited
sources that are gold supporting passages; 0 when nothing is cited) and recall, and ms per turn. The dev sets
are each split over three corpora by a hash of the title (as in ``bench.multihop``) and every question
mentions all three; the demo questions mention their case's two corpora. The model is the offline one, or
the LiteLlm model named by NE_MODEL. Run: ``negentropy bench answers`` or ``python -m bench.answers
[--sets musique hotpotqa demo] [--limit-questions N] [--cache-db]``.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import re
import string
import time
import unicodedata
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, AsyncIterator, Sequence
from uuid import UUID

from google.adk.models.base_llm import BaseLlm
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from agents.answer import select_evidence
from agents.model_choice import build_model
from agents.negentropy.agent import build_root_agent
from bench.harness import console, git_commit, print_table, scratch_app
from bench.multihop import RESULTS_DIR
from bench.multihop_data import DatasetSource, MultiHopDataset, corpus_index, dev_sets_by_name
from bench.multihop_ingest import ingested_app
from config import get_settings
from demo.build import build_demo_corpora, load_demo_queries
from knowledge.app import KnowledgeApp
from knowledge.corpora import Corpus
from knowledge.db.queries import chunks as chunk_queries
from knowledge.embedding import get_embedder
from knowledge.gateway import ToolGateway
from knowledge.gateway.rate_limit import RateLimiter
from session.runtime import bind_knowledge_app

SETS = ("musique", "hotpotqa", "demo")
CORPUS_COUNT = 3
BENCH_USER = "local"  # the local operator reads every corpus
_CITATION_RE = re.compile(r"\[(\d+)\]")
_ARTICLES_RE = re.compile(r"\b(?:a|an|the)\b")
_PUNCTUATION = str.maketrans({c: " " for c in string.punctuation + "“”‘’–—"})


@dataclass(frozen=True)
class AnswerCase:
    question: str
    answers: tuple[str, ...]          # the gold answer and its aliases
    gold_sources: frozenset[str]      # "corpus_name/source_uri" of the supporting passages
    corpora: tuple[str, ...]          # the corpus names the question mentions


@dataclass
class Scores:
    contained: list[bool] = field(default_factory=list)
    precision: list[float] = field(default_factory=list)
    recall: list[float] = field(default_factory=list)
    milliseconds: list[float] = field(default_factory=list)
    words: list[int] = field(default_factory=list)

    def add(self, case: AnswerCase, answer_text: str, cited: set[str], ms: float) -> bool:
        hit = contains_answer(answer_text, case.answers)
        found = cited & case.gold_sources
        self.contained.append(hit)
        self.precision.append(len(found) / len(cited) if cited else 0.0)
        self.recall.append(len(found) / len(case.gold_sources) if case.gold_sources else 0.0)
        self.milliseconds.append(ms)
        self.words.append(len(answer_text.split()))
        return hit

    def summary(self) -> dict[str, float]:
        mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")  # noqa: E731
        return {"containment": mean([float(c) for c in self.contained]), "citation_precision": mean(self.precision),
                "citation_recall": mean(self.recall), "ms_per_turn": mean(self.milliseconds),
                "words_per_reply": mean([float(w) for w in self.words])}


def normalise(text: str) -> str:
    """Lower case, no punctuation, no articles, single spaces (the usual answer normalisation)."""
    text = unicodedata.normalize("NFKC", text).casefold().translate(_PUNCTUATION)
    return " ".join(_ARTICLES_RE.sub(" ", text).split())


def contains_answer(text: str, answers: Sequence[str]) -> bool:
    haystack = f" {normalise(text)} "
    return any(needle and f" {needle} " in haystack for needle in (normalise(a) for a in answers))


def answer_text(reply: str) -> str:
    """The reply without its reference list, cross-corpus links and notices."""
    return reply.split("\nReferences:", 1)[0].strip()


def cited_sources(reply: str, tool_results: list[dict[str, Any]]) -> set[str]:
    """The sources behind the [n] citations of the reply's answer text."""
    numbers = {int(n) for n in _CITATION_RE.findall(answer_text(reply))}
    return {f"{r.get('corpus_name')}/{r.get('source_uri')}" for r in tool_results
            if int(r.get("citation_id") or 0) in numbers}


async def ask_agent(runner: Runner, text: str) -> tuple[str, list[dict[str, Any]]]:
    """One turn in a new session: the reply text and the evidence items of every tool result."""
    session = await runner.session_service.create_session(app_name=runner.app_name, user_id=BENCH_USER)
    message = types.Content(role="user", parts=[types.Part(text=text)])
    replies: list[str] = []
    evidence: list[dict[str, Any]] = []
    async for event in runner.run_async(user_id=BENCH_USER, session_id=session.id, new_message=message):
        for part in (event.content.parts or []) if event.content else []:
            if part.text and not event.partial:
                replies.append(part.text)
            if part.function_response:
                response = dict(part.function_response.response or {})
                evidence += list(response.get("results") or []) + list(response.get("papers") or [])
    return "\n".join(replies), evidence


@dataclass
class Workspace:
    """One set's corpora on its own database, with its questions."""

    kapp: KnowledgeApp
    corpus_ids: dict[str, UUID]       # by corpus name
    cases: list[AnswerCase]

    def source_of(self, row: dict[str, Any]) -> str:
        name = next(n for n, cid in self.corpus_ids.items() if cid == row["corpus_id"])
        return f"{name}/{row['source_uri']}"


async def dense_top1_sentence(workspace: Workspace, case: AnswerCase) -> tuple[str, set[str]]:
    """The baseline: the best sentence (same sentence scorer) of the single best dense chunk."""
    kapp = workspace.kapp
    ids = [workspace.corpus_ids[name] for name in case.corpora]
    vector = kapp.query_cache.embed_query(case.question)
    async with kapp.db.scoped(ids) as conn:
        rows = await chunk_queries.dense_search(conn, vector, ids, 1)
    if not rows:
        return "", set()
    row = dict(rows[0])
    best = select_evidence(case.question, [{"content": row["content"], "title": (row["metadata"] or {}).get("title"),
                                            "citation_id": 1}], limit=1)
    return (best[0].sentence if best else ""), {workspace.source_of(row)}


async def evaluate(workspace: Workspace, model: BaseLlm | None) -> dict[str, Any]:
    runner = Runner(agent=build_root_agent(model), app_name="negentropy", session_service=InMemorySessionService())
    agent, baseline = Scores(), Scores()
    rows = []
    with bind_knowledge_app(workspace.kapp):
        for case in workspace.cases:
            mentions = " ".join(f"@{name}" for name in case.corpora)
            start = time.perf_counter()
            reply, evidence = await ask_agent(runner, f"{case.question} {mentions}")
            agent_ms = 1000 * (time.perf_counter() - start)
            agent_hit = agent.add(case, answer_text(reply), cited_sources(reply, evidence), agent_ms)
            start = time.perf_counter()
            sentence, cited = await dense_top1_sentence(workspace, case)
            baseline_hit = baseline.add(case, sentence, cited, 1000 * (time.perf_counter() - start))
            rows.append({"question": case.question, "answers": list(case.answers), "agent": agent_hit,
                         "baseline": baseline_hit, "reply": answer_text(reply), "baseline_sentence": sentence})
    return {"questions": len(workspace.cases), "agent": agent.summary(), "baseline": baseline.summary(),
            "cases": rows}


def load_dev_set(source: DatasetSource, limit: int | None) -> MultiHopDataset:
    """A dev set (its questions, over their corpus or their own paragraphs), named as bench.multihop names it, so
    the two benches' cached databases are the same."""
    dataset = source.load()
    dataset.questions = dataset.questions[:limit] if limit else dataset.questions
    return dataset


def dev_workspace(kapp: KnowledgeApp, dataset: MultiHopDataset, corpora: Sequence[Corpus]) -> Workspace:
    """A dev set split over three corpora (bench.multihop's N = 3 split); every question mentions all three."""
    corpus_of = {p.key: corpora[corpus_index(p.title, CORPUS_COUNT)].name for p in dataset.passages}
    names = tuple(c.name for c in corpora)
    cases = [AnswerCase(q.question, (q.answer, *q.aliases), frozenset(f"{corpus_of[k]}/{k}" for k in q.gold_keys),
                        names) for q in dataset.questions]
    return Workspace(kapp, {c.name: c.id for c in corpora}, cases)


async def demo_workspace(kapp: KnowledgeApp, limit: int | None) -> Workspace:
    """The demo corpora; each multi-hop case's question and its paraphrases mention the case's two corpora."""
    corpora = await build_demo_corpora(kapp)
    cases = []
    for case in load_demo_queries()["multi_hop_cases"]:
        expanded = f"{case['expanded_corpus']}/{case['expanded_source'].split('/', 1)[1]}"
        gold = frozenset({case["primary_source"], expanded})
        for question in [case["question"], *case["paraphrases"]]:
            cases.append(AnswerCase(question, tuple(case["answer_aliases"]), gold, tuple(case["corpora"])))
    return Workspace(kapp, {name: c.id for name, c in corpora.items()}, cases[:limit] if limit else cases)


def unthrottled(kapp: KnowledgeApp) -> KnowledgeApp:
    """The bench asks over a hundred questions back to back as one person: the per-person rate limit would refuse
    some of them, how many depending on the machine's speed, and make the figures irreproducible."""
    kapp.gateway = ToolGateway(kapp.db, kapp.settings, kapp.access, RateLimiter(rate=1000.0, burst=1000))
    return kapp


@asynccontextmanager
async def set_workspace(name: str, dev_sets: dict[str, DatasetSource], limit: int | None,
                        server_dsn: str | None, cache: bool) -> AsyncIterator[Workspace]:
    """The set's corpora on their own database; with ``cache`` a dev set's ingested database of an earlier run
    (bench.multihop --cache-db builds the same one) is reused while ingest code and data are unchanged."""
    if name == "demo":
        async with scratch_app(server_dsn=server_dsn) as kapp:
            yield await demo_workspace(unthrottled(kapp), limit)
        return
    dataset = load_dev_set(dev_sets[name], limit)
    async with ingested_app(dataset, CORPUS_COUNT, embedder=get_embedder(), server_dsn=server_dsn,
                            cache=cache) as (kapp, corpora):
        yield dev_workspace(unthrottled(kapp), dataset, corpora)


def print_results(results: dict[str, dict[str, Any]], model_name: str) -> None:
    rows = []
    for name, result in results.items():
        agent, baseline = result["agent"], result["baseline"]
        ratio = agent["containment"] / baseline["containment"] if baseline["containment"] else float("inf")
        for method, m in ((f"agent ({model_name})", agent), ("dense top-1 sentence", baseline)):
            rows.append([name, result["questions"], method, m["containment"], m["citation_precision"],
                         m["citation_recall"], m["ms_per_turn"], m["words_per_reply"],
                         f"{ratio:.2f}x" if m is agent else "1.00x"])
    print_table("Answers: containment of the gold answer, supporting-citation precision / recall, ms per turn",
                ["set", "questions", "method", "containment", "cite P", "cite R", "ms/turn", "words/reply",
                 "containment vs baseline"], rows)


async def run(sets: Sequence[str], limit_questions: int | None = None, model: BaseLlm | None = None,
              write: bool = True, server_dsn: str | None = None,
              dev_sets: dict[str, DatasetSource] | None = None,
              cache: bool = False) -> dict[str, dict[str, Any]]:
    """Each set on its own database; ``model`` None = the configured one (offline or NE_MODEL); ``dev_sets`` None
    = the shared data's (read only when a set other than the demo is asked for)."""
    if dev_sets is None:
        dev_sets = dev_sets_by_name() if any(name != "demo" for name in sets) else {}
    settings = get_settings()
    model = model or build_model(settings)
    results: dict[str, dict[str, Any]] = {}
    started = time.perf_counter()
    for name in sets:
        if name != "demo" and name not in dev_sets:
            raise ValueError(f"unknown set {name!r}; choose from {', '.join([*dev_sets, 'demo'])}")
        async with set_workspace(name, dev_sets, limit_questions, server_dsn, cache) as workspace:
            results[name] = await evaluate(workspace, model)
    model_name = settings.model or model.model
    print_results(results, model_name)
    console.print(f"total {time.perf_counter() - started:.0f} s")
    if write:
        RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        out = RESULTS_DIR / "answers.json"
        out.write_text(json.dumps({"commit": git_commit(), "model": model_name, "corpora_per_dev_set": CORPUS_COUNT,
                                   "results": results}, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        console.print(f"wrote {out}")
    return results


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", choices=SETS, default=list(SETS))
    parser.add_argument("--limit-questions", type=int, default=None, help="only the first N questions of each set")
    parser.add_argument("--data", type=Path, default=None,
                        help="folder holding musique/ and hotpotqa/ (default: the shared data beside the checkout)")
    parser.add_argument("--cache-db", action="store_true",
                        help="reuse (or keep) the dev sets' ingested databases, as bench multihop --cache-db does")
    args = parser.parse_args(argv)
    if args.limit_questions is not None and args.limit_questions < 1:
        parser.error("--limit-questions must be positive")
    dev_sets = dev_sets_by_name(args.data) if args.data is not None else None
    asyncio.run(run(args.sets, args.limit_questions, dev_sets=dev_sets, cache=args.cache_db))


if __name__ == "__main__":
    main()

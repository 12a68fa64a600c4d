"""Evaluations of context libraries (docs/design.md section 8).

Scope eval: seven permission cases over the demo topology (personal, department, project, cross-department
project, employee transfer, archived project, permission change with a stale index), each run once with the
production connector and once with a connector that ignores every filter. A check passes when the expected
libraries come back through the Context Router and not one row of a forbidden library comes back, neither
through routing nor when the request names every corpus in the database. Changes are edits of a copy of the
topology file made between two requests on the same resolver and router, with every cache warm.

Context eval: questions with the libraries that should answer them and evidence phrases; it reports
evidence coverage and the tokens loaded by the routed libraries against loading every accessible library
(same evidence budget per library), plus knowledge gaps and the owner suggested.
"""
from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Callable, Mapping, Sequence
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from knowledge.context.connectors import ConnectorRequest, ConnectorResult, SearchConnector
from knowledge.context.permissions import AccessResolver, ResolvedView
from knowledge.context.router import ContextRouter
from knowledge.context.topology import DEMO_TOPOLOGY_PATH, load_topology, parse_topology
from knowledge.retrieval.results import SearchHit

EVIDENCE_PER_LIBRARY = 5
_TOKEN_RE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]|[^\W_]+|[^\w\s]", re.UNICODE)


def estimate_tokens(text: str) -> int:
    """Approximate LLM tokens: words, punctuation marks and CJK characters each count one."""
    return len(_TOKEN_RE.findall(text))


def _normalized(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


# ====================================================================== scope eval
@dataclass(frozen=True)
class ScopeCheck:
    person: str
    query: str
    expected: tuple[str, ...] = ()   # library ids whose rows must come back through the router
    forbidden: tuple[str, ...] = ()  # library ids that must leak zero rows


TopologyEdit = Callable[[dict], None]


@dataclass(frozen=True)
class ScopeCase:
    name: str
    description: str
    checks: tuple[ScopeCheck, ...]
    before: tuple[ScopeCheck, ...] = ()  # run (and cached) before ``change``
    change: TopologyEdit | None = None


def _move_person(person: str, department: str) -> TopologyEdit:
    def edit(data: dict) -> None:
        next(p for p in data["people"] if p["id"] == person)["department"] = department
    return edit


def _archive_project(project: str) -> TopologyEdit:
    def edit(data: dict) -> None:
        next(p for p in data["projects"] if p["id"] == project)["status"] = "archived"
    return edit


def _revoke_grant(person: str, library: str) -> TopologyEdit:
    def edit(data: dict) -> None:
        view = next(v for v in data["permission_views"] if v["person"] == person)
        view["grant"] = [g for g in view.get("grant", []) if g != library]
    return edit


_Q_NOTES = "What did I note about the Aurora compaction window during the reindex dry run?"
_Q_CONTRACT = "How much did the Cobalt Systems labeling contract cost?"
_Q_BOREALIS = "What did the Borealis pilot review decide about the renewal briefs?"
_Q_ORION = "When does Orion 1.0 launch and what is the auto-routing accuracy?"
_Q_AURORA = "Who developed the Aurora Vector Engine?"

SCOPE_CASES: tuple[ScopeCase, ...] = (
    ScopeCase("personal", "a personal library is readable by its owner only", (
        ScopeCheck("kenji", _Q_NOTES, ("kenji-notes",), ("li-na-notes",)),
        ScopeCheck("li_na", _Q_NOTES, ("platform-docs",), ("kenji-notes",)),
    )),
    ScopeCase("department", "a department library is readable by that department only", (
        ScopeCheck("greta", _Q_CONTRACT, ("finance-ledger",), ("platform-docs", "research-papers", "kenji-notes")),
        ScopeCheck("kenji", _Q_CONTRACT, ("team-notes",), ("finance-ledger",)),
    )),
    ScopeCase("project", "a project library is readable by the project's members only", (
        ScopeCheck("jonas", _Q_BOREALIS, ("borealis-workspace",), ("kenji-notes", "orion-workspace")),
        ScopeCheck("lea", _Q_BOREALIS, ("platform-docs",), ("borealis-workspace",)),
    )),
    ScopeCase("cross-department project", "members from two departments share the project library, and "
              "only it", (
        ScopeCheck("li_na", _Q_ORION, ("orion-workspace",), ("borealis-workspace", "finance-ledger")),
        ScopeCheck("tomasz", _Q_ORION, ("orion-workspace",), ("li-na-notes", "finance-ledger")),
        ScopeCheck("kenji", _Q_ORION, ("platform-docs",), ("orion-workspace",)),
        ScopeCheck("wang_hao", _Q_ORION, ("orion-workspace",), ("team-notes", "platform-docs")),
    )),
    ScopeCase("employee transfer", "Aylin moves from Platform Engineering to Finance", (
        ScopeCheck("aylin", _Q_CONTRACT, ("finance-ledger",), ("platform-docs",)),
    ), before=(ScopeCheck("aylin", _Q_CONTRACT, ("platform-docs",), ("finance-ledger",)),),
        change=_move_person("aylin", "finance")),
    ScopeCase("archived project", "Project Borealis is archived: its members (and its owner) lose the library", (
        ScopeCheck("jonas", _Q_BOREALIS, (), ("borealis-workspace",)),
        ScopeCheck("kenji", _Q_BOREALIS, (), ("borealis-workspace",)),
    ), before=(ScopeCheck("jonas", _Q_BOREALIS, ("borealis-workspace",), ()),),
        change=_archive_project("borealis")),
    ScopeCase("permission change (stale index)", "Kenji's grant of the research papers is revoked after his "
              "searches warmed every cache", (
        ScopeCheck("kenji", _Q_AURORA, (), ("research-papers",)),
    ), before=(ScopeCheck("kenji", _Q_AURORA, ("research-papers",), ()),),
        change=_revoke_grant("kenji", "research-papers")),
)


class CountingConnector:
    """Wraps a connector and counts the rows it returns per corpus, before the guard sees them."""

    def __init__(self, inner: SearchConnector) -> None:
        self.inner = inner
        self.name = inner.name
        self.rows: Counter[UUID] = Counter()

    async def search(self, request: ConnectorRequest) -> ConnectorResult:
        result = await self.inner.search(request)
        self.rows.update(h.corpus_id for h in result.hits)
        return result


@dataclass
class ScopeRow:
    case: str
    phase: str          # "before" | "after" | "" (no change in this case)
    person: str
    connector: str
    expected: tuple[str, ...]
    returned: tuple[str, ...]   # libraries with rows in the routed result
    forbidden: tuple[str, ...]
    connector_forbidden_rows: int  # forbidden rows the connector handed back (the guard dropped them)
    leaked_rows: int               # forbidden rows in what the caller got

    @property
    def expected_ok(self) -> bool:
        return set(self.expected) <= set(self.returned)

    @property
    def passed(self) -> bool:
        return self.expected_ok and self.leaked_rows == 0


class ScopeEvalError(RuntimeError):
    pass


async def run_scope_eval(router: ContextRouter, connectors: Mapping[str, SearchConnector], workdir: Path, *,
                         cases: Sequence[ScopeCase] = SCOPE_CASES,
                         base_topology: Path = DEMO_TOPOLOGY_PATH) -> list[ScopeRow]:
    """Every case with every connector (by name), each through a copy of ``router`` over an edited copy of the
    topology and that connector; ``workdir`` receives the edited topology copies."""
    base = json.loads(Path(base_topology).read_text(encoding="utf-8"))
    rows: list[ScopeRow] = []
    for connector_name, connector in connectors.items():
        for case in cases:
            path = Path(workdir) / f"topology-{connector_name}-{re.sub(r'[^a-z]+', '-', case.name)}.json"
            path.write_text(json.dumps(base, ensure_ascii=False, indent=1), encoding="utf-8")
            access = router.access.with_topology(partial(load_topology, path))
            counting = CountingConnector(connector)
            case_router = router.with_access(access).with_connector(counting)
            phase = "before" if case.change else ""
            for check in case.before:
                rows.append(await _run_check(access, case_router, counting, case.name, phase, check))
            if case.change is not None:
                edited = json.loads(path.read_text(encoding="utf-8"))
                case.change(edited)
                parse_topology(edited, f"{case.name} edit")
                path.write_text(json.dumps(edited, ensure_ascii=False, indent=1), encoding="utf-8")
                phase = "after"
            for check in case.checks:
                rows.append(await _run_check(access, case_router, counting, case.name, phase, check))
    return rows


async def _run_check(access: AccessResolver, router: ContextRouter, counting: CountingConnector, case: str,
                     phase: str, check: ScopeCheck) -> ScopeRow:
    view = await access.resolve(check.person)
    every_corpus = {c.name: c.id for c in await access.corpora.list()}
    forbidden = _forbidden_corpus_ids(view, check, every_corpus)
    counting.rows.clear()
    routed = await router.search_view(check.query, view, None)
    named = await router.search_view(check.query, view, list(every_corpus.values()))
    returned = tuple(dict.fromkeys(lib.id for hit in routed.hits for lib in view.libraries_of_corpus(hit.corpus_id)))
    leaked = sum(1 for hit in [*routed.hits, *named.hits] if hit.corpus_id in forbidden)
    return ScopeRow(case, phase, check.person, counting.name, check.expected, returned, check.forbidden,
                    sum(counting.rows[c] for c in forbidden), leaked)


def _forbidden_corpus_ids(view: ResolvedView, check: ScopeCheck, every_corpus: dict[str, UUID]) -> set[UUID]:
    """Corpora of the forbidden libraries. They must exist (or the check proves nothing) and must not be
    readable through another library (or the case is wrong)."""
    names: set[str] = set()
    for library_id in check.forbidden:
        library = view.topology.library(library_id)
        if library is None:
            raise ScopeEvalError(f"scope case names unknown library {library_id!r}")
        names |= set(library.corpora)
    missing = names - set(every_corpus)
    if missing:
        raise ScopeEvalError(f"corpora {', '.join(sorted(missing))} do not exist: build the demo corpora first")
    clash = names & {c.name for c in view.accessible_corpora}
    if clash:
        raise ScopeEvalError(f"{check.person} can read {', '.join(sorted(clash))} through another library, so it "
                             "cannot be forbidden in this check")
    return {every_corpus[n] for n in names}


# ====================================================================== context eval
class ContextQuestion(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    person: str
    question: str
    expected_libraries: tuple[str, ...] = ()
    evidence: tuple[str, ...] = Field(default=(), description="phrases the loaded context should contain")
    expect_gap: bool = False
    expected_owner: str | None = None
    task_kind: str | None = None
    note: str = ""


class ContextQuestionSet(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    questions: tuple[ContextQuestion, ...] = Field(min_length=1)


def load_context_questions(path: Path) -> list[ContextQuestion]:
    return list(ContextQuestionSet.model_validate_json(Path(path).read_text(encoding="utf-8")).questions)


@dataclass
class ContextRow:
    id: str
    person: str
    task_kind: str
    routed: tuple[str, ...]
    expected_libraries: tuple[str, ...]
    accessible_libraries: int
    coverage_routed: float
    coverage_all: float
    tokens_routed: int
    tokens_all: int
    gap: str | None            # gap reason, None when no gap was reported
    expect_gap: bool
    owner: str | None          # owner the gap names
    expected_owner: str | None
    missing_evidence: tuple[str, ...] = field(default=())

    @property
    def libraries_ok(self) -> bool:
        return set(self.expected_libraries) <= set(self.routed)

    @property
    def gap_ok(self) -> bool:
        return (self.gap is not None) == self.expect_gap

    @property
    def owner_ok(self) -> bool:
        return self.expected_owner is None or self.owner == self.expected_owner


def _coverage(phrases: Sequence[str], hits: Sequence[SearchHit]) -> tuple[float, tuple[str, ...]]:
    if not phrases:
        return 1.0, ()
    text = _normalized(" ".join(h.content for h in hits))
    missing = tuple(p for p in phrases if _normalized(p) not in text)
    return 1 - len(missing) / len(phrases), missing


async def run_context_eval(router: ContextRouter, questions: Sequence[ContextQuestion]) -> list[ContextRow]:
    """Route each question as its person, then load ``EVIDENCE_PER_LIBRARY`` passages per library from the
    routed libraries and, for comparison, from every library the person can read."""
    rows: list[ContextRow] = []
    for q in questions:
        view = await router.access.resolve(q.person)
        decision = await router.route(q.question, view, q.task_kind)
        accessible = view.accessible_corpus_ids
        readable = [g.library.id for g in view.grants if view.corpora_of(g.library.id)]
        routed = await router.guard.search(q.question, decision.corpus_ids, accessible,
                                           limit=EVIDENCE_PER_LIBRARY * max(len(decision.selected), 1))
        everything = await router.guard.search(q.question, accessible, accessible,
                                               limit=EVIDENCE_PER_LIBRARY * max(len(readable), 1))
        coverage_routed, missing = _coverage(q.evidence, routed.hits)
        coverage_all, _ = _coverage(q.evidence, everything.hits)
        gap = decision.gap
        rows.append(ContextRow(
            q.id, q.person, decision.task_kind, tuple(decision.library_ids), q.expected_libraries, len(readable),
            coverage_routed, coverage_all, sum(estimate_tokens(h.content) for h in routed.hits),
            sum(estimate_tokens(h.content) for h in everything.hits), gap.reason if gap else None, q.expect_gap,
            gap.owner_id if gap else None, q.expected_owner, missing))
    return rows


@dataclass(frozen=True)
class ContextSummary:
    questions: int
    coverage_routed: float
    coverage_all: float
    tokens_routed: int
    tokens_all: int
    libraries_ok: int
    gaps_ok: int
    owners_ok: int

    @property
    def tokens_saved(self) -> float:
        return 1 - self.tokens_routed / self.tokens_all if self.tokens_all else 0.0


def summarize_context(rows: Sequence[ContextRow]) -> ContextSummary:
    n = len(rows) or 1
    return ContextSummary(
        len(rows), sum(r.coverage_routed for r in rows) / n, sum(r.coverage_all for r in rows) / n,
        sum(r.tokens_routed for r in rows), sum(r.tokens_all for r in rows), sum(r.libraries_ok for r in rows),
        sum(r.gap_ok for r in rows), sum(r.owner_ok for r in rows))

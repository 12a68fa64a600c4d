"""`negentropy topology ...`, `negentropy card ...` and `negentropy eval ...`: context libraries on the CLI."""
from __future__ import annotations

import functools
import tempfile
from pathlib import Path
from typing import Any, Awaitable, Callable, List, Optional, Sequence

import typer
from rich.table import Table

from cli.common import open_app, run_async
from cli.console import console, fail
from demo.build import build_context_demo
from knowledge.context.cards import Card
from knowledge.context.connectors import CONNECTOR_NAMES
from knowledge.context.evals import (ContextRow, ScopeEvalError, ScopeRow, load_context_questions, run_context_eval,
                                     run_scope_eval, summarize_context)
from knowledge.context.lint import lint_topology
from knowledge.context.permissions import UnknownPersonError, person_view
from knowledge.context.router import ContextSearchResult, RoutingDecision
from knowledge.context.topology import load_topology

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_QUESTIONS = REPO_ROOT / "tests" / "data" / "context_questions.json"

topology_app = typer.Typer(help="Workspace topology: people, context libraries, permission views.",
                           no_args_is_help=True)
card_app = typer.Typer(help="Knowledge cards: submit, review, promote or reject.", no_args_is_help=True)
eval_app = typer.Typer(help="Scope (permission) and context-routing evaluations.", no_args_is_help=True)


def person_errors(func: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """Unknown people and broken eval cases become one clear error line."""

    @functools.wraps(func)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return await func(*args, **kwargs)
        except (UnknownPersonError, ScopeEvalError) as exc:
            fail(str(exc))

    return wrapper


# ---------------------------------------------------------------------------- topology
@topology_app.command("lint")
@run_async
async def topology_lint(path: Optional[Path] = typer.Argument(None, help="Topology JSON (default: NE_TOPOLOGY_PATH "
                                                                          "or the demo topology)"),
                        check_corpora: bool = typer.Option(False, help="Also warn about corpora that do not exist")
                        ) -> None:
    """Validate a topology file: errors stop it from loading, warnings point at likely leaks or surprises."""
    existing = None
    if check_corpora:
        async with await open_app(progress=False) as kapp:
            existing = [c.name for c in await kapp.corpora.list()]
    report = lint_topology(path, existing)
    for issue in report.issues:
        colour = "red" if issue.severity == "error" else "yellow"
        console.print(f"[{colour}]{issue.severity}[/]: {issue.message}")
    if report.topology is not None:
        t = report.topology
        console.print(f"{report.source}: {len(t.people)} people, {len(t.departments)} departments, "
                      f"{len(t.projects)} projects, {len(t.context_libraries)} libraries, "
                      f"{len(t.permission_views)} permission views; {len(report.warnings)} warnings")
    if report.errors:
        console.print(f"{report.source}: {len(report.errors)} errors")
        raise typer.Exit(code=1)


@topology_app.command("view")
@run_async
@person_errors
async def topology_view(person: str) -> None:
    """The libraries PERSON can read right now, and why."""
    grants = person_view(load_topology(), person)
    table = Table("library", "scope", "corpora", "owner", "why")
    for grant in grants:
        lib = grant.library
        scope = lib.scope.kind.value + (f" {lib.scope.ref}" if lib.scope.ref else "")
        table.add_row(lib.id, scope, ", ".join(lib.corpora), lib.owner, grant.via)
    console.print(table)


# ---------------------------------------------------------------------------- cards
def print_cards(cards: Sequence[Card]) -> None:
    if not cards:
        console.print("no cards")
        return
    table = Table("id", "status", "author", "target", "title", "reviewed by", "decided by")
    for card in cards:
        table.add_row(str(card.id), card.review_status, card.author, card.target_library, card.title[:60],
                      card.reviewed_by or "", card.decided_by or "")
    console.print(table)


@card_app.command("submit")
@run_async
@person_errors
async def card_submit(text: Optional[str] = typer.Argument(None, help="The card's text (or use --file)"),
                      as_: str = typer.Option(..., "--as", help="Author (a person id of the topology)"),
                      to: str = typer.Option(..., "--to", help="Target library id or corpus name"),
                      file: Optional[Path] = typer.Option(None, "--file", "-f", help="Read the text from a file"),
                      title: str = typer.Option("", help="Card title (default: first line)")) -> None:
    """Submit a knowledge card: it waits in the author's inbox until a reviewer promotes it."""
    if (text is None) == (file is None):
        fail("give the card text or --file, not both")
    content = file.read_text(encoding="utf-8") if file else text
    async with await open_app(progress=False) as kapp:
        card = await kapp.cards.submit(as_, content or "", to, title=title, source="cli")
    console.print(f"card [bold]{card.id}[/] for {card.target_library}: {card.review_status} "
                  f"(only {card.author} can search it until it is promoted)")


@card_app.command("list")
@run_async
@person_errors
async def card_list(as_: str = typer.Option(..., "--as", help="Author")) -> None:
    """The cards a person submitted, newest first."""
    async with await open_app(progress=False) as kapp:
        print_cards(await kapp.cards.mine(as_))


@card_app.command("review")
@run_async
@person_errors
async def card_review(card_id: Optional[int] = typer.Argument(None, help="Mark this card reviewed (omit: list "
                                                                          "the review queue)"),
                      as_: str = typer.Option(..., "--as", help="Reviewer"),
                      note: str = typer.Option("", help="Review note")) -> None:
    """List the cards PERSON may review, or mark one reviewed (then `card decide` promotes or rejects it)."""
    async with await open_app(progress=False) as kapp:
        if card_id is None:
            print_cards(await kapp.cards.queue(as_))
            return
        card = await kapp.cards.review(card_id, as_, note)
    console.print(f"card {card.id}: {card.review_status} by {card.reviewed_by}")


@card_app.command("decide")
@run_async
@person_errors
async def card_decide(card_id: int, decision: str = typer.Argument(..., help="promote or reject"),
                      as_: str = typer.Option(..., "--as", help="Reviewer"),
                      note: str = typer.Option("", help="Decision note")) -> None:
    """Promote a reviewed card into its target corpus, or reject it."""
    async with await open_app(progress=False) as kapp:
        card = await kapp.cards.decide(card_id, as_, decision, note)
    console.print(f"card {card.id}: {card.review_status} by {card.decided_by}"
                  + (f" ({card.promoted_chunk_count} chunks in {card.target_library})"
                     if card.review_status == "promoted" else ""))


# ---------------------------------------------------------------------------- search output
WIDE_ROUTING_COLUMNS = 150  # below this width the router table shows the main scores and lists the reasons


def print_routing(decision: RoutingDecision, wide: bool = False) -> None:
    """Every score column when the terminal is wide enough (or ``wide``); otherwise the main scores in a table
    that fits, with each library's reason on its own line below it."""
    console.print(f"[bold]Context Router[/] as {decision.who}: task {decision.task_kind}; "
                  f"entities {', '.join(decision.entities) or 'none'}")
    if wide or console.width >= WIDE_ROUTING_COLUMNS:
        table = Table("library", "via", "total", "relevance", "probe", "descr.", "fresh", "owner conf.", "task",
                      "cost", "rules", "chosen", "why")
        for c in decision.candidates:
            table.add_row(c.library.id, c.via, f"{c.total:.3f}", f"{c.relevance:.3f}", f"{c.probe:.3f}",
                          f"{c.description:.3f}", f"{c.freshness:.2f}", f"{c.library.owner_confidence:.2f}",
                          f"{c.task_fit:.1f}", f"{c.cost:.2f} ({c.chunk_count})", ", ".join(c.rules),
                          "yes" if c in decision.selected else "", c.reason)
        console.print(table)
        return
    table = Table("#", "library", "total", "relev.", "probe", "cost", "chosen")
    for row, c in enumerate(decision.candidates, start=1):
        table.add_row(str(row), c.library.id, f"{c.total:.3f}", f"{c.relevance:.3f}", f"{c.probe:.3f}",
                      f"{c.cost:.2f}", "yes" if c in decision.selected else "")
    console.print(table)
    for row, c in enumerate(decision.candidates, start=1):
        rules = f" (rules: {', '.join(c.rules)})" if c.rules else ""
        console.print(f"  {row}. {c.library.id}: {c.reason}{rules}", markup=False, highlight=False)
    console.print("  (--wide: every score column)", style="dim")


def print_search_explain(result: ContextSearchResult, wide: bool = False) -> None:
    if result.decision is not None:
        print_routing(result.decision, wide)
    response = result.response
    guarded = result.guarded
    console.print(f"retrieval mode {response.mode}, query kind {response.query_kind}, graph expansion "
                  f"{'on' if response.graph_expansion else 'off'}; connector {guarded.connector} returned "
                  f"{guarded.returned} rows, the permission guard dropped {guarded.dropped}")
    for stage in response.trace:
        console.print(f"  {stage.stage}: {stage.seconds * 1000:.0f} ms {stage.detail}")


# ---------------------------------------------------------------------------- evals
def _markdown(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _print_table(header: Sequence[str], rows: Sequence[Sequence[str]], markdown: bool) -> None:
    if markdown:
        console.print(_markdown(header, rows), markup=False, highlight=False, soft_wrap=True)
        return
    table = Table(*header)
    for row in rows:
        table.add_row(*row)
    console.print(table)


def scope_table(rows: Sequence[ScopeRow]) -> tuple[list[str], list[list[str]]]:
    header = ["case", "phase", "person", "connector", "expected", "returned", "forbidden",
              "forbidden rows from connector", "forbidden rows returned", "result"]
    body = [[r.case, r.phase or "-", r.person, r.connector, ", ".join(r.expected) or "-", ", ".join(r.returned) or "-",
             ", ".join(r.forbidden) or "-", str(r.connector_forbidden_rows), str(r.leaked_rows),
             "pass" if r.passed else "FAIL"] for r in rows]
    return header, body


@eval_app.command("scope")
@run_async
@person_errors
async def eval_scope(connector: List[str] = typer.Option(list(CONNECTOR_NAMES), "--connector",
                                                         help="Connectors to run (repeat)"),
                     markdown: bool = typer.Option(False, help="Print a Markdown table")) -> None:
    """The seven permission cases, with the production and a filter-ignoring connector."""
    unknown = [c for c in connector if c not in CONNECTOR_NAMES]
    if unknown:
        fail(f"unknown connector {', '.join(unknown)}; one of {', '.join(CONNECTOR_NAMES)}")
    async with await open_app(progress=False) as kapp:
        await build_context_demo(kapp)
        with tempfile.TemporaryDirectory(prefix="negentropy-scope-") as workdir:
            connectors = {name: kapp.search_connector(name) for name in connector}
            rows = await run_scope_eval(kapp.router, connectors, Path(workdir))
    _print_table(*scope_table(rows), markdown)
    passed = sum(r.passed for r in rows)
    by_connector = {name: sum(r.connector_forbidden_rows for r in rows if r.connector == name) for name in connector}
    console.print(f"{passed}/{len(rows)} checks passed; forbidden rows handed back by connectors: "
                  + ", ".join(f"{k} {v}" for k, v in by_connector.items())
                  + f"; forbidden rows that reached the caller: {sum(r.leaked_rows for r in rows)}")
    if passed != len(rows):
        raise typer.Exit(code=1)


def context_table(rows: Sequence[ContextRow]) -> tuple[list[str], list[list[str]]]:
    header = ["id", "person", "task", "routed libraries", "expected", "coverage routed", "coverage all",
              "tokens routed", "tokens all", "gap", "owner"]
    body = [[r.id, r.person, r.task_kind, ", ".join(r.routed) + f" ({len(r.routed)}/{r.accessible_libraries})",
             ("ok" if r.libraries_ok else "MISS") + (f" ({', '.join(r.expected_libraries)})"
                                                     if r.expected_libraries else ""),
             f"{r.coverage_routed:.0%}", f"{r.coverage_all:.0%}", str(r.tokens_routed), str(r.tokens_all),
             f"{r.gap or 'none'}" + ("" if r.gap_ok else " (WRONG)"),
             (r.owner or "-") + ("" if r.owner_ok else f" (expected {r.expected_owner})")] for r in rows]
    return header, body


@eval_app.command("context")
@run_async
@person_errors
async def eval_context(questions: Path = typer.Option(DEFAULT_QUESTIONS, help="Questions JSON"),
                       markdown: bool = typer.Option(False, help="Print a Markdown table")) -> None:
    """Routed libraries vs every accessible library: evidence coverage, tokens loaded, gaps and owners."""
    items = load_context_questions(questions)
    async with await open_app(progress=False) as kapp:
        await build_context_demo(kapp)
        rows = await run_context_eval(kapp.router, items)
    _print_table(*context_table(rows), markdown)
    s = summarize_context(rows)
    console.print(f"{s.questions} questions: evidence coverage {s.coverage_routed:.0%} routed vs "
                  f"{s.coverage_all:.0%} loading every accessible library; tokens {s.tokens_routed} vs "
                  f"{s.tokens_all} ({s.tokens_saved:.0%} saved); expected libraries routed "
                  f"{s.libraries_ok}/{s.questions}; gaps right {s.gaps_ok}/{s.questions}; owners right "
                  f"{s.owners_ok}/{s.questions}")

"""How the CLI prints search hits, cross-corpus links, knowledge gaps and a whole search report.

Light on purpose: `negentropy search` prints what `negentropy serve` answered without importing the app."""
from __future__ import annotations

from rich.markup import escape
from rich.table import Table

from cli.console import console
from knowledge.context.gap import KnowledgeGap
from knowledge.context.search_report import SearchReport
from knowledge.retrieval.results import SearchHit, bridge_lines


def print_hits(hits: list[SearchHit]) -> None:
    """Rows numbered 1..n; the IEEE citation number each row cites in its own column (listed below the table)."""
    table = Table("#", "cites", "corpus", "score", "evidence", "text", show_lines=False)
    for row, hit in enumerate(hits, start=1):
        text = " ".join(hit.content.split())
        table.add_row(str(row), f"[{hit.citation_id}]", hit.corpus_label, f"{hit.score:.3f}", hit.evidence_type,
                      text[:110] + ("…" if len(text) > 110 else ""))
    console.print(table)
    for citation in dict.fromkeys(hit.formatted_citation for hit in hits):
        console.print(f"  {citation}")


def print_bridge_links(hits: list[SearchHit]) -> None:
    links = bridge_lines(hits)
    if links:
        console.print("[bold]cross-corpus links[/]")
        for line in links:
            console.print(f"  {line}", markup=False, highlight=False)


def print_gap(gap: KnowledgeGap | None) -> None:
    if gap is not None:
        where = f" (owner of {gap.library_name})" if gap.library_name else ""
        console.print(f"[yellow]knowledge gap[/] [{gap.reason}]: {gap.message} -> ask [bold]{gap.owner_name}[/]{where}")


def print_report(report: SearchReport) -> None:
    if report.fallback_reason:
        console.print(f"[yellow]planner fell back to legacy search:[/] {escape(report.fallback_reason)}",
                      highlight=False)
    print_gap(report.gap)
    if not report.hits:
        console.print("no results")
        return
    print_hits(report.hits)
    print_bridge_links(report.hits)

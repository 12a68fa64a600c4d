"""How the CLI prints ingest reports, search hits and cross-corpus links (text is rendered only here, at the edge)."""
from __future__ import annotations

from rich.markup import escape
from rich.table import Table

from cli.common import console
from knowledge.ingest.pipeline import IngestReport
from knowledge.retrieval.planner.explain import bridge_lines
from knowledge.retrieval.results import RetrievalResponse, SearchHit

PARTIAL_INGEST_EXIT_CODE = 2  # some files or records were skipped (named in the report) and the rest landed


def print_ingest_report(report: IngestReport) -> None:
    files = f"{report.files} files, " if report.files else ""
    console.print(f"[bold]{escape(report.corpus)}[/]: {files}{report.documents} documents ({report.documents_updated} "
                  f"changed, {report.documents_unchanged} unchanged), {report.chunks_total} chunks, "
                  f"{report.chunks_added} added, {report.chunks_skipped} already present", highlight=False)
    if report.resumed:
        console.print("  finished the graph stages an earlier, interrupted ingest left undone")
    for notice in report.notices:
        console.print(f"  [yellow]note[/] {escape(notice.source_uri)}: {escape(notice.message)}", highlight=False)
    for error in report.errors:
        console.print(f"  [red]skipped[/] {escape(error.source_uri)}: {escape(error.message)}", highlight=False)
    if report.errors:
        console.print(f"  {len(report.errors)} skipped (exit code {PARTIAL_INGEST_EXIT_CODE}); the rest landed")


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


def print_bridge_links(response: RetrievalResponse) -> None:
    links = bridge_lines(response)
    if links:
        console.print("[bold]cross-corpus links[/]")
        for line in links:
            console.print(f"  {line}", markup=False, highlight=False)


def print_response(response: RetrievalResponse) -> None:
    console.print(f"[dim]mode={response.mode} kind={response.query_kind} graph_expansion={response.graph_expansion}"
                  f"{' fallback=' + response.fallback_reason if response.fallback_reason else ''}[/]")
    print_hits(response.hits)
    print_bridge_links(response)

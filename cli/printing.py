"""How the CLI prints ingest reports and retrieval responses (text is rendered only here, at the edge; search hits:
cli/search_output.py)."""
from __future__ import annotations

from rich.markup import escape

from cli.console import console
from cli.search_output import print_bridge_links, print_hits
from knowledge.ingest.pipeline import IngestReport
from knowledge.retrieval.results import RetrievalResponse

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


def print_response(response: RetrievalResponse) -> None:
    console.print(f"[dim]mode={response.mode} kind={response.query_kind} graph_expansion={response.graph_expansion}"
                  f"{' fallback=' + response.fallback_reason if response.fallback_reason else ''}[/]")
    print_hits(response.hits)
    print_bridge_links(response.hits)

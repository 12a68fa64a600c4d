"""The ``negentropy`` command line."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from cli.bench import bench_app
from cli.common import console, fail, open_app, run_async
from cli.demo import run_demo
from knowledge.retrieval.results import SearchHit

app = typer.Typer(help="Negentropy: federated knowledge graph and cross-corpus hybrid retrieval.",
                  no_args_is_help=True, pretty_exceptions_enable=False)
corpus_app = typer.Typer(help="Create and list corpora.", no_args_is_help=True)
app.add_typer(corpus_app, name="corpus")
app.add_typer(bench_app, name="bench")


@corpus_app.command("create")
@run_async
async def corpus_create(name: str, label: Optional[str] = typer.Option(None, help="Display label"),
                        description: str = typer.Option("", help="What the corpus holds")) -> None:
    """Create a corpus (or show the existing one of that name)."""
    async with await open_app() as kapp:
        corpus = await kapp.corpora.create(name, label, description)
    console.print(f"corpus [bold]{corpus.name}[/] ({corpus.label}) id={corpus.id}")


@corpus_app.command("list")
@run_async
async def corpus_list() -> None:
    """List corpora with their chunk counts."""
    async with await open_app() as kapp:
        corpora = await kapp.corpora.list()
    table = Table("name", "label", "chunks", "id")
    for corpus in corpora:
        table.add_row(corpus.name, corpus.label, str(corpus.chunk_count), str(corpus.id))
    console.print(table)


def print_ingest_report(report) -> None:
    console.print(f"[bold]{report.corpus}[/]: {report.documents} documents, {report.chunks_total} chunks, "
                  f"{report.chunks_added} added, {report.chunks_skipped} already present")
    for error in report.errors:
        console.print(f"  [red]skipped[/] {error.source_uri}: {error.message}")


@app.command("ingest")
@run_async
async def ingest(path: Path, corpus: str = typer.Option(..., "--corpus", "-c", help="Target corpus name"),
                 create: bool = typer.Option(True, help="Create the corpus if it does not exist")) -> None:
    """Ingest a file or folder (.txt .md .json .jsonl .pdf) into a corpus."""
    if not path.exists():
        fail(f"no such file or folder: {path}")
    async with await open_app() as kapp:
        target = await (kapp.corpora.create(corpus) if create else kapp.corpora.get(corpus))
        report = await kapp.ingest_path(target, path)
    print_ingest_report(report)
    if report.errors and not report.chunks_total:
        raise typer.Exit(code=1)


def print_hits(hits: list[SearchHit]) -> None:
    table = Table("#", "corpus", "score", "evidence", "text", show_lines=False)
    for hit in hits:
        text = " ".join(hit.content.split())
        table.add_row(str(hit.citation_id), hit.corpus_label, f"{hit.score:.3f}", hit.evidence_type,
                      text[:110] + ("…" if len(text) > 110 else ""))
    console.print(table)
    for citation in dict.fromkeys(hit.formatted_citation for hit in hits):
        console.print(f"  {citation}")


@app.command("search")
@run_async
async def search(query: str, corpus: List[str] = typer.Option([], "--corpus", "-c", help="Corpus names (repeat)"),
                 limit: int = typer.Option(10, "--limit", "-k")) -> None:
    """Search one or more corpora."""
    if not query.strip():
        fail("the query is empty")
    async with await open_app() as kapp:
        accessible = [c.id for c in await kapp.corpora.list()]
        requested = [c.id for c in await kapp.corpora.resolve(corpus)] if corpus else None
        hits = await kapp.legacy_search(query, requested, accessible, limit)
    if not hits:
        console.print("no results")
        return
    print_hits(hits)


@app.command("demo")
@run_async
async def demo() -> None:
    """Create the demo corpora from the bundled sample documents, ingest them and run sample queries."""
    async with await open_app() as kapp:
        await run_demo(kapp)


if __name__ == "__main__":
    app()

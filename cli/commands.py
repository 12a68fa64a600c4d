"""Every `negentropy` command but `search` (cli/main.py loads this module only for a command it holds)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from cli.bench import bench_app
from cli.canonical import canonical_app
from cli.common import open_app, run_async
from cli.console import console, fail
from cli.context import card_app, eval_app, topology_app
from cli.demo import run_demo
from cli.documents import corpus_delete, document_app, sync_folder
from cli.embeddings import embeddings_app
from cli.graph import graph_app
from cli.ingest_group import DEFAULT_COMMAND, ingest_group, retry_buffer
from cli.mcp import register as register_mcp_commands
from cli.printing import PARTIAL_INGEST_EXIT_CODE, print_ingest_report
from cli.stats import stats
from knowledge.ingest.documents import load_path
from knowledge.ingest.progress import ProgressMode

app = typer.Typer()
corpus_app = typer.Typer(help="Create, list and delete corpora.", no_args_is_help=True)
app.add_typer(corpus_app, name="corpus")
corpus_app.command("delete")(corpus_delete)
app.add_typer(document_app, name="document")
app.add_typer(bench_app, name="bench")
app.add_typer(canonical_app, name="canonical")
app.add_typer(graph_app, name="graph")
app.add_typer(embeddings_app, name="embeddings")
app.command("stats")(stats)
ingest_app = ingest_group()
app.add_typer(ingest_app, name="ingest")
ingest_app.command("retry-buffer")(retry_buffer)
register_mcp_commands(app)
app.add_typer(topology_app, name="topology")
app.add_typer(card_app, name="card")
app.add_typer(eval_app, name="eval")


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
async def corpus_list(as_json: bool = typer.Option(False, "--json", help="Print JSON (name, label, chunks, id)")
                      ) -> None:
    """List corpora with their chunk counts."""
    async with await open_app(progress=not as_json) as kapp:
        corpora = await kapp.corpora.list()
    if as_json:
        print(json.dumps([{"name": c.name, "label": c.label, "chunks": c.chunk_count, "id": str(c.id)}
                          for c in corpora], indent=2))
        return
    table = Table("name", "label", "chunks")
    table.add_column("id", no_wrap=True, min_width=36)  # an id is copied whole, so it is never cut
    for corpus in corpora:
        table.add_row(corpus.name, corpus.label, str(corpus.chunk_count), str(corpus.id))
    console.print(table)


@ingest_app.command(DEFAULT_COMMAND, hidden=True)
@run_async
async def ingest(path: Path, corpus: str = typer.Option(..., "--corpus", "-c", help="Target corpus name"),
                 create: bool = typer.Option(True, help="Create the corpus if it does not exist"),
                 sync: bool = typer.Option(False, "--sync", help="Also delete the documents ingested from this "
                                           "folder that it no longer has (listed first, then confirmed)"),
                 dry_run: bool = typer.Option(False, "--dry-run", help="With --sync: only list what would be "
                                              "deleted; ingest nothing"),
                 yes: bool = typer.Option(False, "--yes", "-y", help="With --sync: delete without asking"),
                 as_: Optional[str] = typer.Option(None, "--as", help="With --sync: delete as this person "
                                                   "(an owner of the corpus; default: the local operator)"),
                 progress: Optional[bool] = typer.Option(None, "--progress/--no-progress",
                                                         help="Progress bars on stderr per file and stage "
                                                              "(default: only on a terminal)")) -> None:
    """Ingest a file or folder (.txt .md .json .jsonl .pdf) into a corpus; exit code 2 when some were skipped.
    A changed file replaces its earlier version; an unchanged one costs nothing."""
    if not path.exists():
        fail(f"no such file or folder: {path}")
    if (sync or dry_run) and not path.is_dir():
        fail("--sync and --dry-run take a folder")
    if dry_run and not sync:
        fail("--dry-run goes with --sync")
    mode = ProgressMode.tty if progress is None else (ProgressMode.always if progress else ProgressMode.never)
    async with await open_app(progress=mode) as kapp:
        target = await (kapp.corpora.create(corpus) if create else kapp.corpora.get(corpus))
        if dry_run:
            loaded = load_path(path, kapp.settings.chunking.max_file_bytes)
            await sync_folder(kapp, target, path, [d.source_uri for d in loaded.documents], loaded.unreadable,
                              dry_run=True, yes=yes, person=as_)
            return
        report = await kapp.ingest_path(target, path)
        print_ingest_report(report)
        if sync:
            await sync_folder(kapp, target, path, report.sources, report.unreadable, dry_run=False, yes=yes,
                              person=as_)
    if not report.complete:
        raise typer.Exit(code=PARTIAL_INGEST_EXIT_CODE)


_USER_HELP = ("Person the agent acts for (a person of the workspace topology); required on loopback unless "
              "--dev-operator")
_DEV_OPERATOR_HELP = ("Act as the local operator, who reads every corpus, with no sign-in (prints a warning; "
                      "development on your own machine only)")


@app.command("serve")
def serve(host: str = typer.Option("127.0.0.1", help="Interface to bind (loopback by default; beyond loopback every "
                                   "request needs a bearer token from `negentropy token issue`)"),
          port: int = typer.Option(8000, help="TCP port"),
          user: Optional[str] = typer.Option(None, help=_USER_HELP),
          dev_operator: bool = typer.Option(False, "--dev-operator", help=_DEV_OPERATOR_HELP)) -> None:
    """Serve the agent over AG-UI (SSE at /agent, /health); conversations persist in PostgreSQL."""
    from cli.serve import serve as run_server
    from config import get_settings
    from server.identity import ServeIdentityError, serve_identity

    try:
        identity = serve_identity(host, user, dev_operator, get_settings().operator_users)
    except ServeIdentityError as exc:
        fail(str(exc))
    run_server(host, port, identity)


@app.command("web")
def web(host: str = typer.Option("127.0.0.1", help="Interface the web app binds (loopback by default)"),
        port: int = typer.Option(3000, help="TCP port of the web app"),
        agent_port: int = typer.Option(8000, help="TCP port of the agent's AG-UI server (loopback)"),
        user: Optional[str] = typer.Option(None, help=_USER_HELP),
        dev_operator: bool = typer.Option(False, "--dev-operator", help=_DEV_OPERATOR_HELP),
        rebuild: bool = typer.Option(False, help="Run `next build` again even if web/.next exists")) -> None:
    """Start the agent's AG-UI server and the Next.js chat app (web/), and print the URL to open."""
    from cli.web import run_web
    from config import get_settings
    from server.identity import ServeIdentityError, serve_identity

    try:
        identity = serve_identity("127.0.0.1", user, dev_operator, get_settings().operator_users)
    except ServeIdentityError as exc:
        fail(str(exc))
    run_web(host, port, agent_port, identity, rebuild)


@app.command("demo")
@run_async
async def demo() -> None:
    """Create the demo corpora from the bundled sample documents, ingest them and run sample queries."""
    async with await open_app() as kapp:
        await run_demo(kapp)

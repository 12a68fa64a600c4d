"""`negentropy search`: through a running `negentropy serve` when there is one, in-process otherwise.

Light until it must not be: a search through serve imports no model, database driver, planner or ADK (the
in-process search, cli/search_in_process.py, is imported only when serve cannot answer), so it answers in
well under the seconds the in-process search spends loading them (docs/benchmarks/latency.md)."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from cli.console import err_console, fail
from cli.discovery import ServeNotFound, database_fingerprint
from cli.search_output import print_report
from cli.serve_client import ServeRejectedInput, search_via_serve
from config.locations import plain_locations
from knowledge.pg_text import clean_value


def _locations() -> tuple[Path, str | None]:
    """The data dir and the database URL: from the environment when it alone decides them, else the settings."""
    plain = plain_locations()
    if plain is not None:
        return plain
    from config import get_settings  # pydantic: hundreds of milliseconds

    try:
        settings = get_settings()
    except ValueError as exc:  # a setting that does not parse
        fail(str(exc))
    return settings.data_dir, settings.database_url


def search(query: str, corpus: List[str] = typer.Option([], "--corpus", "-c", help="Corpus names (repeat)"),
           limit: int = typer.Option(10, "--limit", "-k"),
           as_: Optional[str] = typer.Option(None, "--as", help="Search as this person of the workspace topology "
                                             "(their permission view); default: the local operator, who reads "
                                             "every corpus"),
           explain: bool = typer.Option(False, "--explain", help="Show the Context Router's scores and the "
                                        "retrieval trace (searches in-process)"),
           wide: bool = typer.Option(False, "--wide", help="With --explain: every score column, however wide the "
                                     "terminal"),
           strict_scope: bool = typer.Option(False, "--strict-scope", help="Graph expansion never brings evidence "
                                             "from corpora that were not searched"),
           verbose: bool = typer.Option(False, "--verbose", "-v", help="Say why the search ran in-process when it "
                                        "did not go through a running `negentropy serve`")) -> None:
    """Search the named corpora, or (none named) the 1-3 libraries the Context Router picks. Goes through a
    running `negentropy serve` of this data dir when it may search as you (and says so), in-process otherwise."""
    if not query.strip():
        fail("the query is empty")
    if explain:
        reason = "--explain shows the in-process search's own routing and trace"
    else:
        data_dir, database_url = _locations()
        request = {"query": query, "corpora": corpus, "limit": limit, "person": as_, "strict_scope": strict_scope}
        try:  # text cleaned as run_async cleans the in-process search's arguments
            answer = search_via_serve(data_dir, database_fingerprint(database_url),
                                      {key: clean_value(value) for key, value in request.items()})
        except ServeRejectedInput as exc:
            err_console.print(f"via serve at {exc.url}", highlight=False, soft_wrap=True)
            fail(str(exc))
        except ServeNotFound as exc:
            reason = str(exc)
        else:
            err_console.print(f"via serve at {answer.url} (as {answer.report.who})", highlight=False, soft_wrap=True)
            print_report(answer.report)
            return
    if verbose:
        err_console.print(f"in-process: {reason}", highlight=False, soft_wrap=True)
    from cli.search_in_process import search_in_process  # the app, the model, the planner: seconds to load

    search_in_process(query=query, corpus=corpus, limit=limit, as_=as_, explain=explain, wide=wide,
                      strict_scope=strict_scope)

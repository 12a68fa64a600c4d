"""`negentropy ingest PATH --corpus NAME` and `negentropy ingest retry-buffer` side by side.

`ingest` is a command group whose first argument is either a subcommand name (`retry-buffer`) or the PATH
of the default `path` command, so the original form keeps working unchanged. A file or folder literally
called `retry-buffer` is ingested with `negentropy ingest ./retry-buffer --corpus NAME`.
"""
from __future__ import annotations

from typing import Any

import click
import typer
from typer.core import TyperGroup

from cli.common import open_app, run_async
from cli.console import console
from tools.ingest_buffer import replay_ingest_buffer

DEFAULT_COMMAND = "path"


class PathOrCommandGroup(TyperGroup):
    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[Any, Any, list[str]]:
        if args and args[0] not in self.commands:
            args = [DEFAULT_COMMAND, *args]
        return super().resolve_command(ctx, args)


def ingest_group() -> typer.Typer:
    return typer.Typer(
        cls=PathOrCommandGroup, no_args_is_help=True, context_settings={"ignore_unknown_options": True},
        help="Ingest files: `negentropy ingest PATH --corpus NAME` (.txt .md .json .jsonl .pdf, file or folder). "
             "`negentropy ingest retry-buffer` replays chat notes whose ingest failed.",
    )


@run_async
async def retry_buffer() -> None:
    """Replay chat notes whose ingest failed (kept in the ingest buffer table or the local spool)."""
    async with await open_app(progress=False) as kapp:
        report = await replay_ingest_buffer(kapp)
    console.print(f"moved {report.imported_from_spool} spooled notes into the buffer; replayed {report.replayed} "
                  f"notes ({report.chunks_added} new chunks); {report.pending_after} still pending")
    for buffer_id, error in report.failed:
        console.print(f"  [red]still failing[/] buffer row {buffer_id}: {error}")
    if report.failed:
        raise typer.Exit(code=1)

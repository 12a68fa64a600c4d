"""The ``negentropy`` command line.

The root holds `search` itself and loads every other command from cli/commands.py only when one of them is
asked for: that module imports the app (the database driver, the embedding model, the planner, ADK), which
costs seconds a search through a running `negentropy serve` never needs (cli/search.py)."""
from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import typer
from typer.core import TyperGroup

from cli.search import search

if TYPE_CHECKING:  # typer vendors click and exports no public name for its Context and Command
    from typer._click.core import Command, Context


@cache
def _other_commands() -> TyperGroup:
    from cli.commands import app as commands_app  # the heavy part: see the module docstring

    group = typer.main.get_command(commands_app)
    assert isinstance(group, TyperGroup)
    return group


class RootGroup(TyperGroup):
    """The root's own commands at once; the rest from cli/commands.py, imported on first use."""

    def list_commands(self, ctx: Context) -> list[str]:
        return [*super().list_commands(ctx), *_other_commands().list_commands(ctx)]

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        return super().get_command(ctx, cmd_name) or _other_commands().get_command(ctx, cmd_name)


app = typer.Typer(cls=RootGroup, help="Negentropy: federated knowledge graph and cross-corpus hybrid retrieval.",
                  no_args_is_help=True, pretty_exceptions_enable=False)
app.command("search")(search)


@app.callback()
def root() -> None:
    """A callback, so that the root is a group even while it holds one command of its own."""


if __name__ == "__main__":
    app()

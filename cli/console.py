"""The CLI's consoles and its one-line error exit; light, so that `negentropy search` can use them before it
knows whether it needs the app (cli/search.py)."""
from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console

console = Console()
err_console = Console(stderr=True)


def fail(message: str) -> NoReturn:
    err_console.print(f"[bold red]error:[/] {message}")
    raise typer.Exit(code=1)

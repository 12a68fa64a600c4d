"""Shared CLI plumbing: run async commands, open the app, turn domain errors into clear messages."""
from __future__ import annotations

import asyncio
import functools
import logging
from typing import Any, Awaitable, Callable

import typer
from rich.console import Console

from knowledge.app import KnowledgeApp
from knowledge.corpora import UnknownCorpusError
from knowledge.db.server import DatabaseUnavailableError
from knowledge.embedding import EmbeddingError
from knowledge.ingest.documents import DocumentLoadError
from knowledge.ingest.pipeline import IngestStageError
from knowledge.ingest.progress import ProgressMode
from knowledge.pg_text import clean_value

console = Console()
err_console = Console(stderr=True)

USER_ERRORS = (DatabaseUnavailableError, UnknownCorpusError, EmbeddingError, DocumentLoadError,
               IngestStageError, FileNotFoundError, PermissionError, ValueError)


def fail(message: str) -> None:
    err_console.print(f"[bold red]error:[/] {message}")
    raise typer.Exit(code=1)


def clean_arguments(kwargs: dict[str, Any]) -> dict[str, Any]:
    """A command's text arguments as PostgreSQL can take them (an argv byte that is not UTF-8 arrives as a
    lone surrogate); paths keep their bytes, they are Path objects by now."""
    return {k: clean_value(v) if isinstance(v, (str, list, tuple)) else v for k, v in kwargs.items()}


def run_async(func: Callable[..., Awaitable[Any]]) -> Callable[..., Any]:
    """Run an async command on cleaned text arguments; known errors print one clear line and exit 1 instead
    of a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
        try:
            return asyncio.run(func(*args, **clean_arguments(kwargs)))
        except USER_ERRORS as exc:
            fail(str(exc))

    return wrapper


async def open_app(progress: ProgressMode | bool = True) -> KnowledgeApp:
    return await KnowledgeApp.open(progress=progress)

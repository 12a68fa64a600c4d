"""Which failures mean "the database is gone" (refused, lost, shut down) rather than a bad query, in one place.

Callers turn those into :class:`DatabaseUnreachableError` so that an outage is reported as an outage: the CLI
prints one line and exits non-zero, retrieval does not answer it with an empty result (a knowledge gap)."""
from __future__ import annotations

import asyncpg


class DatabaseUnavailableError(RuntimeError):
    """The database cannot be reached or is not usable (missing pgvector, failed start...)."""


class DatabaseUnreachableError(DatabaseUnavailableError, ConnectionError):
    """The server refused the connection, went away or shut down. Also a ConnectionError, so that code which
    already treats OSError as a lost connection (replicas, spooled writes) keeps doing so."""


# SQLSTATE class 08 (connection exception) and the shutdowns of class 57: 57P01 admin shutdown, 57P02 crash
# shutdown, 57P03 cannot connect now (starting or stopping), 57P04 database dropped, 57P05 idle session timeout.
# Not the rest of class 57: 57014 is a cancelled statement (a timeout), with a healthy server.
_LOST_SQLSTATES = ("57P01", "57P02", "57P03", "57P04", "57P05")
_LOST_PROTOCOL_ERRORS = (asyncpg.exceptions.InternalClientError,)  # asyncpg's state after the socket vanished


def is_connection_failure(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it, or every error of a group) is a lost or refused connection."""
    if isinstance(exc, BaseExceptionGroup):
        return all(is_connection_failure(e) for e in exc.exceptions)
    if isinstance(exc, DatabaseUnreachableError):
        return True
    if isinstance(exc, asyncpg.PostgresError):
        state = exc.sqlstate or ""
        return state.startswith("08") or state in _LOST_SQLSTATES
    if isinstance(exc, asyncpg.InterfaceError):
        # asyncpg says so for a connection the server closed; other InterfaceErrors (a closed pool, an operation
        # in progress) are the program's mistakes, not an outage
        return "connection is closed" in str(exc)
    if isinstance(exc, _LOST_PROTOCOL_ERRORS):
        return True
    # only an explicit `raise ... from`: an error raised while handling a lost connection may be anything
    return exc.__cause__ is not None and is_connection_failure(exc.__cause__)


def connect_failure(exc: BaseException) -> bool:
    """Whether opening a connection failed because the server is not there (every OSError counts here: a
    missing Unix socket is a FileNotFoundError, an unknown host a socket.gaierror)."""
    return isinstance(exc, OSError) or is_connection_failure(exc)  # OSError includes TimeoutError


def unreachable(exc: BaseException, what: str = "lost the connection to PostgreSQL") -> DatabaseUnreachableError:
    """The one-line error for a connection failure (``what`` failed); the CLI adds where to look."""
    if isinstance(exc, DatabaseUnreachableError):
        return exc
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return DatabaseUnreachableError(f"database unreachable: {what}: {type(exc).__name__}"
                                    f"{': ' + detail if detail else ''}")

"""The CLI's side of POST /search (server/search_api.py): find a live serve for this data dir, check its
/health, send the search. Standard library only, so asking costs milliseconds."""
from __future__ import annotations

import http.client
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from cli.discovery import ServeAddress, ServeNotFound, read_address
from knowledge.context.search_report import SearchReport
from server.paths import HEALTH_PATH, SEARCH_PATH

HEALTH_TIMEOUT_S = 2.0
SEARCH_TIMEOUT_S = 60.0  # the first search of a fresh serve may still compile the planner's kernels


class ServeRejectedInput(Exception):
    """Serve refused the search itself (an unknown corpus or person, an empty query): the in-process search
    would refuse it the same way, so the CLI prints this and stops."""

    def __init__(self, url: str, message: str) -> None:
        super().__init__(message)
        self.url = url


@dataclass(frozen=True)
class ServeAnswer:
    url: str
    report: SearchReport


def _call(url: str, method: str, path: str, body: dict[str, Any] | None, timeout: float) -> tuple[int, Any]:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=timeout)
    try:
        payload = json.dumps(body).encode() if body is not None else None
        connection.request(method, path, payload, {"Content-Type": "application/json"} if payload else {})
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"null")
    except (OSError, http.client.HTTPException, ValueError) as exc:
        raise ServeNotFound(f"serve at {url} did not answer {method} {path} ({type(exc).__name__}: {exc})") from None
    finally:
        connection.close()


def _error_of(reply: Any) -> str:
    return str(reply.get("error") or reply.get("detail")) if isinstance(reply, dict) else str(reply)


def search_via_serve(data_dir: Path, database: str | None, request: dict[str, Any]) -> ServeAnswer:
    """The report a serve of ``data_dir`` reading ``database`` (a database_fingerprint) gives for ``request``
    (the POST /search body); ServeNotFound says why there is none (the CLI then searches in-process),
    ServeRejectedInput what was wrong with the request."""
    address: ServeAddress = read_address(data_dir)
    if address.database != database:
        raise ServeNotFound(f"serve at {address.url} reads another database (its NE_DATABASE_URL differs)")
    if address.user is None:
        raise ServeNotFound(f"serve at {address.url} takes only bearer tokens, and the CLI holds none")
    status, health = _call(address.url, "GET", HEALTH_PATH, None, HEALTH_TIMEOUT_S)
    if status != 200 or not isinstance(health, dict) or health.get("status") != "ok":
        raise ServeNotFound(f"serve at {address.url} is not healthy ({status}: {health})")
    status, reply = _call(address.url, "POST", SEARCH_PATH, request, SEARCH_TIMEOUT_S)
    if status == 200:
        try:
            return ServeAnswer(address.url, SearchReport.from_dict(reply))
        except (KeyError, TypeError, ValueError) as exc:  # a serve of another version
            raise ServeNotFound(f"serve at {address.url} answered in an unknown shape ({exc!r})") from None
    if status == 400:
        raise ServeRejectedInput(address.url, _error_of(reply))
    raise ServeNotFound(f"serve at {address.url} did not search ({status}: {_error_of(reply)})")

"""Admission of AG-UI runs: at most ``max_concurrent_runs`` execute at once, up to ``max_queued_runs`` more wait
for a turn, and any run beyond both gets HTTP 503 with Retry-After before its SSE stream starts.

ag-ui-adk has a limit of its own (ADKAgent's ``max_concurrent_executions``), but it refuses a run only after
RUN_STARTED, as a RUN_ERROR in a 200 stream, and it also counts finished runs that wait for a tool result
(human-in-the-loop), so `negentropy serve` lifts that limit and this gate bounds the runs instead.
"""
from __future__ import annotations

import asyncio
import logging

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from config.settings import ServeSettings

logger = logging.getLogger(__name__)

SERVER_BUSY_CODE = "SERVER_BUSY"


class RunGate:
    """The count of admitted runs (executing or queued) and ``turns``, the semaphore an executing run holds."""

    def __init__(self, limits: ServeSettings) -> None:
        self.limits = limits
        self.admitted = 0
        self.turns = asyncio.Semaphore(limits.max_concurrent_runs)

    @property
    def capacity(self) -> int:
        return self.limits.max_concurrent_runs + self.limits.max_queued_runs

    def busy_response(self) -> JSONResponse:
        limits = self.limits
        message = (f"The server is busy: {limits.max_concurrent_runs} runs are executing and "
                   f"{limits.max_queued_runs} more are waiting. Please try again in "
                   f"{limits.retry_after_seconds} seconds.")
        return JSONResponse({"error": message, "code": SERVER_BUSY_CODE}, status_code=503,
                            headers={"Retry-After": str(limits.retry_after_seconds)})


class RunAdmission:
    """ASGI middleware: POST ``path`` (an AG-UI run) passes ``gate``; every other request goes straight through."""

    def __init__(self, app: ASGIApp, *, path: str, gate: RunGate) -> None:
        self.app = app
        self.path = path
        self.gate = gate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != self.path:
            await self.app(scope, receive, send)
            return
        gate = self.gate
        if gate.admitted >= gate.capacity:
            logger.warning("AG-UI run refused with 503: %d runs admitted (%d executing at most, %d queued)",
                           gate.admitted, gate.limits.max_concurrent_runs, gate.limits.max_queued_runs)
            await gate.busy_response()(scope, receive, send)
            return
        gate.admitted += 1
        try:
            async with gate.turns:
                await self.app(scope, receive, send)
        finally:
            gate.admitted -= 1

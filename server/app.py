"""The agent over AG-UI (SSE) with conversations kept in the app's PostgreSQL; ``negentropy serve`` runs it.

Who a request acts for: server/identity.py (``--user`` on loopback, a bearer token beyond it)."""
from __future__ import annotations

import logging
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Awaitable, Callable

from ag_ui.core import RunAgentInput
from ag_ui_adk import add_adk_fastapi_endpoint
from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse

from agents.model_choice import describe_model
from agents.negentropy.agent import build_root_agent
from agents.sessions import database_session_service
from config import Settings, get_settings
from knowledge.app import KnowledgeApp
from knowledge.db.server import resolve_database_url
from server.admission import RunAdmission, RunGate
from server.forwarded_props import forwarded_state
from server.guard import GuardedADKAgent, run_id_problem
from server.identity import BearerAuth, ServeIdentity
from server.paths import HEALTH_PATH
from server.search_api import search_router
from server.source_view import source_router
from server.threads import note_run, thread_router
from server.web_api import web_router
from session.runtime import close_loop_app, open_warm_app, register_loop_app

logger = logging.getLogger(__name__)

AGENT_PATH = "/agent"
USER_STATE_KEY = "negentropy_user_id"  # set by the server for every run, over whatever the client sent
# ag-ui-adk's own run limit, lifted: RunAdmission bounds the runs (see server/admission.py for why)
ADK_EXECUTION_LIMIT = 1_000_000


def _request_state(identity: ServeIdentity) -> Callable[[Request, RunAgentInput], Awaitable[dict[str, Any]]]:
    """ag-ui-adk's ``extract_state_from_request`` hook: forwarded props, and the request's person (the one
    state key a client cannot set: this value overrides what the run's state says). For a run it is called
    before the SSE stream starts, so ids the run could not keep are refused here with 422, and the thread is
    listed for its person (/agents/state calls it too, and answers any exception with 500, but only reads a
    thread: its ids are not checked)."""

    async def extract(request: Request, input_data: RunAgentInput) -> dict[str, Any]:
        user_id = identity.of(request)
        if request.url.path == AGENT_PATH:
            if (problem := run_id_problem(input_data)) is not None:
                raise HTTPException(status_code=422, detail=problem)
            await note_run(request.app.state.kapp, user_id, input_data.thread_id, input_data.messages)
        return {**await forwarded_state(request, input_data), USER_STATE_KEY: user_id}

    return extract


def _run_user(input_data: RunAgentInput) -> str:
    return input_data.state[USER_STATE_KEY]


def _health(status: str, status_code: int, details: dict[str, Any]) -> JSONResponse:
    return JSONResponse({"status": status, **details}, status_code=status_code)


def create_app(settings: Settings | None = None, *, dsn: str | None = None, user_id: str | None = None) -> FastAPI:
    """The AG-UI app acting for ``user_id``; None: every request must carry a gateway token (BearerAuth)."""
    settings = settings or get_settings()
    dsn = dsn or resolve_database_url(settings)
    identity = ServeIdentity(user_id)
    session_service = database_session_service(dsn)
    root_agent = build_root_agent()
    agent = GuardedADKAgent(
        adk_agent=root_agent,
        app_name=settings.app_name,
        user_id_extractor=_run_user,
        session_service=session_service,
        use_thread_id_as_session_id=True,  # a thread finds its conversation again after a restart
        delete_session_on_cleanup=False,   # idle sessions leave the cache, never the database
        save_session_to_memory_on_cleanup=False,
        max_concurrent_executions=ADK_EXECUTION_LIMIT,
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        kapp = await open_warm_app(settings, dsn=dsn)  # on the server's event loop
        register_loop_app(kapp)
        app.state.kapp = kapp
        logger.info("serving the Negentropy agent at %s with %s", AGENT_PATH, describe_model(settings))
        try:
            yield
        finally:
            await close_loop_app()
            await session_service.close()

    app = FastAPI(title="Negentropy agent (AG-UI)", lifespan=lifespan)
    app.state.run_gate = RunGate(settings.serve)
    app.add_middleware(RunAdmission, path=AGENT_PATH, gate=app.state.run_gate)
    if identity.needs_tokens:  # added last, so it runs first: a refused token never takes a run's place
        app.add_middleware(BearerAuth)
    add_adk_fastapi_endpoint(app, agent, path=AGENT_PATH, extract_state_from_request=_request_state(identity))
    app.include_router(web_router(identity.of, root_agent))
    app.include_router(source_router(identity.of))
    app.include_router(thread_router(identity.of, session_service))
    app.include_router(search_router(identity.of))

    @app.get(HEALTH_PATH)
    async def health(request: Request) -> JSONResponse:
        # open to anyone in token mode (probes carry no token): there it says only ok or degraded
        kapp: KnowledgeApp = request.app.state.kapp
        details: dict[str, Any] = {"agent_path": AGENT_PATH, "model": describe_model(settings)}
        try:
            details = {"database": "ok", "corpora": len(await kapp.corpora.list()), **details}
        except Exception as exc:  # noqa: BLE001 - health reports any database failure instead of raising
            logger.error("health: the database is unreachable: %s: %s", type(exc).__name__, exc)
            return _health("degraded", 503, {} if identity.needs_tokens else {"database": "unreachable", **details})
        return _health("ok", 200, {} if identity.needs_tokens else details)

    return app

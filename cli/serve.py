"""`negentropy serve`: the agent over AG-UI (SSE) with conversations kept in the app's PostgreSQL."""
from __future__ import annotations

import logging
from contextlib import asynccontextmanager
from typing import AsyncIterator

import uvicorn
from ag_ui_adk import ADKAgent, add_adk_fastapi_endpoint
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from agents.model_choice import describe_model
from agents.negentropy.agent import build_root_agent
from agents.runtime import close_loop_app, open_warm_app, register_loop_app
from agents.sessions import database_session_service
from cli.forwarded_props import forwarded_state
from cli.web_api import corpora_router
from config import Settings, get_settings
from knowledge.app import KnowledgeApp
from knowledge.db.server import resolve_database_url

logger = logging.getLogger(__name__)

AGENT_PATH = "/agent"
DEFAULT_USER = "local"  # no sign-in yet: the server acts for one person (`--user`); permission views key on it


def create_app(settings: Settings | None = None, *, dsn: str | None = None, user_id: str = DEFAULT_USER) -> FastAPI:
    settings = settings or get_settings()
    dsn = dsn or resolve_database_url(settings)
    session_service = database_session_service(dsn)
    agent = ADKAgent(
        adk_agent=build_root_agent(),
        app_name=settings.app_name,
        user_id=user_id,
        session_service=session_service,
        use_thread_id_as_session_id=True,  # a thread finds its conversation again after a restart
        delete_session_on_cleanup=False,   # idle sessions leave the cache, never the database
        save_session_to_memory_on_cleanup=False,
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
    add_adk_fastapi_endpoint(app, agent, path=AGENT_PATH, extract_state_from_request=forwarded_state)
    app.include_router(corpora_router(user_id))

    @app.get("/health")
    async def health(request: Request) -> JSONResponse:
        kapp: KnowledgeApp = request.app.state.kapp
        try:
            corpora = len(await kapp.corpora.list())
        except Exception as exc:  # noqa: BLE001 - health reports any database failure instead of raising
            return JSONResponse({"status": "degraded", "database": f"{type(exc).__name__}: {exc}"}, status_code=503)
        return JSONResponse({"status": "ok", "database": "ok", "corpora": corpora, "agent_path": AGENT_PATH,
                             "model": describe_model(settings)})

    return app


def serve(host: str, port: int, user_id: str = DEFAULT_USER) -> None:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    uvicorn.run(create_app(user_id=user_id), host=host, port=port, log_level="info")

"""The person's conversations for the web app's thread list.

A thread's messages are ADK's session (``use_thread_id_as_session_id``: the session id is the thread id) and
/agents/state restores them; table web_thread names each thread for its person. Every route answers for the
same person as POST /agent (``user_of`` the request), so nobody lists, renames or deletes another's thread.
"""
from __future__ import annotations

import logging
import re
from typing import Any, Callable

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from google.adk.sessions import BaseSessionService
from pydantic import BaseModel, Field

from knowledge.app import KnowledgeApp
from knowledge.db.queries import threads as thread_queries
from knowledge.pg_text import clean_text

logger = logging.getLogger(__name__)

THREADS_PATH = "/threads"
MAX_TITLE_CHARS = 80  # of a title taken from the first message
MAX_RENAME_CHARS = 200
LIST_LIMIT = 200
UNTITLED = "New chat"
_SPACE_RE = re.compile(r"\s+")


def thread_title(text: str) -> str:
    """A title from a message: its first MAX_TITLE_CHARS characters on one line."""
    line = _SPACE_RE.sub(" ", clean_text(text).text).strip()
    return (line[:MAX_TITLE_CHARS - 1].rstrip() + "…" if len(line) > MAX_TITLE_CHARS else line) or UNTITLED


class RenameRequest(BaseModel):
    title: str = Field(max_length=MAX_RENAME_CHARS)


def _no_thread(thread_id: str) -> JSONResponse:
    return JSONResponse({"error": f"You have no conversation {thread_id!r}."}, status_code=404)


def thread_router(user_of: Callable[[Request], str], sessions: BaseSessionService) -> APIRouter:
    router = APIRouter()

    @router.get(THREADS_PATH)
    async def list_threads(request: Request) -> JSONResponse:
        kapp: KnowledgeApp = request.app.state.kapp
        async with kapp.db.connection() as conn:
            rows = await thread_queries.select_threads(conn, kapp.settings.app_name, user_of(request), LIST_LIMIT)
        return JSONResponse({"threads": [r.to_dict() for r in rows]})

    @router.patch(THREADS_PATH + "/{thread_id}")
    async def rename(thread_id: str, body: RenameRequest, request: Request) -> JSONResponse:
        title = _SPACE_RE.sub(" ", clean_text(body.title).text).strip()
        if not title:
            return JSONResponse({"error": "A conversation's name cannot be empty."}, status_code=422)
        kapp: KnowledgeApp = request.app.state.kapp
        async with kapp.db.connection() as conn:
            row = await thread_queries.rename_thread(conn, kapp.settings.app_name, user_of(request), thread_id, title)
        return _no_thread(thread_id) if row is None else JSONResponse(row.to_dict())

    @router.delete(THREADS_PATH + "/{thread_id}")
    async def delete(thread_id: str, request: Request) -> Response:
        kapp: KnowledgeApp = request.app.state.kapp
        user_id = user_of(request)
        async with kapp.db.connection() as conn:
            if not await thread_queries.delete_thread(conn, kapp.settings.app_name, user_id, thread_id):
                return _no_thread(thread_id)
        await sessions.delete_session(app_name=kapp.settings.app_name, user_id=user_id, session_id=thread_id)
        return Response(status_code=204)

    return router


async def note_run(kapp: KnowledgeApp, user_id: str, thread_id: str, messages: list[Any]) -> None:
    """A run in ``thread_id``: list the thread under its first user message (later runs keep that title). Best
    effort: a failure is logged, and the run goes on to give its own error (the database down: RUN_ERROR)."""
    first = next((m for m in messages if getattr(m, "role", None) == "user"), None)
    content = getattr(first, "content", "") if first is not None else ""
    text = content if isinstance(content, str) else " ".join(getattr(p, "text", "") or "" for p in content or [])
    try:
        async with kapp.db.connection() as conn:
            await thread_queries.touch_thread(conn, kapp.settings.app_name, user_id, thread_id, thread_title(text))
    except Exception as exc:  # noqa: BLE001 - the thread list must not break a run
        logger.warning("could not list thread %s: %s: %s", thread_id, type(exc).__name__, exc)

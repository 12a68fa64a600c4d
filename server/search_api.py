"""POST /search: `negentropy search` through a running `negentropy serve` (cli/search.py), warm instead of
loading the model and the planner for every command.

It answers for the same identity as POST /agent and GET /corpora (``user_of`` the request: the person serve
was started for on loopback, a bearer token's person beyond it). The body names the person the CLI searches as
(its ``--as``; none: the local operator), and the server refuses any person but its own, except when it acts
for the local operator, who may search as anyone (as the in-process CLI may). So the CLI sees through serve
exactly what it would see in-process, and a refused CLI searches in-process."""
from __future__ import annotations

from typing import Callable

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from knowledge.app import KnowledgeApp
from knowledge.context.permissions import UnknownPersonError
from knowledge.corpora import UnknownCorpusError
from server.paths import SEARCH_PATH


class SearchBody(BaseModel):
    query: str
    corpora: list[str] = []
    limit: int = 10
    person: str | None = None  # None: the local operator
    strict_scope: bool = False


def _error(status_code: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status_code)


def search_router(user_of: Callable[[Request], str]) -> APIRouter:
    router = APIRouter()

    @router.post(SEARCH_PATH)
    async def search(body: SearchBody, request: Request) -> JSONResponse:
        kapp: KnowledgeApp = request.app.state.kapp
        try:
            view = await kapp.access.resolve_user(user_of(request))
        except UnknownPersonError as exc:
            return _error(403, f"I can't tell whom this server searches for: {exc}")
        if view.person is not None and body.person != view.person.id:
            return _error(403, f"this server searches as {view.who}, not as {body.person or 'the local operator'}")
        if not body.query.strip():
            return _error(400, "the query is empty")
        try:
            result = await kapp.router.search(body.query, person_id=body.person, corpus_names=body.corpora,
                                              limit=body.limit, strict_scope=body.strict_scope)
        except (UnknownPersonError, UnknownCorpusError, ValueError) as exc:
            return _error(400, str(exc))
        return JSONResponse(result.report().to_dict())

    return router

"""The web app's read endpoints next to POST /agent (its `@` popover).

GET /corpora: the corpora the request's person may read, with what they may do in each; it answers for the
same identity as POST /agent (``user_of`` the request), so the list never shows a corpus the agent would
refuse. GET /agents: the agents of the tree the endpoint runs, with their descriptions."""
from __future__ import annotations

from typing import Any, Callable

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from google.adk.agents import BaseAgent

from knowledge.app import KnowledgeApp
from knowledge.context.permissions import LibraryGrant, ResolvedView, UnknownPersonError
from knowledge.corpora import Corpus

CORPORA_PATH = "/corpora"
AGENTS_PATH = "/agents"
_INBOX_VIA = "card inbox"


def _may_do(view: ResolvedView, grants: list[LibraryGrant]) -> list[str]:
    """What the person may do in a corpus reached through ``grants``."""
    if any(g.via == _INBOX_VIA for g in grants):
        return ["search your knowledge cards that wait for review"]
    actions = ["search and ask questions"]
    if view.person is None or any(g.library.owner == view.person.id for g in grants):
        actions.append("save notes (published at once)")
    else:
        reviewers = ", ".join(dict.fromkeys(r for g in grants for r in (g.library.owner, *g.library.reviewers)))
        actions.append(f"save notes as knowledge cards reviewed by {reviewers}")
    return actions


def corpus_entry(view: ResolvedView, corpus: Corpus) -> dict[str, Any]:
    grants = [g for g in view.grants if any(c.id == corpus.id for c in view.corpora_of(g.library.id))]
    return {"id": str(corpus.id), "name": corpus.name, "label": corpus.label, "description": corpus.description,
            "chunks": corpus.chunk_count, "libraries": [g.library.name for g in grants],
            "may": _may_do(view, grants)}


def agent_entries(root: BaseAgent) -> list[dict[str, str]]:
    """The root and its sub-agents, depth first."""
    entries = [{"name": root.name, "description": root.description, "role": "root" if root.parent_agent is None
                else "sub-agent"}]
    for child in root.sub_agents:
        entries.extend(agent_entries(child))
    return entries


def web_router(user_of: Callable[[Request], str], root: BaseAgent) -> APIRouter:
    """The read endpoints for ``user_of(request)``, the person the /agent endpoint (running ``root``) acts for."""
    router = APIRouter()

    @router.get(AGENTS_PATH)
    async def agents() -> JSONResponse:
        return JSONResponse({"agents": agent_entries(root)})

    @router.get(CORPORA_PATH)
    async def corpora(request: Request) -> JSONResponse:
        kapp: KnowledgeApp = request.app.state.kapp
        user_id = user_of(request)
        try:
            view = await kapp.access.resolve_user(user_id)
        except UnknownPersonError as exc:
            return JSONResponse({"error": f"I can't tell which corpora you may read: {exc}"}, status_code=403)
        entries = [corpus_entry(view, c) for c in sorted(view.accessible_corpora, key=lambda c: c.label.casefold())]
        return JSONResponse({"user": user_id, "person": view.who, "corpora": entries})

    return router

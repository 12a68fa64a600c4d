"""GET /corpora: the corpora the server's person may read, with what they may do in each (the web app's
`@` popover). It answers for the same identity as POST /agent, so the list never shows a corpus the agent
would refuse."""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from knowledge.app import KnowledgeApp
from knowledge.context.permissions import LibraryGrant, ResolvedView, UnknownPersonError
from knowledge.corpora import Corpus

CORPORA_PATH = "/corpora"
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


def corpora_router(user_id: str) -> APIRouter:
    """The read endpoint for ``user_id``, the person the /agent endpoint acts for."""
    router = APIRouter()

    @router.get(CORPORA_PATH)
    async def corpora(request: Request) -> JSONResponse:
        kapp: KnowledgeApp = request.app.state.kapp
        try:
            view = await kapp.access.resolve_user(user_id)
        except UnknownPersonError as exc:
            return JSONResponse({"error": f"I can't tell which corpora you may read: {exc}"}, status_code=403)
        entries = [corpus_entry(view, c) for c in sorted(view.accessible_corpora, key=lambda c: c.label.casefold())]
        return JSONResponse({"user": user_id, "person": view.who, "corpora": entries})

    return router

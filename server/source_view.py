"""The web app's source view: the passage behind a citation, and which evidence an answer showed and the person
opened (the click-through of docs/design.md section 6).

POST /sources/open reads the chunk for the same person as POST /agent (``user_of`` the request), under row-level
security scoped to the corpora they may read; a chunk outside them, or none at all, gets 404 (the same answer for
both, so ids tell nothing) and an audit row. Opening it records the click. POST /sources/shown records the
evidence an answer showed (only chunks the person may read; showing it again changes nothing).
"""
from __future__ import annotations

from typing import Any, Callable, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from knowledge.app import KnowledgeApp
from knowledge.context.permissions import ResolvedView, UnknownPersonError
from knowledge.db.queries import chunks as chunk_queries
from knowledge.db.queries import evidence_views as view_queries
from knowledge.retrieval.rollout import rollout_path
from server.cited_sentence import cited_span
from server.guard import MAX_ID_CHARS

OPEN_PATH = "/sources/open"
SHOWN_PATH = "/sources/shown"
AUDIT_CHANNEL = "web"
AUDIT_TOOL = "source_view"
MAX_SHOWN_ITEMS = 50
MAX_QUOTE_CHARS = 2000

EvidenceType = Literal["primary", "graph_expanded"]


class _AnswerRef(BaseModel):
    """The answer a click or a showing belongs to: its thread and the user message it answered."""

    thread_id: str = Field(alias="threadId", min_length=1, max_length=MAX_ID_CHARS)
    turn_id: str = Field(alias="turnId", min_length=1, max_length=MAX_ID_CHARS)


class ShownItem(BaseModel):
    chunk_id: int = Field(alias="chunkId", ge=1)
    evidence_type: EvidenceType = Field(alias="evidenceType")


class OpenRequest(_AnswerRef, ShownItem):
    quote: str = Field(default="", max_length=MAX_QUOTE_CHARS)  # the answer's sentence that cites the passage


class ShownRequest(_AnswerRef):
    items: list[ShownItem] = Field(max_length=MAX_SHOWN_ITEMS)


def _key(kapp: KnowledgeApp, user_id: str, ref: _AnswerRef) -> view_queries.EvidenceViewKey:
    return view_queries.EvidenceViewKey(kapp.settings.app_name, user_id, ref.thread_id, ref.turn_id)


def _path(kapp: KnowledgeApp, view: ResolvedView) -> str:
    """The rollout path this person's searches take (the one their answers came from)."""
    return rollout_path(kapp.settings.knowledge_feature_flags, kapp.settings.app_name, view.person_id)


def _unknown_person(exc: UnknownPersonError) -> JSONResponse:
    return JSONResponse({"error": f"I can't tell which corpora you may read: {exc}"}, status_code=403)


async def _refuse(kapp: KnowledgeApp, view: ResolvedView, user_id: str, chunk_id: int) -> JSONResponse:
    async with kapp.db.connection() as conn:
        exists = await chunk_queries.select_chunk_corpus(conn, chunk_id) is not None
    await kapp.gateway.audit.record_refusal(channel=AUDIT_CHANNEL, person_id=view.person_id or user_id,
                                            tool=AUDIT_TOOL, arguments={"chunk_id": chunk_id},
                                            reason="forbidden_chunk" if exists else "unknown_chunk")
    return JSONResponse({"error": f"There is no passage {chunk_id} you may read."}, status_code=404)


def _passage(view: ResolvedView, record: Any, quote: str) -> dict[str, Any]:
    corpus = next(c for c in view.accessible_corpora if c.id == record["corpus_id"])
    metadata = record["metadata"] or {}
    span = cited_span(record["content"], quote)
    return {"chunkId": record["id"], "content": record["content"],
            "highlight": None if span is None else {"start": span[0], "end": span[1]},
            "corpus": {"id": str(corpus.id), "name": corpus.name, "label": corpus.label},
            "document": {"title": str(metadata.get("title") or record["source_uri"]),
                         "sourceUri": record["source_uri"]}}


def source_router(user_of: Callable[[Request], str]) -> APIRouter:
    router = APIRouter()

    @router.post(OPEN_PATH)
    async def open_source(body: OpenRequest, request: Request) -> JSONResponse:
        kapp: KnowledgeApp = request.app.state.kapp
        user_id = user_of(request)
        try:
            view = await kapp.access.resolve_user(user_id)
        except UnknownPersonError as exc:
            return _unknown_person(exc)
        readable = view.accessible_corpus_ids
        async with kapp.db.scoped(readable) as conn:
            records = await chunk_queries.select_chunks_by_ids(conn, [body.chunk_id], readable)
        if not records:
            return await _refuse(kapp, view, user_id, body.chunk_id)
        async with kapp.db.connection() as conn:
            await view_queries.mark_opened(conn, _key(kapp, user_id, body), _path(kapp, view),
                                           view_queries.ShownEvidence(body.chunk_id, body.evidence_type))
        return JSONResponse(_passage(view, records[0], body.quote))

    @router.post(SHOWN_PATH)
    async def shown(body: ShownRequest, request: Request) -> Response:
        kapp: KnowledgeApp = request.app.state.kapp
        user_id = user_of(request)
        try:
            view = await kapp.access.resolve_user(user_id)
        except UnknownPersonError as exc:
            return _unknown_person(exc)
        readable = view.accessible_corpus_ids
        async with kapp.db.scoped(readable) as conn:
            found = {r["id"] for r in await chunk_queries.select_chunks_by_ids(
                conn, [i.chunk_id for i in body.items], readable)}
        items = [view_queries.ShownEvidence(i.chunk_id, i.evidence_type) for i in body.items if i.chunk_id in found]
        async with kapp.db.connection() as conn:
            await view_queries.insert_shown(conn, _key(kapp, user_id, body), _path(kapp, view), items)
        return Response(status_code=204)

    return router

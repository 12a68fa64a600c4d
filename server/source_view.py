"""The web app's source view: the passage behind a citation, and which evidence an answer showed and the person
opened (the click-through of docs/design.md section 6).

POST /sources/open reads the chunk for the same person as POST /agent (``user_of`` the request), under row-level
security scoped to the corpora they may read; a chunk outside them, or none at all, gets 404 (the same answer for
both, so ids tell nothing) and an audit row. Opening it records the click. POST /sources/shown records the
evidence an answer showed (only chunks the person may read; showing it again changes nothing).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Literal

from fastapi import APIRouter, Depends, HTTPException, Request
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


@dataclass(frozen=True)
class _Reader:
    """The request's person with what they may read (the /agent identity)."""

    kapp: KnowledgeApp
    user_id: str
    view: ResolvedView

    async def chunks(self, chunk_ids: list[int]) -> list[Any]:
        """The chunks of ``chunk_ids`` this person may read, read under row-level security scoped to them."""
        readable = self.view.accessible_corpus_ids
        async with self.kapp.db.scoped(readable) as conn:
            return await chunk_queries.select_chunks_by_ids(conn, chunk_ids, readable)

    def key(self, ref: _AnswerRef) -> view_queries.EvidenceViewKey:
        return view_queries.EvidenceViewKey(self.kapp.settings.app_name, self.user_id, ref.thread_id, ref.turn_id)

    @property
    def rollout_path(self) -> str:
        """The rollout path this person's searches take (the one their answers came from)."""
        settings = self.kapp.settings
        return rollout_path(settings.knowledge_feature_flags, settings.app_name, self.view.person_id)

    async def refuse(self, chunk_id: int) -> JSONResponse:
        async with self.kapp.db.connection() as conn:
            exists = await chunk_queries.select_chunk_corpus(conn, chunk_id) is not None
        await self.kapp.gateway.audit.record_refusal(
            channel=AUDIT_CHANNEL, person_id=self.view.person_id or self.user_id, tool=AUDIT_TOOL,
            arguments={"chunk_id": chunk_id}, reason="forbidden_chunk" if exists else "unknown_chunk")
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

    async def reader(request: Request) -> _Reader:
        kapp: KnowledgeApp = request.app.state.kapp
        user_id = user_of(request)
        try:
            return _Reader(kapp, user_id, await kapp.access.resolve_user(user_id))
        except UnknownPersonError as exc:
            raise HTTPException(status_code=403, detail=f"I can't tell which corpora you may read: {exc}") from None

    @router.post(OPEN_PATH)
    async def open_source(body: OpenRequest, person: _Reader = Depends(reader)) -> JSONResponse:
        records = await person.chunks([body.chunk_id])
        if not records:
            return await person.refuse(body.chunk_id)
        async with person.kapp.db.connection() as conn:
            await view_queries.mark_opened(conn, person.key(body), person.rollout_path,
                                           view_queries.ShownEvidence(body.chunk_id, body.evidence_type))
        return JSONResponse(_passage(person.view, records[0], body.quote))

    @router.post(SHOWN_PATH)
    async def shown(body: ShownRequest, person: _Reader = Depends(reader)) -> Response:
        found = {r["id"] for r in await person.chunks([i.chunk_id for i in body.items])}
        items = [view_queries.ShownEvidence(i.chunk_id, i.evidence_type) for i in body.items if i.chunk_id in found]
        async with person.kapp.db.connection() as conn:
            await view_queries.insert_shown(conn, person.key(body), person.rollout_path, items)
        return Response(status_code=204)

    return router

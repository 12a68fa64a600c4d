"""The AG-UI app of `negentropy serve` in process (real database, offline model), over httpx's ASGI transport."""
from __future__ import annotations

import json
import uuid
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

import httpx
from fastapi import FastAPI

from knowledge.ingest.documents import Document

USER = "sofia"
DOC = Document(source_uri="helios.md", title="Project Helios - Retrieval Architecture Note",
               text="Project Helios depends on the Aurora Vector Engine for its nearest-neighbour lookups.")


@asynccontextmanager
async def running(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://agui.test", timeout=None) as client:
            yield client


def run_body(corpus_id: str, question: str = "What does Project Helios depend on?") -> dict[str, Any]:
    return {"threadId": f"thread-{uuid.uuid4()}", "runId": str(uuid.uuid4()), "state": {}, "tools": [],
            "context": [], "messages": [{"id": str(uuid.uuid4()), "role": "user", "content": question}],
            "forwardedProps": {"corpus_ids": [corpus_id]}}


def sse_events(response: httpx.Response) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]


async def post_run(client: httpx.AsyncClient, body: Any) -> httpx.Response:
    return await client.post("/agent", content=body, headers={"accept": "text/event-stream",
                                                              "content-type": "application/json"})


async def helios_corpus(kapp) -> str:
    corpus = await kapp.corpora.create("project_docs", "Project Docs")
    await kapp.ingest_documents(corpus, [DOC])
    return str(corpus.id)

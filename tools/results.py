"""Retrieval results as the JSON-able dicts ADK tools return to the model."""
from __future__ import annotations

from typing import Any

from knowledge.retrieval.results import RetrievalResponse, SearchHit

MAX_CONTENT_CHARS = 1200


def hit_to_tool_dict(hit: SearchHit) -> dict[str, Any]:
    meta = hit.metadata or {}
    item: dict[str, Any] = {
        "citation_id": hit.citation_id,
        "chunk_id": hit.chunk_id,  # what the web app's source view opens
        "formatted_citation": hit.formatted_citation,
        "corpus_id": str(hit.corpus_id),
        "corpus_name": hit.corpus_name,
        "corpus_label": hit.corpus_label,
        "evidence_type": hit.evidence_type,
        "title": str(meta.get("title") or hit.source_uri),
        "source_uri": hit.source_uri,
        "score": round(float(hit.score), 4),
        "content": hit.content[:MAX_CONTENT_CHARS],
    }
    for key in ("authors", "year", "venue"):
        if meta.get(key):
            item[key] = meta[key]
    if hit.bridge is not None:
        item["bridge"] = hit.bridge.to_dict()
    return item


def response_to_tool_dict(response: RetrievalResponse) -> dict[str, Any]:
    return {
        "status": "success",
        "mode": response.mode,
        "query_kind": response.query_kind,
        "graph_expansion": response.graph_expansion,
        "fallback_reason": response.fallback_reason,
        "results": [hit_to_tool_dict(h) for h in response.hits],
        "bridges": [b.to_dict() for b in response.bridges],
        "citations": list(dict.fromkeys(h.formatted_citation for h in response.hits)),
    }

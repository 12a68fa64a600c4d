"""The ``search`` and ``read`` tools: planner search with citations, and chunks or documents by id."""
from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from config.settings import GatewaySettings
from knowledge.context.router import ContextRouter
from knowledge.corpora import CorpusRegistry
from knowledge.db.database import Database
from knowledge.db.queries import gateway as q
from knowledge.gateway.errors import InvalidArgumentsError, NotFoundError, OversizedRequestError
from knowledge.gateway.gateway import CallScope, GatewayTool
from knowledge.retrieval.citations import assign_citations
from knowledge.retrieval.results import SearchHit

_CHUNK_ID_RE = re.compile(r"^(?:chunk:)?(\d{1,18})$")
_DOCUMENT_ID_RE = re.compile(r"^document:([0-9a-f]{16,64})$")


class SearchArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, description="What to look for, in natural language (English or Chinese).")
    libraries: list[str] | None = Field(
        default=None, description="Ids (or names) of context libraries to search; omit to let the Context Router "
                                  "pick among the libraries you can see.")
    limit: int = Field(default=10, ge=1, description="How many results to return.")
    strict_scope: bool = Field(
        default=False, description="Never follow entity bridges into libraries you did not name.")


class ReadArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, description="'chunk:<n>' (or just <n>) for one chunk, 'document:<document_id>' "
                                              "for every chunk of a document; ids come from search results.")


def _hit_item(hit: SearchHit, scope: CallScope, document_ids: dict[int, str]) -> dict[str, Any]:
    meta = hit.metadata or {}
    item: dict[str, Any] = {
        "citation_id": hit.citation_id,
        "formatted_citation": hit.formatted_citation,
        "chunk_id": hit.chunk_id,
        "read_id": f"chunk:{hit.chunk_id}",
        "document_id": f"document:{document_ids[hit.chunk_id]}" if hit.chunk_id in document_ids else None,
        "corpus_id": str(hit.corpus_id),
        "corpus_label": hit.corpus_label,
        "library": scope.library_of(hit.corpus_id),
        "evidence_type": hit.evidence_type,
        "title": str(meta.get("title") or hit.source_uri),
        "source_uri": hit.source_uri,
        "score": round(float(hit.score), 4),
        "content": hit.content,
    }
    if hit.bridge is not None:
        item["bridge"] = {**hit.bridge.to_dict(), "description": hit.bridge.describe()}
    return item


def search_tool(db: Database, router: ContextRouter, limits: GatewaySettings) -> GatewayTool:

    async def search(scope: CallScope, args: SearchArguments) -> dict[str, Any]:
        if len(args.query) > limits.max_query_chars:
            raise OversizedRequestError(f"query is {len(args.query)} characters; the limit is "
                                        f"{limits.max_query_chars}")
        if args.limit > limits.max_results:
            raise OversizedRequestError(f"limit {args.limit} exceeds the maximum of {limits.max_results} results")
        # Named libraries are searched as asked; otherwise the Context Router picks 1-3 of the caller's.
        found = await router.search_view(args.query, scope.view, scope.requested_corpus_ids, limit=args.limit,
                                         strict_scope=args.strict_scope)
        hits = found.hits if all(h.citation_id for h in found.hits) else assign_citations(found.hits)
        response = found.guarded.response
        async with db.scoped(scope.accessible_corpus_ids) as conn:
            document_ids = await q.select_document_ids(conn, [h.chunk_id for h in hits], scope.accessible_corpus_ids)
        searched = (found.decision.library_ids if found.decision is not None
                    else [library.id for library in scope.requested_libraries])
        return {
            "query": args.query,
            "libraries_searched": searched,
            "mode": response.mode if response else "empty",
            "query_kind": response.query_kind if response else None,
            "graph_expansion": response.graph_expansion if response else False,
            "items": [_hit_item(h, scope, document_ids) for h in hits],
            "citations": list(dict.fromkeys(h.formatted_citation for h in hits)),
            "cross_corpus_links": [b.to_dict() for b in response.bridges] if response else [],
            "knowledge_gap": found.gap.to_dict() if found.gap else None,
        }

    return GatewayTool(
        name="search",
        description=("Search the context libraries you may see: hybrid retrieval with cross-library entity "
                     "bridges; with no libraries named, the Context Router picks the 1-3 that fit. Each result "
                     "has an IEEE citation saying which library it came from and a read_id for the read tool; "
                     "thin evidence comes back as a knowledge_gap naming the owner to ask."),
        arguments=SearchArguments, handler=search, libraries_field="libraries")


def _chunk_item(row: Any, scope: CallScope, labels: dict[Any, str]) -> dict[str, Any]:
    meta = row["metadata"] or {}
    return {
        "chunk_id": row["id"],
        "document_id": f"document:{row['document_hash']}",
        "chunk_index": row["chunk_index"],
        "corpus_id": str(row["corpus_id"]),
        "corpus_label": labels.get(row["corpus_id"], ""),
        "library": scope.library_of(row["corpus_id"]),
        "title": str(meta.get("title") or row["source_uri"]),
        "source_uri": row["source_uri"],
        "metadata": meta,
        "content": row["content"],
    }


def read_tool(db: Database, corpora: CorpusRegistry, limits: GatewaySettings) -> GatewayTool:
    max_chunks = limits.max_document_chunks

    async def read(scope: CallScope, args: ReadArguments) -> dict[str, Any]:
        wanted = args.id.strip()
        chunk, document = _CHUNK_ID_RE.match(wanted), _DOCUMENT_ID_RE.match(wanted)
        if chunk is None and document is None:
            raise InvalidArgumentsError(f"cannot read {wanted!r}: use 'chunk:<n>' or 'document:<document_id>' "
                                        "from a search result")
        accessible = scope.accessible_corpus_ids
        # The corpus filter and the reader role's row-level security both bound this read to the view.
        async with db.scoped(accessible) as conn:
            if chunk is not None:
                row = await q.select_chunk(conn, int(chunk.group(1)), accessible)
                rows = [row] if row is not None else []
            else:
                rows = await q.select_document_chunks(conn, document.group(1), accessible, max_chunks + 1)
        if not rows:
            raise NotFoundError(f"{wanted} is not in any library you can see")
        labels = {c.id: c.label for c in await corpora.by_ids(list({r["corpus_id"] for r in rows}))}
        result: dict[str, Any] = {"id": wanted, "items": [_chunk_item(r, scope, labels) for r in rows[:max_chunks]]}
        if len(rows) > max_chunks:
            result["truncated"] = True
        return result

    return GatewayTool(
        name="read",
        description="Read one chunk, or a whole document, by the id a search result gave you.",
        arguments=ReadArguments, handler=read)

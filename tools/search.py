"""Perception tools: chunk search (the planner), global graph search and paper-level lookup.

Exclusivity (docs/design.md section 4): one question is answered either by `search_knowledge_base` or by
`search_knowledge_graph_global`, never both; `search_knowledge_graph_with_papers` is independent.
"""
from __future__ import annotations

from typing import Any, Optional

from google.adk.tools import ToolContext

from knowledge.retrieval.results import SearchHit
from session.state import STRICT_SCOPE
from tools.results import hit_to_tool_dict, response_to_tool_dict
from tools.scope import ToolScope, resolve_tool_scope

SEARCH_LIMIT = 8
PAPER_SEARCH_LIMIT = 20
MAX_PAPERS = 5
_EXCLUSIVE = ("search_knowledge_base", "search_knowledge_graph_global")
_PAPER_FIELDS = ("authors", "year", "venue")


def _exclusive_conflict(tool_context: ToolContext, tool_name: str) -> dict[str, Any] | None:
    """A failure result when the other exclusive search already ran for this question."""
    other = next(name for name in _EXCLUSIVE if name != tool_name)
    for event in tool_context.session.events:
        if event.invocation_id != tool_context.invocation_id:
            continue
        if any(response.name == other for response in event.get_function_responses()):
            return {"status": "failed",
                    "error": f"{tool_name} and {other} are exclusive for one question and {other} already ran; "
                             "answer from its results."}
    return None


def _strict_scope(tool_context: ToolContext) -> bool:
    """The conversation's strict-scope switch (the web app's composer toggle)."""
    return tool_context.state.get(STRICT_SCOPE) is True


def _scope_notes(scope: ToolScope) -> dict[str, Any]:
    notes: dict[str, Any] = {"corpora": [ref.label for ref in scope.session_corpora] or "all accessible corpora"}
    if scope.rejected:
        notes["rejected_corpus_ids"] = scope.rejected
        notes["note"] = "corpora outside this conversation's scope were ignored"
    return notes


async def search_knowledge_base(query: str, tool_context: ToolContext,
                                corpus_ids: Optional[list[str]] = None) -> dict[str, Any]:
    """Search the conversation's corpora for passages that answer a question (hybrid search; for
    several corpora it follows cross-corpus entity bridges by itself when the question is relational).

    Args:
      query: the user's question, without @mentions.
      corpus_ids: optional ids or names narrowing the search to some of the conversation's corpora.

    Returns:
      results with citation_id, corpus_label, evidence_type (primary or graph_expanded), content and
      formatted_citation (IEEE, ending "(from Corpus: X)"), plus bridges between corpora.
    """
    if conflict := _exclusive_conflict(tool_context, "search_knowledge_base"):
        return conflict
    if not query.strip():
        return {"status": "failed", "error": "the query is empty"}
    scope = await resolve_tool_scope(tool_context, corpus_ids)
    # no corpus in the conversation: the Context Router picks the libraries (and reports knowledge gaps)
    strict = _strict_scope(tool_context)
    result = await scope.kapp.router.search_as_user(query, tool_context.user_id, scope.requested, limit=SEARCH_LIMIT,
                                                    strict_scope=strict)
    return {**response_to_tool_dict(result.response), **result.routing_notes(), **_scope_notes(scope),
            "strict_scope": strict}


async def search_knowledge_graph_global(query: str, tool_context: ToolContext,
                                        corpus_ids: Optional[list[str]] = None) -> dict[str, Any]:
    """Answer a global question (themes, overview, overall picture, core topics; 主题/概览/总体/核心)
    from the knowledge graph's community summaries of the conversation's corpora.

    Args:
      query: the user's question, without @mentions.
      corpus_ids: optional ids or names narrowing the search to some of the conversation's corpora.
    """
    if conflict := _exclusive_conflict(tool_context, "search_knowledge_graph_global"):
        return conflict
    if not query.strip():
        return {"status": "failed", "error": "the query is empty"}
    scope = await resolve_tool_scope(tool_context, corpus_ids)
    requested = scope.requested if scope.requested is not None else scope.accessible
    result = await scope.kapp.search_graph_global(query, requested, scope.accessible, limit=5)
    return {"status": "success", **result.to_dict(), **_scope_notes(scope)}


def _paper_of(hit: SearchHit) -> dict[str, Any] | None:
    meta = hit.metadata or {}
    if not any(meta.get(key) for key in _PAPER_FIELDS):
        return None
    item = hit_to_tool_dict(hit)
    item["best_passage"] = item.pop("content")
    return item


async def search_knowledge_graph_with_papers(query: str, tool_context: ToolContext,
                                             corpus_ids: Optional[list[str]] = None) -> dict[str, Any]:
    """Paper-level lookup: which papers (title, authors, year, venue) in the conversation's corpora
    address the question, each with its best passage and IEEE citation; graph-expanded evidence and
    cross-corpus bridges found by the planner are kept.

    Args:
      query: the user's question, without @mentions.
      corpus_ids: optional ids or names narrowing the lookup to some of the conversation's corpora.
    """
    if not query.strip():
        return {"status": "failed", "error": "the query is empty"}
    scope = await resolve_tool_scope(tool_context, corpus_ids)
    person_id = (await scope.kapp.access.resolve_user(tool_context.user_id)).person_id
    response = await scope.kapp.retrieval.search(query, scope.requested, scope.accessible, limit=PAPER_SEARCH_LIMIT,
                                                 strict_scope=_strict_scope(tool_context), person_id=person_id)
    papers: dict[tuple[str, str], dict[str, Any]] = {}
    for hit in response.hits:
        paper = _paper_of(hit)
        if paper is not None:
            papers.setdefault((paper["corpus_id"], paper["source_uri"]), paper)
    result = response_to_tool_dict(response)
    result.pop("results")
    result["papers"] = list(papers.values())[:MAX_PAPERS]
    result["citations"] = [p["formatted_citation"] for p in result["papers"]]
    if not papers:
        result["note"] = "no paper-level records (title, authors, year, venue) among the results in scope"
    return {**result, **_scope_notes(scope)}

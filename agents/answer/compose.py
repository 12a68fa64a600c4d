"""Answers from tool results: the chosen evidence sentences with IEEE citations (each naming its corpus), the
cross-corpus links that brought graph-expanded evidence in, and the Context Router's knowledge gap (who to ask)."""
from __future__ import annotations

from typing import Any

from agents.answer.evidence import select_evidence
from agents.answer.text import sentences
from knowledge.retrieval.results import describe_bridge


def _references(results: list[dict[str, Any]], cited: set[int]) -> list[str]:
    refs: dict[int, str] = {}
    for result in results:
        number = int(result.get("citation_id") or 0)
        if number in cited and result.get("formatted_citation"):
            refs.setdefault(number, str(result["formatted_citation"]))
    return [refs[n] for n in sorted(refs)]


def _links(result: dict[str, Any], cited: list[dict[str, Any]]) -> list[str]:
    lines = []
    for bridge in result.get("bridges") or []:
        via = [f"[{r['citation_id']}]" for r in cited if r.get("bridge") == bridge]
        lines.append(f"- {describe_bridge(bridge)}" + (f": evidence {', '.join(dict.fromkeys(via))}" if via else ""))
    return lines


def compose_search_answer(query: str, result: dict[str, Any]) -> str:
    """The answer to ``query`` from a search_knowledge_base result."""
    if result.get("status") != "success":
        return f"The search failed: {result.get('error', 'unknown error')}"
    results = list(result.get("results") or [])
    if not results:
        return "\n".join([_nothing_found(result), *_gap_notice(result)])
    evidence = select_evidence(query, results)
    cited = {e.citation_id for e in evidence}
    body = " ".join(f"{e.sentence} [{e.citation_id}]" for e in evidence)
    parts = [body, "", "References:", *_references(results, cited)]
    links = _links(result, [r for r in results if int(r.get("citation_id") or 0) in cited])
    if links:
        parts += ["", "Cross-corpus links:", *links]
    if result.get("mode") == "fallback" and result.get("fallback_reason"):
        parts += ["", f"(The cross-corpus planner fell back to plain search: {result['fallback_reason']})"]
    return "\n".join(parts + _gap_notice(result))


def _gap_notice(result: dict[str, Any]) -> list[str]:
    """The Context Router's knowledge gap: why the evidence may not suffice and whom to ask."""
    gap = result.get("knowledge_gap")
    if not gap:
        return []
    library = f", owner of {gap['library_name']}" if gap.get("library_name") else ""
    return ["", f"Knowledge gap: {gap['message']}. Ask {gap['owner_name']}{library}."]


def compose_papers_answer(query: str, result: dict[str, Any]) -> str:
    if result.get("status") != "success":
        return f"The paper lookup failed: {result.get('error', 'unknown error')}"
    papers = list(result.get("papers") or [])
    if not papers:
        return _nothing_found(result, what="papers")
    lines = ["Papers that address this:"]
    for paper in papers:
        best = select_evidence(query, [paper], limit=1)
        authors = paper.get("authors")
        byline = ", ".join(authors) if isinstance(authors, list) else str(authors or "")
        venue = ", ".join(str(paper[k]) for k in ("venue", "year") if paper.get(k))
        head = f"- [{paper['citation_id']}] {paper['title']}" + (f" — {byline}" if byline else "")
        head += f" ({venue})" if venue else ""
        lines.append(head + (f": {best[0].sentence}" if best else ""))
    lines += ["", "References:", *dict.fromkeys(str(p["formatted_citation"]) for p in papers)]
    if result.get("bridges"):
        lines += ["", "Cross-corpus links:", *(f"- {describe_bridge(b)}" for b in result["bridges"])]
    return "\n".join(lines)


def _nothing_found(result: dict[str, Any], what: str = "passages") -> str:
    corpora = result.get("corpora")
    where = ", ".join(corpora) if isinstance(corpora, list) else str(corpora or "the corpora in scope")
    return f"I found no {what} about that in {where}."


def compose_global_answer(result: dict[str, Any]) -> str:
    """An overview from a search_knowledge_graph_global result: one line per community summary."""
    if result.get("status") != "success":
        return f"The global search failed: {result.get('error', 'unknown error')}"
    communities = list(result.get("communities") or [])
    if not communities:
        return _nothing_found(result, what="knowledge-graph community summaries")
    lines = ["Main themes:"]
    for community in communities:
        summary = sentences(str(community.get("summary") or ""))
        numbers = "".join(f"[{n}]" for n in community.get("citation_ids") or [])
        lines.append(f"- {community['title']} ({community['corpus_label']}): "
                     f"{' '.join(summary[:2]) or 'no summary'} {numbers}".rstrip())
    evidence = sorted(result.get("evidence") or [], key=lambda h: int(h.get("citation_id") or 0))
    references = list(dict.fromkeys(str(h["formatted_citation"]) for h in evidence if h.get("formatted_citation")))
    return "\n".join([*lines, "", "References:", *references])

"""Extractive answers from tool results: the best evidence sentences, IEEE citations with the corpus of
each source, and the cross-corpus links that brought graph-expanded evidence in."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from knowledge.retrieval.results import describe_bridge

MAX_SENTENCES = 4
MAX_PER_SOURCE = 2
MAX_SENTENCE_CHARS = 320
RELEVANCE_FLOOR = 0.5  # a sentence scoring under half the best one adds noise, not evidence

_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?。！？；;])\s+|\n+|(?<=[。！？])")
_WORD_RE = re.compile(r"[a-z0-9]+(?:['\-][a-z0-9]+)*|[\u4e00-\u9fff]+")
_ABBREVIATION_RE = re.compile(r"(?:\b(?:dr|mr|mrs|ms|prof|inc|ltd|co|corp|jr|sr|st|vs|no|fig|al|e\.g|i\.e|etc)|\b[a-z])\.$",
                              re.IGNORECASE)
_HEADING_RE = re.compile(r"^\s*#")
_MARKDOWN_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_STOPWORDS = frozenset(
    "a an and are as at be by can could did do does for from had has have how i in is it its of on or our "
    "that the their them there these this those to was we were what when where which who whom whose why will "
    "with would you your about into than then also any all tell me please".split()
)


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def terms(text: str) -> set[str]:
    """Content words (crudely stemmed) and Chinese character bigrams of ``text``."""
    found: set[str] = set()
    for token in _WORD_RE.findall(text.casefold()):
        if "\u4e00" <= token[0] <= "\u9fff":
            found.update(token[i:i + 2] for i in range(max(len(token) - 1, 1)))
        elif len(token) > 2 and token not in _STOPWORDS:
            found.add(_stem(token))
    return found


def sentences(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        if not _HEADING_RE.match(line):  # a title is not evidence; the citation names the document
            out.extend(_split_line(line))
    return out


def _split_line(line: str) -> list[str]:
    pieces: list[str] = []
    for piece in _SENTENCE_SPLIT_RE.split(line):
        if pieces and _ABBREVIATION_RE.search(pieces[-1]):  # "Dr. Lin Wei" is one sentence
            pieces[-1] = f"{pieces[-1]} {piece}"
        else:
            pieces.append(piece)
    out = []
    for raw in pieces:
        sentence = _MARKDOWN_RE.sub("", raw).strip()
        if len(sentence) >= 12:
            out.append(sentence if len(sentence) <= MAX_SENTENCE_CHARS else sentence[:MAX_SENTENCE_CHARS] + "…")
    return out


@dataclass(frozen=True)
class Evidence:
    sentence: str
    citation_id: int
    score: float
    graph_expanded: bool


def via_entity(result: dict[str, Any]) -> str:
    """The bridge entity of a graph-expanded result (its ``bridge`` is ``BridgePath.to_dict()``)."""
    return str((result.get("bridge") or {}).get("via_entity") or "")


def _candidates(query: str, results: list[dict[str, Any]]) -> list[list[Evidence]]:
    """Scored sentences per result, best first."""
    wanted = terms(query)
    per_result = []
    for rank, result in enumerate(results):
        focus = wanted | terms(via_entity(result))
        scored = []
        for sentence in sentences(str(result.get("content") or result.get("best_passage") or "")):
            found = terms(sentence)
            overlap = len(found & focus)
            if not overlap:
                continue
            score = overlap / math.sqrt(len(found) + 1) + 0.5 / (rank + 1)
            scored.append(Evidence(sentence, int(result.get("citation_id") or rank + 1), score,
                                   result.get("evidence_type") == "graph_expanded"))
        per_result.append(sorted(scored, key=lambda e: -e.score))
    return per_result


def select_evidence(query: str, results: list[dict[str, Any]], limit: int = MAX_SENTENCES) -> list[Evidence]:
    """Best sentences overall; the best sentences of the graph-expanded results (up to half the answer, linked
    facts first) are always kept, since that is the evidence only the cross-corpus bridge found."""
    per_result = _candidates(query, results)
    if not any(per_result):  # no sentence shares a word with the question: lead with the top result
        top = sentences(str(results[0].get("content") or results[0].get("best_passage") or ""))[:1]
        return [Evidence(s, int(results[0].get("citation_id") or 1), 0.0, False) for s in top]
    asked = terms(query)

    def bridge_rank(result: dict[str, Any], evidence: Evidence) -> tuple:
        # the sentence that names the bridge entity is the linked fact, most of all when the question does not
        # name that entity (then it is the hidden middle of a multi-hop question)
        via = terms(via_entity(result))
        return (not (via and via <= terms(evidence.sentence)), bool(via) and via <= asked, -evidence.score)

    expanded = sorted(((result, ranked[0]) for result, ranked in zip(results, per_result)
                       if ranked and ranked[0].graph_expanded), key=lambda pair: bridge_rank(*pair))
    chosen: list[Evidence] = [evidence for _, evidence in expanded][:limit // 2]
    per_source: dict[int, int] = {}
    for item in chosen:
        per_source[item.citation_id] = per_source.get(item.citation_id, 0) + 1
    pool = sorted((e for ranked in per_result for e in ranked if e not in chosen), key=lambda e: -e.score)
    floor = pool[0].score * RELEVANCE_FLOOR if pool else 0.0
    for item in (e for e in pool if e.score >= floor):
        if len(chosen) >= limit:
            break
        if per_source.get(item.citation_id, 0) >= MAX_PER_SOURCE or any(c.sentence == item.sentence for c in chosen):
            continue
        chosen.append(item)
        per_source[item.citation_id] = per_source.get(item.citation_id, 0) + 1
    return chosen


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
        return _nothing_found(result)
    evidence = select_evidence(query, results)
    cited = {e.citation_id for e in evidence}
    body = " ".join(f"{e.sentence} [{e.citation_id}]" for e in evidence)
    parts = [body, "", "References:", *_references(results, cited)]
    links = _links(result, [r for r in results if int(r.get("citation_id") or 0) in cited])
    if links:
        parts += ["", "Cross-corpus links:", *links]
    if result.get("mode") == "fallback" and result.get("fallback_reason"):
        parts += ["", f"(The cross-corpus planner fell back to plain search: {result['fallback_reason']})"]
    return "\n".join(parts)


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

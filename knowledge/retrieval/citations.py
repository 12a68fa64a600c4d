"""IEEE-style citations with the corpus each piece of evidence came from."""
from __future__ import annotations

from typing import Sequence

from knowledge.retrieval.results import SearchHit

_CLOSING_MARKS = frozenset(".!?。！？")


def _authors(value: object) -> str:
    if isinstance(value, (list, tuple)):
        names = [str(v) for v in value if str(v).strip()]
        if len(names) > 2:
            return ", ".join(names[:-1]) + ", and " + names[-1]
        return " and ".join(names)
    return str(value or "").strip()


def _closed(title: str, mark: str) -> str:
    """The title with IEEE's closing mark, unless it already ends in one ("Welcome, Maria Santos!" keeps its "!")."""
    return title if title[-1:] in _CLOSING_MARKS else title + mark


def format_ieee(hit: SearchHit, number: int) -> str:
    """``[n] A. Author and B. Author, “Title,” Venue, Year. (from Corpus: Label)``."""
    meta = hit.metadata or {}
    title = str(meta.get("title") or hit.source_uri or f"chunk {hit.chunk_id}").strip()
    trailing = [str(meta[k]) for k in ("venue", "year") if meta.get(k)]
    authors = _authors(meta.get("authors"))
    head = f"{authors}, " if authors else ""
    if trailing:
        body = f"{head}\u201c{_closed(title, ',')}\u201d {', '.join(trailing)}."
    else:
        body = f"{head}\u201c{_closed(title, '.')}\u201d"
    return f"[{number}] {body} (from Corpus: {hit.corpus_label})"


def assign_citations(hits: Sequence[SearchHit]) -> list[SearchHit]:
    """Number hits 1..n and fill formatted_citation; the same source keeps one number."""
    numbers: dict[tuple[str, str], int] = {}
    for hit in hits:
        key = (str(hit.corpus_id), hit.source_uri)
        if key not in numbers:
            numbers[key] = len(numbers) + 1
        hit.citation_id = numbers[key]
        hit.formatted_citation = format_ieee(hit, hit.citation_id)
    return list(hits)

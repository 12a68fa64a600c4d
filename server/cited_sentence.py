"""Which sentence of a cited passage the answer's sentence quotes: the span the source view highlights."""
from __future__ import annotations

import re

from knowledge.graph.extraction.sentences import split_sentences

# words of Latin scripts, single characters of the CJK ones (Chinese has no spaces between words)
_TOKEN_RE = re.compile(r"[^\W\d_]+|\d+|[\u3400-\u9fff]", re.UNICODE)
_CITATION_MARK_RE = re.compile(r"\[\d+\]")
MIN_SHARE = 0.4  # of the quote's words the sentence must hold to count as the one it quotes


def _tokens(text: str) -> set[str]:
    return {t.casefold() for t in _TOKEN_RE.findall(_CITATION_MARK_RE.sub(" ", text))}


def cited_span(passage: str, quote: str) -> tuple[int, int] | None:
    """(start, end) of the passage sentence sharing the most of ``quote``'s words; None when none shares
    MIN_SHARE of them (the answer paraphrased something the passage does not say in one sentence)."""
    wanted = _tokens(quote)
    if not wanted:
        return None
    best: tuple[float, int, int] | None = None
    for start, end in split_sentences(passage):
        share = len(wanted & _tokens(passage[start:end])) / len(wanted)
        if best is None or share > best[0]:
            best = (share, start, end)
    return (best[1], best[2]) if best is not None and best[0] >= MIN_SHARE else None

"""Sentence spans for English and Chinese text (abbreviations and initials do not end a sentence)."""
from __future__ import annotations

import re

from knowledge.graph import extraction_patterns as P

_WORD_BEFORE_RE = re.compile(r"([A-Za-z][A-Za-z.]*)$")
_NEXT_WORD_RE = re.compile(r"\s+[\"“(]?([A-Za-z]+)")
_DOTTED_INITIALS_RE = re.compile(r"[A-Z](?:\.[A-Z])+")


def _no_split_at_period(text: str, i: int) -> bool:
    """True when the '.' at ``text[i]`` belongs to an abbreviation and does not end a sentence."""
    m = _WORD_BEFORE_RE.search(text, max(0, i - 12), i)
    if not m:
        return False
    word = m.group(1).rstrip(".")
    low = word.lower()
    if len(word) == 1 and word.isupper():          # initial: "J. Smith"
        return True
    if _DOTTED_INITIALS_RE.fullmatch(word):         # "R.K. Narayan"
        return True
    if low in P.LEGAL_ABBREV:                       # "Apple Inc. released" vs "... Apple Inc. The"
        nxt = _NEXT_WORD_RE.match(text, i + 1)
        return not (nxt and nxt.group(1)[0].isupper() and nxt.group(1).lower() in P.STOPWORDS)
    return low in P.ABBREVIATIONS


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans (start, end) without surrounding whitespace; English and Chinese punctuation."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in P.SENT_BOUNDARY_RE.finditer(text):
        if m.group().startswith(".") and not m.group().startswith("...") and _no_split_at_period(text, m.start()):
            continue
        _append_span(spans, text, start, m.end())
        start = m.end()
    _append_span(spans, text, start, len(text))
    return spans


def _append_span(spans: list[tuple[int, int]], text: str, s: int, e: int) -> None:
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    if e > s:
        spans.append((s, e))

"""When an entity hop may lift a chunk: only with evidence that holds on questions nobody tuned on.

One shared entity is weak evidence: on unseen MuSiQue questions the chunks hops reached through one entity
overtook gold passages that dense ranked 3rd to 5th (issue 43). A hop counts when a second path confirms it (two
source chunks, or two entities, reach the chunk) or when the reached chunk also names a word of the question
other than the hop entity's own: the second hop of a multi-hop question rarely resembles the question as a whole,
but it usually carries the relation the question asks about ("married", "born", "capital").
"""
from __future__ import annotations

import functools
import re
from typing import Sequence

from knowledge.graph.extraction_patterns.english import STOPWORDS
from knowledge.names import name_tokens
from knowledge.retrieval.planner.context import EntityHop

_MIN_TERM_CHARS = 4  # shorter words are mostly function words the stopword list does not hold
_QUESTION_WORDS = frozenset({"what", "which", "whom", "whose", "when", "where", "does", "did", "have", "has", "was",
                             "were", "is", "are", "who", "how", "name", "the"})
_WORD_RE = re.compile(r"\w+", re.UNICODE)


def terms(text: str) -> frozenset[str]:
    """The content words of a text, case-folded (CJK runs are one word each: they seldom match across texts)."""
    return frozenset(w for w in (m.casefold() for m in _WORD_RE.findall(text))
                     if len(w) >= _MIN_TERM_CHARS and w not in STOPWORDS and w not in _QUESTION_WORDS)


@functools.lru_cache(maxsize=1 << 14)
def _name_terms(name: str) -> frozenset[str]:
    return frozenset(name_tokens(name))


def confident(hops: Sequence[EntityHop], chunk_terms: frozenset[str], question_terms: frozenset[str]) -> bool:
    """Whether the hops into one chunk may lift it: two paths reach it, or it shares a question word that is not
    part of a hop entity's name."""
    if len({h.from_chunk_id for h in hops}) >= 2 or len({h.canonical_id for h in hops}) >= 2:
        return True
    shared = chunk_terms & question_terms
    return bool(shared - frozenset().union(*(_name_terms(h.name) for h in hops)))

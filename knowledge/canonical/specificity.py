"""Which canonical names are too generic to bridge corpora, whatever their degree.

A shared name bridges two corpora only when it is specific: "Aurora Vector Engine" or "Lin Wei" mean the same
thing wherever they appear, while a language ("Polish"), a file format ("PDF"), a generic technical term ("LLM",
"semantic search", "entity resolution") or a world city ("Shanghai", "上海") is mentioned by unrelated documents of any
corpus. DESIGN's hub rule (canonical degree > ``canonical_hub_degree_threshold``) finds such names only in a large
graph; on a small one these are the hubs. Both kinds are ``is_stopword_like``: kept as entities, never bridges.
"""
from __future__ import annotations

from knowledge.graph import extraction_patterns as P
from knowledge.names import normalize_name

GENERIC_KEYS: frozenset[str] = frozenset(
    k for k in (
        *(normalize_name(w) for w in P.NATIONALITIES),
        *(normalize_name(w) for w in P.CONCEPT_PHRASES),
        *(normalize_name(w) for w in P.GENERIC_TERMS.split("|")),
        *P.CONCEPT_GAZ,
        *P.PLACE_GAZ,
        *(normalize_name(w) for w in (*P.ZH_CONCEPT_GAZ, *P.ZH_PLACE_GAZ)),
    ) if k
)


def is_generic(name: str) -> bool:
    return normalize_name(name) in GENERIC_KEYS

"""Keys and names of stored entities: resolution pre-filter keys and the unique canonical name."""
from __future__ import annotations

import re
from typing import Iterable, Sequence

from knowledge.graph.name_features import STOPWORDS
from knowledge.names import name_tokens, normalize_name

_CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
LATIN_PREFIX = 4
CJK_PREFIX = 2


def prefilter_keys(name: str) -> list[str]:
    """Keys under which an entity is found as a resolution candidate (stored in kg_entity.block_keys).

    A superset-leaning approximation of the resolver's own blocking (whole key, tokens, key prefix,
    initials/acronym): it only has to keep the pairs the resolver could match; the resolver then blocks
    and scores the fetched candidates itself.
    """
    key = normalize_name(name)
    if not key:
        return []
    keys = {"k:" + key}
    tokens = [t for t in name_tokens(name) if t not in STOPWORDS]
    keys.update("t:" + t for t in tokens if len(t) >= 2)
    cjk = bool(_CJK_RE.search(key))
    prefix = CJK_PREFIX if cjk else LATIN_PREFIX
    if len(key) >= prefix:
        keys.add("p:" + key[:prefix])
    if not cjk:
        if len(tokens) >= 2:
            keys.add("a:" + "".join(t[0] for t in tokens))
        if 2 <= len(key) <= 6 and key.isalpha():
            keys.add("a:" + key)
    return sorted(keys)


def unique_canonical_names(proposals: Sequence[tuple[str, str]], taken: Iterable[str]) -> list[str]:
    """A canonical name per (display name, type) proposal, unique within the corpus.

    The display name itself when free; otherwise "Name (TYPE)", then "Name (TYPE 2)", ... So "Apple" the
    company and "Apple" the fruit are both stored. Proposals are named in the order given (callers pass
    them most-mentioned first), which makes the result deterministic.
    """
    used = set(taken)
    names: list[str] = []
    for name, entity_type in proposals:
        candidate = name
        n = 1
        while candidate in used:
            candidate = f"{name} ({entity_type})" if n == 1 else f"{name} ({entity_type} {n})"
            n += 1
        used.add(candidate)
        names.append(candidate)
    return names


def display_name(canonical_name: str, entity_type: str) -> str:
    """The display name behind a canonical name made unique by :func:`unique_canonical_names`."""
    match = re.fullmatch(rf"(.+) \({re.escape(entity_type)}(?: \d+)?\)", canonical_name)
    return match.group(1) if match else canonical_name


def informative_candidates(candidate_keys: dict[int, Sequence[str]], requested: Iterable[str],
                           max_block_size: int) -> set[int]:
    """Candidate ids that share a useful key with the batch.

    A token or prefix key held by more than ``max_block_size`` stored entities ("t:records",
    "p:univ") is uninformative; the resolver skips such blocks too, so a candidate found only
    through them is dropped instead of being loaded and compared.
    """
    wanted = set(requested)
    counts: dict[str, int] = {}
    for keys in candidate_keys.values():
        for key in wanted.intersection(keys):
            counts[key] = counts.get(key, 0) + 1
    useful = {k for k in wanted if k[0] not in "tp" or counts.get(k, 0) <= max_block_size}
    return {i for i, keys in candidate_keys.items() if useful.intersection(keys)}

"""Permission entry check: effective corpora = requested ∩ accessible (empty means an empty result)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable
from uuid import UUID

from knowledge.corpus_ids import parse_corpus_id


@dataclass(frozen=True)
class Scope:
    effective: tuple[UUID, ...]
    rejected: tuple[str, ...]  # requested ids that are malformed or not accessible

    @property
    def is_empty(self) -> bool:
        return not self.effective


def effective_scope(requested: Iterable[object] | None, accessible: Iterable[object]) -> Scope:
    """``requested`` None means "all accessible"; order follows the request; duplicates are dropped."""
    if accessible is None:
        raise TypeError("accessible_corpus_ids is required")
    allowed = [i for i in (parse_corpus_id(a) for a in accessible) if i is not None]
    allowed_set = set(allowed)
    if requested is None:
        return Scope(tuple(dict.fromkeys(allowed)), ())
    effective: list[UUID] = []
    rejected: list[str] = []
    for raw in requested:
        corpus_id = parse_corpus_id(raw)
        if corpus_id is None or corpus_id not in allowed_set:
            rejected.append(str(raw))
        elif corpus_id not in effective:
            effective.append(corpus_id)
    return Scope(tuple(effective), tuple(rejected))

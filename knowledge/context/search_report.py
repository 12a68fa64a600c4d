"""What a search shows a person, as data: `negentropy search` prints it, and `negentropy serve` sends it to the
CLI as JSON (``to_dict``), which rebuilds it (``from_dict``) and prints it the same way.

Light on purpose (no database, model or planner imports): the CLI reads it before it knows it needs more."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from knowledge.context.gap import KnowledgeGap
from knowledge.retrieval.results import SearchHit


@dataclass
class SearchReport:
    who: str                     # the person searched as ("local operator" for the CLI without --as)
    hits: list[SearchHit]
    fallback_reason: str | None  # why the planner fell back to legacy search, when it did
    gap: KnowledgeGap | None

    def to_dict(self) -> dict[str, Any]:
        return {"who": self.who, "hits": [hit.to_dict() for hit in self.hits],
                "fallback_reason": self.fallback_reason, "gap": self.gap.to_dict() if self.gap else None}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SearchReport":
        gap = KnowledgeGap(**data["gap"]) if data["gap"] is not None else None
        return cls(data["who"], [SearchHit.from_dict(hit) for hit in data["hits"]], data["fallback_reason"], gap)

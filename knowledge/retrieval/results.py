"""Search result types shared by the legacy path and the planner."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any
from uuid import UUID


@dataclass
class BridgePath:
    source_corpus_id: UUID
    source_corpus_label: str
    target_corpus_id: UUID
    target_corpus_label: str
    via_entity: str
    hops: int = 1

    def describe(self) -> str:
        return describe_bridge(self.to_dict())

    def to_dict(self) -> dict[str, Any]:
        """The bridge as data (what tools, MCP and AG-UI send); ``describe`` renders it for people."""
        return {"source_corpus_id": str(self.source_corpus_id), "source_corpus_label": self.source_corpus_label,
                "target_corpus_id": str(self.target_corpus_id), "target_corpus_label": self.target_corpus_label,
                "via_entity": self.via_entity, "hops": self.hops}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "BridgePath":
        """The inverse of ``to_dict`` (a ``description`` key beside the fields is ignored)."""
        return cls(UUID(data["source_corpus_id"]), data["source_corpus_label"], UUID(data["target_corpus_id"]),
                   data["target_corpus_label"], data["via_entity"], data["hops"])


def describe_bridge(bridge: dict[str, Any]) -> str:
    """A bridge dict (``BridgePath.to_dict``) as one line of text for people."""
    return f"{bridge['source_corpus_label']} -> {bridge['target_corpus_label']} via {bridge['via_entity']}"


@dataclass
class SearchHit:
    chunk_id: int
    corpus_id: UUID
    corpus_name: str
    corpus_label: str
    content: str
    source_uri: str
    metadata: dict[str, Any]
    score: float
    evidence_type: str = "primary"  # "primary" | "graph_expanded"
    bridge: BridgePath | None = None
    citation_id: int = 0
    formatted_citation: str = ""
    scores: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["corpus_id"] = str(self.corpus_id)
        if self.bridge is not None:
            data["bridge"] = {**self.bridge.to_dict(), "description": self.bridge.describe()}
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SearchHit":
        """The inverse of ``to_dict``: `negentropy search` rebuilds the hits `negentropy serve` sent."""
        bridge = BridgePath.from_dict(data["bridge"]) if data["bridge"] is not None else None
        return cls(**{**data, "corpus_id": UUID(data["corpus_id"]), "bridge": bridge})


def bridge_lines(hits: list[SearchHit]) -> list[str]:
    """The "cross-corpus links" section: one line per graph-expanded result with the path that found it."""
    lines = []
    for hit in hits:
        if hit.evidence_type == "graph_expanded" and hit.bridge is not None:
            hops = f"{hit.bridge.hops} hop{'s' if hit.bridge.hops != 1 else ''}"
            lines.append(f"[{hit.citation_id}] {hit.bridge.describe()} ({hops})")
    return lines


@dataclass
class StageTrace:
    stage: str
    seconds: float
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass
class RetrievalResponse:
    """What the one retrieval entry point returns."""

    hits: list[SearchHit]
    mode: str  # "empty" | "legacy" | "planner" | "fallback"
    query_kind: str = "fact"
    graph_expansion: bool = False
    bridges: list[BridgePath] = field(default_factory=list)
    trace: list[StageTrace] = field(default_factory=list)
    fallback_reason: str | None = None
    rejected_corpus_ids: list[str] = field(default_factory=list)
    rollout_path: str = "planner"  # the path the rollout flags gave the person: "planner" | "legacy"

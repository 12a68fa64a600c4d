"""The shared result types of entity/relation extraction and the :class:`Extractor` interface."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

ENTITY_TYPES = ("PERSON", "ORG", "PRODUCT", "PLACE", "EVENT", "CONCEPT", "FOOD", "OTHER")
RELATION_TYPES = ("ACQUIRED", "PART_OF", "DEVELOPED", "USES", "LOCATED_IN", "WORKS_AT",
                  "PARTNERED_WITH", "CO_OCCURS")
TYPED_WEIGHT = 2.0
COOCCUR_WEIGHT = 1.0


@dataclass(frozen=True)
class ExtractedEntity:
    name: str            # display name (most frequent surface form, legal suffix kept)
    type: str            # one of ENTITY_TYPES
    start: int           # char offset of the first mention
    end: int
    mentions: tuple[tuple[int, int], ...] = ()   # all (start, end) spans, sorted


@dataclass(frozen=True)
class ExtractedRelation:
    source: str   # ExtractedEntity.name
    target: str
    type: str
    weight: float
    evidence: str  # the (first) sentence


@dataclass
class Extraction:
    entities: list[ExtractedEntity] = field(default_factory=list)
    relations: list[ExtractedRelation] = field(default_factory=list)


@runtime_checkable
class Extractor(Protocol):
    def extract(self, text: str) -> Extraction: ...

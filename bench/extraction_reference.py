"""The silver reference of ../shared/data/musique/reference_openie_gpt35.json: loading, name matching, and an
:class:`Extractor` that reads it (the "planner on reference triples" ablation; never the default path).

Matching of names (:func:`match_key`): NFKC, case-folded, a leading "the" / "a" / "an" dropped, a trailing
possessive "'s" dropped, every run of punctuation and spacing removed. "The Beatles", "beatles" and "Beatles'"
match; "U.S." and "US" match; "Paris, France" and "Paris" do not. The offline extractor deliberately does not
make dates and bare numbers graph entities, so reference entities that are only a date or a number
("1963", "January 1960", "12 May", "1.355") are counted apart (:func:`is_date_or_number`).
"""
from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from bench.multihop_data import MUSIQUE_DIR, MissingDataError
from knowledge.graph.extraction import DEFAULT_OFFLINE_EXTRACTOR
from knowledge.graph.extraction.types import (COOCCUR_WEIGHT, TYPED_WEIGHT, ExtractedEntity, ExtractedRelation,
                                              Extraction)

REFERENCE_FILE = MUSIQUE_DIR / "reference_openie_gpt35.json"

_ARTICLE_RE = re.compile(r"^(?:the|a|an)\s+")
_POSSESSIVE_RE = re.compile(r"['’]s?$")
_NON_WORD_RE = re.compile(r"[\W_]+", re.UNICODE)
_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december|"
           "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
_DATE_OR_NUMBER_RE = re.compile(
    rf"(?:(?:{_MONTHS}|early|late|mid|the|of|in|on|c|ca|circa|ad|bc|bce|ce|s|th|st|nd|rd|\d+)[\s,./'’-]*)+",
    re.IGNORECASE)


def match_key(name: str) -> str:
    text = unicodedata.normalize("NFKC", name).casefold().strip()
    text = _POSSESSIVE_RE.sub("", _ARTICLE_RE.sub("", text))
    return _NON_WORD_RE.sub("", text)


def is_date_or_number(name: str) -> bool:
    """Only digits, month names and date words: "1963", "January 1960", "the 1990s", "12 May 2001"."""
    return any(ch.isdigit() for ch in name) and bool(_DATE_OR_NUMBER_RE.fullmatch(name.strip()))


@dataclass(frozen=True)
class ReferencePassage:
    title: str
    text: str
    entities: tuple[str, ...]
    triples: tuple[tuple[str, str, str], ...]


def load_reference(path: Path | None = None) -> list[ReferencePassage]:
    path = path or REFERENCE_FILE
    if not path.is_file():
        raise MissingDataError(
            f"the extraction bench reads the silver reference {path} (a 'shared/data' folder beside the checkout "
            "or above it) and it is missing. Pass --reference FILE: a JSON list of {title, text, entities, triples}")
    records = json.loads(path.read_text(encoding="utf-8"))
    return [ReferencePassage(r["title"], r["text"], tuple(str(e) for e in r.get("entities") or ()),
                             tuple(tuple(str(x) for x in t) for t in r.get("triples") or () if len(t) == 3))
            for r in records]


# predicate words of the reference triples -> the graph's relation types (anything else: a typed-weight CO_OCCURS)
_PREDICATE_TYPES: tuple[tuple[re.Pattern, str], ...] = tuple((re.compile(p, re.IGNORECASE), t) for p, t in (
    (r"\b(?:acquired|bought|purchased|took over)\b", "ACQUIRED"),
    (r"\b(?:developed|created|designed|invented|built|founded|wrote|written|composed|directed|produced|"
     r"released|published|authored|made)\b", "DEVELOPED"),
    (r"\b(?:located|situated|based|headquartered|lies|born in|capital|in the county|in the state)\b", "LOCATED_IN"),
    (r"\b(?:part of|member of|belongs to|subsidiary|division of|owned by|province of|region of)\b", "PART_OF"),
    (r"\b(?:works? (?:at|for)|worked (?:at|for)|employed|played for|plays for|professor at|studied at|"
     r"signed (?:with|for))\b", "WORKS_AT"),
    (r"\b(?:uses|used|using)\b", "USES"),
    (r"\b(?:partnered|collaborated|allied)\b", "PARTNERED_WITH"),
))


def predicate_type(predicate: str) -> str:
    return next((t for rx, t in _PREDICATE_TYPES if rx.search(predicate)), "CO_OCCURS")


class ReferenceExtractor:
    """Entities and relations read from the silver reference instead of extracted: a chunk is matched to its
    passage by its text, every reference entity found in the chunk is an entity (typed by the offline
    extractor where it finds the same name, else OTHER), every reference triple between two of them a relation.
    Chunks of no reference passage fall back to the offline extractor."""

    def __init__(self, passages: list[ReferencePassage]) -> None:
        self._passages = passages
        self._by_text: dict[str, ReferencePassage] = {}
        for p in passages:
            self._by_text.setdefault(" ".join(p.text.split()), p)
            self._by_text.setdefault(" ".join(f"{p.title} {p.text}".split()), p)

    def _passage(self, text: str) -> ReferencePassage | None:
        flat = " ".join(text.split())
        if flat in self._by_text:
            return self._by_text[flat]
        # a chunk of a passage longer than one chunk
        return next((p for key, p in self._by_text.items() if len(flat) > 40 and flat in key), None)

    def covers(self, text: str) -> bool:
        return self._passage(text) is not None

    def extract(self, text: str) -> Extraction:
        passage = self._passage(text)
        if passage is None:
            return DEFAULT_OFFLINE_EXTRACTOR.extract(text)
        offline_types = {match_key(e.name): e.type for e in DEFAULT_OFFLINE_EXTRACTOR.extract(text).entities}
        lowered = text.casefold()
        entities: dict[str, ExtractedEntity] = {}
        for name in passage.entities:
            key = match_key(name)
            if not key or key in entities or is_date_or_number(name):
                continue
            spans = tuple((m.start(), m.end()) for m in re.finditer(re.escape(name.casefold()), lowered))
            if not spans:
                continue
            entities[key] = ExtractedEntity(name, offline_types.get(key, "OTHER"), spans[0][0], spans[0][1], spans)
        relations: dict[tuple[str, str, str], ExtractedRelation] = {}
        for subject, predicate, obj in passage.triples:
            source, target = entities.get(match_key(subject)), entities.get(match_key(obj))
            if source is None or target is None or source is target:
                continue
            rtype = predicate_type(predicate)
            weight = TYPED_WEIGHT if rtype != "CO_OCCURS" else COOCCUR_WEIGHT
            relations.setdefault((source.name, target.name, rtype),
                                 ExtractedRelation(source.name, target.name, rtype, weight,
                                                   f"{subject} {predicate} {obj}"))
        return Extraction(sorted(entities.values(), key=lambda e: e.start), list(relations.values()))

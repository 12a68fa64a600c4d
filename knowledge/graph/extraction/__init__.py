"""Entity and relation extraction for the per-corpus knowledge graphs.

Two implementations share one interface (:class:`Extractor`):

* :class:`OfflineExtractor` – rule based, English and Chinese, no model download.  Candidates come
  from capitalised word sequences, acronyms, CamelCase words, quoted terms, technical key phrases,
  gazetteers and (for Chinese) ``jieba.posseg`` noun chunks; types from titles, legal suffixes,
  head words, gazetteers and local context; relations from typed predicate patterns between two
  mentions of one sentence, otherwise sentence co-occurrence.
* :class:`LlmExtractor` – asks a chat model (through ``litellm``) for strict JSON and validates it;
  any failure falls back to the offline extractor.

One module a job: ``types`` (results, the interface), ``sentences``, ``naming`` (candidate names and
their type votes), ``chinese`` (jieba), ``offline`` (the rule extractor), ``assembly`` (entities and
relations from candidates), ``llm``.  Static word lists and regexes live in
:mod:`knowledge.graph.extraction_patterns`.
"""
from __future__ import annotations

from knowledge.graph.extraction.llm import LlmExtractor, coerce_entity_type, parse_llm_json
from knowledge.graph.extraction.offline import DEFAULT_OFFLINE_EXTRACTOR, OfflineExtractor
from knowledge.graph.extraction.sentences import split_sentences
from knowledge.graph.extraction.types import (
    ENTITY_TYPES,
    RELATION_TYPES,
    ExtractedEntity,
    ExtractedRelation,
    Extraction,
    Extractor,
)


def get_extractor(model: str | None = None) -> Extractor:
    """LlmExtractor when ``model`` (or ``settings.model`` / ``NE_MODEL``) is set, else the offline one."""
    if model is None:
        from config.settings import get_settings

        model = get_settings().model
    if model:
        return LlmExtractor(model, fallback=DEFAULT_OFFLINE_EXTRACTOR)
    return DEFAULT_OFFLINE_EXTRACTOR


__all__ = [
    "ENTITY_TYPES", "RELATION_TYPES", "ExtractedEntity", "ExtractedRelation", "Extraction", "Extractor",
    "OfflineExtractor", "LlmExtractor", "get_extractor", "split_sentences", "parse_llm_json",
    "coerce_entity_type",
]

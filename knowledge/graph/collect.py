"""Run the extractor over a batch of chunks and group the results by (normalised name, type).

Pure: no database. Every mention keeps its chunk id and span so it can be written as a kg_entity_mention row.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Mapping

import numpy as np

from knowledge.embedding import TokenVectors
from knowledge.graph.extraction import Extraction, Extractor, split_sentences
from knowledge.graph.mention_vectors import mention_vector
from knowledge.names import normalize_name

MAX_CONTEXT_CHARS = 160
MAX_EVIDENCE_CHARS = 1000

GroupRef = tuple[str, str]  # (normalize_name(name), entity type)


@dataclass(frozen=True)
class ChunkText:
    id: int
    content: str


@dataclass(frozen=True)
class MentionSpan:
    chunk_id: int
    start: int
    end: int
    surface: str


@dataclass
class EntityGroup:
    """Every mention in the batch of one (normalised name, type)."""

    key: str
    type: str
    names: Counter = field(default_factory=Counter)  # display name -> mentions
    mentions: list[MentionSpan] = field(default_factory=list)
    context: str = ""  # the sentence of the first mention
    neighbours: set[str] = field(default_factory=set)  # keys of entities related in the batch
    # pooled from the chunk's embedding pass at the first mention (None: embed embedding_text() instead)
    embedding: np.ndarray | None = field(default=None, compare=False, repr=False)

    @property
    def ref(self) -> GroupRef:
        return (self.key, self.type)

    @property
    def name(self) -> str:
        """The most mentioned display name; ties go to the first seen."""
        return max(self.names, key=lambda n: self.names[n])

    @property
    def surfaces(self) -> set[str]:
        return set(self.names) | {m.surface for m in self.mentions}

    def embedding_text(self) -> str:
        return f"{self.name}: {self.context}" if self.context else self.name


@dataclass(frozen=True)
class RelationEvidence:
    source: GroupRef
    target: GroupRef
    type: str
    weight: float
    chunk_id: int
    evidence: str


@dataclass
class BatchExtraction:
    groups: dict[GroupRef, EntityGroup] = field(default_factory=dict)
    relations: list[RelationEvidence] = field(default_factory=list)
    per_chunk: dict[int, tuple[int, int]] = field(default_factory=dict)  # chunk id -> (entities, relations)


def _sentence_window(text: str, sentences: list[tuple[int, int]], offset: int) -> tuple[int, int]:
    """The span of the sentence holding ``offset``; a long one is cut to a window around it (embedding cost
    grows with length, and the words near the mention say most about it)."""
    start, end = next(((s, e) for s, e in sentences if s <= offset < e), (0, len(text)))
    if end - start > MAX_CONTEXT_CHARS:
        sentence_start, sentence_end = start, end
        start = max(start, offset - MAX_CONTEXT_CHARS // 3)
        end = min(end, start + MAX_CONTEXT_CHARS)
        # do not cut a word in half (text without spaces, such as Chinese, is cut anywhere)
        if start > sentence_start and " " in text[start:offset]:
            start = text.index(" ", start, offset) + 1
        if end < sentence_end and " " in text[offset:end]:
            end = text.rindex(" ", offset, end)
    return start, end


def _sentence_around(text: str, sentences: list[tuple[int, int]], offset: int) -> str:
    start, end = _sentence_window(text, sentences, offset)
    return " ".join(text[start:end].split())


def first_mention_embedding(text: str, tokens: TokenVectors, span: tuple[int, int], name: str) -> np.ndarray | str:
    """What the graph build gives an entity first mentioned at ``span`` of ``text``: its vector pooled from the
    text's ``tokens``, or, when the model's truncation cut the mention off, the text to embed instead."""
    sentences = split_sentences(text)
    vector = mention_vector(tokens, span, _sentence_window(text, sentences, span[0]))
    if vector is not None:
        return vector
    context = _sentence_around(text, sentences, span[0])
    return f"{name}: {context}" if context else name


def _spans(entity, text: str) -> list[tuple[int, int]]:
    return [(s, e) for s, e in (entity.mentions or ((entity.start, entity.end),)) if 0 <= s < e <= len(text)]


@dataclass(frozen=True)
class ChunkAnalysis:
    """A chunk's extraction with the pooled vector of each entity's first mention, made right after the
    chunk's embedding pass so the token vectors need not be kept."""

    extraction: Extraction
    vectors: dict[tuple[int, int], np.ndarray]  # first-mention span -> mention vector


def analyze(text: str, tokens: TokenVectors, extractor: Extractor) -> ChunkAnalysis:
    extraction = extractor.extract(text)
    sentences: list[tuple[int, int]] | None = None
    vectors: dict[tuple[int, int], np.ndarray] = {}
    for entity in extraction.entities:
        spans = _spans(entity, text)
        if not spans or spans[0] in vectors:
            continue
        sentences = sentences if sentences is not None else split_sentences(text)
        vector = mention_vector(tokens, spans[0], _sentence_window(text, sentences, spans[0][0]))
        if vector is not None:
            vectors[spans[0]] = vector
    return ChunkAnalysis(extraction, vectors)


def collect(chunks: Iterable[ChunkText], extractor: Extractor,
            analyses: Mapping[int, ChunkAnalysis] | None = None) -> BatchExtraction:
    """Group the chunks' entities; a chunk with an analysis is not extracted again and gives its groups
    their mention vectors."""
    batch = BatchExtraction()
    for chunk in chunks:
        analysis = (analyses or {}).get(chunk.id)
        extraction = analysis.extraction if analysis is not None else extractor.extract(chunk.content)
        sentences: list[tuple[int, int]] | None = None
        refs: dict[str, GroupRef] = {}
        for entity in extraction.entities:
            key = normalize_name(entity.name)
            spans = _spans(entity, chunk.content)
            if not key or not spans:
                continue
            ref = (key, entity.type)
            refs.setdefault(entity.name, ref)
            group = batch.groups.get(ref)
            if group is None:
                group = batch.groups[ref] = EntityGroup(key=key, type=entity.type)
            if not group.context:
                sentences = sentences if sentences is not None else split_sentences(chunk.content)
                group.context = _sentence_around(chunk.content, sentences, spans[0][0])
                group.embedding = analysis.vectors.get(spans[0]) if analysis is not None else None
            group.names[entity.name] += len(spans)
            group.mentions.extend(MentionSpan(chunk.id, s, e, chunk.content[s:e]) for s, e in spans)
        relation_count = 0
        for relation in extraction.relations:
            source, target = refs.get(relation.source), refs.get(relation.target)
            if source is None or target is None or source == target:
                continue
            batch.relations.append(RelationEvidence(source, target, relation.type, float(relation.weight), chunk.id,
                                                    relation.evidence[:MAX_EVIDENCE_CHARS]))
            batch.groups[source].neighbours.add(target[0])
            batch.groups[target].neighbours.add(source[0])
            relation_count += 1
        batch.per_chunk[chunk.id] = (len(set(refs.values())), relation_count)
    return batch

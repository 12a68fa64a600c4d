"""Rows of the planner's per-corpus graph reads, as named tuples read from asyncpg Records by position (unpacking
a Record is several times slower), whether they come from SQL or from a corpus graph snapshot."""
from __future__ import annotations

from typing import Iterable, NamedTuple
from uuid import UUID

import asyncpg


class ChunkEntity(NamedTuple):
    """An entity a seed chunk mentions (planner_queries.select_seed_chunk_entities)."""
    chunk_id: int
    entity_id: int
    corpus_id: UUID
    canonical_name: str
    degree: int
    mention_count: int


class RelationFact(NamedTuple):
    """A relation whose evidence sentence matches the question (planner_queries.select_relation_facts)."""
    id: int
    corpus_id: UUID
    source_entity_id: int
    target_entity_id: int
    relation_type: str
    score: float


class HopRow(NamedTuple):
    """A chunk sharing a specific entity with a source chunk (planner_queries.select_entity_hops)."""
    from_chunk_id: int
    canonical_id: int
    name: str
    chunk_id: int
    corpus_id: UUID
    chunk_count: int
    query_similarity: float | None


class EntityChunk(NamedTuple):
    """A chunk mentioning an entity (planner_queries.select_chunk_ids_for_entities)."""
    entity_id: int
    chunk_id: int
    corpus_id: UUID


def chunk_entities(records: Iterable[asyncpg.Record]) -> list[ChunkEntity]:
    return [ChunkEntity(r[0], r[1], r[2], r[3], r[4], r[5]) for r in records]


def entity_chunks(records: Iterable[asyncpg.Record]) -> list[EntityChunk]:
    return [EntityChunk(r[0], r[1], r[2]) for r in records]


def relation_facts(records: Iterable[asyncpg.Record]) -> list[RelationFact]:
    return [RelationFact(r[0], r[1], r[2], r[3], r[4], r[5]) for r in records]


def hop_rows(records: Iterable[asyncpg.Record]) -> list[HopRow]:
    return [HopRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6]) for r in records]

"""Helpers of the canonical-layer tests: entities and relations written straight into a corpus graph."""
from __future__ import annotations

import numpy as np

from knowledge.corpora import Corpus
from knowledge.names import normalize_name

DIM = 384


def unit(vector: np.ndarray) -> np.ndarray:
    return (vector / np.linalg.norm(vector)).astype(np.float32)


def random_unit(rng: np.random.Generator) -> np.ndarray:
    return unit(rng.standard_normal(DIM))


def with_cosine(base: np.ndarray, cosine: float, rng: np.random.Generator) -> np.ndarray:
    """A unit vector whose cosine with the unit vector ``base`` is exactly ``cosine``."""
    noise = rng.standard_normal(DIM)
    orthogonal = unit(noise - noise.dot(base) * base)
    return unit(cosine * base + np.sqrt(1 - cosine ** 2) * orthogonal)


async def add_entity(conn, corpus: Corpus, name: str, entity_type: str, embedding: np.ndarray | None = None,
                     degree: int = 0) -> int:
    return await conn.fetchval(
        """INSERT INTO kg_entity (corpus_id, app_name, canonical_name, name_normalized, entity_type, embedding, degree)
           VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id""",
        corpus.id, corpus.app_name, name, normalize_name(name), entity_type, embedding, degree,
    )


async def add_relation(conn, corpus: Corpus, source_id: int, target_id: int, relation_type: str = "USES") -> None:
    await conn.execute(
        """INSERT INTO kg_relation (corpus_id, source_entity_id, target_entity_id, relation_type)
           VALUES ($1, $2, $3, $4)""",
        corpus.id, source_id, target_id, relation_type,
    )


async def canonical_of(conn, entity_id: int):
    return await conn.fetchrow(
        """SELECT c.*, a.link_method, a.confidence FROM kg_entity_alias a
           JOIN kg_entity_canonical c ON c.id = a.canonical_id WHERE a.local_entity_id = $1""",
        entity_id,
    )


async def corpora(kapp, *names: str) -> list[Corpus]:
    return [await kapp.corpora.create(name) for name in names]

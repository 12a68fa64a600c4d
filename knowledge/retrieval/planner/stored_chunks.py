"""A corpus snapshot's chunks with their embeddings, scored against a question in memory as select_scored_chunks
scores them in SQL: ``1 - (embedding <=> question)``, pgvector's cosine (float sums, the quotient in double,
clamped to [-1, 1]). pgvector adds its float products in SIMD lanes and this in another order, so a score may
differ from the database's in the last bits of a float (~1e-7), never in what it measures.

The rerank reads its candidates' rows here instead of a round trip: every candidate that is not a seed (whose row
the seed search returned) reached the pool through an entity, so it is a chunk some entity mentions, which is
what a snapshot holds.
"""
from __future__ import annotations

from typing import Any, Iterable, NamedTuple
from uuid import UUID

import numpy as np

# what a snapshot row holds on average: a chunk counts one row plus one per ROW_BYTES of its text and vector
ROW_BYTES = 300


class StoredChunk(NamedTuple):
    id: int
    corpus_id: UUID
    content: str
    source_uri: str
    metadata_json: str | None


class StoredChunks:
    def __init__(self) -> None:
        self.chunks: list[StoredChunk] = []
        self.slot: dict[int, int] = {}
        self._vectors: list[np.ndarray] = []
        self.embeddings = np.zeros((0, 0), dtype=np.float32)
        self.norms = np.zeros(0, dtype=np.float32)
        self._bytes = 0

    @property
    def rows(self) -> int:
        return chunk_rows_bound(len(self.chunks), self._bytes)

    def add(self, chunk: StoredChunk, embedding: np.ndarray) -> None:
        self.slot[chunk.id] = len(self.chunks)
        self.chunks.append(chunk)
        vector = np.asarray(embedding, dtype=np.float32)
        self._vectors.append(vector)
        self._bytes += len(chunk.content.encode("utf-8")) + vector.nbytes

    def seal(self) -> None:
        """One matrix of the embeddings and their squared norms (float sums, as pgvector's)."""
        if self._vectors:
            self.embeddings = np.vstack(self._vectors)
            self.norms = np.einsum("ij,ij->i", self.embeddings, self.embeddings)
        self._vectors.clear()

    def scored(self, chunk_ids: Iterable[int], question: np.ndarray) -> list[dict[str, Any]]:
        """The rows select_scored_chunks returns for the chunks held here (the others are left out)."""
        slots = [(chunk_id, slot) for chunk_id in chunk_ids if (slot := self.slot.get(chunk_id)) is not None]
        if not slots:
            return []
        at = [slot for _, slot in slots]
        query = np.asarray(question, dtype=np.float32)
        dots = (self.embeddings[at] @ query).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):  # a zero vector scores NaN, as in pgvector
            similarity = np.clip(dots / np.sqrt(self.norms[at].astype(np.float64) * float(np.dot(query, query))),
                                 -1.0, 1.0)
        scores = 1.0 - (1.0 - similarity)
        return [{"id": chunk.id, "corpus_id": chunk.corpus_id, "content": chunk.content,
                 "source_uri": chunk.source_uri, "metadata_json": chunk.metadata_json, "score": score}
                for (_, slot), score in zip(slots, scores.tolist()) for chunk in (self.chunks[slot],)]


def chunk_rows_bound(chunks: int, text_and_vector_bytes: int) -> int:
    """Most rows the chunks of a snapshot count for."""
    return chunks + text_and_vector_bytes // ROW_BYTES

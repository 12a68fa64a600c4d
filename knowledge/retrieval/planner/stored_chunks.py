"""A corpus snapshot's chunks with their embeddings, scored against a question in memory as select_scored_chunks
scores them in SQL: ``1 - (embedding <=> question)``, pgvector's cosine (float sums, the quotient in double,
clamped to [-1, 1]). pgvector adds its float products in SIMD lanes and this in another order, so a score may
differ from the database's in the last bits of a float (~1e-7), never in what it measures.

The rerank reads its candidates' rows here instead of a round trip (a snapshot holds every chunk of its corpus), and
the seed guess (seed_guess.py) finds a corpus's nearest chunks here; near ties the last bits order differently only
make a guess the database's seeds do not confirm.
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

    def nearest(self, question: np.ndarray, count: int) -> list[StoredChunk]:
        """The ``count`` chunks held here that score highest against ``question``, as the seeds' query orders them
        (score, then id)."""
        if not self.chunks or count <= 0:
            return []
        scores = np.nan_to_num(self._scores(slice(None), question), nan=-np.inf)  # NaN (a zero vector) sorts last
        best = np.argpartition(-scores, count - 1)[:count] if count < len(scores) else np.arange(len(scores))
        ids = np.fromiter((self.chunks[slot].id for slot in best.tolist()), np.int64, len(best))
        return [self.chunks[slot] for slot in best[np.lexsort((ids, -scores[best]))].tolist()]

    def scored(self, chunk_ids: Iterable[int], question: np.ndarray) -> list[dict[str, Any]]:
        """The rows select_scored_chunks returns for the chunks held here (the others are left out)."""
        slots = [(chunk_id, slot) for chunk_id in chunk_ids if (slot := self.slot.get(chunk_id)) is not None]
        if not slots:
            return []
        scores = self._scores([slot for _, slot in slots], question)
        return [{"id": chunk.id, "corpus_id": chunk.corpus_id, "content": chunk.content,
                 "source_uri": chunk.source_uri, "metadata_json": chunk.metadata_json, "score": score}
                for (_, slot), score in zip(slots, scores.tolist()) for chunk in (self.chunks[slot],)]

    def _scores(self, slots: list[int] | slice, question: np.ndarray) -> np.ndarray:
        """``1 - (embedding <=> question)`` of the chunks at ``slots``."""
        query = np.asarray(question, dtype=np.float32)
        dots = (self.embeddings[slots] @ query).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):  # a zero vector scores NaN, as in pgvector
            similarity = np.clip(dots / np.sqrt(self.norms[slots].astype(np.float64) * float(np.dot(query, query))),
                                 -1.0, 1.0)
        return 1.0 - (1.0 - similarity)


def chunk_rows_bound(chunks: int, text_and_vector_bytes: int) -> int:
    """Most rows the chunks of a snapshot count for."""
    return chunks + text_and_vector_bytes // ROW_BYTES

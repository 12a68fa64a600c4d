"""An offline cross-encoder reranker when one is installed in the local Hugging Face cache; never downloads."""
from __future__ import annotations

import logging
import threading
from typing import Protocol, Sequence

import numpy as np

logger = logging.getLogger(__name__)

KNOWN_CROSS_ENCODERS = (
    "cross-encoder/ms-marco-MiniLM-L-6-v2",
    "cross-encoder/ms-marco-MiniLM-L-12-v2",
    "cross-encoder/ms-marco-TinyBERT-L-2-v2",
    "BAAI/bge-reranker-base",
    "BAAI/bge-reranker-v2-m3",
    "mixedbread-ai/mxbai-rerank-xsmall-v1",
)


class CrossEncoderModel(Protocol):
    def predict(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray: ...


def installed_cross_encoder() -> str | None:
    """The first known cross-encoder whose weights sit in the local Hugging Face cache, else None."""
    from huggingface_hub import try_to_load_from_cache

    for repo_id in KNOWN_CROSS_ENCODERS:
        if isinstance(try_to_load_from_cache(repo_id, "config.json"), str):
            return repo_id
    return None


class OfflineCrossEncoder:
    """Loads the installed cross-encoder once, on first use; ``name`` is None when there is none."""

    def __init__(self, name: str | None) -> None:
        self.name = name
        self._model: CrossEncoderModel | None = None
        self._failed = False
        self._lock = threading.Lock()

    @classmethod
    def detect(cls) -> "OfflineCrossEncoder":
        return cls(installed_cross_encoder())

    @property
    def available(self) -> bool:
        return self.name is not None and not self._failed

    def _load(self) -> CrossEncoderModel | None:
        with self._lock:
            if self._model is None and self.available:
                try:
                    from sentence_transformers import CrossEncoder

                    self._model = CrossEncoder(self.name, device="cpu", local_files_only=True)
                except Exception as exc:  # noqa: BLE001 - a broken install means: rerank without it
                    logger.warning("cross-encoder %s could not be loaded, reranking without it: %s", self.name, exc)
                    self._failed = True
        return self._model

    def score(self, query: str, texts: Sequence[str]) -> np.ndarray | None:
        """Relevance in (0, 1) per text, or None when no cross-encoder can be used."""
        model = self._load()
        if model is None or not texts:
            return None
        logits = np.asarray(model.predict([(query, t) for t in texts]), dtype=np.float64).reshape(len(texts), -1)
        return 1.0 / (1.0 + np.exp(-logits[:, -1]))

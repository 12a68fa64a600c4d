"""Entity-mention vectors pooled from the chunk's own embedding pass: no model call per entity.

A mention's vector is the mean of the chunk's contextual token vectors over the mention, plus
``CONTEXT_WEIGHT`` times their mean over the mention's sentence window (the sentence ``collect`` keeps as
the entity's context), normalised: the pooled counterpart of embedding "name: context sentence" as a text
of its own, which cost about as much model time as the chunks themselves (README "Ingest throughput").
``python -m bench.resolution`` scores both representations on the labelled pairs.
"""
from __future__ import annotations

import numpy as np

from knowledge.embedding import TokenVectors

CONTEXT_WEIGHT = 0.5


def _covering(tokens: TokenVectors, start: int, end: int) -> np.ndarray:
    starts, ends = tokens.offsets[:, 0], tokens.offsets[:, 1]
    return (ends > starts) & (starts < end) & (ends > start)


def mention_vector(tokens: TokenVectors, span: tuple[int, int], window: tuple[int, int]) -> np.ndarray | None:
    """Unit vector of the mention at ``span`` in the sentence ``window``; None when the model's truncation
    cut the mention off (the caller embeds the mention's text instead)."""
    in_span = _covering(tokens, *span)
    if not in_span.any():
        return None
    vector = tokens.tokens[in_span].mean(axis=0)
    in_window = _covering(tokens, *window)
    if in_window.any():
        vector = vector + CONTEXT_WEIGHT * tokens.tokens[in_window].mean(axis=0)
    norm = float(np.linalg.norm(vector))
    return (vector / norm).astype(np.float32) if norm > 0 else None

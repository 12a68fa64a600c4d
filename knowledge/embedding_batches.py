"""Model batches grouped by token count, so each batch pads little.

sentence-transformers sorts one call's texts by character length and cuts them into batches, each padded to its
longest text in tokens. Characters are a loose proxy for tokens (numbers, names and non-English text take more
tokens per character): on the MuSiQue chunks, embedded in the pipeline's steps of 256, batches of 64 sorted by
characters run 286k padded tokens for 200k real ones, the same batches sorted by tokens 256k. The batches keep
their size; only which texts share one changes.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np


def token_length_batches(token_counts: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indexes of the texts, longest first, cut into batches of ``batch_size`` (the last may be smaller)."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be positive, not {batch_size}")
    order = np.argsort(-np.asarray(token_counts, dtype=np.int64), kind="stable").tolist()
    return [order[start:start + batch_size] for start in range(0, len(order), batch_size)]


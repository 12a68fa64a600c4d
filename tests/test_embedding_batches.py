"""Token-count batches for the chunk embedding pass: same batch sizes, less padding, the same vectors."""
from __future__ import annotations

import numpy as np
import pytest

from knowledge.embedding_batches import token_length_batches


def padded(token_counts: list[int], batches: list[list[int]]) -> int:
    return sum(len(batch) * max(token_counts[i] for i in batch) for batch in batches)


def test_batches_keep_their_size_and_cover_every_text_once():
    counts = [5, 90, 12, 90, 33, 7, 64]
    batches = token_length_batches(counts, 3)
    assert [len(b) for b in batches] == [3, 3, 1]
    assert sorted(i for b in batches for i in b) == list(range(len(counts)))
    assert batches[0] == [1, 3, 6]  # longest first, ties in input order


def test_grouping_by_tokens_pads_less_than_grouping_by_characters(embedder):
    # numbers and rare names take more tokens per character than plain words: characters misjudge them
    texts = ["word " * 60, "Zyx-Qwv 12 Ækø " * 14, "word " * 40, "12.5% " * 20]
    tokenizer = embedder._thread_model().tokenizer
    counts = [len(ids) for ids in tokenizer(texts)["input_ids"]]
    by_characters = [list(np.argsort([-len(t) for t in texts], kind="stable"))[i:i + 2] for i in (0, 2)]
    by_tokens = token_length_batches(counts, 2)
    assert padded(counts, by_tokens) < padded(counts, by_characters)


def test_batch_size_must_be_positive():
    with pytest.raises(ValueError):
        token_length_batches([1, 2], 0)


def test_token_vectors_match_one_text_at_a_time(embedder):
    """Batching by tokens changes which texts share a batch, not what any text's vectors are."""
    texts = ["Marie Curie worked in Paris with Pierre Curie.", "  1,234,567 tonnes in 1998, 2003 and 2011.  ",
             "Short.", "The Treaty of Westphalia (1648) ended the Thirty Years' War in the Holy Roman Empire.",
             "Zhōu Ēnlái 周恩来 met Nixon."]
    together = embedder.embed_tokens(texts)
    for text, vectors in zip(texts, together):
        alone = embedder.embed_tokens([text])[0]
        np.testing.assert_array_equal(vectors.offsets, alone.offsets)
        np.testing.assert_allclose(vectors.tokens, alone.tokens, atol=1e-4)
        np.testing.assert_allclose(vectors.sentence, alone.sentence, atol=1e-5)
        np.testing.assert_allclose(vectors.sentence, embedder.embed([text])[0], atol=1e-5)

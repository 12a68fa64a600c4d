import sys

import pytest

from knowledge.ingest import chunking
from knowledge.ingest.chunking import chunk_text, split_sentences


def test_sentences_split_on_english_and_chinese_punctuation():
    assert split_sentences("One. Two! Three? 第一句。第二句！第三句？第四句；") == [
        "One.", "Two!", "Three?", "第一句。", "第二句！", "第三句？", "第四句；"]


def test_chunks_respect_size_keep_sentences_whole_and_overlap():
    sentences = [f"Sentence number {i} talks about topic {i}." for i in range(40)]
    chunks = chunk_text(" ".join(sentences), chunk_size=200, overlap=60)
    assert len(chunks) > 5
    for chunk in chunks:
        assert len(chunk.text) <= 200
        assert chunk.text.startswith("Sentence number") and chunk.text.endswith(".")
    for prev, nxt in zip(chunks, chunks[1:]):
        last_sentence = prev.text.rsplit("Sentence", 1)[1]
        assert ("Sentence" + last_sentence) in nxt.text, "the next chunk starts with overlap from the previous"
    joined = " ".join(c.text for c in chunks)
    assert all(s in joined for s in sentences)


def test_paragraph_boundaries_are_kept_and_chinese_is_not_split_mid_sentence():
    text = "第一段讲的是项目背景。它很重要。\n\n第二段讲的是技术选型！我们选择了向量数据库。"
    chunks = chunk_text(text, chunk_size=30, overlap=10)
    assert all(c.text.endswith(("。", "！")) for c in chunks)
    assert chunk_text(text, 800, 100)[0].text == "第一段讲的是项目背景。它很重要。\n\n第二段讲的是技术选型！我们选择了向量数据库。"  # noqa: E501


def test_invalid_chunk_settings_are_rejected():
    with pytest.raises(ValueError):
        chunk_text("x", chunk_size=100, overlap=100)


def _traced_lines(text: str) -> int:
    """Python lines the chunker executes on ``text``: a count of work, independent of the machine's speed."""
    executed = 0

    def trace(frame, event, arg):
        nonlocal executed
        if frame.f_code.co_filename != chunking.__file__:
            return None
        if event == "line":
            executed += 1
        return trace

    sys.settrace(trace)
    try:
        chunk_text(text)
    finally:
        sys.settrace(None)
    return executed


def test_chunking_work_is_linear_in_the_input_whatever_the_sentence_length():
    tiny = lambda n: "a. " * n  # noqa: E731 - 260 one-word sentences fill an 800-character chunk
    long = lambda n: " ".join(f"Sentence {i} talks at some length about topic {i}." for i in range(n))  # noqa: E731
    for make in (tiny, long):
        small, large = _traced_lines(make(2_000)), _traced_lines(make(8_000))
        assert 3.6 <= large / small <= 4.4, "4x the input is 4x the work"
    # the work per sentence must not grow with the number of sentences a chunk holds (it did: 8x)
    per_tiny, per_long = _traced_lines(tiny(4_000)) / 4_000, _traced_lines(long(4_000)) / 4_000
    assert per_tiny <= 2 * per_long


def test_a_single_line_of_several_megabytes_is_cut_into_full_chunks():
    line = " ".join(f"token{i:07d}" for i in range(250_000))  # 3 MB, no sentence or line break
    chunks = chunk_text(line, chunk_size=800, overlap=120)
    assert all(len(c.text) == 800 for c in chunks[:-1]) and "".join(c.text for c in chunks) == line

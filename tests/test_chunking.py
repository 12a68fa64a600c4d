import pytest

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
    assert chunk_text(text, 800, 100)[0].text == "第一段讲的是项目背景。它很重要。\n\n第二段讲的是技术选型！我们选择了向量数据库。"


def test_invalid_chunk_settings_are_rejected():
    with pytest.raises(ValueError):
        chunk_text("x", chunk_size=100, overlap=100)

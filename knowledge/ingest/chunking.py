"""Split text into overlapping chunks along paragraph and sentence boundaries (English and Chinese)."""
from __future__ import annotations

import re
from dataclasses import dataclass

_PARAGRAPH_RE = re.compile(r"\n\s*\n")
# A sentence ends at . ! ? followed by space, or right after Chinese 。！？； (no space needed).
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？；])")


@dataclass(frozen=True)
class Chunk:
    index: int
    text: str


def split_sentences(paragraph: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_RE.split(paragraph) if s and s.strip()]


def _pieces(text: str, max_chars: int) -> list[tuple[str, bool]]:
    """(sentence, starts_paragraph) pieces; sentences longer than max_chars are hard-split."""
    pieces: list[tuple[str, bool]] = []
    for paragraph in _PARAGRAPH_RE.split(text):
        paragraph = " ".join(line.strip() for line in paragraph.splitlines() if line.strip())
        for i, sentence in enumerate(split_sentences(paragraph)):
            for start in range(0, len(sentence), max_chars):
                pieces.append((sentence[start:start + max_chars], i == 0 and start == 0))
    return pieces


def _joiner(previous: str, starts_paragraph: bool) -> str:
    if starts_paragraph:
        return "\n\n"
    return "" if previous and previous[-1] in "。！？；" else " "


def chunk_text(text: str, chunk_size: int = 800, overlap: int = 120) -> list[Chunk]:
    if chunk_size <= 0 or overlap < 0 or overlap >= chunk_size:
        raise ValueError("need chunk_size > 0 and 0 <= overlap < chunk_size")
    chunks: list[str] = []
    current: list[tuple[str, bool]] = []

    def render(parts: list[tuple[str, bool]]) -> str:
        out = ""
        for sentence, starts_paragraph in parts:
            out = sentence if not out else out + _joiner(out, starts_paragraph) + sentence
        return out

    for piece in _pieces(text, chunk_size):
        if current and len(render(current + [piece])) > chunk_size:
            chunks.append(render(current))
            carried: list[tuple[str, bool]] = []
            for sentence, _ in reversed(current):
                if len(render([(sentence, False)] + carried)) > overlap:
                    break
                carried.insert(0, (sentence, False))
            current = carried
            if current and len(render(current + [piece])) > chunk_size:
                current = []
        current.append(piece)
    if current:
        rendered = render(current)
        if not chunks or rendered not in chunks[-1]:
            chunks.append(rendered)
    return [Chunk(i, c) for i, c in enumerate(chunks)]

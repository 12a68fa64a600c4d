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


class _Window:
    """The sentences of the chunk being built, with its rendered length kept up to date: adding a sentence
    costs the same however many the window holds, so chunking stays linear in the input."""

    def __init__(self) -> None:
        self.parts: list[tuple[str, bool]] = []
        self.joiners: list[str] = []  # joiners[i] goes before parts[i]; joiners[0] is ""
        self.length = 0

    def length_with(self, piece: tuple[str, bool]) -> int:
        if not self.parts:
            return len(piece[0])
        return self.length + len(_joiner(self.parts[-1][0], piece[1])) + len(piece[0])

    def append(self, piece: tuple[str, bool]) -> None:
        joiner = _joiner(self.parts[-1][0], piece[1]) if self.parts else ""
        self.length = self.length_with(piece)
        self.parts.append(piece)
        self.joiners.append(joiner)

    def render(self) -> str:
        return "".join(joiner + sentence for joiner, (sentence, _) in zip(self.joiners, self.parts))

    def overlap_tail(self, overlap: int) -> "_Window":
        """The last whole sentences that fit in ``overlap`` characters, joined as within one paragraph."""
        kept: list[str] = []
        length = 0
        for sentence, _ in reversed(self.parts):
            added = len(sentence) + (len(_joiner(sentence, False)) if kept else 0)
            if length + added > overlap:
                break
            kept.append(sentence)
            length += added
        tail = _Window()
        for sentence in reversed(kept):
            tail.append((sentence, False))
        return tail


def chunk_text(text: str, chunk_size: int = 800, overlap: int = 120) -> list[Chunk]:
    if chunk_size <= 0 or overlap < 0 or overlap >= chunk_size:
        raise ValueError("need chunk_size > 0 and 0 <= overlap < chunk_size")
    chunks: list[str] = []
    window = _Window()
    for piece in _pieces(text, chunk_size):
        if window.parts and window.length_with(piece) > chunk_size:
            chunks.append(window.render())
            window = window.overlap_tail(overlap)
            if window.parts and window.length_with(piece) > chunk_size:
                window = _Window()
        window.append(piece)
    if window.parts:
        rendered = window.render()
        if not chunks or rendered not in chunks[-1]:
            chunks.append(rendered)
    return [Chunk(i, c) for i, c in enumerate(chunks)]

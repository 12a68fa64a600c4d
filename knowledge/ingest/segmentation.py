"""Full-text preparation: insert spaces between Chinese words so PostgreSQL's parser sees them."""
from __future__ import annotations

import logging
import re
import threading

_CJK_RUN_RE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
_lock = threading.Lock()
_jieba = None


def _tokenizer():
    global _jieba
    with _lock:
        if _jieba is None:
            import jieba

            jieba.setLogLevel(logging.WARNING)
            jieba.initialize()
            _jieba = jieba
    return _jieba


def segment_for_search(text: str) -> str:
    """Text with each CJK run split into space-separated words (search-engine mode); ASCII is untouched."""
    if not _CJK_RUN_RE.search(text):
        return text
    jieba = _tokenizer()
    return _CJK_RUN_RE.sub(lambda m: " " + " ".join(jieba.cut_for_search(m.group(0))) + " ", text)


def search_text_for(content: str) -> str | None:
    """What a chunk stores in ``knowledge.search_text``: its segmented text, or None when that is the content
    itself (no CJK), since the full-text column falls back to the content."""
    segmented = segment_for_search(content)
    return None if segmented == content else segmented

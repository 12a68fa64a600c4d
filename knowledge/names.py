"""Name normalisation shared by extraction, entity resolution and the canonical linker."""
from __future__ import annotations

import re
import unicodedata

_LEGAL_SUFFIXES = (
    "incorporated", "inc", "corporation", "corp", "company", "co", "limited", "ltd", "llc", "plc",
    "gmbh", "ag", "sa", "holdings", "group",
    "有限公司", "股份有限公司", "集团", "公司",
)
_SUFFIX_RE = re.compile(
    r"(?:[\s,]+(?:" + "|".join(s for s in _LEGAL_SUFFIXES if s.isascii()) + r")\.?)+$",
    re.IGNORECASE,
)
_CJK_SUFFIX_RE = re.compile("(?:" + "|".join(s for s in _LEGAL_SUFFIXES if not s.isascii()) + ")$")
_NON_WORD_RE = re.compile(r"[^\w]+", re.UNICODE)


def strip_legal_suffix(name: str) -> str:
    stripped = _SUFFIX_RE.sub("", name.strip())
    stripped = _CJK_SUFFIX_RE.sub("", stripped)
    return stripped or name.strip()


def normalize_name(name: str) -> str:
    """Key for exact matching: NFKC, case-folded, legal suffixes and all spacing/punctuation removed.

    "OpenAI", "Open AI" and "OpenAI Inc." all map to "openai".
    """
    text = unicodedata.normalize("NFKC", name).casefold().strip()
    text = strip_legal_suffix(text)
    text = text.removeprefix("the ")
    return _NON_WORD_RE.sub("", text).replace("_", "")


def name_tokens(name: str) -> list[str]:
    text = unicodedata.normalize("NFKC", strip_legal_suffix(name)).casefold()
    return [t for t in _NON_WORD_RE.split(text) if t]

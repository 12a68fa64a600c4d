"""Make text PostgreSQL can take: text and jsonb reject NUL, and a lone surrogate has no UTF-8 encoding.

Used where text enters the knowledge layer: ingest (documents, titles, metadata) and search (queries)."""
from __future__ import annotations

import re
from dataclasses import dataclass

_UNSTORABLE_RE = re.compile(r"[\x00\ud800-\udfff]")
REPLACEMENT = "\ufffd"


@dataclass(frozen=True)
class Cleaned:
    text: str
    removed: int  # NUL characters dropped plus lone surrogates replaced by U+FFFD


def _replacement(match: re.Match[str]) -> str:
    # a lone surrogate stood for a character, so it leaves a visible mark; a NUL carries nothing readable
    return "" if match.group(0) == "\x00" else REPLACEMENT


def clean_text(text: str) -> Cleaned:
    cleaned, removed = _UNSTORABLE_RE.subn(_replacement, text)
    return Cleaned(cleaned, removed)


def clean_value(value: object) -> object:
    """A JSON-like value (document metadata) with every string, keys included, cleaned. A string that needs no
    cleaning comes back as the same object, so a str-valued Enum (a CLI choice) stays that Enum."""
    if isinstance(value, str):
        cleaned = clean_text(value).text
        return value if cleaned == value else cleaned
    if isinstance(value, dict):
        return {clean_text(str(k)).text: clean_value(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(clean_value(v) for v in value)
    if isinstance(value, list):
        return [clean_value(v) for v in value]
    return value


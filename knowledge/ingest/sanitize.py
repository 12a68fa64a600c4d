"""Make text storable in PostgreSQL: text and jsonb reject NUL, and a lone surrogate has no UTF-8 encoding."""
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
    """A JSON-like value (document metadata) with every string, keys included, cleaned."""
    if isinstance(value, str):
        return clean_text(value).text
    if isinstance(value, dict):
        return {clean_text(str(k)).text: clean_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean_value(v) for v in value]
    return value


def removed_notice(removed: int) -> str:
    noun = "character" if removed == 1 else "characters"
    return f"{removed} {noun} PostgreSQL cannot store (NUL, lone surrogates) removed"

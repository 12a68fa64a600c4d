"""Corpus ids as callers send them (UUIDs, their text, anything else): the one parser every layer uses."""
from __future__ import annotations

from uuid import UUID


def parse_corpus_id(value: object) -> UUID | None:
    if isinstance(value, UUID):
        return value
    try:
        return UUID(str(value).strip())
    except (ValueError, AttributeError, TypeError):
        return None

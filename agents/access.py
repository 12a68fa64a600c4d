"""Which corpora a person may read. The one place a per-person permission view plugs in."""
from __future__ import annotations

from uuid import UUID

from knowledge.app import KnowledgeApp


async def accessible_corpus_ids_for(user_id: str, kapp: KnowledgeApp) -> list[UUID]:
    """Corpus ids ``user_id`` may read: the permission view of the topology person it maps to, re-read on
    every call (the local operator "local" reads every corpus except card inboxes; an unknown user raises
    UnknownPersonError)."""
    return (await kapp.access.resolve_user(user_id)).accessible_corpus_ids

"""Which corpora a person may read. The one place a per-person permission view plugs in."""
from __future__ import annotations

import functools
import sys
from uuid import UUID

from config import Settings
from config.settings import ADK_DEV_USERS_WARNING
from knowledge.app import KnowledgeApp


async def accessible_corpus_ids_for(user_id: str, kapp: KnowledgeApp) -> list[UUID]:
    """Corpus ids ``user_id`` may read: the permission view of the topology person it maps to, re-read on
    every call (the local operator "local", and with NE_ADK_DEV_USERS the ADK dev users, read every corpus
    except card inboxes; an unknown user raises UnknownPersonError)."""
    return (await kapp.access.resolve_user(user_id)).accessible_corpus_ids


@functools.cache
def _warn(message: str) -> None:
    print(f"negentropy agent: WARNING: {message}", file=sys.stderr)  # stderr: `adk run` logs to a temp file


def warn_about_dev_users(settings: Settings) -> None:
    """Say once per process, to the person starting the agent, when the ADK dev users read as the operator."""
    if settings.adk_dev_users:
        _warn(ADK_DEV_USERS_WARNING)

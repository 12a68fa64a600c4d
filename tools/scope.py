"""The corpora a tool call may touch: the session's corpus_ids, narrowed by the call, within access."""
from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from google.adk.tools import ToolContext

from knowledge.app import KnowledgeApp
from session.corpus_scope import accessible_corpora, ref_of
from session.runtime import knowledge_app
from session.state import CORPUS_IDS, CORPUS_SCOPE, CorpusRef, SessionContext


@dataclass
class ToolScope:
    kapp: KnowledgeApp
    accessible: list[UUID]
    session_corpora: list[CorpusRef]
    requested: list[UUID] | None  # None: no corpus mentioned, search everything accessible
    rejected: list[str]


def _is_uuid(value: str) -> bool:
    try:
        UUID(value)
    except ValueError:
        return False
    return True


def session_corpora(tool_context: ToolContext) -> list[CorpusRef]:
    """The session's corpora: CORPUS_IDS is authoritative, CORPUS_SCOPE only adds names and labels."""
    ids = [str(i) for i in tool_context.state.get(CORPUS_IDS) or [] if _is_uuid(str(i))]
    scope = SessionContext.from_state({CORPUS_SCOPE: tool_context.state.get(CORPUS_SCOPE)}).corpora_in_scope
    named = {ref.id: ref for ref in scope}
    return [named.get(i, CorpusRef(i, i, i)) for i in ids]


def match_corpus(value: object, corpora: list[CorpusRef]) -> CorpusRef | None:
    """The corpus a tool argument names (its id, name or label, case-insensitive)."""
    key = str(value).strip().lstrip("@").casefold()
    return next((ref for ref in corpora if key in (ref.id.casefold(), ref.name.casefold(), ref.label.casefold())),
                None)


async def resolve_tool_scope(tool_context: ToolContext, corpus_ids: list[str] | None) -> ToolScope:
    """Session corpora (or, when none was mentioned, every accessible corpus) narrowed to ``corpus_ids``."""
    kapp = await knowledge_app()
    readable = await accessible_corpora(tool_context.user_id, kapp)
    accessible = [c.id for c in readable]
    corpora = session_corpora(tool_context)
    candidates = corpora or [ref_of(c) for c in readable]
    rejected: list[str] = []
    requested: list[UUID] | None = None
    if corpus_ids:
        requested = []
        for value in corpus_ids:
            ref = match_corpus(value, candidates)
            if ref is None:
                rejected.append(str(value))
            else:
                requested.append(UUID(ref.id))
    elif corpora:
        requested = [UUID(ref.id) for ref in corpora]
    return ToolScope(kapp, accessible, corpora, requested, rejected)

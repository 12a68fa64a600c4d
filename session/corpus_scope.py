"""Turn `@Corpus` mentions and requested corpus ids into the corpora a conversation may use."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable
from uuid import UUID

from knowledge.app import KnowledgeApp
from knowledge.corpora import Corpus
from session.access import accessible_corpus_ids_for
from session.mentions import resolve_mentions
from session.state import CorpusRef


@dataclass
class ScopeResolution:
    corpora: list[CorpusRef] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)  # names or ids that are unknown or not accessible
    available: list[CorpusRef] = field(default_factory=list)
    # the requested ids or names (not mentions in the text) refused: unknown, or a corpus the user may not read
    refused_requests: list[str] = field(default_factory=list)

    def unknown_message(self) -> str:
        names = ", ".join(f"'{u}'" for u in self.unknown)
        known = (", ".join(ref.mention() for ref in self.available)
                 or "none yet (create one with `negentropy corpus create`)")
        return (f"I can't find the corpus {names}, or you don't have access to it. "
                f"Corpora you can use: {known}. Mention one with @name.")


def ref_of(corpus: Corpus) -> CorpusRef:
    return CorpusRef(id=str(corpus.id), name=corpus.name, label=corpus.label)


def _as_uuid(value: str) -> UUID | None:
    try:
        return UUID(value)
    except ValueError:
        return None


async def accessible_corpora(user_id: str, kapp: KnowledgeApp) -> list[Corpus]:
    allowed = set(await accessible_corpus_ids_for(user_id, kapp))
    return [c for c in await kapp.corpora.list() if c.id in allowed]


async def resolve_scope(kapp: KnowledgeApp, user_id: str, mentions: Iterable[str],
                        requested: Iterable[object] = (), corpora: list[Corpus] | None = None) -> ScopeResolution:
    """Mentioned names plus requested ids/names, each checked against the corpora ``user_id`` may read
    (``corpora``, when the caller has them already)."""
    corpora = await accessible_corpora(user_id, kapp) if corpora is None else corpora
    by_id = {str(c.id): c for c in corpora}
    aliases: dict[str, str] = {}
    for corpus in corpora:
        aliases.setdefault(corpus.name, str(corpus.id))
        aliases.setdefault(corpus.label, str(corpus.id))
    result = ScopeResolution(available=[ref_of(c) for c in corpora])
    chosen: list[str] = []
    for raw in requested:
        value = str(raw).strip()
        uuid = _as_uuid(value)
        if uuid is not None and str(uuid) in by_id:
            chosen.append(str(uuid))
            continue
        ids, unknown = resolve_mentions([value], aliases) if uuid is None and value else ([], [value])
        chosen.extend(ids)
        result.unknown.extend(unknown)
        if unknown:
            result.refused_requests.append(value)
    mentioned, unknown = resolve_mentions(mentions, aliases)
    chosen.extend(mentioned)
    result.unknown.extend(unknown)
    result.corpora = [ref_of(by_id[i]) for i in dict.fromkeys(chosen)]
    return result

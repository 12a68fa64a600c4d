"""A title and summary per community: extractive offline, an LLM summary (litellm) when a model is set.

The extractive summary names the best-connected members, the strongest relations and the evidence sentences
behind them; its evidence chunks are the community's representative chunks (cited by global search) on
both paths. Any LLM failure or malformed reply falls back to the extractive summary.
"""
from __future__ import annotations

import asyncio
import logging
import os
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from knowledge.graph.extraction import parse_llm_json

logger = logging.getLogger(__name__)

TITLE_ENTITIES = 3
SUMMARY_ENTITIES = 5
SUMMARY_RELATIONS = 5
EVIDENCE_SENTENCES = 3
MAX_SUMMARY_CHARS = 1500
LLM_MAX_ENTITIES = 25
LLM_MAX_RELATIONS = 25
LLM_TIMEOUT_SECONDS = 30.0
LLM_CONCURRENCY = 4

_PHRASES = {
    "ACQUIRED": "acquired", "PART_OF": "is part of", "DEVELOPED": "developed", "USES": "uses",
    "LOCATED_IN": "is located in", "WORKS_AT": "works at", "PARTNERED_WITH": "partnered with",
    "CO_OCCURS": "appears with",
}


@dataclass(frozen=True)
class MemberInfo:
    id: int
    name: str
    type: str
    description: str
    first_chunk_id: int | None


@dataclass(frozen=True)
class RelationInfo:
    id: int
    source_id: int
    target_id: int
    type: str
    weight: float
    evidence: str
    evidence_chunk_id: int | None


@dataclass(frozen=True)
class CommunitySummary:
    title: str
    summary: str
    representative_chunk_ids: tuple[int, ...]
    generated_by: str = "extractive"  # "extractive" | "llm"


def relation_phrase(relation_type: str) -> str:
    return _PHRASES.get(relation_type, relation_type.lower().replace("_", " "))


def _join_names(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def rank_members(members: Sequence[MemberInfo], relations: Sequence[RelationInfo]) -> list[MemberInfo]:
    """Members by degree inside the community, then relation weight, then name."""
    neighbours: dict[int, set[int]] = defaultdict(set)
    strength: dict[int, float] = defaultdict(float)
    for r in relations:
        neighbours[r.source_id].add(r.target_id)
        neighbours[r.target_id].add(r.source_id)
        strength[r.source_id] += r.weight
        strength[r.target_id] += r.weight
    return sorted(members, key=lambda m: (-len(neighbours[m.id]), -strength[m.id], m.name, m.id))


def rank_relations(relations: Sequence[RelationInfo]) -> list[RelationInfo]:
    """Typed relations before co-occurrence, then by weight."""
    return sorted(relations, key=lambda r: (r.type == "CO_OCCURS", -r.weight, r.id))


def extractive_summary(members: Sequence[MemberInfo], relations: Sequence[RelationInfo]) -> CommunitySummary:
    if not members:
        raise ValueError("a community needs at least one member")
    ranked = rank_members(members, relations)
    names = {m.id: m.name for m in members}
    top = ranked[:SUMMARY_ENTITIES]
    title = _join_names([m.name for m in ranked[:TITLE_ENTITIES]])
    listed = _join_names([f"{m.name} ({m.type})" for m in top])
    if len(members) == 1:
        parts = [f"{listed}."]
    else:
        parts = [f"{listed} are the most connected of {len(members)} entities joined by {len(relations)} relations."]
    ordered = rank_relations(relations)
    if ordered:
        facts = [f"{names[r.source_id]} {relation_phrase(r.type)} {names[r.target_id]}"
                 for r in ordered[:SUMMARY_RELATIONS]]
        parts.append("; ".join(facts) + ".")
    evidence: list[str] = []
    chunk_ids: list[int] = []
    for r in ordered:
        if len(evidence) >= EVIDENCE_SENTENCES:
            break
        if r.evidence and r.evidence not in evidence:
            evidence.append(r.evidence)
            if r.evidence_chunk_id is not None and r.evidence_chunk_id not in chunk_ids:
                chunk_ids.append(r.evidence_chunk_id)
    for m in ranked:
        if len(evidence) >= EVIDENCE_SENTENCES or (ordered and chunk_ids):
            break
        if m.description and m.description not in evidence:
            evidence.append(m.description)
            if m.first_chunk_id is not None and m.first_chunk_id not in chunk_ids:
                chunk_ids.append(m.first_chunk_id)
    if evidence:
        parts.append("Evidence: " + " ".join(evidence))
    summary = " ".join(parts)
    if len(summary) > MAX_SUMMARY_CHARS:
        summary = summary[:MAX_SUMMARY_CHARS - 1].rstrip() + "…"
    return CommunitySummary(title, summary, tuple(chunk_ids))


class _LlmReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    title: str = Field(min_length=1, max_length=160)
    summary: str = Field(min_length=20, max_length=4000)

    @field_validator("title", "summary", mode="before")
    @classmethod
    def _strip(cls, value: Any) -> Any:
        return " ".join(value.split()) if isinstance(value, str) else value


_SYSTEM_PROMPT = (
    "You summarise one community of a knowledge graph for someone asking broad, thematic questions. "
    'Reply with JSON only: {"title": "...", "summary": "..."}. The title names the theme in at most 10 words. '
    "The summary has 2-4 sentences and states only what the entities, relations and evidence below support."
)


def _prompt(members: Sequence[MemberInfo], relations: Sequence[RelationInfo]) -> str:
    ranked = rank_members(members, relations)
    names = {m.id: m.name for m in members}
    lines = ["Entities:"]
    lines += [f"- {m.name} ({m.type})" for m in ranked[:LLM_MAX_ENTITIES]]
    ordered = rank_relations(relations)[:LLM_MAX_RELATIONS]
    if ordered:
        lines.append("Relations:")
        lines += [f"- {names[r.source_id]} {relation_phrase(r.type)} {names[r.target_id]}" for r in ordered]
        lines.append("Evidence:")
        lines += [f"- {e}" for e in dict.fromkeys(r.evidence for r in ordered if r.evidence)]
    return "\n".join(lines)


async def _litellm_acompletion(**kwargs: Any) -> Any:
    # litellm fetches a model price map at import unless told to use its bundled copy.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    return await litellm.acompletion(**kwargs)


def _reply_text(response: Any) -> str:
    choices = response["choices"] if isinstance(response, dict) else response.choices
    message = choices[0]["message"] if isinstance(choices[0], dict) else choices[0].message
    content = message["content"] if isinstance(message, dict) else message.content
    if not isinstance(content, str):
        raise ValueError("model reply has no text content")
    return content


Completion = Callable[..., Awaitable[Any]]


class CommunitySummarizer:
    """Extractive summaries, or LLM summaries of multi-member communities when ``model`` is set."""

    def __init__(self, model: str | None, completion: Completion | None = None,
                 timeout_seconds: float = LLM_TIMEOUT_SECONDS, concurrency: int = LLM_CONCURRENCY) -> None:
        self.model = model or None
        self._completion = completion or _litellm_acompletion
        self.timeout_seconds = timeout_seconds
        self._semaphore = asyncio.Semaphore(concurrency)

    @property
    def version(self) -> str:
        """Part of the community signature: switching models re-summarises every community."""
        return f"llm:{self.model}" if self.model else "extractive"

    async def summarize(self, members: Sequence[MemberInfo], relations: Sequence[RelationInfo]) -> CommunitySummary:
        extractive = extractive_summary(members, relations)
        if not self.model or len(members) < 2:
            return extractive
        try:
            async with self._semaphore:
                response = await asyncio.wait_for(self._completion(
                    model=self.model, temperature=0,
                    messages=[{"role": "system", "content": _SYSTEM_PROMPT},
                              {"role": "user", "content": _prompt(members, relations)}],
                ), self.timeout_seconds)
            reply = _LlmReply.model_validate(parse_llm_json(_reply_text(response)))
        except (ValidationError, ValueError, KeyError, IndexError, AttributeError, TypeError) as exc:
            logger.warning("LLM community summary was malformed (%s); using the extractive summary",
                           str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
            return extractive
        except Exception as exc:  # noqa: BLE001 - network, auth, rate limit, timeout: never lose the summary
            logger.warning("LLM community summary failed (%s: %s); using the extractive summary",
                           type(exc).__name__, exc)
            return extractive
        return CommunitySummary(reply.title, reply.summary, extractive.representative_chunk_ids, "llm")

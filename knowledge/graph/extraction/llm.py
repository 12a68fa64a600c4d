"""Extraction through a chat model (``litellm``): strict JSON, validated; any failure falls back offline."""
from __future__ import annotations

import json
import logging
import os
import re
from collections import Counter
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from knowledge.graph.extraction.assembly import Group, finish
from knowledge.graph.extraction.naming import Candidate
from knowledge.graph.extraction.offline import DEFAULT_OFFLINE_EXTRACTOR, OfflineExtractor
from knowledge.graph.extraction.sentences import split_sentences
from knowledge.graph.extraction.types import ENTITY_TYPES, TYPED_WEIGHT, ExtractedRelation, Extraction, Extractor
from knowledge.names import normalize_name

log = logging.getLogger(__name__)

_TYPE_SYNONYMS = {
    "ORGANIZATION": "ORG", "ORGANISATION": "ORG", "COMPANY": "ORG", "INSTITUTION": "ORG", "CORPORATION": "ORG",
    "UNIVERSITY": "ORG", "AGENCY": "ORG", "PER": "PERSON", "PEOPLE": "PERSON", "HUMAN": "PERSON",
    "LOCATION": "PLACE", "LOC": "PLACE", "GPE": "PLACE", "CITY": "PLACE", "COUNTRY": "PLACE", "GEO": "PLACE",
    "TECHNOLOGY": "CONCEPT", "TECHNIQUE": "CONCEPT", "METHOD": "CONCEPT", "ALGORITHM": "CONCEPT",
    "TOPIC": "CONCEPT", "IDEA": "CONCEPT", "FIELD": "CONCEPT", "SOFTWARE": "PRODUCT", "TOOL": "PRODUCT",
    "SYSTEM": "PRODUCT", "PROJECT": "PRODUCT", "MODEL": "PRODUCT", "SERVICE": "PRODUCT", "DISH": "FOOD",
    "INGREDIENT": "FOOD", "FRUIT": "FOOD", "MISC": "OTHER", "DATE": "OTHER",
}


def coerce_entity_type(value: Any) -> str:
    t = re.sub(r"[^A-Z]", "", str(value or "").upper())
    if t in ENTITY_TYPES:
        return t
    return _TYPE_SYNONYMS.get(t, "OTHER")


class _LlmEntity(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str
    type: str = "OTHER"

    @field_validator("name", mode="before")
    @classmethod
    def _name(cls, v: Any) -> str:
        if not isinstance(v, (str, int, float)):
            raise ValueError("entity name must be a string")
        v = str(v).strip()
        if not v or len(v) > 200:
            raise ValueError("bad entity name")
        return v

    @field_validator("type", mode="before")
    @classmethod
    def _type(cls, v: Any) -> str:
        return coerce_entity_type(v)


class _LlmRelation(BaseModel):
    model_config = ConfigDict(extra="ignore")
    source: str
    target: str
    type: str = "RELATED_TO"

    @field_validator("source", "target", mode="before")
    @classmethod
    def _endpoint(cls, v: Any) -> str:
        if not isinstance(v, (str, int, float)):
            raise ValueError("relation endpoint must be a string")
        return str(v).strip()

    @field_validator("type", mode="before")
    @classmethod
    def _rtype(cls, v: Any) -> str:
        t = re.sub(r"[^A-Z0-9]+", "_", str(v or "").upper()).strip("_")
        return t[:40] or "RELATED_TO"


class _LlmPayload(BaseModel):
    model_config = ConfigDict(extra="ignore")
    entities: list[_LlmEntity]
    relations: list[_LlmRelation] = []


_SYSTEM_PROMPT = (
    "You extract a knowledge graph from text. Return ONLY one JSON object, no prose, of the form\n"
    '{"entities":[{"name":"...","type":"..."}],"relations":[{"source":"...","target":"...","type":"..."}]}\n'
    "Rules:\n"
    f"- entity type is one of: {', '.join(ENTITY_TYPES)}.\n"
    "- entity name is copied exactly as written in the text (keep legal suffixes such as 'Inc.'); list each "
    "entity once even if it is mentioned several times or with variants.\n"
    "- relation type is one of: ACQUIRED, PART_OF, DEVELOPED, USES, LOCATED_IN, WORKS_AT, PARTNERED_WITH, "
    "or another short UPPER_SNAKE_CASE verb; source and target must be names from the entities list.\n"
    "- only relations stated in the text; the text may be English or Chinese.\n"
    "- no pronouns, dates, numbers or generic words as entities."
)

_FENCE_RE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def parse_llm_json(content: str) -> dict:
    """Parse a model reply into a dict, tolerating ```json fences and prose around the object."""
    if not isinstance(content, str):
        raise ValueError("model reply is not text")
    body = content.strip()
    m = _FENCE_RE.search(body)
    if m:
        body = m.group(1).strip()
    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        lo, hi = body.find("{"), body.rfind("}")
        if lo < 0 or hi <= lo:
            raise
        data = json.loads(body[lo:hi + 1])
    if not isinstance(data, dict):
        raise ValueError("model reply is not a JSON object")
    return data


def _reply_content(resp: Any) -> str:
    if isinstance(resp, str):
        return resp
    choices = resp["choices"] if isinstance(resp, dict) else resp.choices
    first = choices[0]
    msg = first["message"] if isinstance(first, dict) else first.message
    content = msg["content"] if isinstance(msg, dict) else msg.content
    if not isinstance(content, str):
        raise ValueError("model reply has no text content")
    return content


def _litellm_completion(**kwargs: Any) -> Any:
    # litellm fetches a model price map at import unless told to use its bundled copy.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    return litellm.completion(**kwargs)


def _find_spans(text: str, name: str) -> list[tuple[int, int]]:
    """All occurrences of ``name`` (exact case first, then any case); ASCII ends respect word boundaries."""
    pat = re.escape(name)
    if name[0].isascii() and name[0].isalnum():
        pat = r"(?<![A-Za-z0-9])" + pat
    if name[-1].isascii() and name[-1].isalnum():
        pat += r"(?![A-Za-z0-9])"
    spans = [(m.start(), m.end()) for m in re.finditer(pat, text)]
    if not spans:
        spans = [(m.start(), m.end()) for m in re.finditer(pat, text, re.IGNORECASE)]
    return spans


class LlmExtractor:
    """Entity/relation extraction through a chat model (``litellm``), validated, with offline fallback."""

    def __init__(self, model: str, fallback: Extractor | None = None,
                 completion: Callable[..., Any] | None = None, max_chars: int = 12000) -> None:
        self.model = model
        self.fallback: Extractor = fallback if fallback is not None else OfflineExtractor()
        self._completion = completion
        self.max_chars = max_chars

    def messages(self, text: str) -> list[dict[str, str]]:
        return [
            {"role": "system", "content": _SYSTEM_PROMPT},
            {"role": "user", "content": f"Text:\n<<<\n{text[:self.max_chars]}\n>>>\nJSON:"},
        ]

    def extract(self, text: str) -> Extraction:
        if not text or not text.strip():
            return Extraction([], [])
        try:
            completion = self._completion or _litellm_completion
            resp = completion(model=self.model, messages=self.messages(text), temperature=0)
            payload = _LlmPayload.model_validate(parse_llm_json(_reply_content(resp)))
            return self._to_extraction(text, payload)
        except (ValidationError, ValueError, KeyError, IndexError, AttributeError, TypeError) as exc:
            log.warning("LLM extraction returned malformed output (%s); using offline extractor",
                        str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        except Exception as exc:  # network, auth, rate limit, ...
            log.warning("LLM extraction failed (%s: %s); using offline extractor", type(exc).__name__, exc)
        return self.fallback.extract(text)

    def _to_extraction(self, text: str, payload: _LlmPayload) -> Extraction:
        sentences = split_sentences(text)
        # variant mentions ("Open AI" for "OpenAI") come from the offline rules, keyed by normalize_name
        offline: dict[tuple[str, bool], list[tuple[int, int]]] = {}
        try:
            for oe in DEFAULT_OFFLINE_EXTRACTOR.extract(text).entities:
                offline.setdefault((normalize_name(oe.name), oe.type == "FOOD"), []).extend(oe.mentions)
        except Exception as exc:  # pragma: no cover - the rules should never break the LLM path
            log.warning("offline mention lookup failed: %s", exc)
        found: dict[str, tuple[str, str, list[tuple[int, int]]]] = {}
        for ent in payload.entities:
            key = normalize_name(ent.name)
            if not key:
                continue
            exact = _find_spans(text, ent.name)
            spans = sorted(set(exact) | set(offline.get((key, ent.type == "FOOD"), ())))
            if not spans:
                continue        # not in the text: hallucinated or paraphrased
            if not exact or text[exact[0][0]:exact[0][1]] != ent.name:
                ent = ent.model_copy(update={"name": text[spans[0][0]:spans[0][1]]})
            if key in found:
                name, typ, old = found[key]
                found[key] = (name, typ if typ != "OTHER" else ent.type, sorted(set(old) | set(spans)))
            else:
                found[key] = (ent.name, ent.type, spans)
        if payload.entities and not found:
            raise ValueError("none of the model's entities occur in the text")
        # drop spans nested inside a longer entity's span ("OpenAI" inside "OpenAI Inc.")
        all_spans = [(s_, e_, k) for k, (_, _, sp) in found.items() for s_, e_ in sp]
        groups: dict[str, Group] = {}
        cands: list[Candidate] = []
        for k, (name, typ, spans) in found.items():
            kept = [sp for sp in spans if not any(o_s <= sp[0] and sp[1] <= o_e and (o_e - o_s) > (sp[1] - sp[0])
                                                   for o_s, o_e, _ in all_spans)] or spans
            g = Group(k, [], Counter(), name=name, type=typ)
            for s_, e_ in sorted(set(kept)):
                si = next((i for i, (a_, b_) in enumerate(sentences) if a_ <= s_ < b_), 0)
                c = Candidate(s_, e_, text[s_:e_], k, Counter(), 0, si)
                g.mentions.append(c)
                cands.append(c)
            groups[k] = g
        cands.sort(key=lambda c: c.start)
        groups = dict(sorted(groups.items(), key=lambda kv: kv[1].mentions[0].start))
        by_sentence: dict[int, list[Candidate]] = {}
        for c in cands:
            by_sentence.setdefault(c.sent, []).append(c)
        base = finish(text, sentences, groups, by_sentence, [])
        typed: list[ExtractedRelation] = []
        seen: set[tuple[str, str, str]] = set()
        typed_pairs: set[frozenset] = set()
        for r in payload.relations:
            ks, kt = normalize_name(r.source), normalize_name(r.target)
            if ks not in groups or kt not in groups or ks == kt or (ks, kt, r.type) in seen:
                continue
            seen.add((ks, kt, r.type))
            typed_pairs.add(frozenset((ks, kt)))
            gs, gt = groups[ks], groups[kt]
            typed.append(ExtractedRelation(gs.name, gt.name, r.type, TYPED_WEIGHT,
                                           _evidence(text, sentences, gs, gt)))
        name_key = {g.name: k for k, g in groups.items()}
        co = [r for r in base.relations
              if frozenset((name_key[r.source], name_key[r.target])) not in typed_pairs]
        return Extraction(base.entities, typed + co)


def _evidence(text: str, sentences: list[tuple[int, int]], a: Group, b: Group) -> str:
    sa = {m.sent for m in a.mentions}
    common = sorted(sa & {m.sent for m in b.mentions})
    si = common[0] if common else min(sa)
    if not sentences:
        return text[:300]
    s_, e_ = sentences[si]
    return text[s_:e_]

"""Session state keys of a Negentropy conversation and the context block every agent's model reads.

The block is appended to the system instruction before each model call, so a hosted LLM and the
offline model see exactly the same facts: which corpora are in scope, the intent hint, a note that
waits for a corpus choice. Values are JSON so the block can be parsed back without ambiguity.
"""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from typing import Any, Mapping

CORPUS_IDS = "corpus_ids"                # ids (str) the conversation is scoped to, validated each turn
CORPUS_SCOPE = "corpus_scope"            # [{id, name, label}] of CORPUS_IDS, for the context block
UI_CORPUS_IDS = "ui_corpus_ids"          # AG-UI forwardedProps.corpus_ids of the latest run
STRICT_SCOPE = "strict_scope"            # AG-UI forwardedProps.strict_scope: graph expansion stays in scope
ACTION_INTENT_HINT = "action_intent_hint"
PENDING_INGEST = "pending_ingest"        # {"text", "corpus_ids"}: a note waiting for "which corpus?"
AVAILABLE_CORPORA = "temp:available_corpora"  # accessible corpora of this turn (not persisted)

_BLOCK_RE = re.compile(r"<session_context>\n(.*?)\n</session_context>", re.DOTALL)


@dataclass(frozen=True)
class CorpusRef:
    id: str
    name: str
    label: str

    def mention(self) -> str:
        return f"@{self.name} ({self.label})"


@dataclass
class SessionContext:
    corpora_in_scope: list[CorpusRef] = field(default_factory=list)
    available_corpora: list[CorpusRef] = field(default_factory=list)
    action_intent_hint: str | None = None
    pending_ingest: str | None = None

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> "SessionContext":
        pending = state.get(PENDING_INGEST)
        return cls(
            corpora_in_scope=_refs(state.get(CORPUS_SCOPE)),
            available_corpora=_refs(state.get(AVAILABLE_CORPORA)),
            action_intent_hint=state.get(ACTION_INTENT_HINT),
            pending_ingest=pending.get("text") if isinstance(pending, dict) else None,
        )

    def render(self) -> str:
        lines = [f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in asdict(self).items()]
        return "<session_context>\n" + "\n".join(lines) + "\n</session_context>"

    @classmethod
    def parse(cls, text: str) -> "SessionContext":
        """The last context block in ``text`` (an empty context when there is none)."""
        blocks = _BLOCK_RE.findall(text or "")
        if not blocks:
            return cls()
        values: dict[str, Any] = {}
        for line in blocks[-1].splitlines():
            key, _, raw = line.partition(": ")
            values[key] = json.loads(raw)
        return cls(corpora_in_scope=_refs(values.get("corpora_in_scope")),
                   available_corpora=_refs(values.get("available_corpora")),
                   action_intent_hint=values.get("action_intent_hint"),
                   pending_ingest=values.get("pending_ingest"))


def _refs(raw: object) -> list[CorpusRef]:
    if not isinstance(raw, list):
        return []
    return [CorpusRef(str(r["id"]), str(r["name"]), str(r["label"])) for r in raw
            if isinstance(r, dict) and {"id", "name", "label"} <= r.keys()]


def refs_to_state(refs: list[CorpusRef]) -> list[dict[str, str]]:
    return [asdict(r) for r in refs]

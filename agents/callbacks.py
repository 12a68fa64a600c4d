"""Model callbacks of the Negentropy agents.

`route_turn` (root): resolves `@Corpus` mentions and AG-UI corpus ids into session state `corpus_ids`,
answers unknown corpora with a clear message, and writes `action_intent_hint` only when corpora are in
scope. `attach_session_context` (every agent): appends the session context block to the request.
"""
from __future__ import annotations

import logging
from typing import Any

import asyncpg
from google.adk.agents.callback_context import CallbackContext
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from agents.action_intent import ActionIntent, classify
from agents.ingest_payload import ingest_payload
from knowledge.app import KnowledgeApp
from knowledge.context.permissions import UnknownPersonError
from knowledge.db.server import DatabaseUnavailableError
from session.corpus_scope import accessible_corpora, resolve_scope
from session.mentions import bracket_labels, parse_mentions, strip_mentions
from session.runtime import knowledge_app
from session.state import (ACTION_INTENT_HINT, AVAILABLE_CORPORA, CORPUS_IDS, CORPUS_SCOPE, PENDING_INGEST,
                           UI_CORPUS_IDS, SessionContext, refs_to_state)

logger = logging.getLogger(__name__)

_DATABASE_ERRORS = (DatabaseUnavailableError, asyncpg.PostgresError, asyncpg.InterfaceError, OSError)
# the audit row of a refused corpus request: agent sessions (AG-UI's included) are the gateway's "adk" channel
SCOPE_AUDIT_CHANNEL = "adk"
SCOPE_AUDIT_TOOL = "corpus_scope"
SCOPE_AUDIT_REASON = "forbidden_corpus"
_MAX_CHOICE_WORDS = 3  # "@team_notes please" answers "which corpus?"; a longer text is a new request


def text_response(text: str) -> LlmResponse:
    return LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))


def user_text(content: types.Content | None) -> str | None:
    """The text of a user message; None for a message without text (e.g. a confirmation answer)."""
    if content is None or not content.parts:
        return None
    texts = [part.text for part in content.parts if part.text]
    return "\n".join(texts) if texts else None


def _set_if_changed(state: Any, key: str, value: object) -> None:
    if state.get(key) != value:
        state[key] = value


def _answers_corpus_choice(text: str, ids: list[str], pending: object) -> bool:
    return (isinstance(pending, dict) and len(ids) == 1 and ids[0] in (pending.get("corpus_ids") or [])
            and len(strip_mentions(text).split()) <= _MAX_CHOICE_WORDS)


def _write_hint(state: Any, text: str, ids: list[str]) -> None:
    pending = state.get(PENDING_INGEST)
    if not ids:  # no corpus in scope: no hint (a stale one from an earlier scope is cleared)
        if state.get(ACTION_INTENT_HINT) is not None:
            state[ACTION_INTENT_HINT] = None
        if pending is not None:
            state[PENDING_INGEST] = None
        return
    hint = classify(text)
    if hint is ActionIntent.INGEST and len(ids) > 1:
        state[PENDING_INGEST] = {"text": ingest_payload(text), "corpus_ids": ids}
    elif hint is not ActionIntent.RETRIEVE and _answers_corpus_choice(text, ids, pending):
        hint = ActionIntent.INGEST
    elif pending is not None:
        state[PENDING_INGEST] = None
    _set_if_changed(state, ACTION_INTENT_HINT, hint.value)


async def _audit_refused_requests(kapp: KnowledgeApp, user_id: str, refused: list[str]) -> None:
    """A forged or stale corpus id (AG-UI forwardedProps, or the session's last scope) leaves an audit row."""
    try:
        person_id = kapp.access.person_for_user(user_id).id
    except UnknownPersonError:
        person_id = user_id  # the local operator names no person
    await kapp.gateway.audit.record_refusal(channel=SCOPE_AUDIT_CHANNEL, person_id=person_id, tool=SCOPE_AUDIT_TOOL,
                                            arguments={"corpus_ids": refused}, reason=SCOPE_AUDIT_REASON)


async def _update_scope(callback_context: CallbackContext, text: str) -> LlmResponse | None:
    state = callback_context.state
    kapp = await knowledge_app()
    corpora = await accessible_corpora(callback_context.user_id, kapp)
    # "@Team Notes", a label of two words, is one mention like "@team_notes"
    text = bracket_labels(text, [alias for c in corpora for alias in (c.name, c.label)])
    mentions = parse_mentions(text)
    ui_ids = list(state.get(UI_CORPUS_IDS) or [])
    # A message with mentions (or a UI selection) sets the scope; a follow-up without keeps the last one.
    requested = ui_ids if (mentions or ui_ids) else list(state.get(CORPUS_IDS) or [])
    resolution = await resolve_scope(kapp, callback_context.user_id, mentions, requested, corpora)
    state[AVAILABLE_CORPORA] = refs_to_state(resolution.available)
    if resolution.refused_requests:
        await _audit_refused_requests(kapp, callback_context.user_id, resolution.refused_requests)
    if resolution.unknown:
        return text_response(resolution.unknown_message())
    ids = [ref.id for ref in resolution.corpora]
    if ids or CORPUS_IDS in state:
        _set_if_changed(state, CORPUS_IDS, ids)
        _set_if_changed(state, CORPUS_SCOPE, refs_to_state(resolution.corpora))
    _write_hint(state, text, ids)
    return None


def attach_session_context(callback_context: CallbackContext, llm_request: LlmRequest) -> None:
    """before_model_callback of every agent: the model sees the current session context."""
    llm_request.append_instructions([SessionContext.from_state(callback_context.state).render()])


async def route_turn(callback_context: CallbackContext, llm_request: LlmRequest) -> LlmResponse | None:
    """Root before_model_callback: corpus scope and intent hint for the new user message."""
    text = user_text(callback_context.user_content)
    if text is not None:
        try:
            if (reply := await _update_scope(callback_context, text)) is not None:
                return reply
        except UnknownPersonError as exc:
            return text_response(f"I can't tell which corpora you may read: {exc}. Ask the workspace owner to add "
                                 f"your user id {callback_context.user_id!r} to a person of the topology.")
        except _DATABASE_ERRORS as exc:
            logger.warning("corpus lookup failed: %s: %s", type(exc).__name__, exc)  # the details stay in the log
            return text_response("The knowledge base is not reachable right now. Please try again later.")
    attach_session_context(callback_context, llm_request)
    return None

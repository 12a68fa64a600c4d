"""AG-UI forwardedProps -> ADK session state (forwardedProps never reach session state by themselves).

``corpus_ids`` (or ``corpusIds``): the corpora the web app's mentions name; the root callback validates them
against the person's permission view every turn. ``strict_scope`` (or ``strictScope``): the composer's toggle;
graph expansion then stays inside the mentioned corpora. A key the run does not send leaves the state as it was,
so a message without mentions keeps the previous corpora. Every string is cleaned (knowledge/pg_text.py) first.
"""
from __future__ import annotations

from typing import Any, cast

from ag_ui.core import RunAgentInput
from fastapi import Request

from knowledge.pg_text import clean_value
from session.state import STRICT_SCOPE, UI_CORPUS_IDS


def _prop(props: dict[str, Any], *names: str) -> tuple[bool, Any]:
    key = next((k for k in names if k in props), None)
    return (False, None) if key is None else (True, props[key])


def _corpus_ids(raw: Any) -> list[str]:
    values = raw if isinstance(raw, list) else [raw]
    return [str(v).strip() for v in values if v is not None and str(v).strip()]


def _flag(raw: Any) -> bool:
    """True only for true / "true" / 1: anything else keeps expansion open, the default."""
    return raw is True or raw == 1 or (isinstance(raw, str) and raw.strip().casefold() == "true")


async def forwarded_state(request: Request, input_data: RunAgentInput) -> dict[str, Any]:
    """The ``extract_state_from_request`` hook of the /agent endpoint."""
    raw_props = input_data.forwarded_props
    props: dict[str, Any] = cast(dict, clean_value(raw_props)) if isinstance(raw_props, dict) else {}
    state: dict[str, Any] = {}
    found, raw = _prop(props, "corpus_ids", "corpusIds")
    if found:
        state[UI_CORPUS_IDS] = _corpus_ids(raw)
    found, raw = _prop(props, "strict_scope", "strictScope")
    if found:
        state[STRICT_SCOPE] = _flag(raw)
    return state

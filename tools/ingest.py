"""Internalization tool: save a note from the chat into one of the conversation's corpora."""
from __future__ import annotations

import functools
import hashlib
import logging
from datetime import datetime, timezone
from typing import Any, Awaitable, Callable
from uuid import UUID

from google.adk.tools import FunctionTool, ToolContext

from knowledge.ingest.documents import Document
from session.access import accessible_corpus_ids_for
from session.runtime import knowledge_app
from session.state import PENDING_INGEST, CorpusRef
from tools.approval import gated_tool
from tools.ingest_buffer import buffer_failed_ingest, buffered_item
from tools.scope import match_corpus, session_corpora

logger = logging.getLogger(__name__)

_TITLE_CHARS = 80
_HINT_LINES = 3  # the approval question quotes this many lines of the note
_HINT_LINE_CHARS = 120


def out_of_scope_error(corpus_id: str, corpora: list[CorpusRef]) -> dict[str, Any]:
    allowed = ", ".join(ref.mention() for ref in corpora) or "none (mention a corpus with @name first)"
    return {"status": "failed",
            "error": f"corpus {corpus_id!r} is out of scope for this conversation (越权): "
                     f"saving is only allowed into the corpora mentioned here: {allowed}"}


def note_document(text: str, tool_context: ToolContext) -> Document:
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    first_line = text.strip().splitlines()[0]
    title = first_line[:_TITLE_CHARS] + ("…" if len(first_line) > _TITLE_CHARS else "")
    return Document(
        # the note's identity: its author and text, so the same note saved again (in any session) is that document
        source_uri=f"note://{tool_context.user_id}/{digest}",
        text=text.strip(),
        title=title,
        metadata={"title": title, "author": tool_context.user_id, "session_id": tool_context.session.id,
                  "captured_at": datetime.now(timezone.utc).isoformat()},
    )


async def ingest_to_corpus(text: str, corpus_id: str, tool_context: ToolContext) -> dict[str, Any]:
    """Save a note the user asked to keep into ONE corpus mentioned in this conversation. A person
    approves the call first. Only corpora in the conversation's scope are allowed.

    Args:
      text: the note to save, verbatim (without the "save this" command or @mentions).
      corpus_id: the id or name of one corpus mentioned in this conversation.

    Returns:
      status "success" with the chunks added, "failed" with an error (out of scope, empty text), or
      "buffered" when saving failed and the note was kept for `negentropy ingest retry-buffer`.
    """
    corpora = session_corpora(tool_context)
    target = match_corpus(corpus_id, corpora)
    if target is None:
        return out_of_scope_error(corpus_id, corpora)
    if not text.strip():
        return {"status": "failed", "error": "there is no text to save"}
    kapp = await knowledge_app()
    document = note_document(text, tool_context)
    try:
        if UUID(target.id) not in await accessible_corpus_ids_for(tool_context.user_id, kapp):
            return out_of_scope_error(corpus_id, corpora)
        found = await kapp.corpora.by_ids([UUID(target.id)])
        if not found:
            return {"status": "failed", "error": f"corpus {target.name} no longer exists"}
        # a knowledge card: promoted at once in the author's own library, else it waits for review
        receipt = await kapp.cards.capture_note(tool_context.user_id, found[0], document)
    except Exception as exc:  # noqa: BLE001 - any failure keeps the note for the retry command
        return await _keep_note(target, document, exc)
    tool_context.state[PENDING_INGEST] = None
    card = receipt.card
    return {"status": "success", "corpus": target.name, "corpus_label": target.label,
            "chunks_added": receipt.chunks_added, "chunks_already_present": receipt.chunks_already_present,
            "source_uri": document.source_uri, "title": document.title, "card_id": card.id,
            "review_status": card.review_status,
            **({} if receipt.promoted else {"note": "saved as a knowledge card in your inbox: only you can "
                                                    "search it until a reviewer of the library promotes it"})}


async def _approval_applies(text: str, corpus_id: str, tool_context: ToolContext) -> bool:
    """Ask a person only for calls that would proceed: in scope and with something to save."""
    return bool(text.strip()) and match_corpus(corpus_id, session_corpora(tool_context)) is not None


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def ingest_question(text: str, corpus_id: str, tool_context: ToolContext) -> str:
    """The approval question in plain words: the target corpus, the note's size and its first lines."""
    target = match_corpus(corpus_id, session_corpora(tool_context))
    where = f"{target.label} (@{target.name})" if target else repr(corpus_id)
    lines = text.strip().splitlines()
    shown = [line if len(line) <= _HINT_LINE_CHARS else line[:_HINT_LINE_CHARS] + "…" for line in lines[:_HINT_LINES]]
    rest = len(lines) - len(shown)
    return "\n".join([f"Save this note to {where}? It has {_plural(len(lines), 'line')}, "
                      f"{_plural(len(text.strip()), 'character')}:",
                      *(f"  | {line}" for line in shown),
                      *([f"  ... and {_plural(rest, 'more line')}"] if rest else [])])


async def _keep_note(target: CorpusRef, document: Document, exc: Exception) -> dict[str, Any]:
    logger.error("ingest into %s failed (%s: %s); buffering the note", target.name, type(exc).__name__, exc)
    kapp = await knowledge_app()
    error = f"{type(exc).__name__}: {exc}"
    receipt = await buffer_failed_ingest(kapp, buffered_item(kapp, UUID(target.id), target.name, document, error))
    return {"status": "buffered", "corpus": target.name, "corpus_label": target.label, "error": error,
            "buffered_in": receipt.describe(), "retry": "negentropy ingest retry-buffer"}


def keep_note_on_failure(call: Callable[..., Awaitable[dict[str, Any]]]) -> Callable[..., Awaitable[dict[str, Any]]]:
    """Outermost layer of the tool: if anything around the ingest fails (the gateway's own bookkeeping with
    the database down, say), an in-scope note still goes to the buffer instead of being lost."""

    @functools.wraps(call)
    async def guarded(text: str, corpus_id: str, tool_context: ToolContext) -> dict[str, Any]:
        try:
            return await call(text=text, corpus_id=corpus_id, tool_context=tool_context)
        except Exception as exc:  # noqa: BLE001 - the note must survive any failure
            target = match_corpus(corpus_id, session_corpora(tool_context))
            if target is None or not text.strip():
                raise
            return await _keep_note(target, note_document(text, tool_context), exc)

    return guarded


def ingest_tool() -> FunctionTool:
    return gated_tool(ingest_to_corpus, _approval_applies, outer=keep_note_on_failure, hint=ingest_question)

"""The model used when NE_MODEL is unset: an ADK BaseLlm that routes, calls tools and answers offline.

It reads what a hosted model reads - the system instruction (with the session context block), the
conversation and the tools on offer - and acts by rule:
* with `transfer_to_agent` (root): ingest hint + corpora -> InternalizationFaculty; small talk without
  corpora -> a short reply; anything else -> PerceptionFaculty;
* with the search tools (Perception): overview words -> search_knowledge_graph_global, questions asking for
  papers -> search_knowledge_graph_with_papers, otherwise search_knowledge_base; after the result, an
  extractive answer that follows the chain of a multi-hop question, with IEEE citations, "(from Corpus: X)",
  the cross-corpus links and the router's knowledge gap (who to ask);
* with `ingest_to_corpus` (Internalization): several corpora -> asks which one; one corpus -> saves the
  note; after the result, says what happened.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, AsyncGenerator

from google.adk.models._capabilities import LlmCapabilities
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from agents.answer import compose_global_answer, compose_papers_answer, compose_search_answer
from agents.faculties import INTERNALIZATION, PERCEPTION
from agents.ingest_payload import ingest_payload
from knowledge.retrieval.query_intent import is_global_summary
from session.mentions import strip_mentions
from session.state import CorpusRef, SessionContext

OFFLINE_MODEL_NAME = "negentropy-offline"
_QUOTED_CONTEXT_PREFIX = "For context:"  # how ADK presents other agents' turns to a model
_QUOTED_ANSWER_RE = re.compile(
    r"^\[[^\]]+\] said:\n<<<BEGIN_QUOTED_AGENT_CONTENT>>>\n(.*)\n<<<END_QUOTED_AGENT_CONTENT>>>$", re.DOTALL)
_SMALL_TALK_RE = re.compile(
    r"(?:hi|hello|hey|yo|hiya|good\s+(?:morning|afternoon|evening)|thanks|thank\s+you|ok|okay|bye"
    r"|你好|您好|嗨|哈喽|早上好|下午好|晚上好|谢谢|再见|在吗)(?:\s+there)?[\s\W_]*",
    re.IGNORECASE,
)
_PAPER_RE = re.compile(r"\b(?:papers?|publications?|articles?|authors?|venues?|published|cited?)\b|论文|文献|作者|发表",
                       re.IGNORECASE)
_PAPER_CORPUS_RE = re.compile(r"paper|research|publication|论文|文献", re.IGNORECASE)
# what a question asks for: "which city", "what method", "where", "when", "哪个城市", "哪里" (a paper lookup only
# when it is papers: "哪些论文")
_ASKED_FOR_RE = re.compile(r"\b(?:which|what)\s+(\w+)|\b(?:where|when)\b|哪(?:个|些|篇|家|座|所|位|一)?"
                           r"([\u4e00-\u9fff]{2})|哪里|哪儿|什么时候|何时", re.IGNORECASE)


def _agent_answer(quoted_parts: list[str]) -> str:
    """The text another agent answered with, from ADK's quoted transcript of its turn."""
    for text in quoted_parts:
        if match := _QUOTED_ANSWER_RE.match(text):
            return match.group(1)
    return ""


@dataclass
class Turn:
    """What the model was given for this call."""

    context: SessionContext
    tools: set[str]
    user_text: str
    responses: list[types.FunctionResponse] = field(default_factory=list)
    calls: dict[str, types.FunctionCall] = field(default_factory=dict)  # by name, latest first wins
    last_model_text: str | None = None

    @classmethod
    def read(cls, request: LlmRequest) -> "Turn":
        instruction = request.config.system_instruction if request.config else None
        if isinstance(instruction, types.Content):
            instruction = "\n".join(p.text for p in instruction.parts or [] if p.text)
        turn = cls(context=SessionContext.parse(str(instruction or "")), tools=set(request.tools_dict),
                   user_text="")
        contents = list(request.contents)
        if contents and contents[-1].role == "user":
            turn.responses = [p.function_response for p in contents[-1].parts or [] if p.function_response]
        for content in reversed(contents):
            texts = [p.text for p in content.parts or [] if p.text]
            quoted = texts[0].startswith(_QUOTED_CONTEXT_PREFIX) if texts else False
            if content.role == "user" and texts and not quoted:
                if not turn.user_text:
                    turn.user_text = "\n".join(texts)
                continue
            if content.role == "model":
                for part in content.parts or []:
                    if part.function_call and part.function_call.name not in turn.calls:
                        turn.calls[part.function_call.name] = part.function_call
                answer = "\n".join(texts)
            else:
                answer = _agent_answer(texts[1:]) if quoted else ""
            if answer and turn.last_model_text is None and turn.user_text:
                turn.last_model_text = answer
        return turn

    @property
    def query(self) -> str:
        return strip_mentions(self.user_text)


Reply = str | types.FunctionCall


def _call(name: str, **args: Any) -> types.FunctionCall:
    return types.FunctionCall(name=name, args=args)


def _scope_args(context: SessionContext) -> dict[str, Any]:
    ids = [ref.id for ref in context.corpora_in_scope]
    return {"corpus_ids": ids} if ids else {}


def _root(turn: Turn) -> Reply:
    context = turn.context
    if context.action_intent_hint == "ingest" and context.corpora_in_scope:
        return _call("transfer_to_agent", agent_name=INTERNALIZATION)
    if not context.corpora_in_scope and _SMALL_TALK_RE.fullmatch(turn.query.strip()):
        known = ", ".join(ref.mention() for ref in context.available_corpora) or "none yet"
        return ("Hello! I answer questions from your knowledge bases with cited sources, and I can save notes "
                f"into one after you approve. Mention corpora with @name. Available: {known}.")
    return _call("transfer_to_agent", agent_name=PERCEPTION)


def _wants_papers(turn: Turn) -> bool:
    if "search_knowledge_graph_with_papers" not in turn.tools or not _PAPER_RE.search(turn.query):
        return False
    asked_for = _ASKED_FOR_RE.search(turn.query)  # "the city of the paper's lead author" is not a paper lookup
    if asked_for is not None and not _PAPER_RE.fullmatch(asked_for.group(1) or asked_for.group(2) or ""):
        return False
    scope = turn.context.corpora_in_scope
    return not scope or any(_PAPER_CORPUS_RE.search(f"{ref.name} {ref.label}") for ref in scope)


def _perception(turn: Turn) -> Reply:
    for response in turn.responses:
        result = dict(response.response or {})
        call = turn.calls.get(response.name or "")
        query = str((call.args or {}).get("query") if call else "") or turn.query
        if response.name == "search_knowledge_graph_with_papers":
            return compose_papers_answer(query, result)
        if response.name == "search_knowledge_graph_global":
            return compose_global_answer(result)
        if response.name == "search_knowledge_base":
            return compose_search_answer(query, result)
    if not turn.query.strip():
        return "What would you like to know? Mention corpora with @name to search them."
    if is_global_summary(turn.query):
        return _call("search_knowledge_graph_global", query=turn.query, **_scope_args(turn.context))
    if _wants_papers(turn):
        return _call("search_knowledge_graph_with_papers", query=turn.query, **_scope_args(turn.context))
    return _call("search_knowledge_base", query=turn.query, **_scope_args(turn.context))


def _ingest_outcome(result: dict[str, Any]) -> str:
    status = result.get("status")
    where = f"{result.get('corpus_label')} (@{result.get('corpus')})"
    if status == "success" and result.get("review_status") in ("inbox", "reviewed"):
        return (f"Saved as knowledge card {result.get('card_id')} for {where}. It waits for review: until a "
                "reviewer of the library promotes it, only you can search it.")
    if status == "success":
        added = int(result.get("chunks_added") or 0)
        if not added:
            return f"That note is already in {where}; nothing new was added."
        return f"Saved to {where}: {added} new chunk{'s' if added != 1 else ''}, marked as captured from this chat."
    if status == "buffered":
        return (f"I couldn't save it to {where} right now ({result.get('error')}). Nothing is lost: the note is "
                f"kept in the {result.get('buffered_in')}; `{result.get('retry')}` will save it.")
    if result.get("error") == "This tool call is rejected.":
        return "Okay, I did not save it."
    return f"Not saved: {result.get('error', 'unknown error')}"


def _which_corpus(corpora: list[CorpusRef]) -> str:
    names = " or ".join(ref.mention() for ref in corpora)
    return f"Which corpus should I save this to: {names}? Reply with one @mention."


def _internalization(turn: Turn) -> Reply:
    for response in turn.responses:
        if response.name == "ingest_to_corpus":
            return _ingest_outcome(dict(response.response or {}))
    corpora = turn.context.corpora_in_scope
    if len(corpora) != 1:
        return _which_corpus(corpora) if corpora else "Which corpus should I save this to? Mention it with @name."
    note = turn.context.pending_ingest or ingest_payload(turn.user_text) or turn.last_model_text
    if not note:
        return f"What should I save to {corpora[0].mention()}?"
    return _call("ingest_to_corpus", text=note, corpus_id=corpora[0].id)


def decide(turn: Turn) -> Reply:
    if "transfer_to_agent" in turn.tools:
        return _root(turn)
    if "ingest_to_corpus" in turn.tools:
        return _internalization(turn)
    return _perception(turn)


def _text_chunks(text: str) -> list[str]:
    return [line + "\n" for line in text.split("\n")[:-1]] + [text.split("\n")[-1]]


class OfflineModel(BaseLlm):
    """Rule-based stand-in for an LLM, so the agent works with no model and no network."""

    model: str = OFFLINE_MODEL_NAME

    @property
    def capabilities(self) -> LlmCapabilities:
        return LlmCapabilities(output_schema_and_tools=False)

    async def generate_content_async(self, llm_request: LlmRequest,
                                     stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
        reply = decide(Turn.read(llm_request))
        if isinstance(reply, types.FunctionCall):
            yield LlmResponse(content=types.Content(role="model", parts=[types.Part(function_call=reply)]))
            return
        if stream:
            for chunk in _text_chunks(reply):
                yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=chunk)]), partial=True)
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=reply)]), partial=False,
                          turn_complete=True)

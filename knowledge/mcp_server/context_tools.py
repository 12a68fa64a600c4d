"""The ``report_gap`` and ``submit_card`` tools: knowledge gaps with the owner to ask, and new knowledge cards."""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from knowledge.context.cards import MAX_CARD_CHARS, CardError, CardStatus, KnowledgeCards
from knowledge.context.router import ContextRouter
from knowledge.db.queries.cards import CardRecord
from knowledge.gateway.errors import ForbiddenLibraryError, InvalidArgumentsError, OversizedRequestError
from knowledge.gateway.gateway import CallScope, GatewayTool


class ReportGapArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, description="The question or task your libraries could not answer.")
    task_kind: str | None = Field(default=None, description="question, writing, code, finance, project... "
                                                            "(default: inferred from the question)")


class SubmitCardArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")

    library: str = Field(min_length=1, description="Id of the library the card is meant for (one you can see).")
    content: str = Field(min_length=1, max_length=MAX_CARD_CHARS, description="The knowledge, as plain text.")
    title: str = Field(default="", max_length=200, description="A short title (default: the first line).")
    sources: list[str] = Field(default_factory=list, max_length=20,
                               description="Where the knowledge comes from (URLs, document ids).")


def report_gap_tool(router: ContextRouter, max_query_chars: int) -> GatewayTool:
    async def report_gap(scope: CallScope, args: ReportGapArguments) -> dict[str, Any]:
        if len(args.question) > max_query_chars:
            raise OversizedRequestError(f"question is {len(args.question)} characters; the limit is "
                                        f"{max_query_chars}")
        decision = await router.route(args.question, scope.view, args.task_kind)
        chosen = [{"id": s.library.id, "name": s.library.name, "owner": s.library.owner, "reason": s.reason}
                  for s in decision.selected]
        result: dict[str, Any] = {"question": args.question, "task_kind": decision.task_kind,
                                  "routed_libraries": chosen, "gap_found": decision.gap is not None}
        if decision.gap is not None:
            result["gap"] = decision.gap.to_dict()
            result["ask"] = {"person_id": decision.gap.owner_id, "name": decision.gap.owner_name}
            return result
        best = decision.selected[0].library
        owner = scope.view.topology.person(best.owner)
        result["gap"] = None
        result["ask"] = {"person_id": best.owner, "name": owner.name if owner else best.owner}
        result["message"] = (f"{best.name} holds evidence for this; search it (library {best.id!r}), or ask its "
                             f"owner if the answer is still missing")
        return result

    return GatewayTool(
        name="report_gap",
        description=("Report a question your libraries could not answer: the Context Router checks the evidence "
                     "in your permission view and names the library owner to ask (only libraries you may be "
                     "told about)."),
        arguments=ReportGapArguments, handler=report_gap)


def card_summary(card: CardRecord) -> dict[str, Any]:
    published = card.review_status == CardStatus.promoted.value
    return {"card_id": card.id, "title": card.title, "review_status": card.review_status,
            "target_library": card.target_library, "author": card.author, "source": card.source,
            "created_at": card.created_at.isoformat(),
            "next": ("published at once: you own the library" if published else
                     "a reviewer of the library reviews it, then promotes or rejects it ('negentropy card "
                     "review'); until then only you can search it")}


def submit_card_tool(cards: KnowledgeCards) -> GatewayTool:
    async def submit_card(scope: CallScope, args: SubmitCardArguments) -> dict[str, Any]:
        [library] = scope.requested_libraries
        try:
            card = await cards.submit(scope.caller.person_id, args.content, library.id, title=args.title,
                                      source="api", metadata={"sources": args.sources,
                                                              "submitted_via": scope.caller.channel})
        except CardError as exc:
            raise InvalidArgumentsError(str(exc)) from exc
        except PermissionError as exc:
            raise ForbiddenLibraryError(str(exc)) from exc
        return {"card": card_summary(card)}

    return GatewayTool(
        name="submit_card",
        description=("Propose new knowledge for a library as a knowledge card. It waits in your inbox (searchable "
                     "only by you) until a reviewer of the library promotes it (a library's owner publishes at "
                     "once). The call itself needs a reviewer's approval first (the answer says how)."),
        arguments=SubmitCardArguments, handler=submit_card, writes=True, libraries_field="library")

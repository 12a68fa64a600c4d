"""The document tools through the gateway (issue 44): a reader lists and shows a library's documents, only the
library's owner deletes them (after a reviewer's approval), other callers are refused, and every call is audited."""
from __future__ import annotations

import pytest

from knowledge.gateway.errors import ApprovalRequiredError, ForbiddenLibraryError, InvalidArgumentsError
from knowledge.ingest.documents import Document
from tests.gateway_support import Acme, acme  # noqa: F401 - fixture

SCRATCH = "acme://apollo_ws/scratch.md"


async def test_owner_deletes_a_document_others_are_refused_all_audited(acme: Acme) -> None:
    gateway = acme.kapp.gateway
    apollo = acme.corpora["apollo_ws"]
    await acme.kapp.ingest_documents(apollo, [Document(SCRATCH, "Scratch note. The Orbitrap sensor is retired.",
                                                       "scratch.md")])
    marker = await acme.audit_marker()
    listed = await gateway.call(acme.tool("document_list"), {"library": "apollo-ws"}, channel="mcp", user_id="ivan")
    assert SCRATCH in {d["source_uri"] for d in listed["items"]}
    shown = await gateway.call(acme.tool("document_show"), {"library": "apollo-ws", "source_uri": SCRATCH},
                               channel="mcp", user_id="ivan")
    assert "Orbitrap" in shown["items"][0]["content"]

    delete = acme.tool("document_delete")
    with pytest.raises(ForbiddenLibraryError, match="does not own library 'eng-docs'"):
        await gateway.call(delete, {"library": "eng-docs", "source_uris": ["acme://eng_docs/gripper-runbook.md"],
                                    "approval_id": await _approved(acme, "ivan", "document_delete", {
                                        "library": "eng-docs",
                                        "source_uris": ["acme://eng_docs/gripper-runbook.md"]})},
                           channel="mcp", user_id="ivan")
    with pytest.raises(ForbiddenLibraryError):  # not in fay's view at all
        await gateway.call(delete, {"library": "apollo-ws", "source_uris": [SCRATCH]}, channel="mcp", user_id="fay")
    args = {"library": "apollo-ws", "source_uris": [SCRATCH]}
    with pytest.raises(ApprovalRequiredError):
        await gateway.call(delete, args, channel="mcp", user_id="ivan")
    done = await gateway.call(delete, {**args, "approval_id": await _approved(acme, "ivan", "document_delete", args)},
                              channel="mcp", user_id="ivan")
    assert done["deleted"] == [SCRATCH] and done["chunks_removed"] == 1
    assert SCRATCH not in {d.source_uri for d in await acme.kapp.documents.list(apollo)}
    with pytest.raises(InvalidArgumentsError, match="confirm must be the corpus's name"):
        confirm = {"library": "apollo-ws", "confirm": "nope"}
        await gateway.call(acme.tool("corpus_delete"), {
            **confirm, "approval_id": await _approved(acme, "ivan", "corpus_delete", confirm)},
            channel="mcp", user_id="ivan")

    rows = await acme.audit_rows_after(marker)
    assert [(r["tool"], r["person_id"], r["decision"], r["reason"]) for r in rows] == [
        ("document_list", "ivan", "allowed", ""), ("document_show", "ivan", "allowed", ""),
        ("document_delete", "ivan", "denied", "forbidden_library"),
        ("document_delete", "fay", "denied", "forbidden_library"),
        ("document_delete", "ivan", "denied", "approval_required"),
        ("document_delete", "ivan", "allowed", ""),
        ("corpus_delete", "ivan", "denied", "invalid_arguments")]


async def _approved(acme: Acme, person: str, tool: str, arguments: dict) -> int:
    """An approval request for exactly this call, approved by the library's reviewer (no audit row)."""
    from knowledge.gateway.limits import arguments_digest

    approvals = acme.kapp.gateway.approvals
    request_id = await approvals.request(person, tool, arguments, arguments_digest(arguments))
    await approvals.decide(request_id, True, "olga")
    return request_id

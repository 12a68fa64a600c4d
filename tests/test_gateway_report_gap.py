"""report_gap: the Context Router's knowledge gap, with the owner to ask, through the gateway."""
from __future__ import annotations

import json

from tests.gateway_support import Acme, acme  # noqa: F401 - fixture


async def test_a_question_for_a_library_outside_the_view_names_its_owner_and_nothing_of_its_content(
        acme: Acme) -> None:
    marker = await acme.audit_marker()
    result = await acme.kapp.gateway.call(acme.tool("report_gap"), {"question": "When does payroll run?"},
                                               channel="adk", user_id="ivan")
    assert result["gap_found"] is True
    assert (result["gap"]["reason"], result["gap"]["library_id"]) == ("no_access", "fin-ledger")
    assert result["ask"] == {"person_id": "fay", "name": "Fay Morgan"}
    assert {lib["id"] for lib in result["routed_libraries"]} <= {"inbox-ivan", "eng-docs", "apollo-ws", "all-hands"}
    assert "1.8 million" not in json.dumps(result) and "Kinetix" not in json.dumps(result)
    [row] = await acme.audit_rows_after(marker)
    assert (row["tool"], row["person_id"], row["decision"]) == ("report_gap", "ivan", "allowed")


async def test_a_question_the_view_covers_points_at_the_library_to_search(acme: Acme) -> None:
    result = await acme.kapp.gateway.call(
        acme.tool("report_gap"), {"question": "How do we recalibrate the Mk4 gripper encoder offset?"},
        channel="adk", user_id="ivan")
    assert result["gap_found"] is False and result["gap"] is None
    best = result["routed_libraries"][0]
    assert best["id"] in {"eng-docs", "apollo-ws"}
    assert result["ask"]["person_id"] == best["owner"]
    assert f"library {best['id']!r}" in result["message"]

"""Knowledge cards on a real database: inbox -> reviewed -> promoted / rejected, and nobody but the author can
search an unpromoted card, through any path and even with a connector that ignores filters."""
from __future__ import annotations

from functools import partial

import pytest
from typer.testing import CliRunner

from config.settings import reset_settings_cache
from knowledge.context.cards import CardError, KnowledgeCards
from knowledge.context.connectors import UnsafeUnfilteredConnector
from knowledge.context.topology import load_topology
from knowledge.ingest.documents import Document
from tests.context_support import demo_topology_data, write_topology

CARD = ("Quartzline renewal rule: every Borealis renewal brief must state the supplier's auto-renewal notice "
        "period, which is 45 days for Quartzline Logistics.")
QUERY = "What is the auto-renewal notice period for Quartzline Logistics?"


async def _corpora(kapp):
    docs = await kapp.corpora.create("project_docs", "Project Docs")
    notes = await kapp.corpora.create("team_notes", "Team Notes")
    await kapp.ingest_documents(docs, [Document("design.md", "Lumen Gateway uses Redis for per-tenant rate limits.")])
    await kapp.ingest_documents(notes, [Document("lunch.md", "Team lunch was a picnic in Görlitzer Park.")])
    return docs, notes


async def _card_rows(kapp, person: str, router=None) -> list:
    """Rows mentioning the card that ``person`` gets: routed, and naming every corpus in the database."""
    router = router or kapp.router
    view = await router.access.resolve(person)
    every = [c.id for c in await kapp.corpora.list()]
    routed = await router.search_view(QUERY, view, None)
    named = await router.search_view(QUERY, view, every)
    return [h for h in [*routed.hits, *named.hits] if "Quartzline" in h.content]


async def test_unpromoted_cards_are_searchable_by_their_author_only(kapp):
    docs, _ = await _corpora(kapp)
    card = await kapp.cards.submit("jonas", CARD, "platform-docs", source="cli")
    assert (card.review_status, card.author, card.target_library) == ("inbox", "jonas", "platform-docs")
    assert card.target_corpus_id == docs.id
    assert await _card_rows(kapp, "jonas")
    unsafe = kapp.router.with_connector(UnsafeUnfilteredConnector(kapp.db, kapp.query_cache))
    for person in ("tomasz", "kenji", "lea", "greta", "sofia"):
        assert await _card_rows(kapp, person) == []
        assert await _card_rows(kapp, person, unsafe) == []
    assert await kapp.cards.submit("jonas", CARD + "\n", "project_docs") == card  # same text, same card


async def test_review_then_promote_makes_it_searchable_for_the_library(kapp):
    docs, _ = await _corpora(kapp)
    card = await kapp.cards.submit("jonas", CARD, "platform-docs", title="Quartzline notice period")
    assert [c.id for c in await kapp.cards.queue("tomasz")] == [card.id]
    assert await kapp.cards.queue("jonas") == []  # authors never review their own cards
    with pytest.raises(PermissionError, match="may not review"):
        await kapp.cards.review(card.id, "jonas")
    with pytest.raises(PermissionError, match="may not review"):
        await kapp.cards.review(card.id, "lea")  # sees the library, but is no reviewer
    with pytest.raises(CardError, match="review it before promoting"):
        await kapp.cards.decide(card.id, "tomasz", "promote")
    reviewed = await kapp.cards.review(card.id, "tomasz", "checked against the contract")
    assert (reviewed.review_status, reviewed.reviewed_by) == ("reviewed", "tomasz")
    promoted = await kapp.cards.decide(card.id, "kenji", "promote", "ok")
    assert (promoted.review_status, promoted.decided_by, promoted.promoted_chunk_count) == ("promoted", "kenji", 1)
    inbox = await kapp.corpora.get("inbox_jonas")
    async with kapp.db.connection() as conn:
        assert await conn.fetchval("SELECT count(*) FROM knowledge WHERE corpus_id = $1", inbox.id) == 0
        meta = await conn.fetchval("SELECT metadata FROM knowledge WHERE corpus_id = $1 AND content LIKE "
                                   "'Quartzline%'", docs.id)
    assert meta["card_id"] == str(card.id) and meta["card_author"] == "jonas" and meta["promoted_by"] == "kenji"
    assert await _card_rows(kapp, "lea")            # platform department: reads the target library
    assert await _card_rows(kapp, "jonas")
    assert await _card_rows(kapp, "greta") == []    # finance cannot read platform-docs
    assert [e["to_status"] for e in await kapp.cards.events(card.id)] == ["inbox", "reviewed", "promoted"]
    with pytest.raises(CardError, match="already promoted"):
        await kapp.cards.decide(card.id, "tomasz", "reject")


async def test_rejected_cards_leave_nothing_searchable(kapp):
    await _corpora(kapp)
    card = await kapp.cards.submit("jonas", CARD, "platform-docs")
    rejected = await kapp.cards.decide(card.id, "tomasz", "reject", "not verified")
    assert (rejected.review_status, rejected.decision_note) == ("rejected", "not verified")
    for person in ("jonas", "tomasz", "lea"):
        assert await _card_rows(kapp, person) == []
    assert [c.review_status for c in await kapp.cards.mine("jonas")] == ["rejected"]


async def test_bad_card_requests_change_nothing(kapp):
    await _corpora(kapp)
    with pytest.raises(PermissionError, match="not a library or corpus in greta's permission view"):
        await kapp.cards.submit("greta", CARD, "platform-docs")
    with pytest.raises(CardError, match="empty"):
        await kapp.cards.submit("jonas", "   ", "platform-docs")
    with pytest.raises(CardError, match="no knowledge card 999"):
        await kapp.cards.review(999, "tomasz")
    card = await kapp.cards.submit("jonas", CARD, "platform-docs")
    with pytest.raises(CardError, match="'promote' or 'reject'"):
        await kapp.cards.decide(card.id, "tomasz", "approve")
    assert (await kapp.cards.get(card.id)).review_status == "inbox"
    assert await kapp.cards.mine("greta") == []


async def test_a_reviewer_who_lost_the_library_cannot_decide(kapp, tmp_path):
    await _corpora(kapp)
    path = write_topology(tmp_path / "t.json", demo_topology_data())
    cards = KnowledgeCards(kapp.db, kapp.corpora, kapp.pipeline, kapp.documents, kapp.query_cache,
                           kapp.access.with_topology(partial(load_topology, path)))
    card = await cards.submit("jonas", CARD, "platform-docs")
    await cards.review(card.id, "kenji")
    data = demo_topology_data()
    next(p for p in data["people"] if p["id"] == "kenji")["department"] = "research"
    write_topology(path, data)
    with pytest.raises(PermissionError, match="kenji cannot see library 'platform-docs'"):
        await cards.decide(card.id, "kenji", "promote")
    assert (await cards.get(card.id)).review_status == "reviewed"


def test_cli_submit_review_decide(kapp, monkeypatch, tmp_path):
    """The card commands as a user runs them (their own app per command)."""
    from cli.main import app

    monkeypatch.setenv("NE_DATABASE_URL", kapp.db.dsn)
    monkeypatch.setenv("NE_DATA_DIR", str(tmp_path))
    reset_settings_cache()
    runner = CliRunner(env={"COLUMNS": "200"})
    try:
        assert runner.invoke(app, ["corpus", "create", "project_docs"]).exit_code == 0
        submitted = runner.invoke(app, ["card", "submit", CARD, "--as", "jonas", "--to", "platform-docs"])
        assert submitted.exit_code == 0, submitted.output
        assert "card 1 for platform-docs: inbox" in submitted.output
        queue = runner.invoke(app, ["card", "review", "--as", "tomasz"])
        assert "Quartzline" in queue.output and "inbox" in queue.output
        assert "reviewed by tomasz" in runner.invoke(app, ["card", "review", "1", "--as", "tomasz"]).output
        denied = runner.invoke(app, ["card", "decide", "1", "promote", "--as", "lea"])
        assert denied.exit_code == 1 and "lea may not review card 1" in denied.output
        decided = runner.invoke(app, ["card", "decide", "1", "promote", "--as", "tomasz"])
        assert decided.exit_code == 0, decided.output
        assert "promoted by tomasz (1 chunks in platform-docs)" in decided.output
        found = runner.invoke(app, ["search", QUERY, "--as", "lea", "--corpus", "project_docs"])
        assert "Quartzline" in found.output
        unknown = runner.invoke(app, ["card", "list", "--as", "mallory"])
        assert unknown.exit_code == 1 and "unknown person 'mallory'" in unknown.output
    finally:
        reset_settings_cache()

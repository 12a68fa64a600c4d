"""The web app's source view over the real server and database: the cited passage for the /agent person with
its sentence highlighted, 404 and an audit row for a chunk they may not read, and the click-through that
`negentropy stats` reports from what answers showed and what was opened."""
from __future__ import annotations

import json
import uuid

from knowledge.ingest.documents import Document
from knowledge.retrieval.click_through import click_through_rows
from server.app import create_app
from tests.agui_support import post_run, running, sse_events

REINDEX = Document(source_uri="reindex.md", title="Reindex log",
                   text="The team met on Monday. The reindex dry run took 4 hours. Nobody complained.")
PRIVATE = Document(source_uri="private.md", title="Li Na's plans", text="Li Na plans a reorganisation.")


async def _workspace(kapp) -> dict[str, str]:
    ids = {}
    for name, label, doc in [("kenji_notes", "Kenji Notes", REINDEX), ("li_na_notes", "Li Na Notes", PRIVATE),
                             ("team_notes", "Team Notes", None)]:
        corpus = await kapp.corpora.create(name, label, f"{label} of the test")
        if doc is not None:
            await kapp.ingest_documents(corpus, [doc])
        ids[name] = str(corpus.id)
    return ids


async def _chunk_of(kapp, corpus_id: str) -> int:
    async with kapp.db.connection() as conn:
        return await conn.fetchval("SELECT min(id) FROM knowledge WHERE corpus_id = $1::uuid", corpus_id)


def _open(chunk_id: int, quote: str = "", evidence: str = "primary", turn: str = "turn-1") -> dict:
    return {"chunkId": chunk_id, "threadId": "thread-1", "turnId": turn, "evidenceType": evidence, "quote": quote}


def _search_result(events: list[dict]) -> dict:
    results = [json.loads(e["content"]) for e in events if e["type"] == "TOOL_CALL_RESULT"]
    return next(r for r in results if "results" in r)


async def test_the_cited_passage_opens_with_its_sentence_corpus_and_document(kapp):
    ids = await _workspace(kapp)
    async with running(create_app(kapp.settings, dsn=kapp.db.dsn, user_id="kenji")) as client:
        # the chunk id the answer's search result carries is the one the source view opens
        body = {"threadId": "thread-1", "runId": str(uuid.uuid4()), "state": {}, "tools": [], "context": [],
                "messages": [{"id": "turn-1", "role": "user", "content": "How long did the reindex dry run take?"}],
                "forwardedProps": {"corpus_ids": [ids["kenji_notes"]]}}
        [hit, *_] = _search_result(sse_events(await post_run(client, json.dumps(body))))["results"]
        assert hit["chunk_id"] == await _chunk_of(kapp, ids["kenji_notes"])
        quote = "The reindex dry run took 4 hours. [1]"
        response = await client.post("/sources/open", json=_open(hit["chunk_id"], quote))
    assert response.status_code == 200
    passage = response.json()
    start, end = passage["highlight"]["start"], passage["highlight"]["end"]
    assert passage["content"][start:end] == "The reindex dry run took 4 hours."
    assert passage["corpus"] == {"id": ids["kenji_notes"], "name": "kenji_notes", "label": "Kenji Notes"}
    assert passage["document"] == {"title": "Reindex log", "sourceUri": "reindex.md"}


async def test_a_chunk_the_person_may_not_read_or_that_is_not_there_gets_404_and_an_audit_row(kapp):
    ids = await _workspace(kapp)
    forbidden = await _chunk_of(kapp, ids["li_na_notes"])
    async with running(create_app(kapp.settings, dsn=kapp.db.dsn, user_id="kenji")) as client:
        refused = await client.post("/sources/open", json=_open(forbidden, "Li Na plans a reorganisation."))
        unknown = await client.post("/sources/open", json=_open(forbidden + 10_000))
        malformed = await client.post("/sources/open", json={**_open(1), "chunkId": "1; DROP TABLE knowledge"})
        shown = await client.post("/sources/shown", json={"threadId": "t", "turnId": "u",
                                                          "items": [{"chunkId": forbidden, "evidenceType": "primary"}]})
    assert refused.status_code == unknown.status_code == 404
    assert "reorganisation" not in refused.text and "Li Na" not in refused.text
    assert refused.json()["error"] == f"There is no passage {forbidden} you may read."
    assert malformed.status_code == 422 and shown.status_code == 204
    audit = await kapp.gateway.audit.recent("kenji")
    assert [(a["channel"], a["tool"], a["decision"], a["reason"]) for a in audit[:2]] == [
        ("web", "source_view", "denied", "unknown_chunk"), ("web", "source_view", "denied", "forbidden_chunk")]
    async with kapp.db.connection() as conn:
        assert await conn.fetchval("SELECT count(*) FROM evidence_view") == 0  # nothing recorded for either


async def test_click_through_of_bridged_against_same_corpus_evidence_per_rollout_path(kapp):
    ids = await _workspace(kapp)
    chunk = await _chunk_of(kapp, ids["kenji_notes"])

    def shown(turn: str, evidence: str) -> dict:
        return {"threadId": "thread-1", "turnId": turn, "items": [{"chunkId": chunk, "evidenceType": evidence}]}

    async with running(create_app(kapp.settings, dsn=kapp.db.dsn, user_id="kenji")) as client:
        for turn in ("a", "b", "c", "d"):
            for _ in range(2):  # a reload shows the same answer again: counted once
                assert (await client.post("/sources/shown", json=shown(turn, "primary"))).status_code == 204
        for turn in ("e", "f", "g", "h", "i"):
            await client.post("/sources/shown", json=shown(turn, "graph_expanded"))
        for turn in ("a", "b", "a"):  # opening one twice is one click
            await client.post("/sources/open", json=_open(chunk, turn=turn))
        await client.post("/sources/open", json=_open(chunk, evidence="graph_expanded", turn="e"))
    rows = dict(await click_through_rows(kapp.db))
    assert rows["bridged evidence opened"] == "20.0% (1/5)"
    assert rows["same-corpus evidence opened"] == "50.0% (2/4)"
    assert rows["cross_corpus_clickthrough (target >= 0.6x same-corpus)"] == "0.40x MISSED"
    # kenji's rollout path under the default flags (every person on the planner)
    assert rows["rollout path planner: cross_corpus_clickthrough (target >= 0.6x same-corpus)"] == "0.40x MISSED"
    assert "rollout path legacy: bridged evidence opened" not in rows


async def test_click_through_without_views_says_n_a(kapp):
    rows = dict(await click_through_rows(kapp.db))
    assert rows == {"bridged evidence opened": "n/a (0 shown)", "same-corpus evidence opened": "n/a (0 shown)",
                    "cross_corpus_clickthrough (target >= 0.6x same-corpus)": "n/a"}


async def test_a_person_the_topology_does_not_know_gets_403(kapp):
    ids = await _workspace(kapp)
    async with running(create_app(kapp.settings, dsn=kapp.db.dsn, user_id="mallory")) as client:
        response = await client.post("/sources/open", json=_open(await _chunk_of(kapp, ids["kenji_notes"])))
    assert response.status_code == 403 and "mallory" in response.json()["detail"]

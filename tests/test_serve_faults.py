"""`negentropy serve` faced with bad input and failures: ids it cannot keep, forged corpus ids, a database that
is down, a --user who is nobody. The real app in process (tests/agui_support.py)."""
from __future__ import annotations

import json

from cli.serve import create_app
from tests.agui_support import USER, helios_corpus, post_run, run_body, running, sse_events

LONG_ID = "t" * 129


BAD_IDS = [
    ("threadId", LONG_ID, "threadId is 129 characters long; at most 128 are allowed"),
    ("runId", LONG_ID, "runId is 129 characters long; at most 128 are allowed"),
    ("parentRunId", LONG_ID, "parentRunId is 129 characters long; at most 128 are allowed"),
    ("threadId", "  ", "threadId is empty: name the conversation thread this run belongs to"),
]


async def test_ids_a_run_cannot_keep_get_422_before_any_stream(kapp):
    corpus_id = await helios_corpus(kapp)
    async with running(create_app(kapp.settings, dsn=kapp.db.dsn, user_id=USER)) as client:
        for field, value, problem in BAD_IDS:
            refused = await post_run(client, json.dumps({**run_body(corpus_id), field: value}))
            assert (refused.status_code, refused.json()) == (422, {"detail": problem})
        state = await client.post("/agents/state", json={"threadId": LONG_ID})  # reading a thread needs no check
        assert state.status_code == 200 and state.json()["threadExists"] is False
        fine = await post_run(client, json.dumps({**run_body(corpus_id), "threadId": "t" * 128}))
        assert fine.status_code == 200 and sse_events(fine)[-1]["type"] == "RUN_FINISHED"

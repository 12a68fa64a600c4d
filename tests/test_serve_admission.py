"""`negentropy serve` under load: runs beyond the concurrency limit wait for a turn, and runs beyond the queue
get 503 with Retry-After before any SSE stream starts (the real app in process: tests/agui_support.py)."""
from __future__ import annotations

import asyncio
import json
from typing import Any, AsyncIterator

from config.settings import ServeSettings
from server.admission import SERVER_BUSY_CODE
from server.app import create_app
from tests.agui_support import USER, helios_corpus, post_run, run_body, running, sse_events
from tests.conftest import make_settings


async def test_twenty_concurrent_runs_all_finish(kapp):
    corpus_id = await helios_corpus(kapp)
    async with running(create_app(kapp.settings, dsn=kapp.db.dsn, user_id=USER)) as client:
        responses = await asyncio.gather(*(post_run(client, json.dumps(run_body(corpus_id))) for _ in range(20)))
    for response in responses:
        assert response.status_code == 200
        types_seen = [e["type"] for e in sse_events(response)]
        errors = [e for e in sse_events(response) if e["type"] == "RUN_ERROR"]
        assert errors == [] and types_seen[-1] == "RUN_FINISHED"


class HeldBody:
    """A request body that arrives only once ``release`` is set, so its run keeps its place in the gate."""

    def __init__(self, body: dict[str, Any], release: asyncio.Event) -> None:
        self.data = json.dumps(body).encode()
        self.release = release

    async def __aiter__(self) -> AsyncIterator[bytes]:
        await self.release.wait()
        yield self.data


async def test_runs_beyond_the_queue_get_503_with_retry_after_before_any_stream(kapp, tmp_path):
    corpus_id = await helios_corpus(kapp)
    limits = ServeSettings(max_concurrent_runs=1, max_queued_runs=1, retry_after_seconds=7)
    app = create_app(make_settings(tmp_path, serve=limits), dsn=kapp.db.dsn, user_id=USER)
    release = asyncio.Event()
    async with running(app) as client:
        held = [asyncio.create_task(post_run(client, HeldBody(run_body(corpus_id), release))) for _ in range(2)]
        while app.state.run_gate.admitted < 2:  # one executing, one queued behind it
            await asyncio.sleep(0.01)
        assert app.state.run_gate.turns.locked()

        refused = await post_run(client, json.dumps(run_body(corpus_id)))
        assert refused.status_code == 503 and refused.headers["retry-after"] == "7"
        assert refused.headers["content-type"] == "application/json"
        assert refused.json()["code"] == SERVER_BUSY_CODE
        assert refused.json()["error"].startswith("The server is busy: 1 runs are executing and 1 more are waiting.")

        release.set()
        for response in await asyncio.gather(*held):  # the executing and the queued run both finish
            assert response.status_code == 200 and sse_events(response)[-1]["type"] == "RUN_FINISHED"
        assert app.state.run_gate.admitted == 0
        again = await post_run(client, json.dumps(run_body(corpus_id)))
        assert again.status_code == 200 and sse_events(again)[-1]["type"] == "RUN_FINISHED"

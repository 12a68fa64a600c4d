"""Tools use a KnowledgeApp created on the event loop they run on (adk run, adk web, uvicorn, pytest)."""
from __future__ import annotations

import asyncio

from config.settings import reset_settings_cache
from session.runtime import close_loop_app, knowledge_app


def test_each_event_loop_opens_its_own_app_from_the_environment(demo_app, monkeypatch, tmp_path):
    kapp, corpora = demo_app
    monkeypatch.setenv("NE_DATABASE_URL", kapp.db.dsn)
    monkeypatch.setenv("NE_DATA_DIR", str(tmp_path))
    reset_settings_cache()

    async def on_a_new_loop() -> tuple[object, set[str]]:
        app = await knowledge_app()
        assert await knowledge_app() is app, "one app per loop"
        names = {c.name for c in await app.corpora.list()}
        await close_loop_app()
        return app, names

    try:
        first, first_names = asyncio.run(on_a_new_loop())
        second, second_names = asyncio.run(on_a_new_loop())
    finally:
        reset_settings_cache()
    assert first is not second
    assert first_names == second_names and set(corpora) <= first_names

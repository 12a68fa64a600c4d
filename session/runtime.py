"""The KnowledgeApp that agent tools use, one per event loop.

An asyncpg pool belongs to the loop that created it, and `adk run`, `adk web`, uvicorn and pytest each
run their own loop. Tools therefore ask for the app of the *running* loop: it is opened lazily on that
loop (from the environment settings) unless a caller bound one with `bind_knowledge_app`.
"""
from __future__ import annotations

import asyncio
import weakref
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

from config import Settings
from knowledge.app import KnowledgeApp

_bound: ContextVar[KnowledgeApp | None] = ContextVar("negentropy_knowledge_app", default=None)
_per_loop: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, KnowledgeApp]" = weakref.WeakKeyDictionary()
_locks: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock]" = weakref.WeakKeyDictionary()


async def open_warm_app(settings: Settings | None = None, *, dsn: str | None = None) -> KnowledgeApp:
    """Open a KnowledgeApp and load the embedding model now, so the first question does not spend the
    planner's time budget on loading it."""
    app = await KnowledgeApp.open(settings, dsn=dsn, progress=False)
    await asyncio.to_thread(app.embedder.embed, ["warm-up"])
    return app


async def knowledge_app() -> KnowledgeApp:
    """The KnowledgeApp for the running loop (bound by the caller, or opened once per loop)."""
    bound = _bound.get()
    if bound is not None:
        return bound
    loop = asyncio.get_running_loop()
    app = _per_loop.get(loop)
    if app is not None:
        return app
    lock = _locks.setdefault(loop, asyncio.Lock())
    async with lock:
        app = _per_loop.get(loop)
        if app is None:
            app = await open_warm_app()
            _per_loop[loop] = app
    return app


def register_loop_app(app: KnowledgeApp) -> None:
    """Make ``app`` the one tools on the running loop use (a server that opened it at start-up)."""
    _per_loop[asyncio.get_running_loop()] = app


async def close_loop_app() -> None:
    """Close and forget the running loop's app, if one was opened or registered."""
    app = _per_loop.pop(asyncio.get_running_loop(), None)
    if app is not None:
        await app.close()


@contextmanager
def bind_knowledge_app(app: KnowledgeApp) -> Iterator[KnowledgeApp]:
    """Within this block (and tasks started from it) tools use ``app``."""
    token = _bound.set(app)
    try:
        yield app
    finally:
        _bound.reset(token)

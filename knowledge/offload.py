"""CPU-bound work (the embedding model, extraction, chunking, Leiden) off the event loop.

Two bounded thread pools: ``interactive`` for what a request waits on (a query embedding, a rerank) and
``bulk`` for ingest work (chunk and entity-name embeddings, extraction, Leiden). An ingest that keeps the bulk
pool busy for minutes never delays a query's embedding, and neither blocks the loop that serves other
requests. The model and torch release the GIL while they compute; pure-Python stages (extraction) still share
it, but the loop gets its turn every switch interval instead of waiting for the whole stage.

``OffloadSettings.on_loop`` runs everything inline on the loop instead: only for measuring the difference
(``python -m bench.mcp_load --compare-on-loop``, tests/test_offload.py).
"""
from __future__ import annotations

import asyncio
import contextvars
import threading
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Callable, ParamSpec, TypeVar

from config.settings import OffloadSettings

P = ParamSpec("P")
T = TypeVar("T")

_lock = threading.Lock()
_settings: OffloadSettings | None = None
_pools: dict[str, ThreadPoolExecutor] = {}


def configure(settings: OffloadSettings) -> None:
    """Use these settings from now on (the composition root calls this; pools are rebuilt on next use)."""
    global _settings
    with _lock:
        if settings == _settings:
            return
        _settings = settings
        old = list(_pools.values())
        _pools.clear()
    for pool in old:
        pool.shutdown(wait=False)


def current() -> OffloadSettings:
    global _settings
    with _lock:
        if _settings is None:
            from config import get_settings

            _settings = get_settings().offload
        return _settings


def _pool(kind: str) -> ThreadPoolExecutor:
    settings = current()
    with _lock:
        pool = _pools.get(kind)
        if pool is None:
            workers = settings.bulk_workers if kind == "bulk" else settings.interactive_workers
            pool = _pools[kind] = ThreadPoolExecutor(max(workers, 1), thread_name_prefix=f"ne-{kind}")
        return pool


async def _run(kind: str, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    if current().on_loop:
        return fn(*args, **kwargs)
    context = contextvars.copy_context()
    return await asyncio.get_running_loop().run_in_executor(_pool(kind), partial(context.run, fn, *args, **kwargs))


async def interactive(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)`` on the interactive pool: CPU work a request is waiting for."""
    return await _run("interactive", fn, *args, **kwargs)


async def bulk(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)`` on the bulk pool: ingest and graph-build CPU work."""
    return await _run("bulk", fn, *args, **kwargs)

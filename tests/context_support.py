"""Shared by the context-library tests: one database with every demo corpus of the demo topology.

Built once per test process (ingesting the eight demo corpora takes about a minute) and then only read:
tests that write (cards) use the fresh ``kapp`` fixture instead. Scope changes are edits of topology
files in a temp folder, never writes to this database.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Awaitable, Callable

from demo.build import build_context_demo
from knowledge.app import KnowledgeApp
from knowledge.context.topology import DEMO_TOPOLOGY_PATH
from tests.conftest import make_settings

_built: dict[str, str] = {}


async def context_demo_dsn(new_database: Callable[[str], Awaitable[str]], embedder, tmp: Path) -> str:
    if "dsn" not in _built:
        dsn = await new_database("ctx")
        app = await KnowledgeApp.open(make_settings(tmp), dsn=dsn, embedder=embedder, progress=False)
        try:
            await build_context_demo(app)
        finally:
            await app.close()
        _built["dsn"] = dsn
    return _built["dsn"]


def demo_topology_data() -> dict:
    return json.loads(DEMO_TOPOLOGY_PATH.read_text(encoding="utf-8"))


def write_topology(path: Path, data: dict) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path

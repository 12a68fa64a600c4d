"""The HNSW index of canonical centroids (migration 019): which rows are in it, and the two ways of adding the rest."""
from __future__ import annotations

from typing import NamedTuple

import asyncpg

# must stay the definition of migration 019 (tests/test_canonical_centroid_index.py compares them)
_CREATE_INDEX = """CREATE INDEX kg_entity_canonical_embedding_hnsw ON kg_entity_canonical
    USING hnsw (primary_embedding vector_cosine_ops) WHERE in_vector_index"""


class CentroidIndexState(NamedTuple):
    indexed: int
    unindexed: int


async def lock_centroid_index(conn: asyncpg.Connection) -> None:
    """Serialise the index steps of every app until the transaction ends."""
    await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended('ne_canonical_centroid_index', 0))")


async def count_centroids_by_index_state(conn: asyncpg.Connection) -> CentroidIndexState:
    """Centroids in the index and outside it, over every app (the index is one for the table)."""
    row = await conn.fetchrow(
        """SELECT count(*) FILTER (WHERE in_vector_index) AS indexed,
                  count(*) FILTER (WHERE NOT in_vector_index) AS unindexed
           FROM kg_entity_canonical WHERE primary_embedding IS NOT NULL""")
    return CentroidIndexState(row["indexed"], row["unindexed"])


async def add_unindexed_centroids(conn: asyncpg.Connection) -> int:
    """Put every row outside the index into it, one index insert per row."""
    status = await conn.execute("UPDATE kg_entity_canonical SET in_vector_index = true WHERE NOT in_vector_index")
    return int(status.split()[-1])


async def rebuild_centroid_index(conn: asyncpg.Connection, lock_timeout: str) -> int:
    """Put every row into the index by building it anew (in the caller's transaction: readers of the table wait
    until it commits; asyncpg.LockNotAvailableError when writers hold the table longer than ``lock_timeout``).
    Returns the rows that were outside it. The build is serial: at the end of an ingest it runs beside the
    communities, and pgvector's two parallel workers (~25% less wall time alone, ~8% more CPU) took both cores
    from them."""
    await conn.execute("SELECT set_config('lock_timeout', $1, true)", lock_timeout)
    await conn.execute("SELECT set_config('max_parallel_maintenance_workers', '0', true)")
    await conn.execute("DROP INDEX kg_entity_canonical_embedding_hnsw")
    added = await add_unindexed_centroids(conn)
    await conn.execute(_CREATE_INDEX)
    return added

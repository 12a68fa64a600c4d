"""When the centroids of new canonicals enter their HNSW index (migration 019).

An index insert costs a row ~1.5-2 ms; building the index costs ~0.3 ms a row, but covers every row of the table
and keeps the table's readers waiting while it runs. So while the centroids outside the index are fewer than those
in it, they are added row by row after each link run, as every insert was before. When they are at least as many
(the first ingest into a database, or one that doubles its canonicals) they wait, compared exactly by the nearest-
canonical search, and the index is rebuilt once the ingest finishes. Each rebuild at least doubles the index, so the
index work stays linear in the rows ever added.
"""
from __future__ import annotations

import logging
from typing import Literal

import asyncpg

from knowledge.db.queries import canonical as q

logger = logging.getLogger(__name__)

# a rebuild waits at most this long for writers of the table (another app's link run) to commit; otherwise the
# centroids stay outside the index until the next link run, still found by the exact search
REBUILD_LOCK_TIMEOUT = "2s"

Step = Literal["none", "row_by_row", "waiting", "rebuilt", "busy"]


async def index_new_centroids(conn: asyncpg.Connection, ingest_finished: bool,
                              lock_timeout: str = REBUILD_LOCK_TIMEOUT) -> Step:
    """Bring the centroids outside the index into it as above (in the caller's transaction)."""
    await q.lock_centroid_index(conn)
    state = await q.count_centroids_by_index_state(conn)
    if state.unindexed == 0:
        return "none"
    if state.unindexed < state.indexed:
        await q.add_unindexed_centroids(conn)
        return "row_by_row"
    if not ingest_finished:
        return "waiting"
    try:
        async with conn.transaction():  # a savepoint: a lock timeout leaves the caller's transaction usable
            added = await q.rebuild_centroid_index(conn, lock_timeout)
    except asyncpg.LockNotAvailableError:
        logger.info("canonical centroid index busy: %d centroids stay outside it until the next link run",
                    state.unindexed)
        return "busy"
    logger.info("canonical centroid index rebuilt: %d centroids added to %d", added, state.indexed)
    return "rebuilt"

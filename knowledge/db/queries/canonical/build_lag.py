"""Canonical build lag (``canonical_build_lag``): seconds from an ingest's chunks landing to their entities being
linked, one row an ingest, read back by `negentropy stats`."""
from __future__ import annotations

import asyncpg


async def insert_build_lag(conn: asyncpg.Connection, app_name: str, lag_seconds: float) -> None:
    await conn.execute("INSERT INTO canonical_build_lag (app_name, lag_seconds) VALUES ($1, $2)",
                       app_name, lag_seconds)


async def select_build_lag_percentiles(conn: asyncpg.Connection, app_name: str,
                                       window: int) -> tuple[int, float | None, float | None]:
    """(ingests, P50, P99) of the canonical build lag over the latest ``window`` ingests of ``app_name``."""
    row = await conn.fetchrow(
        """SELECT count(*) AS n, percentile_cont(0.5) WITHIN GROUP (ORDER BY lag_seconds) AS p50,
                  percentile_cont(0.99) WITHIN GROUP (ORDER BY lag_seconds) AS p99
           FROM (SELECT lag_seconds FROM canonical_build_lag WHERE app_name = $1
                 ORDER BY created_at DESC, id DESC LIMIT $2) recent""",
        app_name, window,
    )
    return row["n"], row["p50"], row["p99"]

"""Read replicas: corpus-scoped read-only transactions on PostgreSQL hot standbys, the primary as fallback.

A background health check reads each standby's replay position and lag; ``read_transaction`` picks the next
usable standby round robin and falls back to the primary when none is usable, when the process's own latest
write has not been replayed there yet (read your writes), or when the standby's connection breaks, even in the
middle of a transaction (the failed statement is run again on the primary: a read-only transaction has nothing
to lose). Nothing is ever promoted: failover of the primary is the operator's or the managed service's job.
"""
from __future__ import annotations

import asyncio
import itertools
import logging
import math
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Awaitable, Callable, Sequence

import asyncpg

from knowledge.db.pool import create_read_pool, redact_dsn

logger = logging.getLogger(__name__)

REPLICA_CONNECT_TIMEOUT_SECONDS = 3.0
HEALTH_QUERY_TIMEOUT_SECONDS = 3.0

Bind = Callable[[asyncpg.Connection], Awaitable[None]]

# The server or the network went away: the standby is out until a health check sees it again.
CONNECTION_LOST = (OSError, asyncio.TimeoutError, asyncpg.PostgresConnectionError, asyncpg.InterfaceError,
                   asyncpg.exceptions.AdminShutdownError, asyncpg.exceptions.CrashShutdownError,
                   asyncpg.exceptions.CannotConnectNowError)
# asyncpg's protocol state after the server vanished mid-operation (only counted when the connection is closed)
PROTOCOL_BROKEN = (asyncpg.exceptions.InternalClientError,)
# A hot-standby query cancelled because replay needed the rows it was reading: the standby itself is fine.
RECOVERY_CONFLICT = (asyncpg.exceptions.SerializationError, asyncpg.exceptions.DeadlockDetectedError)

_PRIMARY_LSN_SQL = "SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint"
_REPLAY_LSN_SQL = "SELECT (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint"
_HEALTH_SQL = """SELECT pg_is_in_recovery() AS in_recovery,
                        (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint AS replay_lsn,
                        extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8 AS replay_age"""


@dataclass
class Replica:
    dsn: str
    pool: asyncpg.Pool
    healthy: bool = False
    in_recovery: bool = False
    replay_lsn: int = 0
    lag_seconds: float = math.inf
    checked_at: float = 0.0
    last_error: str | None = None
    reads: int = 0

    @property
    def name(self) -> str:
        return redact_dsn(self.dsn)

    def mark_lost(self, exc: BaseException) -> None:
        if self.healthy:
            logger.warning("read replica %s is unavailable (%s: %s); reading from the primary",
                           self.name, type(exc).__name__, exc)
        self.healthy = False
        self.last_error = f"{type(exc).__name__}: {exc}"


@dataclass
class ReplicaStats:
    """Counters of where scoped reads ran (tests, `negentropy stats`, benches)."""

    primary_reads: int = 0
    fallbacks: int = 0  # reads that started on a standby and finished on the primary
    read_your_writes: int = 0  # reads sent to the primary because the standbys had not replayed our write
    by_replica: dict[str, int] = field(default_factory=dict)


class ReplicaSet:
    def __init__(self, primary: asyncpg.Pool, replicas: Sequence[Replica], max_lag_seconds: float,
                 check_interval_seconds: float) -> None:
        self.primary = primary
        self.replicas = list(replicas)
        self.max_lag_seconds = max_lag_seconds
        self.check_interval_seconds = check_interval_seconds
        self.write_lsn = 0  # WAL position after this process's latest write transaction
        self.primary_reads = 0
        self.fallbacks = 0
        self.read_your_writes = 0
        self._turn = itertools.count()
        self._checker: asyncio.Task | None = None

    @classmethod
    async def open(cls, primary: asyncpg.Pool, dsns: Sequence[str], *, max_lag_seconds: float,
                   check_interval_seconds: float, max_size: int = 10) -> "ReplicaSet":
        """Pools are lazy, so an unreachable standby does not stop the application from starting."""
        replicas = [Replica(dsn, await create_read_pool(dsn, max_size, REPLICA_CONNECT_TIMEOUT_SECONDS))
                    for dsn in dsns]
        replica_set = cls(primary, replicas, max_lag_seconds, check_interval_seconds)
        await replica_set.check_health()
        replica_set._checker = asyncio.create_task(replica_set._check_forever(), name="replica-health-check")
        return replica_set

    async def close(self) -> None:
        if self._checker is not None:
            self._checker.cancel()
            try:
                await self._checker
            except asyncio.CancelledError:
                pass
            self._checker = None
        await asyncio.gather(*(r.pool.close() for r in self.replicas), return_exceptions=True)

    # -- health ---------------------------------------------------------------------------------------------
    async def _check_forever(self) -> None:
        while True:
            await asyncio.sleep(self.check_interval_seconds)
            try:
                await self.check_health()
            except Exception:  # noqa: BLE001 - the checker must outlive a failing primary
                logger.exception("replica health check failed")

    async def check_health(self) -> None:
        """Refresh every standby's state. The primary's position is read first: WAL written after it does not
        count against a standby that has replayed everything up to it (an idle primary writes nothing, and
        ``now() - pg_last_xact_replay_timestamp()`` would grow without any lag)."""
        try:
            async with self.primary.acquire(timeout=HEALTH_QUERY_TIMEOUT_SECONDS) as conn:
                primary_lsn = await conn.fetchval(_PRIMARY_LSN_SQL, timeout=HEALTH_QUERY_TIMEOUT_SECONDS)
        except (*CONNECTION_LOST, asyncpg.PostgresError) as exc:
            logger.warning("replica health check cannot read the primary's WAL position: %s", exc)
            primary_lsn = None
        await asyncio.gather(*(self._check_one(r, primary_lsn) for r in self.replicas))

    async def _check_one(self, replica: Replica, primary_lsn: int | None) -> None:
        try:
            async with replica.pool.acquire(timeout=REPLICA_CONNECT_TIMEOUT_SECONDS) as conn:
                row = await conn.fetchrow(_HEALTH_SQL, timeout=HEALTH_QUERY_TIMEOUT_SECONDS)
        except (*CONNECTION_LOST, asyncpg.PostgresError) as exc:
            replica.mark_lost(exc)
            replica.checked_at = time.monotonic()
            return
        replica.checked_at = time.monotonic()
        replica.in_recovery = bool(row["in_recovery"])
        if not replica.in_recovery:
            # promoted (or pointed at a primary by mistake): it no longer follows our primary's writes
            if replica.healthy or replica.last_error is None:
                logger.warning("read replica %s is not in recovery; it is not used for reads", replica.name)
            replica.healthy = False
            replica.last_error = "not a hot standby (pg_is_in_recovery() is false)"
            return
        replica.replay_lsn = max(replica.replay_lsn, row["replay_lsn"] or 0)
        if primary_lsn is not None and replica.replay_lsn >= primary_lsn:
            replica.lag_seconds = 0.0
        else:
            age = row["replay_age"]
            replica.lag_seconds = math.inf if age is None else max(float(age), 0.0)
        if not replica.healthy:
            logger.info("read replica %s is available (lag %.2f s)", replica.name, replica.lag_seconds)
        replica.healthy = True
        replica.last_error = None

    def usable(self, replica: Replica) -> bool:
        return replica.healthy and replica.lag_seconds <= self.max_lag_seconds

    # -- writes ---------------------------------------------------------------------------------------------
    async def note_write(self, conn: asyncpg.Connection) -> None:
        """Call on the primary after a committed write: reads go to the primary until a standby replays it."""
        self.write_lsn = max(self.write_lsn, await conn.fetchval(_PRIMARY_LSN_SQL))

    # -- reads ----------------------------------------------------------------------------------------------
    def _candidates(self) -> list[Replica]:
        if not self.replicas:
            return []
        start = next(self._turn) % len(self.replicas)
        ordered = self.replicas[start:] + self.replicas[:start]
        return [r for r in ordered if self.usable(r)]

    async def _open_on_replica(self, bind: Bind) -> tuple[Replica, asyncpg.Connection, Any] | None:
        candidates = self._candidates()
        if not candidates:
            return None
        caught_up = [r for r in candidates if r.replay_lsn >= self.write_lsn]
        replica = (caught_up or candidates)[0]
        try:
            conn = await replica.pool.acquire(timeout=REPLICA_CONNECT_TIMEOUT_SECONDS)
        except CONNECTION_LOST as exc:
            replica.mark_lost(exc)
            return None
        try:
            if replica.replay_lsn < self.write_lsn:
                replica.replay_lsn = max(replica.replay_lsn, await conn.fetchval(_REPLAY_LSN_SQL) or 0)
                if replica.replay_lsn < self.write_lsn:
                    await replica.pool.release(conn)
                    self.read_your_writes += 1
                    return None
            transaction = conn.transaction(readonly=True)
            await transaction.start()
            await bind(conn)
        except (*CONNECTION_LOST, *RECOVERY_CONFLICT, *PROTOCOL_BROKEN) as exc:
            if not isinstance(exc, RECOVERY_CONFLICT):
                replica.mark_lost(exc)
            await _release_quietly(replica.pool, conn, broken=not isinstance(exc, RECOVERY_CONFLICT))
            return None
        except BaseException:  # cancelled (a search's timeout, a snapshot load dropped) or a bug: never keep it
            await _release_quietly(replica.pool, conn)
            raise
        return replica, conn, transaction

    @asynccontextmanager
    async def read_transaction(self, bind: Bind) -> AsyncIterator["ReadConnection"]:
        """A read-only transaction, ``bind`` applied (role, accessible ids), on a standby or the primary."""
        opened = await self._open_on_replica(bind)
        reader = ReadConnection(self, bind)
        if opened is not None:
            replica, conn, transaction = opened
            replica.reads += 1
            reader.attach(conn, transaction, replica)
        else:
            await reader.move_to_primary()
        try:
            yield reader
        except BaseException:
            await reader.finish(commit=False)
            raise
        await reader.finish(commit=True)

    def stats(self) -> ReplicaStats:
        return ReplicaStats(self.primary_reads, self.fallbacks, self.read_your_writes,
                            {r.name: r.reads for r in self.replicas})

    def describe(self) -> list[dict[str, object]]:
        return [{"replica": r.name, "healthy": r.healthy, "in_recovery": r.in_recovery,
                 "lag_seconds": r.lag_seconds, "reads": r.reads, "last_error": r.last_error} for r in self.replicas]


class ReadConnection:
    """What ``Database.scoped`` yields when replicas are configured: the asyncpg calls the read paths use
    (``fetch``, ``fetchrow``, ``fetchval``, ``execute``), moved to the primary if the standby is lost."""

    def __init__(self, replica_set: ReplicaSet, bind: Bind) -> None:
        self._set = replica_set
        self._bind = bind
        self._conn: asyncpg.Connection | None = None
        self._transaction: Any = None
        self.replica: Replica | None = None  # None: on the primary

    def attach(self, conn: asyncpg.Connection, transaction: Any, replica: Replica | None) -> None:
        self._conn, self._transaction, self.replica = conn, transaction, replica

    async def move_to_primary(self) -> None:
        if self.replica is not None and self._conn is not None:
            self._set.fallbacks += 1
            await _release_quietly(self.replica.pool, self._conn, broken=not self.replica.healthy)
        self._set.primary_reads += 1
        conn = await self._set.primary.acquire()
        try:
            transaction = conn.transaction(readonly=True)
            await transaction.start()
            await self._bind(conn)
        except BaseException:
            await _release_quietly(self._set.primary, conn)
            self._conn = None
            raise
        self.attach(conn, transaction, None)

    async def finish(self, *, commit: bool) -> None:
        conn, pool = self._conn, (self.replica.pool if self.replica is not None else self._set.primary)
        if conn is None:
            return
        self._conn = None
        try:
            if commit:
                await self._transaction.commit()
            else:
                await self._transaction.rollback()
        except Exception:
            if self.replica is None:
                raise
            # a read-only transaction on a standby that went away after its last read has nothing to commit
            if _is_closed(conn):
                self.replica.mark_lost(RuntimeError("the standby closed the connection at the end of a read"))
        finally:
            await _release_quietly(pool, conn)

    async def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        if self._conn is None:
            raise asyncpg.InterfaceError("the scoped read transaction is closed")
        if self.replica is None:
            return await getattr(self._conn, method)(*args, **kwargs)
        try:
            return await getattr(self._conn, method)(*args, **kwargs)
        except RECOVERY_CONFLICT as exc:
            logger.info("read on %s cancelled by recovery (%s); retrying on the primary", self.replica.name, exc)
        except (*CONNECTION_LOST, *PROTOCOL_BROKEN) as exc:
            if not _connection_lost(exc, self._conn):
                raise
            self.replica.mark_lost(exc)
        await self.move_to_primary()
        return await getattr(self._conn, method)(*args, **kwargs)

    async def fetch(self, query: str, *args: Any, **kwargs: Any) -> list[asyncpg.Record]:
        return await self._call("fetch", query, *args, **kwargs)

    async def fetchrow(self, query: str, *args: Any, **kwargs: Any) -> asyncpg.Record | None:
        return await self._call("fetchrow", query, *args, **kwargs)

    async def fetchval(self, query: str, *args: Any, **kwargs: Any) -> Any:
        return await self._call("fetchval", query, *args, **kwargs)

    async def execute(self, query: str, *args: Any, **kwargs: Any) -> str:
        return await self._call("execute", query, *args, **kwargs)

    async def executemany(self, command: str, args: Any, **kwargs: Any) -> None:
        return await self._call("executemany", command, args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        if self._conn is None:
            raise AttributeError(name)
        return getattr(self._conn, name)


def _connection_lost(exc: BaseException, conn: asyncpg.Connection) -> bool:
    """An InterfaceError is also raised for misuse (two operations at once): that is a bug, not a lost standby."""
    if isinstance(exc, (asyncpg.InterfaceError, *PROTOCOL_BROKEN)):
        return _is_closed(conn)
    return True


def _is_closed(conn: asyncpg.Connection) -> bool:
    """A pool connection whose server went away is detached from its proxy, which then refuses every call."""
    try:
        return conn.is_closed()
    except asyncpg.InterfaceError:
        return True


async def _release_quietly(pool: asyncpg.Pool, conn: asyncpg.Connection, *, broken: bool = False) -> None:
    """Give a connection back; a broken one is terminated instead (the pool opens a fresh one when needed)."""
    if broken or _is_closed(conn):
        try:
            conn.terminate()
        except asyncpg.InterfaceError:  # already released by the pool after a failed reset
            pass
        return
    try:
        await pool.release(conn, timeout=REPLICA_CONNECT_TIMEOUT_SECONDS)
    except Exception:  # noqa: BLE001 - the pool has terminated a connection it could not reset
        pass

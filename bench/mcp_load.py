"""Bounded loopback load test of `negentropy mcp` over streamable HTTP.

A throwaway database gets the demo corpora and the demo topology; the real server runs as a subprocess
on 127.0.0.1 and a free port; N concurrent MCP SDK clients (default 8), each the API token of a demo
person, send searches (the Context Router picks libraries) and reads of the hits they got, until the
request budget (default 200) or the deadline (default 30 s) runs out; one untimed warm-up search per
person comes first. Prints requests/s, latency
percentiles, the error count (must be 0) and leaked rows: returned rows whose corpus lies outside the
caller's permission view, computed here independently of the server (must be 0). Exits 1 otherwise.

``--writers K`` adds K clients that keep submitting long, entity-dense knowledge cards while the others
search: each card is a full ingest in the server (chunk embeddings, graph extraction, canonical linking), so
the readers' latency shows whether a long request blocks the others. ``--compare-on-loop`` runs the same
load twice, once with the server's CPU work kept on its event loop (``NE_OFFLOAD__ON_LOOP=true``, the
behaviour before knowledge/offload.py) and once offloaded, and prints both rows with their ratio.
"""
from __future__ import annotations

import argparse
import asyncio
import time
from dataclasses import dataclass, field
from uuid import UUID

from rich.markup import escape

from bench.graph_build import encyclopedic_chunks
from bench.harness import bench_data_dir, console, latency_summary, print_table, scratch_app
from bench.mcp_harness import http_server, http_session, server_environment
from demo.build import build_context_demo, load_demo_queries
from knowledge.context.topology import topology_path

# People with different views: platform lead, contractor (one project), finance, Shanghai engineer.
PEOPLE = ("kenji", "wang_hao", "greta", "li_na")
MAX_SECONDS = 30.0


@dataclass
class Budget:
    remaining: int
    deadline: float

    def take(self) -> bool:
        if self.remaining <= 0 or time.perf_counter() >= self.deadline:
            return False
        self.remaining -= 1
        return True


@dataclass
class Tally:
    latencies_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    leaked_rows: int = 0
    rows: int = 0


async def run_client(url: str, token: str, allowed: set[UUID], queries: list[str], offset: int, budget: Budget,
                     tally: Tally) -> None:
    async with http_session(url, token) as session:
        pending_reads: list[str] = []
        turn = offset
        while budget.take():
            if pending_reads and turn % 3 == 2:
                name, arguments = "read", {"id": pending_reads.pop()}
            else:
                name, arguments = "search", {"query": queries[turn % len(queries)], "limit": 5}
            turn += 1
            started = time.perf_counter()
            try:
                result = await session.call_tool(name, arguments)
            except Exception as exc:  # noqa: BLE001 - every failure is counted, the run goes on
                tally.errors.append(f"{name}: {type(exc).__name__}: {exc}")
                continue
            tally.latencies_ms.append((time.perf_counter() - started) * 1000)
            if result.is_error:
                tally.errors.append(f"{name}: {result.content[0].text if result.content else 'error'}")
                continue
            items = result.structured_content.get("items", [])
            tally.rows += len(items)
            tally.leaked_rows += sum(1 for item in items if UUID(item["corpus_id"]) not in allowed)
            if name == "search" and items:
                pending_reads.append(items[0]["read_id"])


@dataclass
class Writes:
    cards: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


async def run_writer(url: str, token: str, query: str, seed: int, stop: asyncio.Event, writes: Writes) -> None:
    """Submit long cards (about 10k characters of new people, places and organisations) until ``stop``."""
    async with http_session(url, token) as session:
        found = await session.call_tool("search", {"query": query, "limit": 1})
        library = (found.structured_content or {}).get("libraries_searched", [None])[0]
        if library is None:
            writes.errors.append("writer: no library to submit to")
            return
        while not stop.is_set():
            seed += 1
            content = "\n\n".join(encyclopedic_chunks(40, seed=seed))
            started = time.perf_counter()
            result = await session.call_tool("submit_card", {"library": library, "content": content,
                                                             "title": f"load bench card {seed}"})
            if result.is_error:
                writes.errors.append(result.content[0].text if result.content else "error")
                return
            writes.cards += 1
            writes.latencies_ms.append((time.perf_counter() - started) * 1000)


@dataclass(frozen=True)
class LoadWorkspace:
    people: list[str]               # one per client, cycling through PEOPLE
    tokens: dict[str, str]          # person -> gateway token
    allowed: dict[str, set[UUID]]   # person -> corpora they may read
    queries: list[str]


async def load_workspace(kapp, clients: int, token_label: str) -> LoadWorkspace:
    """The demo workspace ingested into ``kapp``, with a token and the readable corpora of each client's person."""
    await build_context_demo(kapp)
    gateway = kapp.gateway
    people = [PEOPLE[i % len(PEOPLE)] for i in range(clients)]
    tokens = {p: (await gateway.issue_token(p, token_label)).token for p in dict.fromkeys(people)}
    allowed = {p: set(await kapp.access.accessible_corpus_ids(p)) for p in tokens}
    queries = [item["query"] for item in load_demo_queries()["demo_queries"]]
    return LoadWorkspace(people, tokens, allowed, queries)


async def warm_up(url: str, tokens: dict[str, str], query: str) -> None:
    """One untimed search per person first, so the table shows steady state rather than model loading."""
    for token in tokens.values():
        async with http_session(url, token) as session:
            await session.call_tool("search", {"query": query, "limit": 5})


@dataclass
class Run:
    mode: str
    clients: int
    done: int
    elapsed: float
    tally: Tally
    writes: Writes
    audited: int


async def run_load(kapp, workspace: LoadWorkspace, clients: int, requests: int, seconds: float, writers: int,
                   on_loop: bool, data_dir) -> Run:
    tokens, allowed, queries = workspace.tokens, workspace.allowed, workspace.queries
    async with kapp.db.connection() as conn:
        audit_before = await conn.fetchval("SELECT count(*) FROM gateway_audit")
    # The bench measures throughput, not the per-person limit: the server gets a generous bucket; cards are
    # submitted without the approval step (NE_APPROVAL_POLICY=never) so writers ingest at once.
    env = server_environment(kapp.db.dsn, topology_path(kapp.settings.topology_path), data_dir,
                             NE_GATEWAY__RATE_PER_SECOND="1000", NE_GATEWAY__RATE_BURST="1000",
                             NE_APPROVAL_POLICY="never", NE_OFFLOAD__ON_LOOP="true" if on_loop else "false")
    mode = "on the event loop" if on_loop else "offloaded"
    async with http_server(env, data_dir / f"server-{'loop' if on_loop else 'offload'}.log") as url:
        console.print(f"{mode}: server at {url}; {clients} clients x {requests} requests budget, "
                      f"{writers} card writers, {seconds:.0f} s max")
        await warm_up(url, tokens, queries[0])
        tally, writes, stop = Tally(), Writes(), asyncio.Event()
        writer_tasks = [asyncio.create_task(run_writer(url, tokens[workspace.people[i % len(workspace.people)]],
                                                       queries[0], 1000 * (i + 1) + int(on_loop) * 500, stop,
                                                       writes))
                        for i in range(writers)]
        if writers:
            await asyncio.sleep(2.0)  # the first cards are being ingested when the readers start
        budget = Budget(requests, time.perf_counter() + seconds)
        started = time.perf_counter()
        await asyncio.gather(*(run_client(url, tokens[p], allowed[p], queries, i, budget, tally)
                               for i, p in enumerate(workspace.people)))
        elapsed = time.perf_counter() - started
        stop.set()
        await asyncio.gather(*writer_tasks)
    async with kapp.db.connection() as conn:
        audited = await conn.fetchval("SELECT count(*) FROM gateway_audit") - audit_before
    return Run(mode, clients, len(tally.latencies_ms) + len(tally.errors), elapsed, tally, writes, audited)


async def main(clients: int, requests: int, seconds: float, writers: int = 0, compare_on_loop: bool = False) -> int:
    seconds = min(seconds, MAX_SECONDS)
    async with scratch_app() as kapp:
        console.print("ingesting the demo workspace into a scratch database...")
        workspace = await load_workspace(kapp, clients, "mcp load bench")
        data_dir = bench_data_dir() / "mcp-load"
        data_dir.mkdir(parents=True, exist_ok=True)
        runs = [await run_load(kapp, workspace, clients, requests, seconds, writers, on_loop, data_dir)
                for on_loop in ((True, False) if compare_on_loop else (False,))]
    base = runs[0]
    rows = []
    for run in runs:
        summary = latency_summary(run.tally.latencies_ms)
        rate = run.done / run.elapsed if run.elapsed else 0.0
        base_rate = base.done / base.elapsed if base.elapsed else 0.0
        rows.append([run.mode, run.clients, run.done, run.elapsed, rate, summary["p50"], summary["p95"],
                     summary["p99"], len(run.tally.errors) + len(run.writes.errors), run.tally.rows,
                     run.tally.leaked_rows, run.audited, run.writes.cards,
                     rate / base_rate if base_rate else 0.0,
                     summary["p99"] / latency_summary(base.tally.latencies_ms)["p99"]])
    print_table("MCP load (streamable HTTP, loopback): search / read clients"
                + (f", {writers} card writers ingesting meanwhile" if writers else ""),
                ["CPU work", "clients", "requests", "seconds", "req/s", "p50 ms", "p95 ms", "p99 ms", "errors",
                 "rows", "leaked rows", "audited calls", "cards ingested", "req/s vs first", "p99 vs first"], rows)
    for run in runs:
        for error in (run.tally.errors + run.writes.errors)[:5]:
            console.print(f"  [red]error[/] ({run.mode}) {escape(error)}")
    ok = all(not r.tally.errors and not r.writes.errors and not r.tally.leaked_rows and r.done for r in runs)
    return 0 if ok else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=200, help="total request budget")
    parser.add_argument("--seconds", type=float, default=MAX_SECONDS, help=f"deadline (at most {MAX_SECONDS:.0f})")
    parser.add_argument("--writers", type=int, default=0, help="extra clients submitting long cards meanwhile")
    parser.add_argument("--compare-on-loop", action="store_true",
                        help="run twice: CPU work on the server's event loop, then offloaded")
    args = parser.parse_args()
    raise SystemExit(asyncio.run(main(args.clients, args.requests, args.seconds, args.writers,
                                      args.compare_on_loop)))

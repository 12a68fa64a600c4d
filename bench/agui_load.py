"""Bounded loopback load test of `negentropy serve` (AG-UI over SSE) with the offline model.

A throwaway database gets the demo corpora; the real server runs as a subprocess on 127.0.0.1 and a free port,
acting for one demo person; one untimed warm-up run comes first. Then: one run alone (the baseline), and
``--runs`` runs (default 50) fired at once, each a new thread asking a demo question over the corpora the person
may read. With the default limits (NE_SERVE__MAX_CONCURRENT_RUNS=10, NE_SERVE__MAX_QUEUED_RUNS=40) 50 runs fill
the executing slots and the queue exactly: every run must finish (RUN_FINISHED, no RUN_ERROR, no 503), else the
bench exits 1. Prints runs/s, the latency of a whole run (request to the end of its stream) and of its first event, as
P50/P95/max and as ratios to the baseline, and writes bench/results/agui-load.json.

Run: ``python -m bench.agui_load`` (``--runs N``, ``--seconds S`` bound the load; at most 200 runs, 300 s).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import sys
import time
import uuid
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, AsyncIterator

import httpx
from rich.markup import escape

from bench.harness import bench_data_dir, console, git_commit, latency_summary, print_table, scratch_app, stop_process
from demo.build import build_demo_corpora, load_demo_queries

REPO_ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
PERSON = "sofia"  # a demo person who reads team_notes and project_docs
MAX_RUNS = 200
MAX_SECONDS = 300.0
START_TIMEOUT_SECONDS = 180.0
RESULTS = REPO_ROOT / "bench" / "results" / "agui-load.json"


@dataclass
class Outcome:
    seconds: float = 0.0
    first_event_seconds: float = 0.0
    error: str | None = None  # None: the run finished


@dataclass
class Wave:
    name: str
    outcomes: list[Outcome] = field(default_factory=list)
    elapsed: float = 0.0

    @property
    def finished(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.error is None]

    @property
    def errors(self) -> list[str]:
        return [o.error for o in self.outcomes if o.error is not None]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


@asynccontextmanager
async def serve(dsn: str, data_dir: Path, log: Path) -> AsyncIterator[str]:
    port = free_port()
    url = f"http://{HOST}:{port}"
    env = {**os.environ, "NE_DATABASE_URL": dsn, "NE_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1"}
    env.pop("NE_MODEL", None)  # the offline model: no LLM key, no network
    with log.open("wb") as out:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "cli.main", "serve", "--host", HOST, "--port", str(port), "--user", PERSON,
            cwd=str(REPO_ROOT), env=env, stdin=asyncio.subprocess.DEVNULL, stdout=out, stderr=asyncio.subprocess.STDOUT)
    try:
        await wait_healthy(url, process, log)
        yield url
    finally:
        await stop_process(process, 30)


async def wait_healthy(url: str, process: asyncio.subprocess.Process, log: Path) -> None:
    deadline = time.perf_counter() + START_TIMEOUT_SECONDS
    async with httpx.AsyncClient(timeout=2) as client:
        while time.perf_counter() < deadline:
            if process.returncode is not None:
                raise RuntimeError(f"serve exited early:\n{log.read_text(errors='replace')}")
            try:
                if (await client.get(f"{url}/health")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(1)
    raise RuntimeError(f"serve did not become healthy in {START_TIMEOUT_SECONDS:.0f} s")


def run_body(question: str, corpus_ids: list[str]) -> dict[str, Any]:
    return {"threadId": f"bench-{uuid.uuid4()}", "runId": str(uuid.uuid4()), "state": {}, "tools": [],
            "context": [], "messages": [{"id": str(uuid.uuid4()), "role": "user", "content": question}],
            "forwardedProps": {"corpus_ids": corpus_ids}}


async def one_run(client: httpx.AsyncClient, url: str, body: dict[str, Any]) -> Outcome:
    started = time.perf_counter()
    outcome = Outcome()
    last_type = None
    try:
        async with client.stream("POST", f"{url}/agent", json=body,
                                 headers={"accept": "text/event-stream"}) as response:
            if response.status_code != 200:
                await response.aread()
                outcome.error = f"HTTP {response.status_code}: {response.text[:200]}"
                return outcome
            async for line in response.aiter_lines():
                if not line.startswith("data: "):
                    continue
                event = json.loads(line[6:])
                if not outcome.first_event_seconds:
                    outcome.first_event_seconds = time.perf_counter() - started
                last_type = event["type"]
                if last_type == "RUN_ERROR":
                    outcome.error = f"RUN_ERROR {event.get('code')}: {event.get('message')}"
    except (httpx.HTTPError, json.JSONDecodeError) as exc:
        outcome.error = f"{type(exc).__name__}: {exc}"
    outcome.seconds = time.perf_counter() - started
    if outcome.error is None and last_type != "RUN_FINISHED":
        outcome.error = f"stream ended with {last_type} instead of RUN_FINISHED"
    return outcome


async def wave(name: str, url: str, bodies: list[dict[str, Any]], seconds: float) -> Wave:
    result = Wave(name)
    started = time.perf_counter()
    limits = httpx.Limits(max_connections=len(bodies) + 5)
    async with httpx.AsyncClient(timeout=httpx.Timeout(30.0, read=seconds), limits=limits) as client:
        try:
            result.outcomes = await asyncio.wait_for(
                asyncio.gather(*(one_run(client, url, b) for b in bodies)), seconds)
        except asyncio.TimeoutError:
            result.outcomes = [Outcome(error=f"the wave passed its {seconds:.0f} s deadline")] * len(bodies)
    result.elapsed = time.perf_counter() - started
    return result


def summary(w: Wave) -> dict[str, Any]:
    done = w.finished
    run_ms = [o.seconds * 1000 for o in done]
    return {"runs": len(w.outcomes), "finished": len(done), "errors": len(w.errors),
            "refused_503": sum(1 for e in w.errors if e.startswith("HTTP 503")), "seconds": w.elapsed,
            "runs_per_second": len(done) / w.elapsed if w.elapsed else 0.0,
            "run_ms": {**latency_summary(run_ms), "max": max(run_ms, default=float("nan"))},
            "first_event_ms": latency_summary([o.first_event_seconds * 1000 for o in done])}


async def main(runs: int, seconds: float) -> int:
    runs, seconds = min(runs, MAX_RUNS), min(seconds, MAX_SECONDS)
    data_dir = bench_data_dir() / "agui-load"
    data_dir.mkdir(parents=True, exist_ok=True)
    questions = [q["query"] for q in load_demo_queries()["demo_queries"]]
    async with scratch_app() as kapp:
        console.print("ingesting the demo corpora into a scratch database...")
        await build_demo_corpora(kapp)
        corpus_ids = [str(i) for i in (await kapp.access.resolve_user(PERSON)).accessible_corpus_ids]
        async with serve(kapp.db.dsn, data_dir, data_dir / "serve.log") as url:
            console.print(f"server at {url} for {PERSON}; {runs} concurrent runs, {seconds:.0f} s max")
            await wave("warm-up", url, [run_body(questions[0], corpus_ids)], seconds)
            baseline = await wave("1 run alone (baseline)", url, [run_body(questions[0], corpus_ids)], seconds)
            bodies = [run_body(questions[i % len(questions)], corpus_ids) for i in range(runs)]
            load = await wave(f"{runs} runs at once", url, bodies, seconds)
        limits = kapp.settings.serve
    waves = [baseline, load]
    results = {w.name: summary(w) for w in waves}
    base = results[baseline.name]
    rows = []
    for name, r in results.items():
        rows.append([name, r["runs"], r["finished"], r["errors"], r["refused_503"], r["seconds"], r["runs_per_second"],
                     r["run_ms"]["p50"], r["run_ms"]["p95"], r["run_ms"]["max"],
                     r["first_event_ms"]["p50"], r["first_event_ms"]["p95"],
                     r["run_ms"]["p50"] / base["run_ms"]["p50"], r["run_ms"]["p95"] / base["run_ms"]["p50"]])
    print_table("AG-UI load (`negentropy serve`, loopback, offline model)",
                ["wave", "runs", "finished", "errors", "503s", "seconds", "runs/s", "run p50 ms", "run p95 ms",
                 "run max ms", "first event p50 ms", "first event p95 ms", "p50 vs baseline",
                 "p95 vs baseline p50"], rows)
    for error in load.errors[:5]:
        console.print(f"  [red]error[/] {escape(error)}")
    summary = {"commit": git_commit(), "person": PERSON, "limits": limits.model_dump(), "waves": results}
    RESULTS.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    console.print(f"results: {RESULTS.relative_to(REPO_ROOT)}")
    return 0 if all(not w.errors and w.outcomes for w in waves) else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=50, help=f"concurrent runs (at most {MAX_RUNS})")
    parser.add_argument("--seconds", type=float, default=180.0, help=f"deadline per wave (at most {MAX_SECONDS:.0f})")
    args = parser.parse_args()
    raise SystemExit(asyncio.run(main(args.runs, args.seconds)))

"""Wall time of a whole `negentropy search` process, cold (no serve running: Python, the app's imports, the
embedding model, the database pool, the planner's compiled kernels, every time) against warm (through a running
`negentropy serve`), hyperfine-style: one untimed warm-up, then ``--runs`` timed runs of each, with the floor of
Python's own start and of the search entry's imports measured beside them in the same run.

Every warm run must say "via serve at" and print the same table as the cold runs; a cold run that goes through
serve (one is already running on the data dir) stops the bench. Needs a data dir with the demo corpora
(``negentropy demo``). Run: ``NE_DATA_DIR=DIR python -m bench.cli_latency [--runs 10] [--query Q] [--no-write]``;
writes bench/results/cli-latency.json.
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from bench.harness import git_commit, print_table

REPO_ROOT = Path(__file__).resolve().parents[1]
RESULTS = REPO_ROOT / "bench" / "results" / "cli-latency.json"
HOST = "127.0.0.1"
DEFAULT_QUERY = "Which vector engine does Helios use?"
WARM_TARGET_SECONDS = 1.5  # issue 47, item 4
START_TIMEOUT_SECONDS = 300.0
CLI = [sys.executable, "-m", "cli.main"]


@dataclass
class Timed:
    name: str
    seconds: list[float]
    stdout: str
    stderr: str

    def summary(self) -> dict[str, float]:
        s = self.seconds
        return {"mean": statistics.fmean(s), "stdev": statistics.stdev(s) if len(s) > 1 else 0.0,
                "median": statistics.median(s), "min": min(s), "max": max(s)}


def time_command(name: str, argv: Sequence[str], env: dict[str, str], runs: int) -> Timed:
    """One untimed warm-up (disk caches), then ``runs`` timed runs; each must exit 0."""
    seconds: list[float] = []
    done = None
    for run in range(runs + 1):
        started = time.perf_counter()
        done = subprocess.run(argv, cwd=REPO_ROOT, env=env, capture_output=True, text=True)
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"{name}: exit {done.returncode}\n{done.stderr}")
        if run:
            seconds.append(elapsed)
    assert done is not None
    return Timed(name, seconds, done.stdout, done.stderr)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def start_serve(env: dict[str, str], log: Path) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    url = f"http://{HOST}:{port}"
    with log.open("ab") as out:
        process = subprocess.Popen([*CLI, "serve", "--port", str(port), "--dev-operator"], cwd=REPO_ROOT, env=env,
                                   stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"serve exited early; see {log}")
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2) as response:
                if response.status == 200:
                    return process, url
        except OSError:
            time.sleep(1)
    process.terminate()
    raise SystemExit(f"serve did not become healthy in {START_TIMEOUT_SECONDS:.0f} s; see {log}")


def run(runs: int, query: str, log: Path) -> dict:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "COLUMNS": "120"}
    search = [*CLI, "search", query]
    load_before = os.getloadavg()[0]
    floor = time_command("python -c pass (interpreter start)", [sys.executable, "-c", "pass"], env, runs)
    imports = time_command("import cli.main (the search entry's imports)", [sys.executable, "-c", "import cli.main"],
                           env, runs)
    cold = time_command("search, cold (no serve running)", search, env, runs)
    if "via serve" in cold.stderr:
        raise SystemExit("a serve is already running on this data dir: stop it, the cold runs must be cold")
    process, url = start_serve(env, log)
    try:
        warm = time_command(f"search, warm (via serve at {url})", search, env, runs)
    finally:
        process.terminate()
        process.wait(timeout=120)
    if not warm.stderr.startswith("via serve at") or warm.stdout != cold.stdout:
        raise SystemExit(f"the warm search did not print the cold one's table through serve:\n{warm.stderr}")
    rows = [{"command": t.name, "runs": runs, **t.summary()} for t in (floor, imports, cold, warm)]
    cold_mean, warm_mean = cold.summary()["mean"], warm.summary()["mean"]
    return {"commit": git_commit(), "query": query, "runs": runs, "cpu_count": os.cpu_count(),
            "loadavg_before": round(load_before, 2), "loadavg_after": round(os.getloadavg()[0], 2),
            "rows": rows, "cold_over_warm": cold_mean / warm_mean, "warm_target_seconds": WARM_TARGET_SECONDS,
            "warm_target_met": warm_mean <= WARM_TARGET_SECONDS}


def print_result(result: dict) -> None:
    warm = result["rows"][3]["mean"]
    print_table(f"`negentropy search` wall time, {result['runs']} runs each (commit {result['commit']}, load "
                f"{result['loadavg_before']} -> {result['loadavg_after']}, {result['cpu_count']} CPUs)",
                ["command", "mean ± σ s", "median s", "min s", "max s", "vs warm"],
                [[r["command"], f"{r['mean']:.3f} ± {r['stdev']:.3f}", r["median"], r["min"], r["max"],
                  f"{r['mean'] / warm:.2f}x"] for r in result["rows"]])
    met = "met" if result["warm_target_met"] else "NOT met"
    print(f"cold / warm: {result['cold_over_warm']:.1f}x; warm mean {warm:.3f} s, target <= "
          f"{result['warm_target_seconds']} s: {met}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="timed runs of each command (after one warm-up)")
    parser.add_argument("--query", default=DEFAULT_QUERY)
    parser.add_argument("--no-write", action="store_true", help=f"do not write {RESULTS.relative_to(REPO_ROOT)}")
    args = parser.parse_args(argv)
    if args.runs < 2:
        parser.error("--runs must be at least 2 (a standard deviation needs two)")
    result = run(args.runs, args.query, Path(os.environ.get("TMPDIR", "/tmp")) / "negentropy-cli-latency-serve.log")
    print_result(result)
    if not args.no_write:
        RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

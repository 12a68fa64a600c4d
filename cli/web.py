"""`negentropy web`: the agent's AG-UI server and the built Next.js app (web/) together, for a person.

The browser talks only to the Next app; its route handlers proxy /api/agent (SSE) and /api/corpora to the
Python server (on loopback), which acts for ``--user`` (or, with ``--dev-operator``, the local operator). The web
app has no sign-in: bound beyond loopback, whoever reaches it acts as that person, which start-up warns about. The
app is built on first use (``npm ci``, ``next build``)."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from cli.console import console, err_console, fail
from server.identity import DEV_OPERATOR_USER, ServeIdentity, is_loopback

WEB_DIR = Path(__file__).resolve().parents[1] / "web"
START_TIMEOUT_SECONDS = 300
_POLL_SECONDS = 0.5


def _npm(*args: str) -> None:
    npm = shutil.which("npm")
    if npm is None:
        fail("npm is not installed: install Node.js 20.9 or newer (Debian: apt-get install nodejs npm)")
    console.print(f"[dim]web/: npm {' '.join(args)}[/]")
    if subprocess.run([npm, *args], cwd=WEB_DIR, env={**os.environ, "NEXT_TELEMETRY_DISABLED": "1"}).returncode:
        fail(f"`npm {' '.join(args)}` failed in {WEB_DIR}")


def ensure_built(rebuild: bool) -> None:
    if not (WEB_DIR / "node_modules").is_dir():
        _npm("ci", "--no-audit", "--no-fund")
    if rebuild or not (WEB_DIR / ".next" / "BUILD_ID").is_file():
        _npm("run", "build")


def _wait_until_up(url: str, process: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            fail(f"{what} exited with code {process.returncode} before it was ready (see its log above)")
        try:
            if httpx.get(url, timeout=2).status_code < 500:
                return
        except httpx.TransportError:
            pass
        time.sleep(_POLL_SECONDS)
    fail(f"{what} did not answer at {url} within {START_TIMEOUT_SECONDS} s")


def _stop(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


def run_web(host: str, port: int, agent_port: int, identity: ServeIdentity, rebuild: bool) -> None:
    user = identity.user_id or ""
    if not is_loopback(host):
        err_console.print(f"[bold yellow]warning:[/] the web app has no sign-in: bound to {host}, anyone who "
                          f"reaches it acts as {user!r}")
    ensure_built(rebuild)
    agent_url = f"http://127.0.0.1:{agent_port}"
    who = ["--dev-operator"] if user == DEV_OPERATOR_USER else ["--user", user]
    server = subprocess.Popen([sys.executable, "-m", "cli.main", "serve", "--host", "127.0.0.1",
                               "--port", str(agent_port), *who], cwd=WEB_DIR.parent)
    processes = [server]
    try:
        _wait_until_up(f"{agent_url}/health", server, "the agent server")
        next_bin = WEB_DIR / "node_modules" / ".bin" / "next"
        app = subprocess.Popen([str(next_bin), "start", "--hostname", host, "--port", str(port)], cwd=WEB_DIR,
                               env={**os.environ, "NE_AGENT_URL": agent_url, "NEXT_TELEMETRY_DISABLED": "1"})
        processes.append(app)
        url = f"http://{'localhost' if host in ('127.0.0.1', '0.0.0.0') else host}:{port}"
        _wait_until_up(url, app, "the web app")
        console.print(f"[bold green]Negentropy web app:[/] {url}  [dim](agent for {user!r} at {agent_url}; "
                      "Ctrl-C stops both)[/]")
        signal.signal(signal.SIGTERM, lambda *_: _stop(processes))
        while all(p.poll() is None for p in processes):
            time.sleep(_POLL_SECONDS)
        stopped = next(p for p in processes if p.poll() is not None)
        # a SIGTERM ends the agent server with SystemExit(128 + SIGTERM) (cli.common.exit_on_termination)
        if stopped.returncode not in (0, -signal.SIGTERM, 128 + signal.SIGTERM):
            fail(f"{'the agent server' if stopped is server else 'the web app'} stopped "
                 f"with code {stopped.returncode}")
    except KeyboardInterrupt:
        pass
    finally:
        _stop(processes)

"""The browser suite's servers: one embedded PostgreSQL with the demo corpora (plus Kenji's private notes, a
corpus the test person may not read) and three `negentropy web` instances on it for the person sofia:
default settings, the cross-corpus feature flag off, and a planner stage fault injected. Writes the URLs and
corpus ids to --state-file once every instance answers, then runs until SIGTERM / SIGINT.

With --demo-data-dir (CI, after `negentropy demo`), the database is a copy of the demo's (CREATE DATABASE ...
TEMPLATE) in that data dir's embedded server instead of a fresh ingest, and is dropped at the end.

Run from the repository root: python web/e2e/stack.py --state-file /tmp/stack.json [--demo-data-dir DIR]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT))

import asyncpg  # noqa: E402

from config import Settings  # noqa: E402
from demo.build import DEMO_CORPORA, DEMO_DIR, build_demo_corpora  # noqa: E402
from knowledge.app import KnowledgeApp  # noqa: E402
from knowledge.db.server import start_embedded_server, with_database  # noqa: E402

PERSON = "sofia"
FORBIDDEN_CORPUS = ("kenji_notes", "Kenji's notes", "Kenji Watanabe's private working notes")
VARIANTS = {
    "main": {},
    "legacy": {"NE_KNOWLEDGE_FEATURE_FLAGS__ENABLE_CROSS_CORPUS_KG": "false"},
    "fault": {"NE_PLANNER__FAULT_INJECT_STAGE": "seeds"},
}
START_TIMEOUT_SECONDS = 400


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def copy_database(server_dsn: str, name: str) -> str:
    """A copy of the server's default database (the demo's) called ``name``; its DSN."""
    conn = await asyncpg.connect(server_dsn)
    try:
        source = await conn.fetchval("SELECT current_database()")
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        await conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{source}"')
    finally:
        await conn.close()
    return with_database(server_dsn, name)


async def drop_database(server_dsn: str, name: str) -> None:
    conn = await asyncpg.connect(server_dsn)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


async def prepare_database(dsn: str, data_dir: Path, demo_ingested: bool) -> dict[str, str]:
    kapp = await KnowledgeApp.open(Settings(data_dir=data_dir, database_url=dsn, model=None), dsn=dsn, progress=False)
    try:
        if demo_ingested:
            corpora = {name: await kapp.corpora.get(name) for name in DEMO_CORPORA}
        else:
            corpora = await build_demo_corpora(kapp)
        name, label, description = FORBIDDEN_CORPUS
        private = await kapp.corpora.create(name, label, description)
        await kapp.ingest_path(private, DEMO_DIR / "corpora" / name)
        return {**{n: str(c.id) for n, c in corpora.items()}, name: str(private.id)}
    finally:
        await kapp.close()


def start_variant(name: str, extra_env: dict[str, str], dsn: str, data_dir: Path) -> tuple[subprocess.Popen, str]:
    port, agent_port = free_port(), free_port()
    env = {**os.environ, **extra_env, "NE_DATABASE_URL": dsn, "NE_DATA_DIR": str(data_dir / name),
           "PYTHONPATH": str(REPO_ROOT), "HF_HUB_OFFLINE": "1"}
    env.pop("NE_MODEL", None)
    log = (data_dir / f"{name}.log").open("wb")
    process = subprocess.Popen([sys.executable, "-m", "cli.main", "web", "--port", str(port), "--agent-port",
                                str(agent_port), "--user", PERSON], cwd=REPO_ROOT, env=env, stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True)
    return process, f"http://127.0.0.1:{port}"


def wait_ready(servers: dict[str, tuple[subprocess.Popen, str]]) -> None:
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    pending = dict(servers)
    while pending and time.monotonic() < deadline:
        for name, (process, url) in list(pending.items()):
            if process.poll() is not None:
                raise SystemExit(f"e2e stack: {name} exited with code {process.returncode} before it was ready")
            try:
                if httpx.get(f"{url}/api/corpora", timeout=5).status_code == 200:
                    del pending[name]
            except httpx.TransportError:
                pass
        time.sleep(1)
    if pending:
        raise SystemExit(f"e2e stack: not ready within {START_TIMEOUT_SECONDS} s: {', '.join(pending)}")


def stop(servers: dict[str, tuple[subprocess.Popen, str]]) -> None:
    for process, _ in servers.values():
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
    for process, _ in servers.values():
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


def print_logs(data_dir: Path, lines: int = 40) -> None:
    for log in sorted(data_dir.glob("*.log")):
        tail = log.read_text(errors="replace").splitlines()[-lines:]
        print(f"--- {log.name} (last {len(tail)} lines)", *tail, sep="\n", file=sys.stderr, flush=True)


def serve(args: argparse.Namespace, dsn: str, data_dir: Path, copied: bool) -> None:
    """Prepare the database, start the instances, write the state file and wait for a stop signal."""
    started = time.monotonic()
    corpora = asyncio.run(prepare_database(dsn, data_dir, demo_ingested=copied))
    print(f"e2e stack: demo corpora {'copied' if copied else 'ingested'} in {time.monotonic() - started:.0f} s",
          flush=True)
    started = time.monotonic()
    servers: dict[str, tuple[subprocess.Popen, str]] = {}
    stopping = False

    def on_signal(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        servers.update((name, start_variant(name, env, dsn, data_dir)) for name, env in VARIANTS.items())
        wait_ready(servers)
        args.state_file.write_text(json.dumps({"servers": {n: url for n, (_, url) in servers.items()},
                                               "corpora": corpora, "dsn": dsn, "logs": str(data_dir)}))
        print(f"e2e stack: {len(servers)} servers ready in {time.monotonic() - started:.0f} s", flush=True)
        while not stopping and all(p.poll() is None for p, _ in servers.values()):
            time.sleep(0.5)
        if not stopping:
            print("e2e stack: a server stopped before the suite ended", file=sys.stderr, flush=True)
            print_logs(data_dir)
    except BaseException:
        print_logs(data_dir)
        raise
    finally:
        stop(servers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--state-file", type=Path, required=True)
    parser.add_argument("--demo-data-dir", type=Path, help="NE_DATA_DIR of a finished `negentropy demo` to copy")
    args = parser.parse_args()
    data_dir = Path(tempfile.mkdtemp(prefix="negentropy-e2e-"))
    copy_name = f"negentropy_e2e_{os.getpid()}" if args.demo_data_dir else None
    postgres = None
    try:
        postgres = start_embedded_server((args.demo_data_dir or data_dir) / "postgres")
        dsn = asyncio.run(copy_database(postgres.get_uri(), copy_name)) if copy_name else postgres.get_uri()
        serve(args, dsn, data_dir, copied=copy_name is not None)
    finally:
        if postgres is not None:
            if copy_name:
                asyncio.run(drop_database(postgres.get_uri(), copy_name))
            postgres.cleanup()
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()

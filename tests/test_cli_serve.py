"""`negentropy search` through a running `negentropy serve`: the same table as in-process, the same permission
view (never a corpus the CLI could not read in-process), a fall back to in-process whenever serve cannot
answer for the CLI's person, and none of the heavy imports on the way."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest
import pytest_asyncio
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from cli.discovery import (DISCOVERY_FILE, ServeAddress, ServeNotFound, announced, database_fingerprint, local_url,
                           read_address)
from config.locations import plain_locations
from config.settings import Settings, reset_settings_cache
from knowledge.app import KnowledgeApp
from knowledge.context.search_report import SearchReport
from server.app import create_app
from tests.conftest import REPO_ROOT, make_settings
from tests.context_support import context_demo_dsn

pytestmark = pytest.mark.slow

HOST = "127.0.0.1"
START_TIMEOUT_SECONDS = 240
# what a search must not import before it knows serve answers (they cost seconds: docs/benchmarks/latency.md)
HEAVY_MODULES = ("torch", "sentence_transformers", "numba", "google.adk", "asyncpg", "fastapi", "pydantic_settings",
                 "config.settings", "knowledge.app")
BRIDGE_QUESTION = ("Which researcher created the system that Project Helios depends on for its nearest-neighbour "
                   "lookups?")
SEARCHES = [
    ["Which vector engine does Helios use?"],
    ["Who developed the Aurora Vector Engine?", "--as", "kenji", "-k", "4"],
    [BRIDGE_QUESTION, "-c", "project_docs", "-c", "papers"],
    ["vendor", "--corpus", "project_docs", "--as", "lea"],
]


@pytest_asyncio.fixture(scope="module")
async def ctx_app(new_database, embedder, tmp_path_factory):
    dsn = await context_demo_dsn(new_database, embedder, tmp_path_factory.mktemp("ctx-build"))
    app = await KnowledgeApp.open(make_settings(tmp_path_factory.mktemp("cli-serve")), dsn=dsn, embedder=embedder,
                                  progress=False)
    yield app
    await app.close()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def _healthy(url: str) -> bool:
    import http.client

    connection = http.client.HTTPConnection(HOST, int(url.rsplit(":", 1)[1]), timeout=2)
    try:
        connection.request("GET", "/health")
        return connection.getresponse().status == 200
    except OSError:
        return False
    finally:
        connection.close()


@pytest.fixture(scope="module")
def start_serve(ctx_app, tmp_path_factory) -> Iterator:
    """Start `negentropy serve ARGS` on a free loopback port with its own data dir; returns that data dir."""
    processes: list[tuple[subprocess.Popen, Path]] = []

    def start(*args: str) -> Path:
        data_dir = tmp_path_factory.mktemp("served")
        env = {**os.environ, "NE_DATABASE_URL": ctx_app.db.dsn, "NE_DATA_DIR": str(data_dir)}
        env.pop("NE_MODEL", None)
        log = data_dir / "serve.log"
        port = _free_port()
        with log.open("ab") as out:
            process = subprocess.Popen([sys.executable, "-m", "cli.main", "serve", "--port", str(port), *args],
                                       cwd=REPO_ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        processes.append((process, data_dir))
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            assert process.poll() is None, f"serve exited early:\n{log.read_text()}"
            if (data_dir / DISCOVERY_FILE).exists() and _healthy(f"http://{HOST}:{port}"):
                return data_dir
            time.sleep(1)
        raise AssertionError(f"serve did not become healthy:\n{log.read_text()}")

    yield start
    for process, data_dir in processes:
        process.terminate()
        process.wait(timeout=60)
        assert not (data_dir / DISCOVERY_FILE).exists(), "serve left its discovery file behind"


@pytest.fixture(scope="module")
def operator_serve(start_serve) -> Path:
    return start_serve("--dev-operator")


@pytest.fixture(scope="module")
def lea_serve(start_serve) -> Path:
    return start_serve("--user", "lea")


def _cli(ctx_app, monkeypatch, data_dir: Path, *args: str):
    """`negentropy search ARGS` in this process, with ``data_dir`` as its data dir (serve or not)."""
    from cli.main import app

    monkeypatch.setenv("NE_DATABASE_URL", ctx_app.db.dsn)
    monkeypatch.setenv("NE_DATA_DIR", str(data_dir))
    reset_settings_cache()
    try:
        return CliRunner(env={"COLUMNS": "100"}).invoke(app, ["search", *args])
    finally:
        reset_settings_cache()


def test_a_search_through_serve_prints_the_same_table_as_in_process(ctx_app, operator_serve, monkeypatch,
                                                                    tmp_path):
    outputs = []
    for args in SEARCHES:
        served = _cli(ctx_app, monkeypatch, operator_serve, *args)
        local = _cli(ctx_app, monkeypatch, tmp_path, *args)
        assert served.exit_code == local.exit_code == 0, (served.output, local.output)
        assert served.stderr.startswith(f"via serve at http://{HOST}:"), served.stderr
        assert local.stderr == ""
        assert served.stdout == local.stdout
        outputs.append(served.stdout)
    assert all("[1]" in out for out in outputs)
    assert "cross-corpus links" in outputs[2]


def test_bad_input_through_serve_fails_as_it_does_in_process(ctx_app, operator_serve, monkeypatch, tmp_path):
    for args in (["vendor", "--corpus", "finance_ledger", "--as", "lea"], ["vendor", "--as", "nobody"]):
        served = _cli(ctx_app, monkeypatch, operator_serve, *args)
        local = _cli(ctx_app, monkeypatch, tmp_path, *args)
        assert served.exit_code == local.exit_code == 1
        assert served.stderr.splitlines()[0].startswith("via serve at")
        assert " ".join(served.stderr.split()[4:]) == " ".join(local.stderr.split())
        assert "error:" in local.stderr


def test_a_serve_for_one_person_never_answers_for_another(ctx_app, lea_serve, monkeypatch, tmp_path):
    as_lea = _cli(ctx_app, monkeypatch, lea_serve, "vendor", "--as", "lea")
    assert as_lea.exit_code == 0 and as_lea.stderr.startswith("via serve at") and "(as lea)" in as_lea.stderr
    assert as_lea.stdout == _cli(ctx_app, monkeypatch, tmp_path, "vendor", "--as", "lea").stdout
    # the operator (no --as) and kenji read more than lea: serve refuses, the CLI searches in-process
    for args in (["vendor"], ["vendor", "--as", "kenji"]):
        served = _cli(ctx_app, monkeypatch, lea_serve, *args, "-v")
        assert served.exit_code == 0, served.output
        assert "via serve" not in served.stderr
        assert "in-process: serve at" in served.stderr and "this server searches as lea" in served.stderr
        assert served.stdout == _cli(ctx_app, monkeypatch, tmp_path, *args).stdout


def _search(client: TestClient, body: dict, headers: dict | None = None):
    return client.post("/search", json={"query": "vendor", **body}, headers=headers or {})


async def test_the_search_endpoint_answers_only_for_the_requests_own_person(ctx_app):
    readable = {c.name for c in (await ctx_app.access.resolve("lea")).accessible_corpora}
    with TestClient(create_app(ctx_app.settings, dsn=ctx_app.db.dsn, user_id="lea")) as client:
        for person in (None, "kenji"):
            refused = _search(client, {"person": person})
            assert refused.status_code == 403 and "this server searches as lea" in refused.json()["error"]
        report = SearchReport.from_dict(_search(client, {"person": "lea", "limit": 20}).json())
        assert report.who == "lea" and report.hits
        assert {hit.corpus_name for hit in report.hits} <= readable
        hidden = _search(client, {"person": "lea", "corpora": ["finance_ledger"]})
        assert hidden.status_code == 400 and "finance_ledger" in hidden.json()["error"]

    issued = await ctx_app.gateway.issue_token("lea", "cli")
    with TestClient(create_app(ctx_app.settings, dsn=ctx_app.db.dsn, user_id=None)) as client:
        assert _search(client, {"person": "lea"}).status_code == 401
        token = {"authorization": f"Bearer {issued.token}"}
        assert _search(client, {"person": None}, token).status_code == 403
        report = SearchReport.from_dict(_search(client, {"person": "lea", "limit": 20}, token).json())
        assert report.who == "lea" and {hit.corpus_name for hit in report.hits} <= readable


def test_the_discovery_file_lives_as_long_as_its_serve(tmp_path):
    address = ServeAddress(os.getpid(), local_url("0.0.0.0", 8123), "lea", database_fingerprint("postgresql://x"))
    assert address.url == "http://127.0.0.1:8123" and local_url("::", 8) == "http://[::1]:8"
    with announced(tmp_path, address):
        assert read_address(tmp_path) == address
    assert not (tmp_path / DISCOVERY_FILE).exists()
    with pytest.raises(ServeNotFound, match="no serve is running"):
        read_address(tmp_path)
    (tmp_path / DISCOVERY_FILE).write_text("{not json", encoding="utf-8")
    with pytest.raises(ServeNotFound, match="unreadable"):
        read_address(tmp_path)


def test_a_stale_or_silent_serve_means_an_in_process_search(ctx_app, monkeypatch, tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    local = _cli(ctx_app, monkeypatch, tmp_path, "vendor").stdout
    url, ours = f"http://{HOST}:{_free_port()}", database_fingerprint(ctx_app.db.dsn)
    cases = [(ServeAddress(int(dead.stdout), url, "local", ours), "is not running"),
             (ServeAddress(os.getpid(), url, "local", None), "reads another database"),
             (ServeAddress(os.getpid(), url, None, ours), "takes only bearer tokens"),
             (ServeAddress(os.getpid(), url, "local", ours), "did not answer GET /health")]
    for address, reason in cases:
        with announced(tmp_path, address):
            result = _cli(ctx_app, monkeypatch, tmp_path, "vendor", "-v")
        assert result.exit_code == 0 and reason in result.stderr and result.stdout == local


def test_a_search_through_serve_imports_nothing_heavy(ctx_app, operator_serve):
    code = ("import json, runpy, sys\n"
            "sys.argv = ['negentropy', 'search', 'Which vector engine does Helios use?']\n"
            "try:\n    runpy.run_module('cli.main', run_name='__main__')\nexcept SystemExit:\n    pass\n"
            f"print(json.dumps([m for m in sys.modules if m.startswith({HEAVY_MODULES!r})]))")
    env = {**os.environ, "NE_DATABASE_URL": ctx_app.db.dsn, "NE_DATA_DIR": str(operator_serve)}
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.stderr.startswith("via serve at"), done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == []


def test_the_plain_locations_are_the_settings_or_none(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    for env in ({}, {"NE_DATA_DIR": str(tmp_path / "d")}, {"NE_DATA_DIR": "rel", "NE_DATABASE_URL": "postgresql://h/x"},
                {"NE_DATABASE_URL": ""}):
        for key in ("NE_DATA_DIR", "NE_DATABASE_URL"):
            monkeypatch.delenv(key, raising=False)
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        settings = Settings()
        assert plain_locations() == (settings.data_dir, settings.database_url or None), env
    monkeypatch.setenv("ne_data_dir", str(tmp_path / "lower"))
    assert plain_locations() is None  # Settings ignores the case of a name
    monkeypatch.delenv("ne_data_dir")
    (tmp_path / ".env").write_text("NE_DATA_DIR=/elsewhere\n", encoding="utf-8")
    assert plain_locations() is None

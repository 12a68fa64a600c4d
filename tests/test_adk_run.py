"""`adk run agents/negentropy` and `adk web agents`, started from the repo root, answer with citations."""
from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess

import httpx
import pytest

from tests.conftest import REPO_ROOT

ADK_DEV_USER = "test_user"  # the user id `adk run` gives every session


@pytest.mark.slow
async def test_adk_run_answers_a_piped_question_with_corpus_citations(demo_app, tmp_path):
    kapp, _ = demo_app
    # The tool gateway admits people of the workspace topology only: let the ADK dev user be sofia.
    topology = json.loads((REPO_ROOT / "demo" / "topology.json").read_text(encoding="utf-8"))
    for person in topology["people"]:
        if person["id"] == "sofia":
            person["user_ids"] = [*person.get("user_ids", []), ADK_DEV_USER]
    topology_file = tmp_path / "topology.json"
    topology_file.write_text(json.dumps(topology), encoding="utf-8")
    env = {**os.environ, "NE_DATABASE_URL": kapp.db.dsn, "NE_DATA_DIR": str(tmp_path),
           "NE_TOPOLOGY_PATH": str(topology_file), "HF_HUB_OFFLINE": "1"}
    env.pop("NE_MODEL", None)
    question = "What does Project Helios depend on for nearest-neighbour lookups? @project_docs\nexit\n"

    done = await asyncio.to_thread(
        subprocess.run, [shutil.which("adk") or "adk", "run", "--in_memory", "agents/negentropy"],
        input=question, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600)

    assert done.returncode == 0, done.stderr[-3000:]
    assert "negentropy agent: using the offline extractive model" in done.stderr
    answer = done.stdout.split("[PerceptionFaculty]: ", 1)[1]
    assert answer.startswith("Project Helios depends on the Aurora Vector Engine "
                             "for its nearest-neighbour lookups. [1]")
    assert "References:\n[1] “Project Helios - Retrieval Architecture Note.” (from Corpus: Project Docs)" in answer


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.slow
async def test_adk_web_lists_and_runs_the_agent(demo_app, tmp_path):
    kapp, _ = demo_app
    env = {**os.environ, "NE_DATABASE_URL": kapp.db.dsn, "NE_DATA_DIR": str(tmp_path), "HF_HUB_OFFLINE": "1"}
    env.pop("NE_MODEL", None)
    port = _free_port()
    log = (tmp_path / "adk-web.log").open("wb")
    process = subprocess.Popen([shutil.which("adk") or "adk", "web", "--host", "127.0.0.1", "--port", str(port),
                                "--session_service_uri", "memory://", "agents"],
                               cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(base_url=base, timeout=300) as client:
            for _ in range(240):
                try:
                    if (await client.get("/list-apps")).status_code == 200:
                        break
                except httpx.TransportError:
                    await asyncio.sleep(1)
            assert (await client.get("/list-apps")).json() == ["negentropy"]
            session = (await client.post("/apps/negentropy/users/sofia/sessions", json={})).json()
            events = (await client.post("/run", json={
                "appName": "negentropy", "userId": "sofia", "sessionId": session["id"],
                "newMessage": {"role": "user", "parts": [{"text": "What does Project Helios depend on for "
                                                                  "nearest-neighbour lookups? @project_docs"}]},
            })).json()
    finally:
        process.terminate()
        process.wait(timeout=60)
        log.close()
    texts = [(e["author"], p["text"]) for e in events for p in (e.get("content") or {}).get("parts", [])
             if p.get("text")]
    [(author, answer)] = texts
    assert author == "PerceptionFaculty"
    assert answer.startswith("Project Helios depends on the Aurora Vector Engine for its nearest-neighbour lookups.")
    assert "(from Corpus: Project Docs)" in answer

"""Who `negentropy serve` acts for: an explicit --user (or a warned --dev-operator) on loopback, a gateway token
on every request beyond loopback, and ADK's dev users reading nothing unless NE_ADK_DEV_USERS enables them."""
from __future__ import annotations

import json
import uuid

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from agents.negentropy.agent import build_root_agent
from config.settings import ADK_DEV_USERS
from knowledge.app import KnowledgeApp
from knowledge.context.permissions import UnknownPersonError
from knowledge.context.topology import parse_topology, topology_path
from knowledge.ingest.documents import Document
from server.app import create_app
from server.identity import ServeIdentityError, is_loopback, serve_identity
from session.access import accessible_corpus_ids_for, warn_about_dev_users
from session.runtime import bind_knowledge_app
from tests.agent_harness import start_conversation
from tests.conftest import make_settings

OPERATORS = ["local"]


def _invoke_serve(monkeypatch, *args: str):
    """`negentropy serve ARGS` up to the point where uvicorn would start; returns (result, what uvicorn got)."""
    import cli.serve
    from cli.main import app

    started: dict = {}
    monkeypatch.setattr(cli.serve.uvicorn, "run", lambda asgi, **kw: started.update(app=asgi, **kw))
    return CliRunner().invoke(app, ["serve", *args]), started


def test_serve_without_user_refuses_with_a_clear_message(monkeypatch):
    result, started = _invoke_serve(monkeypatch)
    assert result.exit_code == 1 and started == {}
    message = " ".join(result.output.split())
    assert "who does the server act for? Pass --user PERSON" in message and "--dev-operator" in message


def test_serve_with_the_dev_flag_warns_and_starts(monkeypatch):
    result, started = _invoke_serve(monkeypatch, "--dev-operator", "--port", "8123")
    assert result.exit_code == 0, result.output
    assert "warning: --dev-operator: the server acts as the local operator, who reads every corpus" in (
        " ".join(result.output.split()))
    assert started["host"] == "127.0.0.1" and started["port"] == 8123


def test_serve_for_a_user_who_is_nobody_refuses_at_start_up(monkeypatch):
    result, started = _invoke_serve(monkeypatch, "--user", "nobody")
    assert result.exit_code == 1 and started == {}
    message = " ".join(result.output.split())
    assert "--user 'nobody' is not a person of the workspace topology (people: sofia, tomasz," in message
    assert "negentropy topology view PERSON" in message


def test_a_user_is_checked_against_the_configured_topology(tmp_path):
    topology = json.loads(topology_path().read_text(encoding="utf-8"))
    sofia = next(p for p in topology["people"] if p["id"] == "sofia")
    sofia["user_ids"] = [*sofia.get("user_ids", []), "sofia-web"]
    custom = parse_topology(topology)
    assert serve_identity("127.0.0.1", "sofia-web", False, OPERATORS, custom).user_id == "sofia-web"
    with pytest.raises(ServeIdentityError, match="'sofia-web' is not a person of the workspace topology"):
        serve_identity("127.0.0.1", "sofia-web", False, OPERATORS)  # the shipped topology does not list it
    assert serve_identity("127.0.0.1", "local", False, OPERATORS, custom).user_id == "local"  # the operator


def test_beyond_loopback_every_request_names_its_person_with_a_token():
    assert serve_identity("0.0.0.0", None, False, OPERATORS).needs_tokens
    assert serve_identity("192.168.1.20", None, False, OPERATORS).needs_tokens
    for user, dev in (("sofia", False), (None, True)):
        with pytest.raises(ServeIdentityError, match="beyond loopback"):
            serve_identity("0.0.0.0", user, dev, OPERATORS)
    loopback = serve_identity("127.0.0.1", "sofia", False, OPERATORS)
    assert (loopback.user_id, loopback.warning) == ("sofia", None)
    assert serve_identity("::1", "local", False, OPERATORS).warning  # the operator by name warns too
    assert is_loopback("localhost") and is_loopback("127.0.0.5") and not is_loopback("example.org")


def _sse(client: TestClient, body: dict, headers: dict[str, str]):
    with client.stream("POST", "/agent", json=body, headers={"accept": "text/event-stream", **headers}) as response:
        events = [json.loads(line[6:]) for line in response.iter_lines() if line.startswith("data: ")]
        return response.status_code, events


def _ask(text: str, corpus_id: str) -> dict:
    return {"threadId": str(uuid.uuid4()), "runId": str(uuid.uuid4()), "state": {"negentropy_user_id": "local"},
            "tools": [], "context": [], "messages": [{"id": "m1", "role": "user", "content": text}],
            "forwardedProps": {"corpus_ids": [corpus_id]}}


async def test_a_token_app_refuses_missing_and_forged_tokens_and_reads_only_the_tokens_persons_corpora(kapp):
    ids = {}
    for name in ("team_notes", "kenji_notes", "li_na_notes"):
        ids[name] = str((await kapp.corpora.create(name, name.replace("_", " ").title())).id)
    note = Document(source_uri="k.md", title="Reindex", text="The reindex dry run took 4 hours.")
    await kapp.ingest_documents(await kapp.corpora.get("kenji_notes"), [note])
    issued = await kapp.gateway.issue_token("kenji", "web")
    revoked = await kapp.gateway.issue_token("kenji", "old")
    await kapp.gateway.tokens.revoke(revoked.token_id)
    forged = f"ne_{issued.token_id}_{'x' * 48}"
    identity = serve_identity("0.0.0.0", None, False, OPERATORS)
    with TestClient(create_app(kapp.settings, dsn=kapp.db.dsn, user_id=identity.user_id)) as client:
        assert client.get("/health").status_code == 200  # probes need no token
        for headers in ({}, {"authorization": f"Bearer {forged}"}, {"authorization": f"Bearer {revoked.token}"},
                        {"authorization": issued.token}):
            assert client.get("/corpora", headers=headers).status_code == 401
            status, events = _sse(client, _ask("When did the reindex dry run happen?", ids["kenji_notes"]), headers)
            assert (status, events) == (401, [])
            assert client.post("/agents/state", json={"threadId": "t"}, headers=headers).status_code == 401
            assert client.get("/threads", headers=headers).status_code == 401
            assert client.post("/sources/open", json={"chunkId": 1, "threadId": "t", "turnId": "u",
                                                      "evidenceType": "primary"}, headers=headers).status_code == 401

        good = {"authorization": f"Bearer {issued.token}"}
        listing = client.get("/corpora", headers=good).json()
        assert listing["person"] == "kenji"
        assert {c["name"] for c in listing["corpora"]} == {"team_notes", "kenji_notes"}
        # the token's person, not the "local" the client put into the run's state
        status, events = _sse(client, _ask("When did the reindex dry run happen?", ids["kenji_notes"]), good)
        text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
        assert status == 200 and text.startswith("The reindex dry run took 4 hours. [1]")
        status, events = _sse(client, _ask("What is in Li Na's notes?", ids["li_na_notes"]), good)
        text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
        assert text.startswith(f"I can't find the corpus '{ids['li_na_notes']}', or you don't have access to it.")
        # the web app's routes answer for the token's person too
        threads = client.get("/threads", headers=good).json()["threads"]
        assert [t["title"] for t in threads] == ["What is in Li Na's notes?", "When did the reindex dry run happen?"]


async def test_adk_dev_users_read_nothing_unless_enabled(kapp, embedder, tmp_path, capsys):
    corpus = await kapp.corpora.create("project_docs", "Project Docs")
    await kapp.ingest_documents(corpus, [Document(source_uri="h.md", title="Helios",
                                                  text="Project Helios depends on the Aurora Vector Engine.")])
    for user in ADK_DEV_USERS:
        with pytest.raises(UnknownPersonError):
            await accessible_corpus_ids_for(user, kapp)
    with bind_knowledge_app(kapp):
        turn = await (await start_conversation(build_root_agent(), user_id="test_user")).send(
            "What does Project Helios depend on? @project_docs")
    assert turn.calls("search_knowledge_base") == []
    assert turn.text.startswith("I can't tell which corpora you may read: unknown person 'test_user'")

    enabled = await KnowledgeApp.open(make_settings(tmp_path, adk_dev_users=True), dsn=kapp.db.dsn, embedder=embedder,
                                      progress=False)
    try:
        for user in ADK_DEV_USERS:
            assert await accessible_corpus_ids_for(user, enabled) == [corpus.id]
        warn_about_dev_users(enabled.settings)
        assert "WARNING: NE_ADK_DEV_USERS is on: the ADK dev users 'user' (adk web) and 'test_user' (adk run) read " \
               "every corpus" in capsys.readouterr().err
    finally:
        await enabled.close()

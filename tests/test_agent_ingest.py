"""Approval-gated ingest from the chat, on fresh databases: approve, reject, policies, "which corpus?",
and failures that land in the durable buffer and come back with `negentropy ingest retry-buffer`."""
from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from uuid import UUID

import asyncpg
import numpy as np
import pytest

from agents.negentropy.agent import build_root_agent
from config.settings import ApprovalPolicy
from knowledge.app import KnowledgeApp
from knowledge.embedding import EmbeddingError
from knowledge.ingest.documents import Document
from session.runtime import bind_knowledge_app
from session.state import ACTION_INTENT_HINT, PENDING_INGEST
from tests.agent_harness import CONFIRMATION, start_conversation
from tests.conftest import REPO_ROOT, make_settings
from tools.ingest_buffer import replay_ingest_buffer, spool_dir

NOTE = "The Helios reindex now takes 4 hours after the shard split."


@pytest.fixture
async def notes_app(kapp):
    await kapp.corpora.create("team_notes", "Team Notes")
    await kapp.corpora.create("project_docs", "Project Docs")
    with bind_knowledge_app(kapp):
        yield kapp


async def _captured_rows(kapp: KnowledgeApp, corpus_name: str) -> list[asyncpg.Record]:
    corpus = await kapp.corpora.get(corpus_name)
    async with kapp.db.connection() as conn:
        return await conn.fetch("SELECT content, metadata FROM knowledge WHERE corpus_id = $1 "
                                "AND metadata->>'captured_by' = 'ingest_intent' ORDER BY id", corpus.id)


async def _open_with(kapp: KnowledgeApp, tmp_path: Path, embedder, **overrides) -> KnowledgeApp:
    return await KnowledgeApp.open(make_settings(tmp_path, **overrides), dsn=kapp.db.dsn, embedder=embedder,
                                   progress=False)


async def test_save_this_asks_for_approval_then_stores_a_captured_row(notes_app):
    conversation = await start_conversation(build_root_agent())
    turn = await conversation.send(f"save this to @team_notes: {NOTE}")

    assert turn.state[ACTION_INTENT_HINT] == "ingest"
    assert turn.authors() == ["negentropy", "InternalizationFaculty"]
    [call] = turn.calls("ingest_to_corpus")
    assert call.args == {"text": NOTE, "corpus_id": str((await notes_app.corpora.get("team_notes")).id)}
    assert turn.calls(CONFIRMATION), "ingest_to_corpus is a high-risk tool: approval first"
    assert await _captured_rows(notes_app, "team_notes") == []

    approved = await conversation.answer_confirmation(True)
    [result] = approved.responses("ingest_to_corpus")
    assert result["status"] == "success" and result["chunks_added"] == 1
    assert approved.text == "Saved to Team Notes (@team_notes): 1 new chunk, marked as captured from this chat."
    [row] = await _captured_rows(notes_app, "team_notes")
    assert row["content"] == NOTE
    assert row["metadata"]["session_id"] == conversation.session_id and row["metadata"]["author"] == "sofia"

    recall = await conversation.send("@team_notes how long does the Helios reindex take?")
    assert NOTE in recall.text and "(from Corpus: Team Notes)" in recall.text


async def test_the_approval_question_names_the_corpus_and_quotes_the_note_with_its_size(notes_app):
    lines = ["Helios retro notes", "The reindex now takes 4 hours.", "Shard split is done.", "Next: the cutover."]
    note = "\n".join(lines)
    conversation = await start_conversation(build_root_agent())
    turn = await conversation.send(f"save this to @team_notes: {note}")
    [request] = turn.calls(CONFIRMATION)
    hint = request.args["toolConfirmation"]["hint"]
    assert hint.splitlines() == [
        f"Save this note to Team Notes (@team_notes)? It has 4 lines, {len(note)} characters:",
        "  | Helios retro notes", "  | The reindex now takes 4 hours.", "  | Shard split is done.",
        "  ... and 1 more line"]
    assert "FunctionResponse" not in hint
    approved = await conversation.answer_confirmation(True)
    assert approved.responses("ingest_to_corpus")[0]["status"] == "success"


async def test_bare_save_this_saves_the_previous_answer(notes_app):
    docs = await notes_app.corpora.get("project_docs")
    await notes_app.ingest_documents(docs, [Document(source_uri="helios.md", title="Helios note", text=NOTE)])
    conversation = await start_conversation(build_root_agent())
    answered = await conversation.send("@project_docs how long does the Helios reindex take?")
    assert NOTE in answered.text
    asked = await conversation.send("save this to @team_notes")
    [call] = asked.calls("ingest_to_corpus")
    assert call.args["text"] == answered.text
    await conversation.answer_confirmation(True)
    [row] = await _captured_rows(notes_app, "team_notes")
    assert row["content"].startswith(f"{NOTE} [1]") and "(from Corpus: Project Docs)" in row["content"]


async def test_rejected_approval_saves_nothing(notes_app):
    conversation = await start_conversation(build_root_agent())
    await conversation.send(f"remember that {NOTE} @team_notes")
    rejected = await conversation.answer_confirmation(False)
    assert rejected.responses("ingest_to_corpus") == [{"error": "This tool call is rejected."}]
    assert rejected.text == "Okay, I did not save it."
    assert await _captured_rows(notes_app, "team_notes") == []


async def test_policy_never_saves_without_asking(notes_app, embedder, tmp_path):
    relaxed = await _open_with(notes_app, tmp_path, embedder, approval_policy=ApprovalPolicy.never)
    try:
        with bind_knowledge_app(relaxed):
            conversation = await start_conversation(build_root_agent())
            turn = await conversation.send(f"save this to @team_notes: {NOTE}")
    finally:
        await relaxed.close()
    assert turn.calls(CONFIRMATION) == []
    assert turn.responses("ingest_to_corpus")[0]["status"] == "success"
    assert [r["content"] for r in await _captured_rows(notes_app, "team_notes")] == [NOTE]


async def test_policy_always_asks_even_before_a_search(notes_app, embedder, tmp_path):
    strict = await _open_with(notes_app, tmp_path, embedder, approval_policy=ApprovalPolicy.always)
    try:
        with bind_knowledge_app(strict):
            conversation = await start_conversation(build_root_agent())
            turn = await conversation.send("what happened to the Helios reindex? @team_notes")
            [confirmation] = turn.calls(CONFIRMATION)
            assert confirmation.args["originalFunctionCall"]["name"] == "search_knowledge_base"
            assert turn.responses("search_knowledge_base")[0].get("status") is None  # held back
            searched = await conversation.answer_confirmation(True)
    finally:
        await strict.close()
    assert searched.responses("search_knowledge_base")[0]["status"] == "success"


async def test_which_corpus_question_then_the_choice_saves_the_pending_note(notes_app):
    conversation = await start_conversation(build_root_agent())
    asked = await conversation.send("note this: the Helios retro moved to Friday @team_notes @project_docs")
    assert asked.text.startswith("Which corpus should I save this to: @team_notes (Team Notes) or @project_docs")
    assert asked.calls("ingest_to_corpus") == []

    chosen = await conversation.send("@team_notes")
    assert chosen.state[ACTION_INTENT_HINT] == "ingest"
    [call] = chosen.calls("ingest_to_corpus")
    assert call.args == {"text": "the Helios retro moved to Friday",
                         "corpus_id": str((await notes_app.corpora.get("team_notes")).id)}
    saved = await conversation.answer_confirmation(True)
    assert saved.state[PENDING_INGEST] is None
    assert [r["content"] for r in await _captured_rows(notes_app, "team_notes")] == [
        "the Helios retro moved to Friday"]
    assert await _captured_rows(notes_app, "project_docs") == []


class _BrokenEmbedder:
    def embed(self, texts) -> np.ndarray:
        raise EmbeddingError("embedding model crashed")


async def test_a_failed_ingest_is_buffered_in_the_table_and_replayed(notes_app, tmp_path):
    broken = await KnowledgeApp.open(make_settings(tmp_path), dsn=notes_app.db.dsn, embedder=_BrokenEmbedder(),
                                     progress=False)
    try:
        with bind_knowledge_app(broken):
            conversation = await start_conversation(build_root_agent())
            await conversation.send(f"save this to @team_notes: {NOTE}")
            turn = await conversation.answer_confirmation(True)
        [result] = turn.responses("ingest_to_corpus")
        assert result["status"] == "buffered" and result["buffered_in"].startswith("ingest buffer row ")
        assert "Nothing is lost" in turn.text and "negentropy ingest retry-buffer" in turn.text
        still_broken = await replay_ingest_buffer(broken)
        assert still_broken.replayed == 0 and len(still_broken.failed) == 1 and still_broken.pending_after == 1
    finally:
        await broken.close()

    report = await replay_ingest_buffer(notes_app)
    assert (report.replayed, report.chunks_added, report.failed, report.pending_after) == (1, 1, [], 0)
    [row] = await _captured_rows(notes_app, "team_notes")
    assert row["content"] == NOTE
    assert (await replay_ingest_buffer(notes_app)).replayed == 0, "a replayed note is not replayed again"


async def _set_connections_allowed(admin_dsn: str, database: str, allowed: bool) -> None:
    conn = await asyncpg.connect(admin_dsn)
    try:
        await conn.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS {str(allowed).lower()}')
        if not allowed:
            await conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                               "WHERE datname = $1 AND pid <> pg_backend_pid()", database)
    finally:
        await conn.close()


@pytest.mark.slow
async def test_database_down_spools_the_note_and_the_retry_command_saves_it(notes_app, pg_dsn):
    database = notes_app.db.dsn.split("?")[0].rsplit("/", 1)[1]
    conversation = await start_conversation(build_root_agent())
    await conversation.send(f"save this to @team_notes: {NOTE}")
    await _set_connections_allowed(pg_dsn, database, False)
    try:
        turn = await conversation.answer_confirmation(True)
    finally:
        await _set_connections_allowed(pg_dsn, database, True)
    [result] = turn.responses("ingest_to_corpus")
    assert result["status"] == "buffered" and result["buffered_in"].startswith("spool file ")
    spooled = list(spool_dir(notes_app.settings).glob("*.jsonl"))
    assert len(spooled) == 1 and NOTE in spooled[0].read_text(encoding="utf-8")

    env = {**os.environ, "NE_DATABASE_URL": notes_app.db.dsn, "NE_DATA_DIR": str(notes_app.settings.data_dir)}
    env.pop("NE_MODEL", None)
    done = await asyncio.to_thread(subprocess.run, [sys.executable, "-m", "cli.main", "ingest", "retry-buffer"],
                                   cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "moved 1 spooled notes into the buffer; replayed 1 notes (1 new chunks); 0 still pending" in " ".join(
        done.stdout.split())
    assert list(spool_dir(notes_app.settings).glob("*.jsonl")) == []
    conn = await asyncpg.connect(notes_app.db.dsn)
    try:
        corpus_id = UUID(str(turn.state["corpus_ids"][0]))
        rows = await conn.fetch("SELECT content FROM knowledge WHERE corpus_id = $1 "
                                "AND metadata->>'captured_by' = 'ingest_intent'", corpus_id)
    finally:
        await conn.close()
    assert [r["content"] for r in rows] == [NOTE]


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cli.main", *args], cwd=REPO_ROOT, env=env, capture_output=True,
                          text=True, timeout=300)


async def test_ingest_path_and_retry_buffer_live_side_by_side(kapp, tmp_path):
    note = tmp_path / "retro.md"
    note.write_text("# Retro\n\nThe Helios retro moved to Friday.\n", encoding="utf-8")
    env = {**os.environ, "NE_DATABASE_URL": kapp.db.dsn, "NE_DATA_DIR": str(tmp_path), "COLUMNS": "200"}
    first = await asyncio.to_thread(_cli, env, "ingest", str(note), "--corpus", "team_notes")
    again = await asyncio.to_thread(_cli, env, "ingest", "--corpus", "team_notes", str(note))
    retry = await asyncio.to_thread(_cli, env, "ingest", "retry-buffer")
    assert first.returncode == 0 and "1 added, 0 already present" in first.stdout, first.stderr
    assert again.returncode == 0 and "0 added, 1 already present" in again.stdout, again.stderr
    assert retry.returncode == 0 and "replayed 0 notes (0 new chunks); 0 still pending" in retry.stdout

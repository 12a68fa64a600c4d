"""The retrieval login and the proof that binds a transaction's accessible corpus ids (migration 009).

Retrieval connects as ``negentropy_app`` (no superuser, no BYPASSRLS, a member of ``negentropy_reader``), never as
the owner, so neither ``RESET ROLE`` nor ``SET ROLE`` leads back to unrestricted rows. The ids a transaction may
read are bound with ``ne_bind_accessible_corpus_ids(ids, proof)``; the proof is keyed with a secret only the
owner can read, which the application reads once over its owner connection.
"""
from __future__ import annotations

import hashlib
import re
from typing import Iterable
from uuid import UUID

import asyncpg

from knowledge.db.server import DatabaseUnavailableError

RETRIEVAL_LOGIN = "negentropy_app"
READER_ROLE = "negentropy_reader"  # the NOLOGIN role holding the SELECT grants and row-level security policies
BIND_SQL = "SELECT ne_bind_accessible_corpus_ids($1::text::uuid[], $2)"


def corpus_ids_text(corpus_ids: Iterable[object]) -> str:
    """PostgreSQL's text form of the uuid[] (what the proof is computed over)."""
    return "{" + ",".join(str(UUID(str(i))) for i in corpus_ids) + "}"


def begin_bound_sql(ids_text: str, proof: str) -> str:
    """BEGIN READ ONLY and the binding as one simple query, one round trip instead of two. The values go into the
    text, so they must have exactly the shapes corpus_ids_text and binding_proof give them."""
    if not re.fullmatch(r"\{[0-9a-f,-]*\}", ids_text) or not re.fullmatch(r"[0-9a-f]{64}", proof):
        raise ValueError("not a corpus id list and binding proof")
    return f"BEGIN READ ONLY; SELECT ne_bind_accessible_corpus_ids('{ids_text}'::text::uuid[], '{proof}')"


def binding_proof(key: str, backend_pid: int, ids_text: str) -> str:
    """The same value as the SQL function ne_binding_proof(ids, backend_pid)."""
    inner = hashlib.sha256(f"{key}:{backend_pid}:{ids_text}".encode()).hexdigest()
    return hashlib.sha256(f"{key}{inner}".encode()).hexdigest()


async def read_binding_key(owner: asyncpg.Connection) -> str:
    key = await owner.fetchval("SELECT secret FROM ne_binding_key")
    if key is None:
        raise DatabaseUnavailableError("the database has no binding key; run the migrations (as the owner)")
    return key


async def set_retrieval_password(owner: asyncpg.Connection, password: str) -> None:
    statement = await owner.fetchval("SELECT format('ALTER ROLE %I PASSWORD %L', $1::text, $2::text)",
                                     RETRIEVAL_LOGIN, password)
    await owner.execute(statement)


async def check_retrieval_login(conn: asyncpg.Connection) -> None:
    """Refuse to serve reads over a login that row-level security would not bind."""
    row = await conn.fetchrow("SELECT current_user AS name, rolsuper, rolbypassrls FROM pg_roles "
                              "WHERE rolname = current_user")
    if row is None or row["rolsuper"] or row["rolbypassrls"]:
        raise DatabaseUnavailableError(
            f"the retrieval login {row['name'] if row else '?'} is a superuser or bypasses row-level security; "
            f"retrieval must log in as {RETRIEVAL_LOGIN} (see README, Configuration)")

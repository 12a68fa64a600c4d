"""Row-level security is a boundary, not a convention: SQL sessions opened by hand as the retrieval login and as
another login granted the reader role try RESET ROLE, SET ROLE, SET SESSION AUTHORIZATION, writing the ids
setting directly, calling the setter with forged or replayed proofs, and direct table and function reads. Not one
row of the forbidden corpus comes back."""
from __future__ import annotations

import itertools
import re
import os
import uuid
from typing import AsyncIterator

import asyncpg
import pytest
import pytest_asyncio

from knowledge.db.retrieval_role import (BIND_SQL, READER_ROLE, RETRIEVAL_LOGIN, begin_bound_sql, binding_proof,
                                         corpus_ids_text, read_binding_key)
from knowledge.db.server import with_user
from knowledge.ingest.documents import documents_from_texts

ALLOWED = ["Kestrel Labs moved its Lumen Gateway team to Porto in March.",
           "The Atlas project picked Cobalt Systems as its labeling vendor."]
FORBIDDEN = ["Project Nightingale is a secret acquisition of Tidepool Analytics by Kestrel Labs.",
             "Tidepool Analytics stores salary data for Project Nightingale in Krakow."]
CORPUS_TABLES = ["knowledge", "kg_entity", "kg_relation", "kg_entity_mention", "kg_extracted_chunk",
                 "kg_entity_alias", "kg_community", "kg_community_member"]
_analysts = itertools.count()


@pytest_asyncio.fixture
async def two_corpora(kapp):
    allowed = await kapp.corpora.create("rls_allowed")
    forbidden = await kapp.corpora.create("rls_forbidden")
    await kapp.ingest_documents(allowed, documents_from_texts((f"a{i}", t) for i, t in enumerate(ALLOWED)))
    await kapp.ingest_documents(forbidden, documents_from_texts((f"f{i}", t) for i, t in enumerate(FORBIDDEN)))
    return kapp, allowed.id, forbidden.id


@pytest_asyncio.fixture
async def analyst(kapp) -> AsyncIterator[str]:
    """A login role someone granted the reader role, as the issue describes (any such role must stay bound)."""
    name = f"analyst_{os.getpid()}_{next(_analysts)}"
    async with kapp.db.connection() as owner:
        await owner.execute(f"CREATE ROLE {name} LOGIN")
        await owner.execute(f"GRANT {READER_ROLE} TO {name}")
    try:
        yield name
    finally:
        async with kapp.db.connection() as owner:
            await owner.execute(f"DROP OWNED BY {name}")
            await owner.execute(f"DROP ROLE {name}")


async def forbidden_rows(conn: asyncpg.Connection, forbidden, embedding) -> int:
    """Rows of the forbidden corpus visible to this session, through every table and retrieval function."""
    total = await conn.fetchval("SELECT count(*) FROM corpus WHERE id = $1", forbidden)
    for table in CORPUS_TABLES:
        total += await conn.fetchval(f"SELECT count(*) FROM {table} WHERE corpus_id = $1", forbidden)
    for function in ("kb_hybrid_search", "kb_rrf_search"):
        total += await conn.fetchval(f"SELECT count(*) FROM {function}($1, 'Nightingale Tidepool', $2::uuid[], 10)",
                                     embedding, [forbidden])
    # each corpus's nearest chunks: the caller's own rights, so the policy applies
    total += await conn.fetchval("SELECT count(*) FROM ne_corpus_nearest($1, $2, 10)", embedding, forbidden)
    return total


async def refused(conn: asyncpg.Connection, statement: str, *args) -> bool:
    try:
        await conn.execute(statement, *args)
    except asyncpg.PostgresError:
        return True
    return False


async def attack(conn: asyncpg.Connection, owner_name: str, key: str, forbidden, embedding) -> list[int]:
    """Everything a session of a non-owner role can try on its own; returns the forbidden rows seen after each."""
    ids = corpus_ids_text([forbidden])
    seen = [await forbidden_rows(conn, forbidden, embedding)]
    await conn.execute("RESET ROLE")
    assert await conn.fetchval("SELECT current_user") != owner_name
    seen.append(await forbidden_rows(conn, forbidden, embedding))
    assert await refused(conn, f'SET ROLE "{owner_name}"')
    assert await refused(conn, f'SET SESSION AUTHORIZATION "{owner_name}"')
    assert await refused(conn, "SET ROLE postgres") or owner_name == "postgres"
    await conn.execute(f"SET ROLE {READER_ROLE}")
    seen.append(await forbidden_rows(conn, forbidden, embedding))
    await conn.execute("RESET ROLE")
    await conn.execute("SELECT set_config('negentropy.accessible_corpus_ids', $1, false)", ids)
    seen.append(await forbidden_rows(conn, forbidden, embedding))
    await conn.execute("SELECT set_config('negentropy.accessible_corpus_proof', $1, false)", "0" * 64)
    seen.append(await forbidden_rows(conn, forbidden, embedding))
    assert await refused(conn, BIND_SQL, ids, "0" * 64)  # a forged proof
    other_backend = binding_proof(key, conn.get_server_pid() + 1, ids)  # a real proof, replayed from elsewhere
    assert await refused(conn, BIND_SQL, ids, other_backend)
    await conn.execute("SELECT set_config('negentropy.accessible_corpus_proof', $1, false)", other_backend)
    seen.append(await forbidden_rows(conn, forbidden, embedding))
    assert await refused(conn, "SELECT ne_binding_proof($1, pg_backend_pid())", ids)
    assert await refused(conn, "SELECT secret FROM ne_binding_key")
    # the owner's helpers take corpus ids as given, so only the owner's search functions may call them
    assert await refused(conn, "SELECT * FROM ne_keyword_hits('Nightingale', $1::uuid[], 10)", [forbidden])
    assert await refused(conn, "SELECT * FROM ne_semantic_hits($1, $2::uuid[], 10)", embedding, [forbidden])
    assert await refused(conn, "SELECT ne_drop_corpus_vector_index($1)", forbidden)
    assert await refused(conn, "ALTER TABLE knowledge DISABLE ROW LEVEL SECURITY")
    assert await refused(conn, "DROP POLICY knowledge_reader_scope ON knowledge")
    assert await refused(conn, "CREATE OR REPLACE FUNCTION ne_accessible_corpus_ids() RETURNS uuid[] "
                               "LANGUAGE sql AS $$ SELECT array_agg(id) FROM corpus $$")
    seen.append(await forbidden_rows(conn, forbidden, embedding))
    return seen


async def open_as(kapp, role: str) -> asyncpg.Connection:
    from pgvector.asyncpg import register_vector

    conn = await asyncpg.connect(with_user(kapp.db.dsn, role))
    await register_vector(conn)
    return conn


async def test_the_retrieval_login_cannot_bypass_row_level_security(two_corpora, embedder):
    kapp, allowed, forbidden = two_corpora
    embedding = embedder.embed(["Nightingale Tidepool"])[0]
    async with kapp.db.connection() as owner:
        owner_name = await owner.fetchval("SELECT current_user")
        key = await read_binding_key(owner)
        attributes = await owner.fetchrow("SELECT rolsuper, rolbypassrls, rolcreaterole FROM pg_roles "
                                          "WHERE rolname = $1", RETRIEVAL_LOGIN)
        assert await forbidden_rows(owner, forbidden, embedding) > 0  # the rows exist
    assert not any(attributes.values())
    conn = await open_as(kapp, RETRIEVAL_LOGIN)
    try:
        assert await attack(conn, owner_name, key, forbidden, embedding) == [0] * 7
        # inside a transaction the application bound to the allowed corpus: still nothing else
        async with conn.transaction():
            ids = corpus_ids_text([allowed])
            await conn.execute(BIND_SQL, ids, binding_proof(key, conn.get_server_pid(), ids))
            assert await conn.fetchval("SELECT count(*) FROM knowledge") == len(ALLOWED)
            await conn.execute("RESET ROLE")
            await conn.execute(f"SET ROLE {READER_ROLE}")
            assert await forbidden_rows(conn, forbidden, embedding) == 0
            await conn.execute("SELECT set_config('negentropy.accessible_corpus_ids', $1, true)",
                               corpus_ids_text([allowed, forbidden]))  # widening the bound ids voids the proof
            assert await forbidden_rows(conn, forbidden, embedding) == 0
            assert await conn.fetchval("SELECT count(*) FROM knowledge") == 0
    finally:
        await conn.close()


async def test_a_login_granted_the_reader_role_cannot_read_or_bind_corpora(two_corpora, analyst, embedder):
    kapp, _, forbidden = two_corpora
    embedding = embedder.embed(["Nightingale Tidepool"])[0]
    async with kapp.db.connection() as owner:
        owner_name = await owner.fetchval("SELECT current_user")
        key = await read_binding_key(owner)
    conn = await open_as(kapp, analyst)
    try:
        assert await attack(conn, owner_name, key, forbidden, embedding) == [0] * 7
        ids = corpus_ids_text([forbidden])  # even a proof valid for its own backend: the setter is not its to call
        assert await refused(conn, BIND_SQL, ids, binding_proof(key, conn.get_server_pid(), ids))
        assert await forbidden_rows(conn, forbidden, embedding) == 0
    finally:
        await conn.close()


async def test_scoped_reads_log_in_as_the_retrieval_login_and_see_only_their_corpora(two_corpora):
    kapp, allowed, forbidden = two_corpora
    async with kapp.db.scoped([allowed]) as conn:
        assert await conn.fetchval("SELECT session_user") == RETRIEVAL_LOGIN
        assert await conn.fetchval("SELECT count(*) FROM knowledge") == len(ALLOWED)
        await conn.execute("RESET ROLE")
        assert await conn.fetchval("SELECT count(*) FROM knowledge WHERE corpus_id = $1", forbidden) == 0
    async with kapp.db.scoped([]) as conn:
        assert await conn.fetchval("SELECT count(*) FROM knowledge") == 0


def test_the_one_round_trip_begin_takes_only_corpus_ids_and_a_proof():
    ids = corpus_ids_text([uuid.uuid4(), uuid.uuid4()])
    proof = binding_proof("key", 4242, ids)
    assert begin_bound_sql(ids, proof) == (
        f"BEGIN READ ONLY; SELECT ne_bind_accessible_corpus_ids('{ids}'::text::uuid[], '{proof}')")
    for bad_ids, bad_proof in [("{x'); SELECT 1; --}", proof), (ids, proof + "'"), (ids, proof[:-1]), ("", proof)]:
        with pytest.raises(ValueError):
            begin_bound_sql(bad_ids, bad_proof)


# --- temporary tables (issue 48 item 1) -------------------------------------------------------------------------
# A temporary relation is found before pg_catalog and public unless pg_temp is named last in the search path, so a
# SECURITY DEFINER function whose path omits it reads the caller's temp table instead of the owner's table.

SAFE_SEARCH_PATH = "search_path=pg_catalog, public, pg_temp"


async def definer_relations(conn: asyncpg.Connection) -> list[tuple[str, str]]:
    """(schema, name) of every table or view of public and pg_catalog whose name a SECURITY DEFINER function of
    public mentions: what a temp table could try to shadow inside it."""
    bodies = await conn.fetch("SELECT p.prosrc FROM pg_catalog.pg_proc p "
                              "JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace "
                              "WHERE n.nspname = 'public' AND p.prosecdef")
    words = set(re.findall(r"[a-z_][a-z0-9_]*", " ".join(r["prosrc"] for r in bodies).lower()))
    relations = await conn.fetch("SELECT n.nspname, c.relname FROM pg_catalog.pg_class c "
                                 "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
                                 "WHERE n.nspname IN ('public', 'pg_catalog') AND c.relkind IN ('r', 'v', 'm', 'p') "
                                 "ORDER BY 1, 2")
    return [(r["nspname"], r["relname"]) for r in relations if r["relname"] in words]


async def shadow(conn: asyncpg.Connection, schema: str, name: str) -> bool:
    """A temp table named like ``schema.name`` with its columns; a catalog's copy is forged to say the caller is a
    superuser that owns everything, the binding key's to hold a secret the caller knows. False: it cannot be made
    (a pseudo-typed column)."""
    columns = await conn.fetch("SELECT quote_ident(attname) AS name, "
                               "pg_catalog.format_type(atttypid, atttypmod) AS type "
                               "FROM pg_catalog.pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 "
                               "AND NOT attisdropped ORDER BY attnum", f'"{schema}"."{name}"')
    try:
        await conn.execute(f'CREATE TEMP TABLE "{name}" ({", ".join(f"{c[0]} {c[1]}" for c in columns)})')
    except asyncpg.PostgresError:
        return False
    names = {c["name"] for c in columns}
    if name == "ne_binding_key":
        await conn.execute('INSERT INTO pg_temp.ne_binding_key VALUES (true, $1)', FORGED_KEY)
    elif schema == "pg_catalog":
        await conn.execute(f'INSERT INTO pg_temp."{name}" SELECT * FROM pg_catalog."{name}"')
        for column in names & {"rolsuper", "rolbypassrls", "rolinherit", "rolcanlogin"}:
            await conn.execute(f'UPDATE pg_temp."{name}" SET {column} = true')
        if "relowner" in names:
            await conn.execute(f'UPDATE pg_temp."{name}" SET relowner = '
                               "(SELECT oid FROM pg_catalog.pg_roles WHERE rolname = session_user)")
    return True


FORGED_KEY = "the attacker's own secret"


async def test_the_retrieval_login_cannot_create_temporary_tables(two_corpora, analyst):
    kapp, _, _ = two_corpora
    for role in (RETRIEVAL_LOGIN, analyst):
        conn = await open_as(kapp, role)
        try:
            assert await refused(conn, "CREATE TEMP TABLE ne_binding_key (singleton bool, secret text)"), role
        finally:
            await conn.close()


async def test_temp_tables_shadow_nothing_a_definer_function_reads(two_corpora, embedder):
    """Even where TEMP was granted again (a DBA's GRANT, a server's defaults), a temp table named like any table or
    catalog the definer functions read changes nothing they return."""
    kapp, allowed, forbidden = two_corpora
    embedding = embedder.embed(["Nightingale Tidepool"])[0]
    async with kapp.db.connection() as owner:
        database = await owner.fetchval("SELECT current_database()")
        await owner.execute(f'GRANT TEMPORARY ON DATABASE "{database}" TO {RETRIEVAL_LOGIN}')
        forbidden_entities = [r["id"] for r in await owner.fetch("SELECT id FROM kg_entity WHERE corpus_id = $1",
                                                                 forbidden)]
    assert forbidden_entities
    conn = await open_as(kapp, RETRIEVAL_LOGIN)
    try:
        relations = await definer_relations(conn)
        assert {("public", "ne_binding_key"), ("pg_catalog", "pg_roles"), ("pg_catalog", "pg_class"),
                ("public", "knowledge"), ("public", "kg_entity_alias")} <= set(relations)
        shadowed = [relation for relation in relations if await shadow(conn, *relation)]
        assert ("public", "ne_binding_key") in shadowed and ("pg_catalog", "pg_roles") in shadowed
        ids = corpus_ids_text([forbidden])
        forged = binding_proof(FORGED_KEY, conn.get_server_pid(), ids)
        await conn.execute("SELECT set_config('negentropy.accessible_corpus_ids', $1, false)", ids)
        await conn.execute("SELECT set_config('negentropy.accessible_corpus_proof', $1, false)", forged)
        assert await forbidden_rows(conn, forbidden, embedding) == 0
        assert await refused(conn, BIND_SQL, ids, forged)
        assert await conn.fetchval("SELECT count(*) FROM ne_entity_bridges($1::bigint[], $2::uuid[])",
                                   forbidden_entities, [allowed, forbidden]) == 0
        assert await conn.fetchval("SELECT cardinality(ne_accessible_corpus_ids())") == 0
    finally:
        await conn.close()


async def test_every_function_with_a_search_path_searches_pg_temp_last(kapp):
    async with kapp.db.connection() as owner:
        rows = await owner.fetch(
            "SELECT p.oid::regprocedure::text AS name, p.prosecdef, "
            "       (SELECT c FROM unnest(p.proconfig) AS c WHERE c LIKE 'search_path=%') AS path "
            "FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace "
            "WHERE n.nspname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d "
            "       WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')")
    definers = [r for r in rows if r["prosecdef"]]
    assert len(definers) >= 10
    wrong = [(r["name"], r["path"]) for r in rows
             if (r["prosecdef"] or r["path"] is not None) and r["path"] != SAFE_SEARCH_PATH]
    assert wrong == []


async def test_a_reader_counts_only_the_members_it_may_see(two_corpora):
    """Both corpora mention Kestrel Labs: bound to one, the canonical's member count and degree (which add up every
    corpus) are not the reader's to read; its visible members are."""
    kapp, allowed, _ = two_corpora
    async with kapp.db.connection() as owner:
        canonical_id, members = await owner.fetchrow(
            "SELECT id, member_count FROM kg_entity_canonical WHERE canonical_name_normalized = 'kestrellabs'")
        key = await read_binding_key(owner)
    assert members == 2
    conn = await open_as(kapp, RETRIEVAL_LOGIN)
    try:
        async with conn.transaction():
            ids = corpus_ids_text([allowed])
            await conn.execute(BIND_SQL, ids, binding_proof(key, conn.get_server_pid(), ids))
            assert await conn.fetchval("SELECT canonical_name FROM kg_entity_canonical WHERE id = $1",
                                       canonical_id) == "Kestrel Labs"
            assert await conn.fetchval("SELECT count(*) FROM kg_entity_alias WHERE canonical_id = $1",
                                       canonical_id) == 1
        for column in ("member_count", "degree", "*"):
            assert await refused(conn, f"SELECT {column} FROM kg_entity_canonical"), column
    finally:
        await conn.close()

"""The graph read functions the hybrid planner uses, inside an RLS-scoped transaction."""
from knowledge.db.queries import graph as gq
from knowledge.db.queries import planner as pq
from tests.planner_support import most_mentioned_entities

# what select_chunk_ids_for_entities must return, written out: per entity the chunks with the most mentions of
# it first (ties by chunk id), at most a limit of them, in the given corpora
REFERENCE_CHUNKS_FOR_ENTITIES = """
    SELECT m.entity_id, k.id, k.corpus_id
    FROM unnest($1::bigint[]) AS e(id)
    CROSS JOIN LATERAL (
        SELECT km.entity_id, km.chunk_id, count(*)::int AS mentions FROM kg_entity_mention km
        WHERE km.entity_id = e.id AND km.corpus_id = ANY($2::uuid[])
        GROUP BY km.entity_id, km.chunk_id
        ORDER BY count(*) DESC, km.chunk_id LIMIT $3) m
    JOIN knowledge k ON k.id = m.chunk_id AND k.corpus_id = ANY($2::uuid[])
    ORDER BY m.entity_id, m.mentions DESC, k.id"""


async def _entity(conn, corpus_id, key):
    return await conn.fetchval("SELECT id FROM kg_entity WHERE corpus_id = $1 AND name_normalized = $2",
                               corpus_id, key)


async def test_mentions_relations_and_chunks_for_entities(demo_app):
    kapp, corpora = demo_app
    docs = corpora["project_docs"]
    async with kapp.db.connection() as conn:
        cobalt = await _entity(conn, docs.id, "cobaltsystems")
        microsoft = await _entity(conn, docs.id, "microsoft")
    async with kapp.db.scoped([docs.id]) as conn:
        chunks = await pq.select_chunk_ids_for_entities(conn, [cobalt], [docs.id], limit_per_entity=2)
        assert 1 <= len(chunks) <= 2 and all(c["entity_id"] == cobalt and c["corpus_id"] == docs.id for c in chunks)
        texts = await gq.select_chunk_texts(conn, docs.id, [c["id"] for c in chunks])
        assert len(texts) == len(chunks) and all("Cobalt Systems" in t["content"] for t in texts)
        mentioned = await pq.select_seed_chunk_entities(conn, [c["id"] for c in chunks], [docs.id])
        assert {(m["entity_id"], m["corpus_id"], m["canonical_name"]) for m in mentioned} >= {
            (cobalt, docs.id, "Cobalt Systems"), (microsoft, docs.id, "Microsoft")}
        assert {m["chunk_id"] for m in mentioned} == {c["id"] for c in chunks}
        assert all(m["degree"] >= 0 and m["mention_count"] >= 1 for m in mentioned)


async def test_reads_see_nothing_outside_the_scope(demo_app):
    kapp, corpora = demo_app
    docs, notes = corpora["project_docs"], corpora["team_notes"]
    async with kapp.db.connection() as conn:
        cobalt = await _entity(conn, docs.id, "cobaltsystems")
        chunk_ids = [r["id"] for r in await conn.fetch(
            "SELECT chunk_id AS id FROM kg_entity_mention WHERE entity_id = $1", cobalt)]
    async with kapp.db.scoped([notes.id]) as conn:
        # asked for the project_docs corpus explicitly, but the transaction may only read team_notes
        assert await pq.select_chunk_ids_for_entities(conn, [cobalt], [docs.id], 5) == []
        assert await pq.select_seed_chunk_entities(conn, chunk_ids, [docs.id, notes.id]) == []
    async with kapp.db.connection() as conn:
        assert await pq.select_seed_chunk_entities(conn, chunk_ids, [notes.id]) == []
        assert await pq.select_seed_chunk_entities(conn, chunk_ids, [docs.id])  # the owner sees what it asks for


async def test_chunk_ids_for_entities_are_the_most_mentioning_chunks_of_each_entity(demo_app):
    kapp, corpora = demo_app
    docs, notes = corpora["project_docs"], corpora["team_notes"]
    entities = await most_mentioned_entities(kapp, [docs.id, notes.id], 12)
    async with kapp.db.scoped([docs.id, notes.id]) as conn:
        full = await conn.fetch(REFERENCE_CHUNKS_FOR_ENTITIES, entities, [docs.id, notes.id], 3)
        ids = await pq.select_chunk_ids_for_entities(conn, entities, [docs.id, notes.id], 3)
        only_docs = await pq.select_chunk_ids_for_entities(conn, entities, [docs.id], 3)
    assert full and [tuple(r) for r in ids] == [(r["entity_id"], r["id"], r["corpus_id"]) for r in full]
    assert only_docs and {r["corpus_id"] for r in only_docs} == {docs.id}
    async with kapp.db.scoped([notes.id]) as conn:  # asked for project_docs, may only read team_notes
        assert await pq.select_chunk_ids_for_entities(conn, entities, [docs.id], 3) == []


async def test_resolution_candidates_are_the_entities_sharing_a_key_however_many_keys(demo_app):
    kapp, corpora = demo_app
    docs = corpora["project_docs"]
    async with kapp.db.connection() as conn:
        stored = await conn.fetch("SELECT id, block_keys FROM kg_entity WHERE corpus_id = $1 ORDER BY id", docs.id)
        few = sorted({r["block_keys"][0] for r in stored[::3]})
        absent = [f"t:absent{i}" for i in range(gq.GIN_KEY_LOOKUP + 1)]
        many = sorted(set(few) | set(absent))
        for keys in (few, many):
            found = await gq.select_resolution_candidates(conn, docs.id, keys)
            expected = [r["id"] for r in stored if set(r["block_keys"]) & set(keys)]
            assert [r["id"] for r in found] == expected and len(expected) >= 2
            assert all(set(r["block_keys"]) & set(keys) for r in found)
        assert len(few) <= gq.GIN_KEY_LOOKUP < len(many)
        assert await gq.select_resolution_candidates(conn, docs.id, absent) == []

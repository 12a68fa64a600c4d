"""Property (issue 44): after any sequence of adds, updates and deletes of documents, the graph equals the graph a
fresh build of the final documents makes: the same entities (with their mention counts), relations (with their
weights), canonical links and cross-corpus bridges, compared by names and keys, not ids. Random sequences on a
real PostgreSQL: a static corpus that shares entities with the changing one, so bridges come and go."""
from __future__ import annotations

import random

import pytest

from knowledge.app import KnowledgeApp
from knowledge.db.queries.ingest_status import select_ingest_status
from knowledge.ingest.documents import Document
from tests.conftest import make_settings

NAMES = ["Northwind Traders", "Contoso", "Fabrikam Logistics", "Jane Smith", "Robert Brown", "Adventure Works",
         "Litware Systems", "Maria Garcia"]
STATIC = [Document("static/partners.md", "Contoso works with Adventure Works. The owner of Contoso is Maria Garcia.",
                   "partners")]
SEEDS = (3, 11, 29, 47, 83)
STEPS = 9
URIS = [f"doc{i}.md" for i in range(4)]

GRAPH = {
    "entities": """SELECT c.name AS corpus, e.name_normalized, e.entity_type, e.mention_count
                   FROM kg_entity e JOIN corpus c ON c.id = e.corpus_id WHERE c.app_name = $1""",
    "relations": """SELECT c.name AS corpus, s.name_normalized AS source, t.name_normalized AS target, r.relation_type,
                           round(r.weight::numeric, 6) AS weight
                    FROM kg_relation r JOIN corpus c ON c.id = r.corpus_id
                    JOIN kg_entity s ON s.id = r.source_entity_id JOIN kg_entity t ON t.id = r.target_entity_id
                    WHERE c.app_name = $1""",
    "canonical links": """SELECT c.name AS corpus, e.name_normalized, e.entity_type, k.canonical_name_normalized,
                                 k.canonical_type
                          FROM kg_entity_alias a JOIN kg_entity e ON e.id = a.local_entity_id
                          JOIN corpus c ON c.id = a.corpus_id
                          JOIN kg_entity_canonical k ON k.id = a.canonical_id WHERE a.app_name = $1""",
    "canonicals": """SELECT canonical_name_normalized, canonical_type, member_count, degree
                     FROM kg_entity_canonical WHERE app_scope = $1""",
    "bridges": """SELECT s.canonical_name_normalized AS source, t.canonical_name_normalized AS target, b.bridge_type
                  FROM kg_cross_corpus_bridge b JOIN kg_entity_canonical s ON s.id = b.canonical_source_id
                  JOIN kg_entity_canonical t ON t.id = b.canonical_target_id WHERE b.app_scope = $1""",
    "chunks": """SELECT c.name AS corpus, k.content FROM knowledge k JOIN corpus c ON c.id = k.corpus_id
                 WHERE c.app_name = $1""",
}
SYMMETRIC = {"CO_OCCURS", "PARTNERED_WITH"}


def _text(rng: random.Random) -> str:
    a, b, c = rng.sample(NAMES, 3)
    return rng.choice([f"{a} is a vendor of {b}. The owner of {a} is {c}.",
                       f"{a} works with {b}. {c} leads {a}.",
                       f"The owner of {a} is {c}."])


async def _graph(kapp: KnowledgeApp) -> dict[str, set]:
    async with kapp.db.connection() as conn:
        graph = {name: {tuple(r.values()) for r in await conn.fetch(sql, kapp.settings.app_name)}
                 for name, sql in GRAPH.items()}
    graph["relations"] = {(corpus, min(s, t), max(s, t), kind, w) if kind in SYMMETRIC else (corpus, s, t, kind, w)
                          for corpus, s, t, kind, w in graph["relations"]}
    return graph


async def _open(dsn: str, embedder, tmp_path, app_name: str) -> KnowledgeApp:
    return await KnowledgeApp.open(make_settings(tmp_path / app_name, app_name=app_name), dsn=dsn,
                                   embedder=embedder, progress=False)


@pytest.mark.parametrize("seed", SEEDS)
async def test_graph_after_changes_equals_a_fresh_build(new_database, embedder, tmp_path, seed: int):
    rng = random.Random(seed)
    dsn = await new_database("docprop")
    changed, fresh = (await _open(dsn, embedder, tmp_path, f"changed{seed}"),
                      await _open(dsn, embedder, tmp_path, f"fresh{seed}"))
    try:
        static = await changed.corpora.create("static")
        await changed.ingest_documents(static, STATIC)
        live = await changed.corpora.create("live")
        final: dict[str, str] = {}
        for _ in range(STEPS):
            uri = rng.choice(URIS)
            if uri in final and rng.random() < 0.35:
                await changed.documents.delete(live, [uri])
                del final[uri]
            else:  # an add, or an update of a document already there
                final[uri] = _text(rng)
                await changed.ingest_documents(live, [Document(uri, final[uri], uri)])
        async with changed.db.connection() as conn:
            [status] = await select_ingest_status(conn, [live.id])
        assert not status.unfinished

        fresh_static = await fresh.corpora.create("static")
        await fresh.ingest_documents(fresh_static, STATIC)
        fresh_live = await fresh.corpora.create("live")
        await fresh.ingest_documents(fresh_live, [Document(u, t, u) for u, t in sorted(final.items())])
        after, expected = await _graph(changed), await _graph(fresh)
        for part in GRAPH:
            assert after[part] == expected[part], (part, after[part] ^ expected[part])
    finally:
        await changed.close()
        await fresh.close()

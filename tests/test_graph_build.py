"""The per-corpus graph built by the normal ingest path, on the demo corpora and on small fresh corpora."""
from knowledge.db.queries import graph as gq
from knowledge.ingest.documents import documents_from_texts


async def _entities_keyed(conn, corpus_id, key):
    return await conn.fetch(
        "SELECT id, canonical_name, entity_type, aliases, mention_count FROM kg_entity "
        "WHERE corpus_id = $1 AND name_normalized = $2 ORDER BY id", corpus_id, key)


async def test_openai_spellings_resolve_to_one_entity_per_demo_corpus(demo_app):
    kapp, corpora = demo_app
    async with kapp.db.connection() as conn:
        for corpus in corpora.values():
            rows = await _entities_keyed(conn, corpus.id, "openai")
            assert len(rows) == 1, (corpus.name, [dict(r) for r in rows])
            assert rows[0]["entity_type"] == "ORG"
            surfaces = await conn.fetch(
                "SELECT DISTINCT surface FROM kg_entity_mention WHERE entity_id = $1", rows[0]["id"])
            assert {"OpenAI", "Open AI", "OpenAI Inc."} <= {r["surface"] for r in surfaces}, corpus.name
            assert {"OpenAI", "Open AI", "OpenAI Inc."} <= set(rows[0]["aliases"])


async def test_every_mention_and_relation_points_at_a_real_chunk_of_its_own_corpus(demo_app):
    kapp, corpora = demo_app
    async with kapp.db.connection() as conn:
        mentions = await conn.fetch(
            """SELECT m.corpus_id, e.corpus_id AS entity_corpus, k.corpus_id AS chunk_corpus, k.content,
                      m.start_offset, m.end_offset, m.surface
               FROM kg_entity_mention m JOIN kg_entity e ON e.id = m.entity_id
               LEFT JOIN knowledge k ON k.id = m.chunk_id""")
        relations = await conn.fetch(
            """SELECT r.corpus_id, k.corpus_id AS chunk_corpus, s.corpus_id AS source_corpus,
                      t.corpus_id AS target_corpus, r.source_entity_id, r.target_entity_id
               FROM kg_relation r LEFT JOIN knowledge k ON k.id = r.evidence_chunk_id
               JOIN kg_entity s ON s.id = r.source_entity_id JOIN kg_entity t ON t.id = r.target_entity_id""")
        extracted = await conn.fetchval(
            "SELECT count(*) FROM knowledge k WHERE NOT EXISTS "
            "(SELECT 1 FROM kg_extracted_chunk e WHERE e.chunk_id = k.id)")
    assert len(mentions) > 300 and len(relations) > 300
    for m in mentions:
        assert m["chunk_corpus"] == m["corpus_id"] == m["entity_corpus"]
        assert m["content"][m["start_offset"]:m["end_offset"]] == m["surface"]
    for r in relations:
        assert r["chunk_corpus"] == r["corpus_id"] == r["source_corpus"] == r["target_corpus"]
        assert r["source_entity_id"] != r["target_entity_id"]
    assert extracted == 0
    assert {c.id for c in corpora.values()} == {m["corpus_id"] for m in mentions}


async def test_degrees_and_mention_counts_match_the_stored_rows(demo_app):
    kapp, corpora = demo_app
    async with kapp.db.connection() as conn:
        wrong = await conn.fetch(
            """SELECT e.id FROM kg_entity e
               WHERE e.mention_count <> (SELECT count(*) FROM kg_entity_mention m WHERE m.entity_id = e.id)
                  OR e.degree <> (SELECT count(DISTINCT o) FROM (
                         SELECT target_entity_id AS o FROM kg_relation WHERE source_entity_id = e.id
                         UNION ALL SELECT source_entity_id FROM kg_relation WHERE target_entity_id = e.id) n)
                  OR e.embedding IS NULL OR e.mention_count = 0""")
    assert wrong == []


async def test_level_zero_communities_cover_every_entity_once_and_level_one_refines_a_parent(demo_app):
    kapp, corpora = demo_app
    split = []
    async with kapp.db.connection() as conn:
        for corpus in corpora.values():
            entities = {r["id"] for r in await conn.fetch("SELECT id FROM kg_entity WHERE corpus_id = $1", corpus.id)}
            level0 = await conn.fetch(
                """SELECT m.entity_id FROM kg_community_member m JOIN kg_community c ON c.id = m.community_id
                   WHERE c.corpus_id = $1 AND c.level = 0""", corpus.id)
            assert sorted(r["entity_id"] for r in level0) == sorted(entities), corpus.name
            communities = await gq.select_communities(conn, corpus.id)
            by_id = {c["id"]: c for c in communities}
            assert all(c["title"] and c["summary"] for c in communities)
            children = [c for c in communities if c["level"] == 1]
            split.extend(corpus.name for _ in children[:1])
            for child in children:
                parent = by_id[child["parent_id"]]
                assert parent["level"] == 0
                inside = await conn.fetchval(
                    """SELECT bool_and(EXISTS (SELECT 1 FROM kg_community_member p
                                               WHERE p.community_id = $2 AND p.entity_id = m.entity_id))
                       FROM kg_community_member m WHERE m.community_id = $1""", child["id"], parent["id"])
                assert inside
            for parent_id in {c["parent_id"] for c in children}:
                assert sum(c["member_count"] for c in children if c["parent_id"] == parent_id) \
                    == by_id[parent_id]["member_count"]
    assert {"team_notes", "project_docs"} <= set(split)


async def test_demo_bridge_entities_are_in_the_graph(demo_app):
    kapp, corpora = demo_app
    async with kapp.db.connection() as conn:
        for key, names in {"auroravectorengine": ("papers", "project_docs", "team_notes"),
                           "cobaltsystems": ("project_docs", "team_notes"),
                           "mariasantos": ("papers", "team_notes", "project_docs")}.items():
            for name in names:
                assert await _entities_keyed(conn, corpora[name].id, key), (key, name)
        acquired = await conn.fetchval(
            """SELECT count(*) FROM kg_relation r JOIN kg_entity s ON s.id = r.source_entity_id
               JOIN kg_entity t ON t.id = r.target_entity_id
               WHERE r.corpus_id = $1 AND r.relation_type = 'ACQUIRED'
                 AND s.name_normalized = 'microsoft' AND t.name_normalized = 'cobaltsystems'""",
            corpora["project_docs"].id)
    assert acquired == 1


async def test_same_name_with_different_types_stays_two_entities(kapp):
    corpus = await kapp.corpora.create("fruit_and_firms")
    await kapp.ingest_documents(corpus, documents_from_texts([
        ("firm.txt", "Apple announced record revenue; the Apple CEO spoke in Cupertino."),
        ("fruit.txt", "An apple a day keeps the doctor away. I ate an Apple with lunch, it was a sweet fruit."),
    ]))
    async with kapp.db.connection() as conn:
        rows = await _entities_keyed(conn, corpus.id, "apple")
        chunks = {r["source_uri"]: r["id"] for r in await conn.fetch(
            "SELECT id, source_uri FROM knowledge WHERE corpus_id = $1", corpus.id)}
        mention_chunks = {r["entity_type"]: {m["chunk_id"] for m in await conn.fetch(
            "SELECT chunk_id FROM kg_entity_mention WHERE entity_id = $1", r["id"])} for r in rows}
    assert sorted(r["entity_type"] for r in rows) == ["FOOD", "ORG"]
    # the most mentioned keeps the bare name, the other is disambiguated by its type
    first, second = sorted(rows, key=lambda r: (-r["mention_count"], r["entity_type"]))
    assert (first["canonical_name"], second["canonical_name"]) == ("Apple", f"Apple ({second['entity_type']})")
    assert mention_chunks == {"ORG": {chunks["firm.txt"]}, "FOOD": {chunks["fruit.txt"]}}


async def test_later_ingest_merges_new_spellings_into_the_existing_entity_and_reingest_adds_nothing(kapp):
    corpus = await kapp.corpora.create("incremental")
    await kapp.ingest_documents(corpus, documents_from_texts([
        ("a.txt", "OpenAI released a new model. Microsoft partnered with OpenAI on cloud capacity."),
    ]))
    async with kapp.db.connection() as conn:
        before = await _entities_keyed(conn, corpus.id, "openai")
    second = documents_from_texts([
        ("b.txt", "Researchers at Open AI trained the model in San Francisco."),
        ("c.txt", "OpenAI Inc. signed a contract with Kestrel Labs for the Lumen Gateway."),
    ])
    await kapp.ingest_documents(corpus, second)
    async with kapp.db.connection() as conn:
        after = await _entities_keyed(conn, corpus.id, "openai")
        counts = dict(await gq.count_graph(conn, corpus.id))
    assert len(before) == len(after) == 1 and before[0]["id"] == after[0]["id"]
    assert {"OpenAI", "Open AI", "OpenAI Inc."} <= set(after[0]["aliases"])
    assert after[0]["mention_count"] == 4

    report = await kapp.ingest_documents(corpus, second)
    async with kapp.db.connection() as conn:
        again = dict(await gq.count_graph(conn, corpus.id))
        weights = await conn.fetchval("SELECT sum(weight) FROM kg_relation WHERE corpus_id = $1", corpus.id)
    assert report.chunks_added == 0
    assert again == counts
    async with kapp.db.connection() as conn:
        await _assert_level0_covers_entities(conn, corpus.id)
    update = await kapp.graph.update(corpus)
    assert update.chunks == 0
    async with kapp.db.connection() as conn:
        assert await conn.fetchval("SELECT sum(weight) FROM kg_relation WHERE corpus_id = $1", corpus.id) == weights


async def test_possible_matches_are_queued_for_review_not_merged(kapp):
    corpus = await kapp.corpora.create("review")
    await kapp.ingest_documents(corpus, documents_from_texts([
        ("a.txt", "Microsoft released its quarterly results on Tuesday."),
        ("b.txt", "Microsoft Research published a long paper about graph algorithms."),
    ]))
    async with kapp.db.connection() as conn:
        pairs = await conn.fetch(
            """SELECT l.canonical_name AS left_name, r.canonical_name AS right_name, c.weight, c.status,
                      c.components
               FROM kg_resolution_candidate c JOIN kg_entity l ON l.id = c.left_entity_id
               JOIN kg_entity r ON r.id = c.right_entity_id WHERE c.corpus_id = $1""", corpus.id)
        names = {r["canonical_name"] for r in await conn.fetch(
            "SELECT canonical_name FROM kg_entity WHERE corpus_id = $1", corpus.id)}
    assert {"Microsoft", "Microsoft Research"} <= names
    queued = {frozenset((p["left_name"], p["right_name"])): p for p in pairs}
    pair = queued[frozenset(("Microsoft", "Microsoft Research"))]
    assert pair["status"] == "pending"
    assert kapp.graph.resolver.possible_threshold <= pair["weight"] < kapp.graph.resolver.match_threshold
    assert set(pair["components"]) >= {"name", "type"}


async def test_rebuild_reproduces_the_graph_and_picks_up_chunks_a_failed_build_left(kapp):
    corpus = await kapp.corpora.create("rebuild")
    await kapp.ingest_documents(corpus, documents_from_texts([
        (f"d{i}.txt", text) for i, text in enumerate([
            "Maria Santos works at Kestrel Labs in Berlin.",
            "Kestrel Labs acquired Tidepool Analytics in May 2024.",
            "Tidepool Analytics is located in Shanghai. Maria Santos visited Shanghai in June.",
        ])]))
    async with kapp.db.connection() as conn:
        built = dict(await gq.count_graph(conn, corpus.id))
    report = await kapp.graph.rebuild(corpus)
    async with kapp.db.connection() as conn:
        rebuilt = dict(await gq.count_graph(conn, corpus.id))
        # simulate a graph step that failed after the chunks landed: the chunk is not marked extracted
        chunk_id = await conn.fetchval("SELECT min(id) FROM knowledge WHERE corpus_id = $1", corpus.id)
        await conn.execute("DELETE FROM kg_entity_mention WHERE chunk_id = $1", chunk_id)
        await conn.execute("DELETE FROM kg_extracted_chunk WHERE chunk_id = $1", chunk_id)
    assert report.chunks == 3 and rebuilt == built
    recovered = await kapp.graph.update(corpus)
    async with kapp.db.connection() as conn:
        assert recovered.chunks == 1
        assert await conn.fetchval("SELECT count(*) FROM kg_entity_mention WHERE chunk_id = $1", chunk_id) > 0
        assert dict(await gq.count_graph(conn, corpus.id))["mentions"] == built["mentions"]
        await _assert_level0_covers_entities(conn, corpus.id)


async def _assert_level0_covers_entities(conn, corpus_id):
    entities = [r["id"] for r in await conn.fetch("SELECT id FROM kg_entity WHERE corpus_id = $1 ORDER BY id",
                                                  corpus_id)]
    level0 = await conn.fetch(
        """SELECT m.entity_id FROM kg_community_member m JOIN kg_community c ON c.id = m.community_id
           WHERE c.corpus_id = $1 AND c.level = 0 ORDER BY m.entity_id""", corpus_id)
    assert [r["entity_id"] for r in level0] == entities
    orphans = await conn.fetchval(
        """SELECT count(*) FROM kg_community c LEFT JOIN kg_community p ON p.id = c.parent_id
           WHERE c.corpus_id = $1 AND c.level = 1 AND (p.id IS NULL OR p.level <> 0)""", corpus_id)
    assert orphans == 0


async def test_unchanged_communities_keep_their_rows_when_another_part_of_the_graph_grows(kapp):
    corpus = await kapp.corpora.create("stable")
    await kapp.ingest_documents(corpus, documents_from_texts([
        ("people.txt", "Maria Santos works at Kestrel Labs in Berlin."),
    ]))
    async with kapp.db.connection() as conn:
        before = {r["id"]: (r["title"], r["summary"]) for r in await gq.select_communities(conn, corpus.id)}
    await kapp.ingest_documents(corpus, documents_from_texts([
        ("tools.txt", "Quill Resolver uses Redis for caching."),
    ]))
    async with kapp.db.connection() as conn:
        after = {r["id"]: (r["title"], r["summary"]) for r in await gq.select_communities(conn, corpus.id)}
        await _assert_level0_covers_entities(conn, corpus.id)
    assert before and set(before) < set(after)
    assert all(after[i] == before[i] for i in before)
    assert any("Quill Resolver" in title for title, _ in after.values())


async def test_concurrent_ingests_into_one_corpus_resolve_against_each_other(kapp):
    import asyncio

    corpus = await kapp.corpora.create("concurrent")
    batches = [documents_from_texts([(f"{n}-{i}.txt", f"{name} partnered with Kestrel Labs on project {n}{i}.")
                                     for i in range(3)])
               for n, name in (("a", "OpenAI"), ("b", "Open AI"), ("c", "OpenAI Inc."))]
    reports = await asyncio.gather(*(kapp.ingest_documents(corpus, docs) for docs in batches))
    assert sum(r.chunks_added for r in reports) == 9
    async with kapp.db.connection() as conn:
        assert len(await _entities_keyed(conn, corpus.id, "openai")) == 1
        assert len(await _entities_keyed(conn, corpus.id, "kestrellabs")) == 1
        assert await conn.fetchval("SELECT count(*) FROM kg_extracted_chunk WHERE corpus_id = $1", corpus.id) == 9
        await _assert_level0_covers_entities(conn, corpus.id)


async def test_llm_community_summaries_are_stored_and_a_failing_model_falls_back(kapp):
    from knowledge.graph.summaries import CommunitySummarizer

    async def completion(**kwargs):
        entities = kwargs["messages"][1]["content"].splitlines()[1].removeprefix("- ")
        return {"choices": [{"message": {"content": '{"title": "Theme: %s", "summary": "A community about %s '
                                                    'and the entities around it."}' % (entities, entities)}}]}

    async def broken(**kwargs):
        raise ConnectionError("no network")

    corpus = await kapp.corpora.create("llm_summaries")
    kapp.graph.summarizer = CommunitySummarizer("test/model", completion=completion)
    await kapp.ingest_documents(corpus, documents_from_texts([
        ("a.txt", "Maria Santos works at Kestrel Labs in Berlin."),
        ("b.txt", "Quill Resolver stands alone."),
    ]))
    async with kapp.db.connection() as conn:
        rows = await gq.select_communities(conn, corpus.id)
    multi = [r for r in rows if r["member_count"] > 1]
    assert multi and all(r["title"].startswith("Theme: ") for r in multi)
    assert all(not r["title"].startswith("Theme: ") for r in rows if r["member_count"] == 1)

    kapp.graph.summarizer = CommunitySummarizer("other/model", completion=broken)
    await kapp.graph.rebuild(corpus)
    async with kapp.db.connection() as conn:
        rows = await gq.select_communities(conn, corpus.id)
        await _assert_level0_covers_entities(conn, corpus.id)
    assert rows and not any(r["title"].startswith("Theme: ") for r in rows)
    assert any("Kestrel Labs" in r["title"] for r in rows)


async def test_chunks_without_entities_are_marked_extracted_and_build_nothing(kapp):
    corpus = await kapp.corpora.create("plain")
    report = await kapp.ingest_documents(corpus, documents_from_texts([("a.txt", "just some lowercase words here.")]))
    assert report.chunks_added == 1
    async with kapp.db.connection() as conn:
        counts = dict(await gq.count_graph(conn, corpus.id))
        extracted = await conn.fetch("SELECT entity_count FROM kg_extracted_chunk WHERE corpus_id = $1", corpus.id)
    assert counts == {"entities": 0, "relations": 0, "mentions": 0, "communities": 0, "pending_candidates": 0}
    assert [r["entity_count"] for r in extracted] == [0]
    assert (await kapp.graph.update(corpus)).chunks == 0

"""The planner's graph functions of migration 018 return what the queries they replaced returned (written out
below, run under the same scoped transaction), and read nothing outside the corpora the caller may read."""
from knowledge.db.queries import canonical as canonical_queries
from knowledge.db.queries import planner as planner_queries
from tests.planner_support import most_mentioned_entities

# the bridge lookup before migration 018, as the retrieval login ran it under the row-level policies
REFERENCE_BRIDGES = """
    WITH src AS (
        SELECT a.local_entity_id, a.corpus_id, a.canonical_id, a.confidence
        FROM kg_entity_alias a
        WHERE a.local_entity_id = ANY($1::bigint[]) AND a.corpus_id = ANY($2)),
    shared AS (
        SELECT c.id AS canonical_id, c.canonical_name, s.local_entity_id AS source_entity_id,
               s.corpus_id AS source_corpus_id, t.local_entity_id AS target_entity_id, t.corpus_id AS target_corpus_id,
               'shared_entity'::text AS bridge_type, 1 AS hops, s.confidence * t.confidence AS confidence
        FROM src s
        JOIN kg_entity_canonical c ON c.id = s.canonical_id AND NOT c.is_stopword_like AND NOT c.is_under_review
        JOIN kg_cross_corpus_bridge b ON b.canonical_source_id = c.id AND b.canonical_target_id = c.id
                                     AND b.bridge_type = 'shared_entity'
        JOIN kg_entity_alias t ON t.canonical_id = c.id AND t.corpus_id = ANY($2) AND t.corpus_id <> s.corpus_id
        WHERE TRUE
        AND EXISTS (SELECT 1 FROM kg_cross_corpus_bridge_corpus bs
                    WHERE bs.bridge_id = b.id AND bs.role = 'source' AND bs.corpus_id = s.corpus_id)
        AND EXISTS (SELECT 1 FROM kg_cross_corpus_bridge_corpus bt
                    WHERE bt.bridge_id = b.id AND bt.role = 'target' AND bt.corpus_id = t.corpus_id)),
    adjacent AS (
        SELECT s.local_entity_id, s.corpus_id, s.canonical_id, r.target_entity_id AS neighbour_id
        FROM src s JOIN kg_relation r ON r.source_entity_id = s.local_entity_id AND r.corpus_id = s.corpus_id
        UNION
        SELECT s.local_entity_id, s.corpus_id, s.canonical_id, r.source_entity_id
        FROM src s JOIN kg_relation r ON r.target_entity_id = s.local_entity_id AND r.corpus_id = s.corpus_id),
    neighbours AS (
        SELECT j.local_entity_id, j.corpus_id, j.canonical_id AS source_canonical, n.canonical_id, n.confidence
        FROM adjacent j
        JOIN kg_entity_alias n ON n.local_entity_id = j.neighbour_id AND n.corpus_id = j.corpus_id),
    related AS (
        SELECT c.id AS canonical_id, c.canonical_name, s.local_entity_id AS source_entity_id,
               s.corpus_id AS source_corpus_id, t.local_entity_id AS target_entity_id, t.corpus_id AS target_corpus_id,
               'relation_path'::text AS bridge_type, 2 AS hops, s.confidence * t.confidence AS confidence
        FROM neighbours s
        JOIN kg_entity_canonical c ON c.id = s.canonical_id AND NOT c.is_stopword_like AND NOT c.is_under_review
        JOIN kg_cross_corpus_bridge b ON b.canonical_source_id = s.source_canonical AND b.canonical_target_id = c.id
                                     AND b.bridge_type = 'relation_path'
        JOIN kg_entity_alias t ON t.canonical_id = c.id AND t.corpus_id = ANY($2) AND t.corpus_id <> s.corpus_id
        WHERE TRUE
        AND EXISTS (SELECT 1 FROM kg_cross_corpus_bridge_corpus bs
                    WHERE bs.bridge_id = b.id AND bs.role = 'source' AND bs.corpus_id = s.corpus_id)
        AND EXISTS (SELECT 1 FROM kg_cross_corpus_bridge_corpus bt
                    WHERE bt.bridge_id = b.id AND bt.role = 'target' AND bt.corpus_id = t.corpus_id)),
    paths AS (SELECT * FROM shared UNION ALL SELECT * FROM related)
    SELECT DISTINCT ON (source_entity_id, target_entity_id) *
    FROM paths
    ORDER BY source_entity_id, target_entity_id, hops, confidence DESC, canonical_id"""

REFERENCE_FACTS = """
    WITH q AS MATERIALIZED (SELECT ne_or_tsquery($3) AS tsq)
    SELECT r.id, r.corpus_id, r.source_entity_id, r.target_entity_id, r.relation_type,
           ts_rank_cd(r.evidence_vector, q.tsq, 1)::float8 AS score
    FROM kg_relation r, q
    WHERE q.tsq IS NOT NULL AND r.corpus_id = ANY($2::uuid[])
      AND (r.source_entity_id = ANY($1::bigint[]) OR r.target_entity_id = ANY($1::bigint[]))
      AND r.evidence_vector @@ q.tsq
    ORDER BY score DESC, r.id
    LIMIT $4"""
QUESTIONS = ["Who acquired Cobalt Systems?", "Which vector engine does Project Helios rely on?",
             "Who developed the Aurora Vector Engine and where?", "the a of"]


async def test_bridges_and_facts_are_the_rows_of_the_queries_they_replace(demo_app):
    kapp, corpora = demo_app
    ids = [c.id for c in corpora.values()]
    entities = await most_mentioned_entities(kapp, ids, 60)
    for scope in (ids, ids[:2], ids[1:]):
        async with kapp.db.scoped(scope) as conn:
            bridges = await canonical_queries.select_bridges_from_entities(conn, entities, ids)
            reference = await conn.fetch(REFERENCE_BRIDGES, entities, ids)
            assert sorted(bridges) == sorted(tuple(r) for r in reference)
            for question in QUESTIONS:
                facts = await planner_queries.select_relation_facts(conn, entities, ids, question, 5)
                expected = await conn.fetch(REFERENCE_FACTS, entities, ids, question, 5)
                assert [tuple(f) for f in facts] == [tuple(r) for r in expected]
    async with kapp.db.scoped(ids) as conn:
        assert await canonical_queries.select_bridges_from_entities(conn, entities, ids)  # the demo has bridges
        assert await planner_queries.select_relation_facts(conn, entities, ids, QUESTIONS[0], 5)


async def test_a_scoped_caller_gets_no_bridge_into_a_corpus_it_may_not_read(demo_app):
    kapp, corpora = demo_app
    ids = [c.id for c in corpora.values()]
    entities = await most_mentioned_entities(kapp, ids, 60)
    async with kapp.db.scoped(ids) as conn:
        everywhere = await canonical_queries.select_bridges_from_entities(conn, entities, ids)
    for hidden in ids:
        visible = [c for c in ids if c != hidden]
        async with kapp.db.scoped(visible) as conn:  # asks for every corpus; the binding allows all but one
            bridges = await canonical_queries.select_bridges_from_entities(conn, entities, ids)
        assert bridges == [b for b in everywhere if hidden not in (b.source_corpus_id, b.target_corpus_id)]

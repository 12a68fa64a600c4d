-- Planner cost (issues 14, 20): the cross-corpus bridges of local entities, read as the owner. As the retrieval
-- login, the policies of kg_entity_canonical and kg_cross_corpus_bridge added a subquery per row (an alias, or
-- both endpoints, in an accessible corpus) and their row estimates of 1 sent the plan to hash joins over every
-- alias of the database: at 5 x 20k a bridge lookup of 100 entities took 110-140 ms instead of 80. Here every
-- table is filtered by the requested corpora the caller may read (ne_visible_corpus_ids, as the search functions
-- of migration 009), which covers what the policies checked: source and target aliases, and so the canonical and
-- both bridge endpoints, lie in those corpora. Same rows as the query it replaces.
-- Its plan is generic from the first call of a session: planning it took 15-20 ms, and a session's first five
-- executions of a statement are planned for their parameters, so on a fresh pool connection the lookup cost
-- 20-40 ms instead of 3-4.
CREATE FUNCTION ne_entity_bridges(entity_ids bigint[], corpus_ids uuid[])
RETURNS TABLE (canonical_id bigint, canonical_name text, source_entity_id bigint, source_corpus_id uuid,
               target_entity_id bigint, target_corpus_id uuid, bridge_type text, hops int, confidence float8)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, public SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
DECLARE
    ids uuid[] := ne_visible_corpus_ids(corpus_ids);
BEGIN
    RETURN QUERY
    WITH src AS (
        SELECT a.local_entity_id, a.corpus_id, a.canonical_id, a.confidence
        FROM kg_entity_alias a
        WHERE a.local_entity_id = ANY(entity_ids) AND a.corpus_id = ANY(ids)),
    shared AS (
        SELECT c.id AS canonical_id, c.canonical_name, s.local_entity_id AS source_entity_id,
               s.corpus_id AS source_corpus_id, t.local_entity_id AS target_entity_id, t.corpus_id AS target_corpus_id,
               'shared_entity'::text AS bridge_type, 1 AS hops, s.confidence * t.confidence AS confidence
        FROM src s
        JOIN kg_entity_canonical c ON c.id = s.canonical_id AND NOT c.is_stopword_like AND NOT c.is_under_review
        JOIN kg_cross_corpus_bridge b ON b.canonical_source_id = c.id AND b.canonical_target_id = c.id
                                     AND b.bridge_type = 'shared_entity'
        JOIN kg_entity_alias t ON t.canonical_id = c.id AND t.corpus_id = ANY(ids) AND t.corpus_id <> s.corpus_id
        WHERE EXISTS (SELECT 1 FROM kg_cross_corpus_bridge_corpus bs
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
        JOIN kg_entity_alias t ON t.canonical_id = c.id AND t.corpus_id = ANY(ids) AND t.corpus_id <> s.corpus_id
        WHERE EXISTS (SELECT 1 FROM kg_cross_corpus_bridge_corpus bs
                      WHERE bs.bridge_id = b.id AND bs.role = 'source' AND bs.corpus_id = s.corpus_id)
          AND EXISTS (SELECT 1 FROM kg_cross_corpus_bridge_corpus bt
                      WHERE bt.bridge_id = b.id AND bt.role = 'target' AND bt.corpus_id = t.corpus_id)),
    paths AS (SELECT * FROM shared UNION ALL SELECT * FROM related)
    SELECT DISTINCT ON (p.source_entity_id, p.target_entity_id) *
    FROM paths p
    ORDER BY p.source_entity_id, p.target_entity_id, p.hops, p.confidence DESC, p.canonical_id;
END $$;

-- The relations of the seed entities whose evidence sentence matches the question's words, best first (the
-- planner's fact seeds), with the same generic plan from a session's first call: its custom plans took 8-25 ms
-- against 2-5. The tsquery is built once (a generic plan of the inlined expression rebuilt it for every relation
-- of the seed entities, as migration 013's note says). Read as the caller, under the row-level policies.
CREATE FUNCTION ne_relation_facts(entity_ids bigint[], corpus_ids uuid[], query_text text, n int)
RETURNS TABLE (id bigint, corpus_id uuid, source_entity_id bigint, target_entity_id bigint, relation_type text,
               score float8)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, public SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
DECLARE
    tsq tsquery := ne_or_tsquery(query_text);
BEGIN
    IF tsq IS NULL THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT r.id, r.corpus_id, r.source_entity_id, r.target_entity_id, r.relation_type,
           ts_rank_cd(r.evidence_vector, tsq, 1)::float8 AS score
    FROM kg_relation r
    WHERE r.corpus_id = ANY(corpus_ids)
      AND (r.source_entity_id = ANY(entity_ids) OR r.target_entity_id = ANY(entity_ids))
      AND r.evidence_vector @@ tsq
    ORDER BY score DESC, r.id
    LIMIT n;
END $$;

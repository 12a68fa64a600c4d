-- Search latency (issue 20): the full-text candidates read and ranked per search are bounded by 10 x the rows
-- asked for (400 for kb_hybrid_search's top 10, 800 for kb_rrf_search's top 20) instead of 1,000. Ranking the
-- capped matches with ts_rank_cd was most of the keyword half at 5 x 20k (ne_keyword_hits 15.9 -> 10.2 ms P50
-- over the 100 bench queries; 7.1 ms with 5 x, which lost a point of MuSiQue recall). Below the cap every match
-- is still ranked; above it the tiers (every query term first) decide which rows are read. bench multihop at
-- N = 1 / 3: every number unchanged or better (README "Search latency").
CREATE OR REPLACE FUNCTION ne_keyword_hits(query_text text, ids uuid[], want int, scan_cap int DEFAULT NULL)
RETURNS TABLE (id bigint, rank float4)
LANGUAGE plpgsql STABLE SECURITY DEFINER ROWS 40
-- planned with the actual query and corpora: the partitions of other corpora are pruned at planning
SET search_path = pg_catalog, public SET plan_cache_mode = force_custom_plan SET enable_seqscan = off AS $$
DECLARE
    terms text[] := ARRAY(SELECT DISTINCT '''' || replace(replace(t.lexeme, '\', '\\'), '''', '''''') || ''''
                          FROM unnest(to_tsvector('english', coalesce(query_text, ''))) AS t ORDER BY 1);
    n int := cardinality(terms);
    ranker tsquery;
    tiers tsquery[];
    tier tsquery;
    previous tsquery;
    found_ids bigint[] := '{}';
    found_ranks float4[] := '{}';
BEGIN
    scan_cap := coalesce(scan_cap, 10 * want);
    ranker := ne_or_tsquery(query_text);
    IF n = 0 OR ranker IS NULL OR cardinality(ids) = 0 OR want < 1 THEN
        RETURN;
    END IF;
    found_ids := ARRAY(SELECT k.id FROM knowledge_keyword k WHERE k.corpus_id = ANY (ids) AND k.search_vector @@ ranker
                       LIMIT scan_cap + 1);
    IF cardinality(found_ids) <= scan_cap THEN
        RETURN QUERY
            SELECT k.id, ts_rank_cd(k.search_vector, ranker, 1) FROM knowledge_keyword k
            WHERE k.corpus_id = ANY (ids) AND k.id = ANY (found_ids) ORDER BY 2 DESC, 1 LIMIT want;
        RETURN;
    END IF;
    found_ids := '{}';
    tiers := ARRAY[array_to_string(terms, ' & ')::tsquery];
    IF n > 3 THEN
        tiers := tiers || (SELECT string_agg('(' || array_to_string(terms[:i - 1] || terms[i + 1:], ' & ') || ')', ' | ')
                           FROM generate_series(1, n) AS i)::tsquery;
    END IF;
    IF n > 2 THEN
        tiers := tiers || (SELECT string_agg('(' || terms[i] || ' & ' || terms[j] || ')', ' | ')
                           FROM generate_series(1, n) AS i, generate_series(1, n) AS j WHERE i < j)::tsquery;
    END IF;
    IF n > 1 THEN
        tiers := tiers || ranker;
    END IF;
    FOR level IN REVERSE cardinality(tiers) - 1 .. 0 LOOP
        tier := tiers[cardinality(tiers) - level];
        SELECT found_ids || coalesce(array_agg(m.id), '{}'), found_ranks || coalesce(array_agg(m.rank), '{}')
        INTO found_ids, found_ranks
        FROM (SELECT k.id, level + ts_rank_cd(k.search_vector, ranker, 1 | 32) AS rank
              FROM knowledge_keyword k
              WHERE k.corpus_id = ANY (ids) AND k.search_vector @@ tier
                AND (previous IS NULL OR NOT k.search_vector @@ previous)
              LIMIT scan_cap - cardinality(found_ids)) AS m;
        EXIT WHEN cardinality(found_ids) >= least(want, scan_cap);
        previous := tier;
    END LOOP;
    RETURN QUERY
        SELECT f.id, f.rank FROM unnest(found_ids, found_ranks) AS f(id, rank)
        ORDER BY f.rank DESC, f.id LIMIT want;
END $$;

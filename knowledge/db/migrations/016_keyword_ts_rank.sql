-- Search latency (issue 20): full-text candidates ranked with ts_rank instead of ts_rank_cd. Ranking was about
-- half of the keyword half of a one-corpus search at 5 x 20k (up to 1,000 capped matches, each scored by cover
-- density); ts_rank scores term frequency and is ~2x cheaper there (ne_keyword_hits 17.4 -> 8.1 ms P50 over
-- the 100 bench queries, kb_hybrid_search 31 -> 21 ms). The same normalisation (1: divided by 1 + log of the
-- document length; 32 within tiers). The ranking changes, so recall was measured with bench multihop (README).
CREATE OR REPLACE FUNCTION ne_keyword_hits(query_text text, ids uuid[], want int, scan_cap int DEFAULT 1000)
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
    ranker := ne_or_tsquery(query_text);
    IF n = 0 OR ranker IS NULL OR cardinality(ids) = 0 OR want < 1 THEN
        RETURN;
    END IF;
    found_ids := ARRAY(SELECT k.id FROM knowledge_keyword k WHERE k.corpus_id = ANY (ids) AND k.search_vector @@ ranker
                       LIMIT scan_cap + 1);
    IF cardinality(found_ids) <= scan_cap THEN
        RETURN QUERY
            SELECT k.id, ts_rank(k.search_vector, ranker, 1) FROM knowledge_keyword k
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
        FROM (SELECT k.id, level + ts_rank(k.search_vector, ranker, 1 | 32) AS rank
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

-- The planner's lexical seeds (issue 43 item 2): the best keyword matches of a query among the chunks that name
-- one of its rare terms, a lexeme at least one and at most max_df chunks of the corpora contain (each counted up
-- to max_df + 1, so a common word costs no more than a rare one). A query without a rare term gets no row. Read
-- as the owner from knowledge_keyword, like kb_rrf_search: under row-level security the full-text operator is
-- not leakproof, so a query of the retrieval login scans every chunk instead of the GIN index (30-170 ms on
-- MuSiQue's 2,148 chunks against ~1 ms here). Only the visible corpora of those asked for are read.
CREATE FUNCTION kb_rare_term_search(query_text text, corpus_ids uuid[], max_df int, match_limit int)
RETURNS TABLE (id bigint, corpus_id uuid, content text, source_uri text, metadata_json text, score float8)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, public SET plan_cache_mode = force_custom_plan SET enable_seqscan = off AS $$
DECLARE
    ids uuid[] := ne_visible_corpus_ids(corpus_ids);
    rare tsquery;
BEGIN
    SELECT string_agg(t.term::text, ' | ')::tsquery INTO rare
    FROM (SELECT DISTINCT quote_literal(l.lexeme)::tsquery AS term
          FROM unnest(to_tsvector('english', coalesce(query_text, ''))) AS l) t
    CROSS JOIN LATERAL (SELECT count(*) AS n FROM (
        SELECT 1 FROM knowledge_keyword w WHERE w.corpus_id = ANY (ids) AND w.search_vector @@ t.term
        LIMIT max_df + 1) m) df
    WHERE df.n BETWEEN 1 AND max_df;
    IF rare IS NULL THEN
        RETURN;
    END IF;
    RETURN QUERY
        SELECT k.id, k.corpus_id, k.content, k.source_uri, k.metadata::text, h.rank::float8
        FROM (SELECT w.id, ts_rank_cd(w.search_vector, ne_or_tsquery(query_text), 1) AS rank
              FROM knowledge_keyword w WHERE w.corpus_id = ANY (ids) AND w.search_vector @@ rare
              ORDER BY 2 DESC, 1 LIMIT match_limit) h
        JOIN knowledge k ON k.id = h.id
        ORDER BY h.rank DESC, k.id;
END $$;

-- One HNSW index per corpus (issue 47 item 1).
--
-- With one HNSW index over every corpus, a search of one corpus walks a graph whose neighbours are mostly other
-- corpora's chunks: the filter drops them after the walk, and at 5 x 100k chunks only 0.559 of the exact top 10
-- came back (0.907 at 5 x 20k). Each corpus now has its own partial index (WHERE corpus_id = that corpus), made
-- when the corpus row is inserted and dropped with it, so a search of one corpus walks a graph of that corpus
-- only and filters nothing. A partial index is chosen only when the query names the corpus as a constant at plan
-- time, so every vector search goes through ne_corpus_nearest, which is planned with the corpus id it is given
-- (force_custom_plan); a search of several corpora merges each corpus's own nearest chunks.
--
-- The index layout lives here only: a new vector column (another embedding model) gets its per-corpus index by
-- replacing ne_create_corpus_vector_index in a later migration so that it creates both, and is searched by a
-- function shaped like ne_corpus_nearest.
DROP INDEX knowledge_embedding_hnsw;

CREATE FUNCTION ne_corpus_vector_index_name(corpus uuid) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT 'knowledge_embedding_' || replace(corpus::text, '-', '')
$$;

-- CREATE INDEX reads the whole table (for the rows of an existing corpus) and holds a SHARE lock on it until the
-- transaction ends: writes wait, reads go on.
CREATE FUNCTION ne_create_corpus_vector_index(corpus uuid) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON public.knowledge USING hnsw (embedding vector_cosine_ops) '
                   'WHERE corpus_id = %L::uuid', ne_corpus_vector_index_name(corpus), corpus);
END $$;

CREATE FUNCTION ne_drop_corpus_vector_index(corpus uuid) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    EXECUTE format('DROP INDEX IF EXISTS public.%I', ne_corpus_vector_index_name(corpus));
END $$;

REVOKE EXECUTE ON FUNCTION ne_create_corpus_vector_index(uuid), ne_drop_corpus_vector_index(uuid) FROM PUBLIC;

CREATE FUNCTION ne_corpus_vector_index_follows_corpus() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM ne_create_corpus_vector_index(NEW.id);
    ELSE
        PERFORM ne_drop_corpus_vector_index(OLD.id);
    END IF;
    RETURN NULL;
END $$;

-- triggers fire in name order: the foreign keys' cascades (RI_...) delete a corpus's chunks before this drops
-- its index
CREATE TRIGGER corpus_vector_index AFTER INSERT OR DELETE ON corpus
    FOR EACH ROW EXECUTE FUNCTION ne_corpus_vector_index_follows_corpus();

SELECT ne_create_corpus_vector_index(id) FROM corpus;

-- The n nearest chunks of one corpus, nearest first, on that corpus's index. SECURITY INVOKER: under the retrieval
-- login the row-level policy applies as to any query (a corpus the transaction may not read gives no row); the
-- owner's search functions call it with the corpora they already checked. ef_search (the candidates the walk
-- keeps) is at least 800: on a 100k-chunk corpus of the bench a top 10 kept 0.809 of the exact one at 100, 0.953
-- at 400 and 0.978 at 800 (docs/benchmarks/latency.md). Strict order resumes the walk only if rows were dropped
-- (dead rows, or the policy).
CREATE FUNCTION ne_corpus_nearest(query_embedding vector, corpus uuid, n int) RETURNS TABLE (id bigint, dist float8)
LANGUAGE plpgsql STABLE ROWS 40
SET search_path = pg_catalog, public, pg_temp SET plan_cache_mode = force_custom_plan
SET hnsw.iterative_scan = strict_order SET hnsw.ef_search = 800 AS $$
BEGIN
    PERFORM set_config('hnsw.ef_search', least(greatest(n, 800), 1000)::text, true);  -- restored on return
    RETURN QUERY  -- the distance as the output column and the sort key: computed once for each row read
        SELECT k.id, k.embedding <=> query_embedding AS dist FROM knowledge k
        WHERE k.corpus_id = corpus ORDER BY dist LIMIT n;
END $$;

-- The nearest chunks of the given corpora: each corpus's own nearest, merged.
CREATE OR REPLACE FUNCTION ne_semantic_hits(query_embedding vector, ids uuid[], n int)
RETURNS TABLE (id bigint, dist float8)
LANGUAGE sql STABLE SECURITY DEFINER ROWS 40 SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT h.id, h.dist FROM unnest(ids) AS c(id), ne_corpus_nearest(query_embedding, c.id, n) AS h
    ORDER BY h.dist, h.id LIMIT n
$$;

-- Search latency (issue 20): the full-text candidates of kb_hybrid_search / kb_rrf_search come from a narrow
-- table, (id, corpus_id, search_vector), hash-partitioned by corpus. At 5 x 20k the keyword half was ~75% of a
-- one-corpus search: its probe and tiers read knowledge rows of ~1.4 kB (content, metadata, tsvector; 5 rows
-- per page), and the GIN bitmap of a tier covered every corpus of the database (2,500-4,000 matches of five
-- corpora, 6-9 ms, for the 500-800 of the one searched), so the cost grew with the whole database. Here a
-- one-corpus search reads one partition and its own GIN index (rows of ~0.7 kB; a corpus shares its partition
-- only with corpora whose ids hash alike). Matches, tiers and ranking are unchanged: the same tsvector, and a
-- corpus's rows sit in the partition in the order they sit in knowledge, so a LIMIT without ORDER BY (the scan
-- cap) keeps the same rows.
CREATE TABLE knowledge_keyword (
    id            bigint NOT NULL,
    corpus_id     uuid NOT NULL REFERENCES corpus(id) ON DELETE CASCADE,
    search_vector tsvector NOT NULL,
    PRIMARY KEY (corpus_id, id)
) PARTITION BY HASH (corpus_id);
DO $$
BEGIN
    FOR i IN 0 .. 31 LOOP
        EXECUTE format('CREATE TABLE knowledge_keyword_%s PARTITION OF knowledge_keyword '
                       'FOR VALUES WITH (MODULUS 32, REMAINDER %s)', i, i);
    END LOOP;
END $$;
-- only the owner's search functions read it (the retrieval login has neither a grant nor a policy)
REVOKE ALL ON knowledge_keyword FROM PUBLIC;
ALTER TABLE knowledge_keyword ENABLE ROW LEVEL SECURITY;

INSERT INTO knowledge_keyword (id, corpus_id, search_vector)
    SELECT id, corpus_id, search_vector FROM knowledge ORDER BY ctid;  -- knowledge's physical order, see above
CREATE INDEX knowledge_keyword_search_gin ON knowledge_keyword USING gin (search_vector);
ANALYZE knowledge_keyword;

-- Kept in step with knowledge by triggers (statement-level for inserts and deletes, so a batch insert or a
-- corpus deleted by cascade is one statement here too).
CREATE FUNCTION ne_knowledge_keyword_added() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
BEGIN
    INSERT INTO knowledge_keyword (id, corpus_id, search_vector)
        SELECT a.id, a.corpus_id, a.search_vector FROM added a ORDER BY a.id;
    RETURN NULL;
END $$;
CREATE TRIGGER knowledge_keyword_insert AFTER INSERT ON knowledge
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION ne_knowledge_keyword_added();

CREATE FUNCTION ne_knowledge_keyword_removed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
BEGIN
    DELETE FROM knowledge_keyword w USING removed r WHERE w.corpus_id = r.corpus_id AND w.id = r.id;
    RETURN NULL;
END $$;
CREATE TRIGGER knowledge_keyword_delete AFTER DELETE ON knowledge
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION ne_knowledge_keyword_removed();

CREATE FUNCTION ne_knowledge_keyword_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
BEGIN
    DELETE FROM knowledge_keyword WHERE corpus_id = OLD.corpus_id AND id = OLD.id;
    INSERT INTO knowledge_keyword (id, corpus_id, search_vector) VALUES (NEW.id, NEW.corpus_id, NEW.search_vector);
    RETURN NULL;
END $$;
CREATE TRIGGER knowledge_keyword_update AFTER UPDATE ON knowledge FOR EACH ROW
    WHEN (OLD.search_vector IS DISTINCT FROM NEW.search_vector OR OLD.corpus_id IS DISTINCT FROM NEW.corpus_id
          OR OLD.id IS DISTINCT FROM NEW.id)
    EXECUTE FUNCTION ne_knowledge_keyword_changed();
REVOKE EXECUTE ON FUNCTION ne_knowledge_keyword_added(), ne_knowledge_keyword_removed(),
    ne_knowledge_keyword_changed() FROM PUBLIC;

-- ne_keyword_hits of migration 009 (with the settings of 012) over knowledge_keyword; nothing else changes.
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

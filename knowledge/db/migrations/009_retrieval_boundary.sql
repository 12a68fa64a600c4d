-- Row-level security as a real boundary (issue 16 item 5).
--
-- Retrieval logs in as negentropy_app: not a superuser, no BYPASSRLS, owns nothing, a member of
-- negentropy_reader only (whose SELECT grants and policies it inherits). RESET ROLE in its sessions comes back
-- to itself, and it cannot SET ROLE to the owner. The accessible corpus ids of a transaction are a setting any
-- session can write, so they count only together with a proof, sha256(key || sha256(key || ':' || backend pid
-- || ':' || ids)), whose key lives in a table only the owner reads. The application reads the key over its
-- owner connection and binds the ids with ne_bind_accessible_corpus_ids (EXECUTE granted to negentropy_app
-- only); ne_accessible_corpus_ids() checks the proof again on every statement, so ids written directly, a
-- forged proof, or a proof made for another session's backend give no row at all.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'negentropy_app') THEN
        CREATE ROLE negentropy_app LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOREPLICATION INHERIT;
    END IF;
END $$;
GRANT negentropy_reader TO negentropy_app;

CREATE TABLE ne_binding_key (
    singleton bool PRIMARY KEY DEFAULT true CHECK (singleton),
    secret    text NOT NULL
);
REVOKE ALL ON ne_binding_key FROM PUBLIC;
INSERT INTO ne_binding_key (secret)
    VALUES (replace(gen_random_uuid()::text || gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));

-- The proof for ids (text form of a uuid[]) in one backend; only the owner's own functions may compute it.
CREATE FUNCTION ne_binding_proof(ids text, backend_pid int) RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
    SELECT encode(sha256(convert_to(
               k.secret || encode(sha256(convert_to(k.secret || ':' || backend_pid || ':' || ids, 'UTF8')), 'hex'),
               'UTF8')), 'hex')
    FROM ne_binding_key k
$$;
REVOKE EXECUTE ON FUNCTION ne_binding_proof(text, int) FROM PUBLIC;

CREATE FUNCTION ne_bind_accessible_corpus_ids(ids uuid[], proof text) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
BEGIN
    IF proof IS NULL OR ids IS NULL OR ne_binding_proof(ids::text, pg_backend_pid()) IS DISTINCT FROM proof THEN
        RAISE EXCEPTION 'accessible corpus ids can only be bound by the application'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    PERFORM set_config('negentropy.accessible_corpus_ids', ids::text, true);
    PERFORM set_config('negentropy.accessible_corpus_proof', proof, true);
END $$;
REVOKE EXECUTE ON FUNCTION ne_bind_accessible_corpus_ids(uuid[], text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ne_bind_accessible_corpus_ids(uuid[], text) TO negentropy_app;

-- Accessible corpus ids of the current transaction: none unless bound with a valid proof for this backend.
CREATE OR REPLACE FUNCTION ne_accessible_corpus_ids() RETURNS uuid[]
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
    SELECT CASE WHEN s.proof <> '' AND ne_binding_proof(s.ids, pg_backend_pid()) = s.proof THEN s.ids::uuid[]
                ELSE '{}'::uuid[] END
    FROM (SELECT coalesce(nullif(current_setting('negentropy.accessible_corpus_ids', true), ''), '{}') AS ids,
                 coalesce(current_setting('negentropy.accessible_corpus_proof', true), '') AS proof) s
$$;

-- Every policy reads the ids once per statement (an InitPlan), not once per row.
DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['knowledge', 'kg_entity', 'kg_relation', 'kg_entity_mention',
                             'kg_resolution_candidate', 'kg_community', 'kg_community_member',
                             'kg_extracted_chunk', 'kg_entity_alias', 'kg_cross_corpus_bridge_corpus',
                             'kg_canonical_review', 'kg_canonical_decision', 'kg_canonical_rejection'] LOOP
        EXECUTE format('ALTER POLICY %I ON %I USING (corpus_id = ANY ((SELECT ne_accessible_corpus_ids())::uuid[]))',
                       t || '_reader_scope', t);
    END LOOP;
END $$;
ALTER POLICY corpus_reader_scope ON corpus USING (id = ANY ((SELECT ne_accessible_corpus_ids())::uuid[]));
ALTER POLICY kg_entity_canonical_reader_scope ON kg_entity_canonical
    USING (EXISTS (SELECT 1 FROM kg_entity_alias a
                   WHERE a.canonical_id = kg_entity_canonical.id
                     AND a.corpus_id = ANY ((SELECT ne_accessible_corpus_ids())::uuid[])));
ALTER POLICY kg_cross_corpus_bridge_reader_scope ON kg_cross_corpus_bridge
    USING (EXISTS (SELECT 1
                   FROM kg_cross_corpus_bridge_corpus s
                   JOIN kg_cross_corpus_bridge_corpus t
                     ON t.bridge_id = s.bridge_id AND t.role = 'target' AND t.corpus_id <> s.corpus_id
                   WHERE s.bridge_id = kg_cross_corpus_bridge.id AND s.role = 'source'
                     AND s.corpus_id = ANY ((SELECT ne_accessible_corpus_ids())::uuid[])
                     AND t.corpus_id = ANY ((SELECT ne_accessible_corpus_ids())::uuid[])));

-- Search latency (issue 20). The retrieval functions run as the owner (SECURITY DEFINER) and filter explicitly
-- by the requested corpora that the caller may read: the bound ids for the retrieval login, everything for the
-- owner. The GIN and HNSW indexes and the primary key are then used as for the owner (under a policy `@@` is
-- not leakproof, so it cannot go below the policy into the index, and a join back to the table by id became a
-- sequential scan).
CREATE FUNCTION ne_visible_corpus_ids(requested uuid[]) RETURNS uuid[]
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
    SELECT CASE
        WHEN (SELECT r.rolsuper OR r.rolbypassrls FROM pg_roles r WHERE r.rolname = session_user)
             OR pg_has_role(session_user, (SELECT c.relowner FROM pg_class c WHERE c.oid = 'public.knowledge'::regclass),
                            'USAGE')
        THEN requested
        ELSE ARRAY(SELECT u FROM unnest(requested) WITH ORDINALITY AS t(u, n)
                   WHERE u = ANY (ne_accessible_corpus_ids()) ORDER BY n) END
$$;

-- search_text only where it differs from content (CJK text segmented for full-text search): a copy of every
-- English chunk pushed rows past the TOAST threshold and the tsvector out of line.
ALTER TABLE knowledge DROP COLUMN search_vector;
ALTER TABLE knowledge ALTER COLUMN search_text DROP NOT NULL;
UPDATE knowledge SET search_text = NULL WHERE search_text = content;
ALTER TABLE knowledge ADD COLUMN search_vector tsvector
    GENERATED ALWAYS AS (to_tsvector('english', coalesce(search_text, content))) STORED;
CREATE INDEX knowledge_search_gin ON knowledge USING gin (search_vector);

-- The nearest chunks of the given corpora: HNSW with iterative scan (a filtered scan keeps going until n rows
-- pass), relaxed order re-sorted here, ef_search growing with n.
CREATE FUNCTION ne_semantic_hits(query_embedding vector, ids uuid[], n int) RETURNS TABLE (id bigint, dist float8)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, public SET hnsw.iterative_scan = relaxed_order SET hnsw.ef_search = 40 AS $$
BEGIN
    PERFORM set_config('hnsw.ef_search', least(greatest(n, 40), 200)::text, true);  -- restored on return
    RETURN QUERY
        WITH nearest AS MATERIALIZED (
            SELECT k.id, (k.embedding <=> query_embedding)::float8 AS dist
            FROM knowledge k WHERE k.corpus_id = ANY (ids)
            ORDER BY k.embedding <=> query_embedding LIMIT n)
        SELECT nearest.id, nearest.dist FROM nearest ORDER BY nearest.dist, nearest.id;
END $$;

-- Full-text candidates, bounded before ranking. The old OR query matched most of a big corpus and ranked every
-- match. Here, when the OR query matches at most `scan_cap` rows of the corpora, they are all ranked with
-- ts_rank_cd exactly as before. When it matches more, the matches come tier by tier, the most specific first:
-- every query term, all terms but one, at least two terms, any term; the next tier is read only while fewer than
-- `want` rows were found, and at most `scan_cap` rows are read in all. Those rows rank by tier first (coordination
-- level: a chunk with every term before one with two of them), then by ts_rank_cd within the tier; ts_rank_cd
-- alone counts term occurrences, so one common term repeated would outrank every term of the query.
CREATE FUNCTION ne_keyword_hits(query_text text, ids uuid[], want int, scan_cap int DEFAULT 1000)
RETURNS TABLE (id bigint, rank float4)
LANGUAGE plpgsql STABLE SECURITY DEFINER
-- planned with the actual query and corpora: the GIN bitmap is then ANDed with the corpus index
SET search_path = pg_catalog, public SET plan_cache_mode = force_custom_plan AS $$
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
    found_ids := ARRAY(SELECT k.id FROM knowledge k WHERE k.corpus_id = ANY (ids) AND k.search_vector @@ ranker
                       LIMIT scan_cap + 1);
    IF cardinality(found_ids) <= scan_cap THEN
        RETURN QUERY
            SELECT k.id, ts_rank_cd(k.search_vector, ranker, 1) FROM knowledge k
            WHERE k.id = ANY (found_ids) ORDER BY 2 DESC, 1 LIMIT want;
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
              FROM knowledge k
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

-- Both take corpus ids as given: only the owner's search functions below, which pass the visible ones, call them.
REVOKE EXECUTE ON FUNCTION ne_semantic_hits(vector, uuid[], int), ne_keyword_hits(text, uuid[], int, int) FROM PUBLIC;

-- Weighted semantic + keyword search restricted to the corpora the caller may read.
CREATE OR REPLACE FUNCTION kb_hybrid_search(
    query_embedding vector, query_text text, corpus_ids uuid[], match_limit int DEFAULT 10,
    semantic_weight float8 DEFAULT 0.7
) RETURNS TABLE (
    id bigint, corpus_id uuid, content text, source_uri text, metadata jsonb,
    semantic_score float8, keyword_score float8, score float8
)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
    WITH visible AS (SELECT ne_visible_corpus_ids(corpus_ids) AS ids),
    semantic AS (SELECT s.id FROM visible, ne_semantic_hits(query_embedding, visible.ids, match_limit * 4) AS s),
    keyword AS MATERIALIZED (
        SELECT w.id, w.rank FROM visible, ne_keyword_hits(query_text, visible.ids, match_limit * 4) AS w),
    candidates AS (SELECT semantic.id FROM semantic UNION SELECT keyword.id FROM keyword),
    max_rank AS (SELECT greatest(max(keyword.rank), 1e-9) AS m FROM keyword)
    SELECT k.id, k.corpus_id, k.content, k.source_uri, k.metadata,
           (1 - (k.embedding <=> query_embedding))::float8 AS semantic_score,
           (coalesce(kw.rank, 0) / mr.m)::float8 AS keyword_score,
           (semantic_weight * (1 - (k.embedding <=> query_embedding))
             + (1 - semantic_weight) * coalesce(kw.rank, 0) / mr.m)::float8 AS score
    FROM candidates c
    JOIN knowledge k ON k.id = c.id
    LEFT JOIN keyword kw ON kw.id = c.id
    CROSS JOIN max_rank mr
    ORDER BY score DESC, k.id
    LIMIT match_limit
$$;

-- kb_hybrid_search for each corpus in one round trip (legacy search: per corpus, then sorted globally).
CREATE FUNCTION kb_hybrid_search_each(
    query_embedding vector, query_text text, corpus_ids uuid[], match_limit int DEFAULT 10,
    semantic_weight float8 DEFAULT 0.7
) RETURNS TABLE (
    id bigint, corpus_id uuid, content text, source_uri text, metadata jsonb,
    semantic_score float8, keyword_score float8, score float8
)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
    SELECT h.* FROM unnest(ne_visible_corpus_ids(corpus_ids)) AS c(id),
                    kb_hybrid_search(query_embedding, query_text, ARRAY[c.id], match_limit, semantic_weight) AS h
$$;

-- Reciprocal rank fusion of the semantic and keyword rankings (k = 60), restricted like kb_hybrid_search.
CREATE OR REPLACE FUNCTION kb_rrf_search(
    query_embedding vector, query_text text, corpus_ids uuid[], match_limit int DEFAULT 10,
    rrf_k int DEFAULT 60
) RETURNS TABLE (
    id bigint, corpus_id uuid, content text, source_uri text, metadata jsonb,
    semantic_rank int, keyword_rank int, score float8
)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
    WITH visible AS (SELECT ne_visible_corpus_ids(corpus_ids) AS ids),
    semantic AS (
        SELECT s.id, row_number() OVER (ORDER BY s.dist, s.id)::int AS rnk
        FROM visible, ne_semantic_hits(query_embedding, visible.ids, match_limit * 4) AS s),
    keyword AS (
        SELECT w.id, row_number() OVER (ORDER BY w.rank DESC, w.id)::int AS rnk
        FROM visible, ne_keyword_hits(query_text, visible.ids, match_limit * 4) AS w),
    fused AS (
        SELECT coalesce(s.id, w.id) AS id, s.rnk AS semantic_rank, w.rnk AS keyword_rank,
               coalesce(1.0 / (rrf_k + s.rnk), 0) + coalesce(1.0 / (rrf_k + w.rnk), 0) AS score
        FROM semantic s FULL OUTER JOIN keyword w ON s.id = w.id
    )
    SELECT k.id, k.corpus_id, k.content, k.source_uri, k.metadata,
           f.semantic_rank, f.keyword_rank, f.score::float8
    FROM fused f JOIN knowledge k ON k.id = f.id
    ORDER BY f.score DESC, k.id
    LIMIT match_limit
$$;

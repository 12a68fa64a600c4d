-- Corpora and knowledge chunks, hybrid search functions, and the read role used for row-level security.
CREATE EXTENSION IF NOT EXISTS vector;

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'negentropy_reader') THEN
        CREATE ROLE negentropy_reader NOLOGIN;
    END IF;
END $$;
GRANT negentropy_reader TO CURRENT_USER;
GRANT USAGE ON SCHEMA public TO negentropy_reader;

-- Accessible corpus ids of the current transaction (set by the query layer); none set -> none visible.
CREATE OR REPLACE FUNCTION ne_accessible_corpus_ids() RETURNS uuid[]
LANGUAGE sql STABLE AS $$
    SELECT coalesce(nullif(current_setting('negentropy.accessible_corpus_ids', true), ''), '{}')::uuid[]
$$;

CREATE TABLE corpus (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    app_name    text NOT NULL,
    name        text NOT NULL,
    label       text NOT NULL,
    description text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (app_name, name)
);

CREATE TABLE knowledge (
    id            bigserial PRIMARY KEY,
    corpus_id     uuid NOT NULL REFERENCES corpus(id) ON DELETE CASCADE,
    app_name      text NOT NULL,
    content       text NOT NULL,
    content_hash  text NOT NULL,
    document_hash text NOT NULL,
    chunk_index   int NOT NULL DEFAULT 0,
    source_uri    text NOT NULL DEFAULT '',
    metadata      jsonb NOT NULL DEFAULT '{}'::jsonb,
    embedding     vector({{EMBEDDING_DIM}}) NOT NULL,
    -- content with CJK text pre-segmented (jieba) so full-text search finds Chinese words
    search_text   text NOT NULL,
    search_vector tsvector GENERATED ALWAYS AS (to_tsvector('english', search_text)) STORED,
    created_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (corpus_id, content_hash)
);
CREATE INDEX knowledge_embedding_hnsw ON knowledge USING hnsw (embedding vector_cosine_ops);
CREATE INDEX knowledge_search_gin ON knowledge USING gin (search_vector);
CREATE INDEX knowledge_corpus_idx ON knowledge (corpus_id);
CREATE INDEX knowledge_document_idx ON knowledge (corpus_id, document_hash);

-- Natural-language query -> OR query over its stemmed terms (a BM25-like bag of words).
CREATE OR REPLACE FUNCTION ne_or_tsquery(query_text text) RETURNS tsquery
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN plainto_tsquery('english', query_text)::text = '' THEN NULL
                ELSE replace(plainto_tsquery('english', query_text)::text, ' & ', ' | ')::tsquery END
$$;

-- Weighted semantic + keyword search restricted to corpus_ids inside the database.
CREATE OR REPLACE FUNCTION kb_hybrid_search(
    query_embedding vector, query_text text, corpus_ids uuid[], match_limit int DEFAULT 10,
    semantic_weight float8 DEFAULT 0.7
) RETURNS TABLE (
    id bigint, corpus_id uuid, content text, source_uri text, metadata jsonb,
    semantic_score float8, keyword_score float8, score float8
)
LANGUAGE sql STABLE AS $$
    WITH q AS (SELECT ne_or_tsquery(query_text) AS tsq),
    semantic AS (
        SELECT k.id, 1 - (k.embedding <=> query_embedding) AS sim
        FROM knowledge k
        WHERE k.corpus_id = ANY(corpus_ids)
        ORDER BY k.embedding <=> query_embedding
        LIMIT match_limit * 4
    ),
    keyword AS (
        SELECT k.id, ts_rank_cd(k.search_vector, q.tsq, 1) AS rank
        FROM knowledge k, q
        WHERE q.tsq IS NOT NULL AND k.corpus_id = ANY(corpus_ids) AND k.search_vector @@ q.tsq
        ORDER BY rank DESC
        LIMIT match_limit * 4
    ),
    candidates AS (SELECT semantic.id FROM semantic UNION SELECT keyword.id FROM keyword),
    max_rank AS (SELECT greatest(max(rank), 1e-9) AS m FROM keyword)
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

-- Reciprocal rank fusion of the semantic and keyword rankings (k = 60), restricted to corpus_ids.
CREATE OR REPLACE FUNCTION kb_rrf_search(
    query_embedding vector, query_text text, corpus_ids uuid[], match_limit int DEFAULT 10,
    rrf_k int DEFAULT 60
) RETURNS TABLE (
    id bigint, corpus_id uuid, content text, source_uri text, metadata jsonb,
    semantic_rank int, keyword_rank int, score float8
)
LANGUAGE sql STABLE AS $$
    WITH q AS (SELECT ne_or_tsquery(query_text) AS tsq),
    semantic AS (
        SELECT s.id, row_number() OVER (ORDER BY s.dist, s.id)::int AS rnk
        FROM (SELECT k.id, k.embedding <=> query_embedding AS dist
              FROM knowledge k
              WHERE k.corpus_id = ANY(corpus_ids)
              ORDER BY k.embedding <=> query_embedding
              LIMIT match_limit * 4) s
    ),
    keyword AS (
        SELECT s.id, row_number() OVER (ORDER BY s.rank DESC, s.id)::int AS rnk
        FROM (SELECT k.id, ts_rank_cd(k.search_vector, q.tsq, 1) AS rank
              FROM knowledge k, q
              WHERE q.tsq IS NOT NULL AND k.corpus_id = ANY(corpus_ids) AND k.search_vector @@ q.tsq
              ORDER BY rank DESC
              LIMIT match_limit * 4) s
    ),
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

ALTER TABLE knowledge ENABLE ROW LEVEL SECURITY;
CREATE POLICY knowledge_reader_scope ON knowledge FOR SELECT TO negentropy_reader
    USING (corpus_id = ANY (ne_accessible_corpus_ids()));
ALTER TABLE corpus ENABLE ROW LEVEL SECURITY;
CREATE POLICY corpus_reader_scope ON corpus FOR SELECT TO negentropy_reader
    USING (id = ANY (ne_accessible_corpus_ids()));
GRANT SELECT ON corpus, knowledge TO negentropy_reader;

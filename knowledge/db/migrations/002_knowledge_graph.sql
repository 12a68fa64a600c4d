-- Per-corpus knowledge graph: entities, relations, mentions, resolution candidates, communities, and the
-- record of which chunks the graph builder has already extracted.
CREATE TABLE kg_entity (
    id              bigserial PRIMARY KEY,
    corpus_id       uuid NOT NULL REFERENCES corpus(id) ON DELETE CASCADE,
    app_name        text NOT NULL,
    canonical_name  text NOT NULL,
    name_normalized text NOT NULL,
    entity_type     text NOT NULL,
    description     text NOT NULL DEFAULT '',
    aliases         text[] NOT NULL DEFAULT '{}',
    embedding       vector({{EMBEDDING_DIM}}),
    degree          int NOT NULL DEFAULT 0,
    mention_count   int NOT NULL DEFAULT 0,
    -- resolution pre-filter keys (name key, tokens, prefix, initials): new entities are only compared
    -- with existing ones sharing a key, so incremental ingests never load the whole corpus graph
    block_keys      text[] NOT NULL DEFAULT '{}',
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (corpus_id, canonical_name)
) WITH (fillfactor = 85);  -- room for HOT updates of degree/mention_count/aliases (no HNSW re-insert)
CREATE INDEX kg_entity_embedding_hnsw ON kg_entity USING hnsw (embedding vector_cosine_ops);
CREATE INDEX kg_entity_normalized_idx ON kg_entity (corpus_id, name_normalized);
CREATE INDEX kg_entity_block_keys_gin ON kg_entity USING gin (block_keys);

CREATE TABLE kg_relation (
    id                bigserial PRIMARY KEY,
    corpus_id         uuid NOT NULL REFERENCES corpus(id) ON DELETE CASCADE,
    source_entity_id  bigint NOT NULL REFERENCES kg_entity(id) ON DELETE CASCADE,
    target_entity_id  bigint NOT NULL REFERENCES kg_entity(id) ON DELETE CASCADE,
    relation_type     text NOT NULL,
    weight            float8 NOT NULL DEFAULT 1.0,
    evidence_chunk_id bigint REFERENCES knowledge(id) ON DELETE SET NULL,
    evidence          text NOT NULL DEFAULT '',
    created_at        timestamptz NOT NULL DEFAULT now(),
    UNIQUE (source_entity_id, target_entity_id, relation_type),
    CHECK (source_entity_id <> target_entity_id)
);
CREATE INDEX kg_relation_corpus_idx ON kg_relation (corpus_id);
CREATE INDEX kg_relation_target_idx ON kg_relation (target_entity_id);

CREATE TABLE kg_entity_mention (
    id           bigserial PRIMARY KEY,
    corpus_id    uuid NOT NULL REFERENCES corpus(id) ON DELETE CASCADE,
    entity_id    bigint NOT NULL REFERENCES kg_entity(id) ON DELETE CASCADE,
    chunk_id     bigint NOT NULL REFERENCES knowledge(id) ON DELETE CASCADE,
    start_offset int NOT NULL,
    end_offset   int NOT NULL,
    surface      text NOT NULL,
    UNIQUE (entity_id, chunk_id, start_offset)
);
CREATE INDEX kg_entity_mention_chunk_idx ON kg_entity_mention (chunk_id);
CREATE INDEX kg_entity_mention_corpus_idx ON kg_entity_mention (corpus_id);

-- Fellegi-Sunter "possible" pairs kept for review.
CREATE TABLE kg_resolution_candidate (
    id              bigserial PRIMARY KEY,
    corpus_id       uuid NOT NULL REFERENCES corpus(id) ON DELETE CASCADE,
    left_entity_id  bigint NOT NULL REFERENCES kg_entity(id) ON DELETE CASCADE,
    right_entity_id bigint NOT NULL REFERENCES kg_entity(id) ON DELETE CASCADE,
    weight          float8 NOT NULL,
    components      jsonb NOT NULL DEFAULT '{}'::jsonb,
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'merged', 'rejected')),
    created_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (left_entity_id, right_entity_id),
    CHECK (left_entity_id < right_entity_id)
);
CREATE INDEX kg_resolution_candidate_corpus_idx ON kg_resolution_candidate (corpus_id, status);
CREATE INDEX kg_resolution_candidate_right_idx ON kg_resolution_candidate (right_entity_id);

CREATE TABLE kg_community (
    id            bigserial PRIMARY KEY,
    corpus_id     uuid NOT NULL REFERENCES corpus(id) ON DELETE CASCADE,
    level         int NOT NULL,
    community_key int NOT NULL,
    parent_id     bigint REFERENCES kg_community(id) ON DELETE SET NULL,  -- re-pointed by the next recompute
    title         text NOT NULL DEFAULT '',
    summary       text NOT NULL DEFAULT '',
    member_count  int NOT NULL DEFAULT 0,
    embedding     vector({{EMBEDDING_DIM}}),
    -- hashes of the members and their internal relations, of the community and of its connected component:
    -- an unchanged community keeps its row and summary, an unchanged component is not partitioned again
    signature     text NOT NULL DEFAULT '',
    component_signature text NOT NULL DEFAULT '',
    representative_chunk_ids bigint[] NOT NULL DEFAULT '{}',
    -- title, summary and member names with CJK pre-segmented (jieba), for keyword ranking
    search_text   text NOT NULL DEFAULT '',
    search_vector tsvector GENERATED ALWAYS AS (to_tsvector('english', search_text)) STORED,
    created_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (corpus_id, level, community_key)
);
CREATE INDEX kg_community_embedding_hnsw ON kg_community USING hnsw (embedding vector_cosine_ops);
CREATE INDEX kg_community_search_gin ON kg_community USING gin (search_vector);
CREATE INDEX kg_community_parent_idx ON kg_community (parent_id);

CREATE TABLE kg_community_member (
    community_id bigint NOT NULL REFERENCES kg_community(id) ON DELETE CASCADE,
    entity_id    bigint NOT NULL REFERENCES kg_entity(id) ON DELETE CASCADE,
    corpus_id    uuid NOT NULL REFERENCES corpus(id) ON DELETE CASCADE,
    PRIMARY KEY (community_id, entity_id)
);
CREATE INDEX kg_community_member_entity_idx ON kg_community_member (entity_id);
CREATE INDEX kg_community_member_corpus_idx ON kg_community_member (corpus_id);

-- Chunks whose entities and relations are in the graph; chunks without a row are picked up by the next build.
CREATE TABLE kg_extracted_chunk (
    chunk_id       bigint PRIMARY KEY REFERENCES knowledge(id) ON DELETE CASCADE,
    corpus_id      uuid NOT NULL REFERENCES corpus(id) ON DELETE CASCADE,
    entity_count   int NOT NULL DEFAULT 0,
    relation_count int NOT NULL DEFAULT 0,
    extracted_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX kg_extracted_chunk_corpus_idx ON kg_extracted_chunk (corpus_id);

DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['kg_entity', 'kg_relation', 'kg_entity_mention', 'kg_resolution_candidate',
                             'kg_community', 'kg_community_member', 'kg_extracted_chunk'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('CREATE POLICY %I ON %I FOR SELECT TO negentropy_reader '
                       'USING (corpus_id = ANY (ne_accessible_corpus_ids()))', t || '_reader_scope', t);
        EXECUTE format('GRANT SELECT ON %I TO negentropy_reader', t);
    END LOOP;
END $$;

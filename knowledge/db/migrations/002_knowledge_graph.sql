-- Per-corpus knowledge graph: entities, relations, mentions, resolution candidates, communities.
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
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (corpus_id, canonical_name)
);
CREATE INDEX kg_entity_embedding_hnsw ON kg_entity USING hnsw (embedding vector_cosine_ops);
CREATE INDEX kg_entity_normalized_idx ON kg_entity (corpus_id, name_normalized);

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
    UNIQUE (left_entity_id, right_entity_id)
);

CREATE TABLE kg_community (
    id            bigserial PRIMARY KEY,
    corpus_id     uuid NOT NULL REFERENCES corpus(id) ON DELETE CASCADE,
    level         int NOT NULL,
    community_key int NOT NULL,
    parent_id     bigint REFERENCES kg_community(id) ON DELETE CASCADE,
    title         text NOT NULL DEFAULT '',
    summary       text NOT NULL DEFAULT '',
    member_count  int NOT NULL DEFAULT 0,
    embedding     vector({{EMBEDDING_DIM}}),
    created_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (corpus_id, level, community_key)
);

CREATE TABLE kg_community_member (
    community_id bigint NOT NULL REFERENCES kg_community(id) ON DELETE CASCADE,
    entity_id    bigint NOT NULL REFERENCES kg_entity(id) ON DELETE CASCADE,
    corpus_id    uuid NOT NULL REFERENCES corpus(id) ON DELETE CASCADE,
    PRIMARY KEY (community_id, entity_id)
);

DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['kg_entity', 'kg_relation', 'kg_entity_mention', 'kg_resolution_candidate',
                             'kg_community', 'kg_community_member'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('CREATE POLICY %I ON %I FOR SELECT TO negentropy_reader '
                       'USING (corpus_id = ANY (ne_accessible_corpus_ids()))', t || '_reader_scope', t);
        EXECUTE format('GRANT SELECT ON %I TO negentropy_reader', t);
    END LOOP;
END $$;

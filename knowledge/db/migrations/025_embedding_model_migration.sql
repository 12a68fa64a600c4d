-- Embedding model migration (docs/design.md section 7): every corpus is on one
-- model at a time. `negentropy embeddings migrate` writes the new model's vectors into the staged tables beside
-- the live columns while searches read the live ones; the switch is one transaction per corpus that swaps staged
-- and live vectors and moves the corpus to the new model. After it the staged tables hold the previous model's
-- vectors (a switch back costs no model pass) until they are dropped. The vectors keep the live columns' type,
-- so a model must give NE_EMBEDDING_DIMENSION-d vectors; no vector index is added or changed.

-- filled with NE_EMBEDDING_MODEL when the application opens the database (the corpora created before this)
ALTER TABLE corpus ADD COLUMN embedding_model text;
-- bumped by every switch: a search that embedded its question for one version checks it still holds
ALTER TABLE corpus ADD COLUMN embedding_version int NOT NULL DEFAULT 0;

-- the model of the members a canonical's centroid averages (members on other models are left out of it)
ALTER TABLE kg_entity_canonical ADD COLUMN embedding_model text;
GRANT SELECT (embedding_model) ON kg_entity_canonical TO negentropy_reader;

CREATE TABLE embedding_migration (
    corpus_id      uuid PRIMARY KEY REFERENCES corpus(id) ON DELETE CASCADE,
    -- before the switch: the model whose vectors are being staged; after it: the model switched to
    target_model   text NOT NULL,
    previous_model text NOT NULL,
    started_at     timestamptz NOT NULL DEFAULT now(),
    switched_at    timestamptz
);

CREATE TABLE knowledge_embedding_staged (
    chunk_id  bigint PRIMARY KEY REFERENCES knowledge(id) ON DELETE CASCADE,
    corpus_id uuid NOT NULL REFERENCES corpus(id) ON DELETE CASCADE,
    embedding vector({{EMBEDDING_DIM}}) NOT NULL
);
CREATE INDEX knowledge_embedding_staged_corpus_idx ON knowledge_embedding_staged (corpus_id);

CREATE TABLE kg_entity_embedding_staged (
    entity_id bigint PRIMARY KEY REFERENCES kg_entity(id) ON DELETE CASCADE,
    corpus_id uuid NOT NULL REFERENCES corpus(id) ON DELETE CASCADE,
    embedding vector({{EMBEDDING_DIM}}) NOT NULL
);
CREATE INDEX kg_entity_embedding_staged_corpus_idx ON kg_entity_embedding_staged (corpus_id);

CREATE TABLE kg_community_embedding_staged (
    community_id bigint PRIMARY KEY REFERENCES kg_community(id) ON DELETE CASCADE,
    corpus_id    uuid NOT NULL REFERENCES corpus(id) ON DELETE CASCADE,
    embedding    vector({{EMBEDDING_DIM}}) NOT NULL
);
CREATE INDEX kg_community_embedding_staged_corpus_idx ON kg_community_embedding_staged (corpus_id);

-- owner only: no reader grant or policy, so retrieval never sees a vector of a model its corpus is not on
ALTER TABLE embedding_migration ENABLE ROW LEVEL SECURITY;
ALTER TABLE knowledge_embedding_staged ENABLE ROW LEVEL SECURITY;
ALTER TABLE kg_entity_embedding_staged ENABLE ROW LEVEL SECURITY;
ALTER TABLE kg_community_embedding_staged ENABLE ROW LEVEL SECURITY;

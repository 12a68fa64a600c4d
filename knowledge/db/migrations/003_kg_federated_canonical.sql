-- Federated canonical entity layer: canonical entities per app scope, corpus-local aliases, materialised
-- cross-corpus bridges, the linker's review queue and durable human decisions. DESIGN.md sections 2 and 7.

-- Composite keys so aliases can only ever point at a canonical of their own app (never cross app_scope)
-- and at an entity of their own corpus.
ALTER TABLE corpus ADD CONSTRAINT corpus_id_app_name_key UNIQUE (id, app_name);
ALTER TABLE kg_entity ADD CONSTRAINT kg_entity_id_corpus_key UNIQUE (id, corpus_id);

CREATE TABLE kg_entity_canonical (
    id                        bigserial PRIMARY KEY,
    app_scope                 text NOT NULL,          -- = corpus.app_name of every member
    canonical_name            text NOT NULL,          -- display name (the founding member's name)
    -- match key: normalize_name() of the founding member, or "<key>@<corpus>" for a split-off entity
    canonical_name_normalized text NOT NULL,
    canonical_type            text NOT NULL,
    primary_embedding         vector({{EMBEDDING_DIM}}),  -- centroid: renormalised mean of member embeddings
    member_count              int NOT NULL DEFAULT 0,
    degree                    bigint NOT NULL DEFAULT 0,  -- sum of member kg_entity.degree
    is_under_review           boolean NOT NULL DEFAULT false,
    is_stopword_like          boolean NOT NULL DEFAULT false,  -- hub: degree > canonical_hub_degree_threshold
    needs_refresh             boolean NOT NULL DEFAULT false,  -- members left (see trigger below)
    created_at                timestamptz NOT NULL DEFAULT now(),
    updated_at                timestamptz NOT NULL DEFAULT now(),
    UNIQUE (app_scope, canonical_name_normalized, canonical_type),
    UNIQUE (id, app_scope)
);
CREATE INDEX kg_entity_canonical_embedding_hnsw ON kg_entity_canonical
    USING hnsw (primary_embedding vector_cosine_ops);
CREATE INDEX kg_entity_canonical_scope_type_idx ON kg_entity_canonical (app_scope, canonical_type);
CREATE INDEX kg_entity_canonical_refresh_idx ON kg_entity_canonical (app_scope) WHERE needs_refresh;

-- link_method: auto_string (normalised name + type), auto_embedding (centroid cosine >= 0.88),
-- review (0.75-0.88: pending in the review queue, or decided there), manual (merge/split command),
-- new_canonical (founding member of a canonical created because nothing matched).
CREATE TABLE kg_entity_alias (
    id                     bigserial PRIMARY KEY,
    canonical_id           bigint NOT NULL,
    local_entity_id        bigint NOT NULL UNIQUE,
    corpus_id              uuid NOT NULL,
    app_name               text NOT NULL,
    confidence             float8 NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
    link_method            text NOT NULL
        CHECK (link_method IN ('auto_string', 'auto_embedding', 'review', 'manual', 'new_canonical')),
    -- the entity's name, type and updated_at when it was linked: a rename or retype relinks it, any other
    -- change of the row (embedding, degree) refreshes its canonical. Comparing the stored updated_at (not
    -- "updated after linked_at") also catches a graph transaction that started before the link and ended after.
    linked_name            text NOT NULL,
    linked_type            text NOT NULL,
    entity_updated_at      timestamptz NOT NULL,
    linked_at              timestamptz NOT NULL DEFAULT clock_timestamp(),
    FOREIGN KEY (canonical_id, app_name) REFERENCES kg_entity_canonical (id, app_scope) ON DELETE CASCADE,
    FOREIGN KEY (local_entity_id, corpus_id) REFERENCES kg_entity (id, corpus_id) ON DELETE CASCADE,
    FOREIGN KEY (corpus_id, app_name) REFERENCES corpus (id, app_name) ON DELETE CASCADE
);
CREATE INDEX kg_entity_alias_canonical_idx ON kg_entity_alias (canonical_id, corpus_id);
CREATE INDEX kg_entity_alias_corpus_idx ON kg_entity_alias (corpus_id);

-- A canonical whose members disappear (alias deleted directly or by cascade from kg_entity when the corpus
-- graph is rebuilt) gets its centroid, degree and member count recomputed by the linker's next refresh.
CREATE OR REPLACE FUNCTION ne_mark_canonical_for_refresh() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE kg_entity_canonical SET needs_refresh = true WHERE id = OLD.canonical_id AND NOT needs_refresh;
    RETURN NULL;
END $$;
CREATE TRIGGER kg_entity_alias_refresh_canonical AFTER DELETE ON kg_entity_alias
    FOR EACH ROW EXECUTE FUNCTION ne_mark_canonical_for_refresh();

-- shared_entity: source = target = a canonical with members in >= 2 corpora (hops 1).
-- relation_path: canonical source related (inside a corpus) to canonical target that also has members in
-- another corpus (hops 2). Hubs and canonicals under review never get bridges.
CREATE TABLE kg_cross_corpus_bridge (
    id                  bigserial PRIMARY KEY,
    app_scope           text NOT NULL,
    canonical_source_id bigint NOT NULL,
    canonical_target_id bigint NOT NULL,
    bridge_type         text NOT NULL CHECK (bridge_type IN ('shared_entity', 'relation_path')),
    hops                int NOT NULL CHECK (hops IN (1, 2)),
    confidence          float8 NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    UNIQUE (canonical_source_id, canonical_target_id, bridge_type),
    FOREIGN KEY (canonical_source_id, app_scope) REFERENCES kg_entity_canonical (id, app_scope) ON DELETE CASCADE,
    FOREIGN KEY (canonical_target_id, app_scope) REFERENCES kg_entity_canonical (id, app_scope) ON DELETE CASCADE
);
CREATE INDEX kg_cross_corpus_bridge_target_idx ON kg_cross_corpus_bridge (canonical_target_id);

-- The corpora a bridge touches, one row per corpus and side, so queries (and RLS) filter by corpus:
-- role 'source' = corpora the path starts in, 'target' = corpora it reaches.
CREATE TABLE kg_cross_corpus_bridge_corpus (
    bridge_id bigint NOT NULL REFERENCES kg_cross_corpus_bridge (id) ON DELETE CASCADE,
    corpus_id uuid NOT NULL REFERENCES corpus (id) ON DELETE CASCADE,
    role      text NOT NULL CHECK (role IN ('source', 'target')),
    PRIMARY KEY (bridge_id, corpus_id, role)
);
CREATE INDEX kg_cross_corpus_bridge_corpus_corpus_idx ON kg_cross_corpus_bridge_corpus (corpus_id, role);

-- Linker results in the 0.75-0.88 band: the entity sits on its own provisional canonical (is_under_review)
-- until accepted (merged into the candidate) or rejected (kept apart).
CREATE TABLE kg_canonical_review (
    id                     bigserial PRIMARY KEY,
    app_scope              text NOT NULL,
    corpus_id              uuid NOT NULL,
    local_entity_id        bigint NOT NULL,
    -- NULL once the canonical is gone: decided items stay as history, pending ones are dropped by the linker
    canonical_id           bigint,
    candidate_canonical_id bigint,
    similarity             float8 NOT NULL,
    status                 text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'rejected')),
    created_at             timestamptz NOT NULL DEFAULT now(),
    resolved_at            timestamptz,
    FOREIGN KEY (local_entity_id, corpus_id) REFERENCES kg_entity (id, corpus_id) ON DELETE CASCADE,
    FOREIGN KEY (canonical_id, app_scope) REFERENCES kg_entity_canonical (id, app_scope)
        ON DELETE SET NULL (canonical_id),
    FOREIGN KEY (candidate_canonical_id, app_scope) REFERENCES kg_entity_canonical (id, app_scope)
        ON DELETE SET NULL (candidate_canonical_id),
    FOREIGN KEY (corpus_id, app_scope) REFERENCES corpus (id, app_name) ON DELETE CASCADE
);
CREATE UNIQUE INDEX kg_canonical_review_pending_entity_idx ON kg_canonical_review (local_entity_id)
    WHERE status = 'pending';
CREATE INDEX kg_canonical_review_scope_idx ON kg_canonical_review (app_scope, status);

-- Human decisions (merge/split commands, accepted reviews) keyed on stable keys, not entity ids:
-- entity ids change when a corpus graph is rebuilt, these rows survive and are re-applied on every relink.
-- "The entity of this corpus with this normalised name and type belongs to the canonical with this key."
CREATE TABLE kg_canonical_decision (
    id                     bigserial PRIMARY KEY,
    app_scope              text NOT NULL,
    corpus_id              uuid NOT NULL,
    entity_name_normalized text NOT NULL,
    entity_type            text NOT NULL,
    target_name            text NOT NULL,  -- display name of the target canonical if it must be recreated
    target_name_normalized text NOT NULL,
    target_type            text NOT NULL,
    decided_by             text NOT NULL CHECK (decided_by IN ('manual', 'review')),
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now(),
    UNIQUE (app_scope, corpus_id, entity_name_normalized, entity_type),
    FOREIGN KEY (corpus_id, app_scope) REFERENCES corpus (id, app_name) ON DELETE CASCADE
);

-- Rejected review items as a pair of stable keys: an entity of one key is never merged with (nor offered for
-- review against) the canonical of the other key, in either direction and across rebuilds.
CREATE TABLE kg_canonical_rejection (
    id                        bigserial PRIMARY KEY,
    app_scope                 text NOT NULL,
    corpus_id                 uuid NOT NULL,  -- corpus of the reviewed entity
    entity_name_normalized    text NOT NULL,
    entity_type               text NOT NULL,
    candidate_name_normalized text NOT NULL,
    candidate_type            text NOT NULL,
    created_at                timestamptz NOT NULL DEFAULT now(),
    UNIQUE (app_scope, entity_name_normalized, entity_type, candidate_name_normalized, candidate_type),
    FOREIGN KEY (corpus_id, app_scope) REFERENCES corpus (id, app_name) ON DELETE CASCADE
);

-- Row-level security for the reader role: corpus-keyed rows follow ne_accessible_corpus_ids(); a canonical
-- is visible only through an accessible member; a bridge only when it links two accessible corpora.
DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['kg_entity_alias', 'kg_cross_corpus_bridge_corpus', 'kg_canonical_review',
                             'kg_canonical_decision', 'kg_canonical_rejection'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('CREATE POLICY %I ON %I FOR SELECT TO negentropy_reader '
                       'USING (corpus_id = ANY (ne_accessible_corpus_ids()))', t || '_reader_scope', t);
        EXECUTE format('GRANT SELECT ON %I TO negentropy_reader', t);
    END LOOP;
END $$;

ALTER TABLE kg_entity_canonical ENABLE ROW LEVEL SECURITY;
CREATE POLICY kg_entity_canonical_reader_scope ON kg_entity_canonical FOR SELECT TO negentropy_reader
    USING (EXISTS (SELECT 1 FROM kg_entity_alias a
                   WHERE a.canonical_id = kg_entity_canonical.id
                     AND a.corpus_id = ANY (ne_accessible_corpus_ids())));

ALTER TABLE kg_cross_corpus_bridge ENABLE ROW LEVEL SECURITY;
CREATE POLICY kg_cross_corpus_bridge_reader_scope ON kg_cross_corpus_bridge FOR SELECT TO negentropy_reader
    USING (EXISTS (SELECT 1
                   FROM kg_cross_corpus_bridge_corpus s
                   JOIN kg_cross_corpus_bridge_corpus t
                     ON t.bridge_id = s.bridge_id AND t.role = 'target' AND t.corpus_id <> s.corpus_id
                   WHERE s.bridge_id = kg_cross_corpus_bridge.id AND s.role = 'source'
                     AND s.corpus_id = ANY (ne_accessible_corpus_ids())
                     AND t.corpus_id = ANY (ne_accessible_corpus_ids())));

GRANT SELECT ON kg_entity_canonical, kg_cross_corpus_bridge TO negentropy_reader;

-- Durable buffer of chat ingests that failed (database error, embedding failure...), replayed by
-- `negentropy ingest retry-buffer`. No foreign key to corpus: a buffered note must outlive its corpus row
-- so the replay can report it instead of the text silently disappearing with a cascade.
CREATE TABLE ingest_buffer (
    id              bigserial PRIMARY KEY,
    app_name        text NOT NULL,
    corpus_id       uuid NOT NULL,
    corpus_name     text NOT NULL,
    content         text NOT NULL,
    title           text NOT NULL DEFAULT '',
    source_uri      text NOT NULL,
    metadata        jsonb NOT NULL DEFAULT '{}'::jsonb,
    last_error      text NOT NULL,
    attempts        int NOT NULL DEFAULT 0,
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done')),
    created_at      timestamptz NOT NULL DEFAULT now(),
    last_attempt_at timestamptz,
    done_at         timestamptz,
    UNIQUE (app_name, corpus_id, source_uri)
);
CREATE INDEX ingest_buffer_pending_idx ON ingest_buffer (app_name, id) WHERE status = 'pending';

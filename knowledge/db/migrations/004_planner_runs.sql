-- One row per retrieval run of UnifiedRetrievalService, so `negentropy stats` (another process) can report
-- the cross-corpus expansion ratio, bridge path lengths, the planner fallback rate and stage latencies.
-- No query text and no corpus ids are stored: the log carries no content a reader could be denied.
CREATE TABLE planner_run (
    id                 bigserial PRIMARY KEY,
    app_name           text NOT NULL,
    mode               text NOT NULL CHECK (mode IN ('empty', 'legacy', 'planner', 'fallback')),
    query_kind         text NOT NULL,
    corpus_count       int NOT NULL DEFAULT 0,
    expansion_used     boolean NOT NULL DEFAULT false,
    hit_count          int NOT NULL DEFAULT 0,
    expanded_hit_count int NOT NULL DEFAULT 0,
    path_lengths       int[] NOT NULL DEFAULT '{}',
    fallback_reason    text,
    stage_seconds      jsonb NOT NULL DEFAULT '{}'::jsonb,
    total_seconds      float8 NOT NULL DEFAULT 0,
    created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX planner_run_app_created_idx ON planner_run (app_name, created_at DESC);

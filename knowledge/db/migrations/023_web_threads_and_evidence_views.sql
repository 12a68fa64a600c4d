-- The web app (issue 45): a person's conversations as a list they can rename and delete, and the evidence each
-- answer showed them and which of it they opened, for the click-through of bridged against same-corpus evidence
-- (docs/design.md section 6). A thread's messages stay in ADK's session tables (schema adk_session, migration
-- 006); a row here names the thread for its person. Neither table holds message or chunk text.
CREATE TABLE web_thread (
    app_name   text NOT NULL,
    user_id    text NOT NULL,
    thread_id  varchar(128) NOT NULL,
    title      text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_name, user_id, thread_id)
);
CREATE INDEX web_thread_recent_idx ON web_thread (app_name, user_id, updated_at DESC);

-- One row per (answer, chunk) shown; opened_at is set by the first click that opened it.
CREATE TABLE evidence_view (
    id            bigserial PRIMARY KEY,
    app_name      text NOT NULL,
    user_id       text NOT NULL,
    thread_id     varchar(128) NOT NULL,
    turn_id       varchar(128) NOT NULL,
    chunk_id      bigint NOT NULL,
    evidence_type text NOT NULL CHECK (evidence_type IN ('primary', 'graph_expanded')),
    rollout_path  text NOT NULL CHECK (rollout_path IN ('planner', 'legacy')),
    shown_at      timestamptz NOT NULL DEFAULT now(),
    opened_at     timestamptz,
    UNIQUE (app_name, user_id, thread_id, turn_id, chunk_id)
);
CREATE INDEX evidence_view_app_shown_idx ON evidence_view (app_name, shown_at DESC);

-- the web app's source view audits what it refuses, like the other channels
ALTER TABLE gateway_audit DROP CONSTRAINT gateway_audit_channel_check;
ALTER TABLE gateway_audit ADD CONSTRAINT gateway_audit_channel_check CHECK (channel IN ('mcp', 'adk', 'cli', 'web'));

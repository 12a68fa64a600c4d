-- The rollout's signals per path (docs/design.md section 6): which path the rollout flags gave the person of each
-- retrieval run (a run of the legacy mode can be either: no corpus named takes legacy on both paths), and the
-- canonical build lag of every ingest (seconds from its chunks landing to their entities being linked), so
-- `negentropy stats`, another process, can report both.
ALTER TABLE planner_run ADD COLUMN rollout_path text NOT NULL DEFAULT 'planner'
    CHECK (rollout_path IN ('planner', 'legacy'));

CREATE TABLE canonical_build_lag (
    id          bigserial PRIMARY KEY,
    app_name    text NOT NULL,
    lag_seconds float8 NOT NULL CHECK (lag_seconds >= 0),
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX canonical_build_lag_app_created_idx ON canonical_build_lag (app_name, created_at DESC);

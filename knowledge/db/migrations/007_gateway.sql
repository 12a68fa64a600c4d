-- Tool gateway: hashed API tokens (token -> person of the topology), approvals of high-risk calls,
-- and the append-only audit log of every gateway decision (DESIGN.md section 8).

-- A token reads "ne_<token_id>_<secret>"; only sha256(salt || secret) is stored, never the secret.
CREATE TABLE gateway_token (
    token_id    text PRIMARY KEY CHECK (token_id ~ '^[0-9a-f]{12}$'),
    app_name    text NOT NULL,
    person_id   text NOT NULL,
    label       text NOT NULL DEFAULT '',
    salt        bytea NOT NULL CHECK (length(salt) = 16),
    secret_hash bytea NOT NULL CHECK (length(secret_hash) = 32),
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);
CREATE INDEX gateway_token_person_idx ON gateway_token (app_name, person_id);

-- A high-risk call that needs a reviewer: pending -> approved | rejected; approved -> consumed by
-- the one call with the same person, tool and arguments digest.
CREATE TABLE gateway_approval (
    id               bigserial PRIMARY KEY,
    app_name         text NOT NULL,
    person_id        text NOT NULL,
    tool             text NOT NULL,
    arguments        jsonb NOT NULL,
    arguments_digest text NOT NULL,
    status           text NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'approved', 'rejected', 'consumed')),
    requested_at     timestamptz NOT NULL DEFAULT now(),
    decided_by       text,
    decided_at       timestamptz,
    consumed_at      timestamptz
);
CREATE INDEX gateway_approval_pending_idx ON gateway_approval (app_name, id) WHERE status = 'pending';

CREATE TABLE gateway_audit (
    id               bigserial PRIMARY KEY,
    occurred_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    app_name         text NOT NULL,
    channel          text NOT NULL CHECK (channel IN ('mcp', 'adk')),
    person_id        text,
    token_id         text,
    tool             text NOT NULL,
    arguments_digest text NOT NULL,
    decision         text NOT NULL CHECK (decision IN ('allowed', 'denied', 'error')),
    reason           text NOT NULL DEFAULT '',
    result_size      int NOT NULL DEFAULT 0 CHECK (result_size >= 0),
    result_items     int NOT NULL DEFAULT 0 CHECK (result_items >= 0),
    redactions       int NOT NULL DEFAULT 0 CHECK (redactions >= 0),
    latency_ms       float8 NOT NULL CHECK (latency_ms >= 0)
);
CREATE INDEX gateway_audit_person_idx ON gateway_audit (app_name, person_id, occurred_at);

-- Append-only: no role may change or remove an audit row, the owner included (a trigger binds
-- superusers too); REVOKE documents the intent for every other role.
CREATE FUNCTION gateway_audit_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'gateway_audit is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER gateway_audit_no_update_delete BEFORE UPDATE OR DELETE ON gateway_audit
    FOR EACH ROW EXECUTE FUNCTION gateway_audit_append_only();
CREATE TRIGGER gateway_audit_no_truncate BEFORE TRUNCATE ON gateway_audit
    FOR EACH STATEMENT EXECUTE FUNCTION gateway_audit_append_only();
REVOKE UPDATE, DELETE, TRUNCATE ON gateway_audit FROM PUBLIC;

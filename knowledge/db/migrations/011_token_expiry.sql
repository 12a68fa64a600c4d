-- MCP API tokens may expire: a token past expires_at is refused like a revoked one. NULL: never expires.
ALTER TABLE gateway_token ADD COLUMN expires_at timestamptz;
ALTER TABLE gateway_token ADD CONSTRAINT gateway_token_expiry_after_creation
    CHECK (expires_at IS NULL OR expires_at > created_at);

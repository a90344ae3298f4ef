-- Personal data lives in one table only: the API replaces it with tokens before anything
-- else is written, and keeps here what it needs to show users their own values back.
-- A value is scoped to its tenant and owner (the user id, '' for an anonymous caller);
-- `digest` (a keyed HMAC of the normalised value) makes a repeated value get its old
-- token, so a retried request hashes the same. Rows unused for the retention period
-- are purged by the daily retention schedule, and erased with the user's memory.
CREATE TABLE pii_tokens (
    token         text PRIMARY KEY,
    tenant_id     text NOT NULL,
    owner         text NOT NULL,
    kind          text NOT NULL,
    digest        text NOT NULL,
    value         text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    last_used_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, owner, digest)
);
CREATE INDEX pii_tokens_last_used ON pii_tokens (last_used_at);

-- Every conversation and turn belongs to a tenant (the API key's); rows from before
-- tenants existed belong to the development tenant.
ALTER TABLE conversations ADD COLUMN tenant_id text NOT NULL DEFAULT 'default';
ALTER TABLE turns ADD COLUMN tenant_id text NOT NULL DEFAULT 'default';
ALTER TABLE turns ADD COLUMN user_id text;

-- Token buckets for the per-user rate limit, shared by every API process.
CREATE TABLE rate_buckets (
    bucket      text PRIMARY KEY,
    tokens      double precision NOT NULL,
    updated_at  timestamptz NOT NULL
);

-- +goose Up
-- One row per Idempotency-Key of a tenant: the fingerprint of the first
-- request and, once its transaction commits, the response to replay. The row
-- is written in the transaction of the write it guards, so it exists exactly
-- when that write committed (or when the write was refused with a 4xx).
CREATE TABLE idempotency_keys (
    tenant_id   text        NOT NULL,
    key         text        NOT NULL CHECK (length(key) BETWEEN 1 AND 128),
    method      text        NOT NULL,
    path        text        NOT NULL,
    body_sha256 bytea       NOT NULL CHECK (length(body_sha256) = 32),
    request_id  text        NOT NULL,
    -- status and body stay NULL only inside the claiming transaction.
    status      integer     CHECK (status BETWEEN 100 AND 599),
    headers     jsonb       NOT NULL DEFAULT '{}',
    body        bytea,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, key)
);

CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);

ALTER TABLE idempotency_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE idempotency_keys FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON idempotency_keys
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
-- Cleanup runs without a tenant scope: this policy lets it delete rows past
-- the 24 h retention of every tenant, and nothing else. It grants no reads.
CREATE POLICY expired_cleanup ON idempotency_keys FOR DELETE
    USING (created_at < now() - interval '24 hours');

-- +goose Down
DROP TABLE idempotency_keys;

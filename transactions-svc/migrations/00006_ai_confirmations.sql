-- +goose Up

-- ai_confirmations records every AI gateway confirm: the amount confirmed
-- and when. The tenant's daily guardrail (limits.ai_daily_amount) sums the
-- rows of the current UTC day; confirm reads the sum and inserts its row in
-- its own transaction under a per-tenant advisory lock, so two concurrent
-- confirms cannot both pass the limit.
CREATE TABLE ai_confirmations (
    tenant_id      text        NOT NULL,
    transaction_id text        NOT NULL,
    amount         bigint      NOT NULL CHECK (amount > 0),
    confirmed_at   timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, transaction_id)
);
CREATE INDEX ai_confirmations_day ON ai_confirmations (tenant_id, confirmed_at);

ALTER TABLE ai_confirmations ENABLE ROW LEVEL SECURITY;
ALTER TABLE ai_confirmations FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON ai_confirmations
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

-- Only the current UTC day counts; rows older than two days are deleted by
-- the cleanup that runs without a tenant scope (tenancy.DeleteExpired).
CREATE POLICY expired_cleanup ON ai_confirmations FOR DELETE
    USING (confirmed_at < now() - interval '2 days');

-- +goose Down
DROP TABLE ai_confirmations;

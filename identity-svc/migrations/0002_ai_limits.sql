-- +goose Up

-- The AI gateway's guardrails of a tenant, in minor units; NULL means none.
ALTER TABLE tenants
    ADD COLUMN ai_max_amount   bigint CHECK (ai_max_amount > 0),
    ADD COLUMN ai_daily_amount bigint CHECK (ai_daily_amount > 0);

-- +goose Down
ALTER TABLE tenants DROP COLUMN ai_max_amount, DROP COLUMN ai_daily_amount;

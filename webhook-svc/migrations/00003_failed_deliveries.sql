-- +goose Up
-- The tenant's latest failed deliveries across its endpoints (the
-- dashboard's overview), read without scanning every delivery.
CREATE INDEX deliveries_failing ON deliveries (tenant_id, updated_at DESC, id DESC) WHERE status IN ('retrying', 'failed');

-- +goose Down
DROP INDEX deliveries_failing;

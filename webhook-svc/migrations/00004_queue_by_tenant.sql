-- +goose NO TRANSACTION
-- +goose Up
-- The dispatcher claims due deliveries tenant by tenant (a share of its free
-- slots each), so one tenant's burst or a slow endpoint's backlog does not
-- hold back another tenant's deliveries until it has drained. This index
-- finds the tenants holding queued deliveries (a skip scan, one probe a
-- tenant) and each tenant's due ones in order.
CREATE INDEX CONCURRENTLY IF NOT EXISTS delivery_queue_tenant_due ON delivery_queue (tenant_id, due_at);

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS delivery_queue_tenant_due;

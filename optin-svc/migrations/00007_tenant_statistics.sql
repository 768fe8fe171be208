-- +goose Up
-- No planner statistics for tenant_id of messages and suppressions, as in
-- contacts-svc (its migration 00006): with them, a tenant newer than the
-- last ANALYZE is expected to have about no rows, every index that leads
-- with tenant_id looks equally cheap, and the dispatcher's reads of its
-- leased messages and of their numbers' suppressions went through
-- messages_created_idx and suppressions_list_idx, reading the tenant's
-- rows for every message (store.TestDispatchStatementsProbeTheirKeys).
-- Without statistics an equality on tenant_id is estimated at the default
-- 0.5 % of the rows, and the keys (messages_pkey,
-- suppressions_phone_channel_key) are the cheaper way.
ALTER TABLE messages ALTER COLUMN tenant_id SET STATISTICS 0;
ALTER TABLE suppressions ALTER COLUMN tenant_id SET STATISTICS 0;

-- +goose Down
ALTER TABLE messages ALTER COLUMN tenant_id SET STATISTICS -1;
ALTER TABLE suppressions ALTER COLUMN tenant_id SET STATISTICS -1;

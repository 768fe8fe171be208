-- +goose Up
-- No planner statistics for tenant_id. With them, a tenant newer than the
-- last ANALYZE is not among the column's most common values, which then
-- cover nearly every row (a young database, a few tenants): the planner
-- expects about no row of that tenant, so every index that leads with
-- tenant_id looks equally cheap and it may read the tenant through the wrong
-- one. A new tenant's batch did so: each chunk's lookup by external id read
-- the tenant's phones and, per phone, probed all 500 external ids (0.9-3.3 s
-- per chunk at 1,500 contacts, growing with the square of the tenant), and the
-- lookup by phone record read the tenant's contacts through
-- contacts_created_idx. Without statistics an equality on tenant_id is
-- estimated at the default 0.5 % of the rows, whichever the tenant: the
-- identity indexes (contacts_external_id_key, contacts_phone_key,
-- phones_pkey) are then cheaper than an index on tenant_id alone
-- (docs/benchmarks.md, finding 8; store.TestBulkLookupsProbeTheIdentityIndexInEveryPlan).
--
-- Postgres keeps statistics gathered before this change (ANALYZE no longer
-- updates them); docs/operations.md says how to drop them.
ALTER TABLE contacts ALTER COLUMN tenant_id SET STATISTICS 0;
ALTER TABLE phones ALTER COLUMN tenant_id SET STATISTICS 0;

-- +goose Down
ALTER TABLE contacts ALTER COLUMN tenant_id SET STATISTICS -1;
ALTER TABLE phones ALTER COLUMN tenant_id SET STATISTICS -1;

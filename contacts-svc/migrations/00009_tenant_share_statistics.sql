-- +goose Up
-- The estimated total of a large tenant's list (more than 10,000 contacts,
-- libs/listtotal) is the planner's estimate of the list's rows, and the
-- planner takes every tenant for 0.5 % of contacts (no statistics on
-- tenant_id, migration 00006): a tenant of a million contacts read "about
-- 10,001". These statistics give the planner each tenant's share of the
-- table (the most common values of the expression, from ANALYZE's sample),
-- but only for the expression (tenant_id || ''), which no statement of the
-- service filters on except the estimate itself (store.estimateContacts):
-- the plans of the lists and lookups, which filter on tenant_id, see no
-- tenant statistics and stay as migration 00006 made them
-- (store.TestBulkLookupsProbeTheIdentityIndexInEveryPlan).
--
-- ANALYZE (autovacuum) keeps them; nothing is paid per write. A tenant's
-- growth shows once the table has been analyzed since: autovacuum analyzes
-- contacts after 2 % of its rows changed instead of the default 10 %, so
-- a tenant that grows in a table of 10,000,000 contacts is seen within
-- about 200,000 writes (ANALYZE reads a sample of 30,000 rows whatever the
-- table's size).
CREATE STATISTICS IF NOT EXISTS contacts_tenant_share ON (tenant_id || '') FROM contacts;
ALTER TABLE contacts SET (autovacuum_analyze_scale_factor = 0.02);

-- A database that holds contacts gets the statistics now rather than at
-- the next autovacuum. An empty table is left never analyzed, as the plan
-- tests of a new database expect.
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM contacts) THEN
        ANALYZE contacts;
    END IF;
END
$$;
-- +goose StatementEnd

-- +goose Down
ALTER TABLE contacts RESET (autovacuum_analyze_scale_factor);
DROP STATISTICS IF EXISTS contacts_tenant_share;

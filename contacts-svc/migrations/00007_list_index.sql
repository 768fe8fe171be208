-- +goose NO TRANSACTION
-- +goose Up
-- The list index carries deleted_at, so a list of live contacts, its count
-- and the ids of a page deep in it are index-only scans: with a million
-- contacts in a tenant, page 500 of 100 read 50,000 contacts and their
-- phones through contacts_created_idx (a second and more, with the hash
-- joins the planner chose without tenant statistics, migration 00006); the
-- ids of the page now come from this index alone (docs/benchmarks.md,
-- "Data growth"; store.TestListReadsThePageThroughTheListIndex). It replaces
-- contacts_created_idx, which held the same keys: a write still pays one
-- list entry.
--
-- Built CONCURRENTLY (writes go on meanwhile); a build that was
-- interrupted leaves an invalid index, which the next run drops and builds
-- again.
DROP INDEX CONCURRENTLY IF EXISTS contacts_list_idx;
CREATE INDEX CONCURRENTLY contacts_list_idx ON contacts (tenant_id, created_at DESC, id DESC) INCLUDE (deleted_at);
DROP INDEX CONCURRENTLY IF EXISTS contacts_created_idx;

-- +goose Down
CREATE INDEX CONCURRENTLY IF NOT EXISTS contacts_created_idx ON contacts (tenant_id, created_at DESC, id DESC);
DROP INDEX CONCURRENTLY IF EXISTS contacts_list_idx;

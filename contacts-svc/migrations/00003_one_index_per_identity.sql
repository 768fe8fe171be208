-- +goose NO TRANSACTION
-- +goose Up
-- One unique index per identity instead of two: the live-only unique index
-- and the index of every contact by phone record (or external id) held the
-- same columns, so each contact write paid two entries for one lookup.
-- (tenant_id, phone_id, deleted_at) with NULLS NOT DISTINCT still allows one
-- live contact per record (deleted_at NULL) and serves lookups of trashed
-- contacts by the same leading columns; two trashed contacts of one record
-- never share a deleted_at, since only one of them can be live at a time.
--
-- Built CONCURRENTLY (writes go on meanwhile), the new indexes first, so
-- uniqueness holds throughout; a build that was interrupted leaves an
-- invalid index, which the next run drops and builds again.
DROP INDEX CONCURRENTLY IF EXISTS contacts_phone_key;
CREATE UNIQUE INDEX CONCURRENTLY contacts_phone_key ON contacts (tenant_id, phone_id, deleted_at) NULLS NOT DISTINCT;
DROP INDEX CONCURRENTLY IF EXISTS contacts_external_id_key;
CREATE UNIQUE INDEX CONCURRENTLY contacts_external_id_key ON contacts (tenant_id, external_id, deleted_at) NULLS NOT DISTINCT
    WHERE external_id IS NOT NULL;
DROP INDEX CONCURRENTLY IF EXISTS contacts_live_phone_key;
DROP INDEX CONCURRENTLY IF EXISTS contacts_phone_idx;
DROP INDEX CONCURRENTLY IF EXISTS contacts_live_external_id_key;
DROP INDEX CONCURRENTLY IF EXISTS contacts_external_id_idx;

-- +goose Down
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS contacts_live_phone_key ON contacts (tenant_id, phone_id)
    WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS contacts_live_external_id_key ON contacts (tenant_id, external_id)
    WHERE deleted_at IS NULL AND external_id IS NOT NULL;
CREATE INDEX CONCURRENTLY IF NOT EXISTS contacts_phone_idx ON contacts (tenant_id, phone_id);
CREATE INDEX CONCURRENTLY IF NOT EXISTS contacts_external_id_idx ON contacts (tenant_id, external_id) WHERE external_id IS NOT NULL;
DROP INDEX CONCURRENTLY IF EXISTS contacts_phone_key;
DROP INDEX CONCURRENTLY IF EXISTS contacts_external_id_key;

-- +goose Up
-- One unique index per identity instead of two: the live-only unique index
-- and the index of every contact by phone record (or external id) held the
-- same columns, so each contact write paid two entries for one lookup.
-- (tenant_id, phone_id, deleted_at) with NULLS NOT DISTINCT still allows one
-- live contact per record (deleted_at NULL) and serves lookups of trashed
-- contacts by the same leading columns; two trashed contacts of one record
-- never share a deleted_at, since only one of them can be live at a time.
DROP INDEX contacts_live_phone_key;
DROP INDEX contacts_phone_idx;
CREATE UNIQUE INDEX contacts_phone_key ON contacts (tenant_id, phone_id, deleted_at) NULLS NOT DISTINCT;
DROP INDEX contacts_live_external_id_key;
DROP INDEX contacts_external_id_idx;
CREATE UNIQUE INDEX contacts_external_id_key ON contacts (tenant_id, external_id, deleted_at) NULLS NOT DISTINCT
    WHERE external_id IS NOT NULL;

-- +goose Down
DROP INDEX contacts_phone_key;
DROP INDEX contacts_external_id_key;
CREATE UNIQUE INDEX contacts_live_phone_key ON contacts (tenant_id, phone_id)
    WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX contacts_live_external_id_key ON contacts (tenant_id, external_id)
    WHERE deleted_at IS NULL AND external_id IS NOT NULL;
CREATE INDEX contacts_phone_idx ON contacts (tenant_id, phone_id);
CREATE INDEX contacts_external_id_idx ON contacts (tenant_id, external_id) WHERE external_id IS NOT NULL;

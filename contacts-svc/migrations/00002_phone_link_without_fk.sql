-- +goose Up
-- The foreign key from a contact to its phone record cost every contact write
-- a lookup and a row lock on the phone (about 9 % of the write's Postgres CPU,
-- docs/benchmarks.md finding 6), and its target, phones_tenant_id_key, an
-- index entry per number. What it guarded holds without it: phone records
-- are never deleted, and row-level security lets a transaction write and read
-- only phones and contacts of its own tenant, so a contact can only be
-- linked to its tenant's phone (reads join the phone under the same scope).
ALTER TABLE contacts DROP CONSTRAINT contacts_phone_fkey;
ALTER TABLE phones DROP CONSTRAINT phones_tenant_id_key;

-- +goose Down
ALTER TABLE phones ADD CONSTRAINT phones_tenant_id_key UNIQUE (tenant_id, id);
ALTER TABLE contacts ADD CONSTRAINT contacts_phone_fkey
    FOREIGN KEY (tenant_id, phone_id) REFERENCES phones (tenant_id, id);

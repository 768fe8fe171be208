-- a phone record and a contact as two plain inserts into the product's tables (indexes, checks, foreign key, RLS)
\set r random(1, 4000000000000000)
\startpipeline
BEGIN;
SELECT set_config('app.tenant_id', 't1', true);
INSERT INTO phones (id, tenant_id, e164) VALUES ('p' || :r, 't1', '+1' || (10000000000000 + :r % 89999999999999));
INSERT INTO contacts (id, tenant_id, external_id, first_name, last_name, phone_id, email, custom_fields, created_at, updated_at) VALUES ('c' || :r, 't1', NULL, 'Ada', 'Lovelace', 'p' || :r, NULL, '{}', now(), now());
COMMIT;
\endpipeline

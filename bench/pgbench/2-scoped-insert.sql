-- the same insert in a transaction with the tenant scope (one round trip)
\set r random(1, 4000000000000000)
\startpipeline
BEGIN;
SELECT set_config('app.tenant_id', 't1', true);
INSERT INTO bare_contacts (id, tenant_id, external_id, first_name, last_name, phone, email, custom_fields, created_at, updated_at) VALUES ('c' || :r, 't1', NULL, 'Ada', 'Lovelace', '+1' || (10000000000000 + :r % 89999999999999), NULL, '{}', now(), now());
COMMIT;
\endpipeline

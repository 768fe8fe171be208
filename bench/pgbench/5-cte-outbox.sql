-- 4 and the outbox insert (one round trip)
\set r random(1, 4000000000000000)
\startpipeline
BEGIN;
SELECT set_config('app.tenant_id', 't1', true);
WITH phone AS (INSERT INTO phones (id, tenant_id, e164) VALUES ('p' || :r, 't1', '+1' || (10000000000000 + :r % 89999999999999)) ON CONFLICT (tenant_id, e164) DO UPDATE SET e164 = EXCLUDED.e164 RETURNING id), owners AS (SELECT phone.id AS phone_id, (SELECT c.id FROM contacts c WHERE c.tenant_id = 't1' AND c.phone_id = phone.id AND c.deleted_at IS NULL) AS phone_owner, (SELECT c.id FROM contacts c WHERE c.tenant_id = 't1' AND c.external_id = NULL AND c.deleted_at IS NULL) AS external_id_owner FROM phone), inserted AS (INSERT INTO contacts (id, tenant_id, external_id, first_name, last_name, phone_id, email, custom_fields, created_at, updated_at) SELECT 'c' || :r, 't1', NULL, 'Ada', 'Lovelace', owners.phone_id, NULL, '{}', now(), now() FROM owners WHERE owners.phone_owner IS NULL AND owners.external_id_owner IS NULL) SELECT phone_id, coalesce(phone_owner, ''), coalesce(external_id_owner, '') FROM owners;
INSERT INTO outbox (event_id, topic, key, tenant_id, payload) VALUES ('e' || :r, 'paylane.contacts.v1', 't1', 't1', '{"id":"x","type":"contact.created","tenant_id":"t1","data":{"id":"c","first_name":"Ada","last_name":"Lovelace","phone":"+14155550123"}}');
COMMIT;
\endpipeline

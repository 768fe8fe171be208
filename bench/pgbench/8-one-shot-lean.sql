-- 7 without what a one-shot attempt does not need: the key's lock and lookup (the
-- stored response's INSERT fails on a used or held key) and the savepoint (nothing
-- of the attempt was sent before it was released)
\set r random(1, 4000000000000000)
\startpipeline
BEGIN;
SELECT set_config('app.tenant_id', 't1', true);
SET LOCAL lock_timeout = '5000ms';
WITH phone AS (INSERT INTO phones (id, tenant_id, e164) VALUES ('p' || :r, 't1', '+1' || (10000000000000 + :r % 89999999999999)) ON CONFLICT (tenant_id, e164) DO UPDATE SET e164 = EXCLUDED.e164 RETURNING id), owners AS (SELECT phone.id AS phone_id, (SELECT c.id FROM contacts c WHERE c.tenant_id = 't1' AND c.phone_id = phone.id AND c.deleted_at IS NULL) AS phone_owner, (SELECT c.id FROM contacts c WHERE c.tenant_id = 't1' AND c.external_id = NULL AND c.deleted_at IS NULL) AS external_id_owner FROM phone), inserted AS (INSERT INTO contacts (id, tenant_id, external_id, first_name, last_name, phone_id, email, custom_fields, created_at, updated_at) SELECT 'c' || :r, 't1', NULL, 'Ada', 'Lovelace', owners.phone_id, NULL, '{}', now(), now() FROM owners WHERE owners.phone_owner IS NULL AND owners.external_id_owner IS NULL) SELECT phone_id, coalesce(phone_owner, ''), coalesce(external_id_owner, '') FROM owners;
INSERT INTO outbox (event_id, topic, key, tenant_id, payload) VALUES ('e' || :r, 'paylane.contacts.v1', 't1', 't1', '{"id":"x","type":"contact.created","tenant_id":"t1","data":{"id":"c","first_name":"Ada","last_name":"Lovelace","phone":"+14155550123"}}');
INSERT INTO idempotency_keys (tenant_id, key, method, path, body_sha256, request_id, status, headers, body) VALUES ('t1', 'k' || :r, 'POST', '/api/v1/contacts', decode(md5('x') || md5('y'), 'hex'), 'req', 201, '{"Content-Type":"application/json"}', 'body bytes of the response'::bytea);
COMMIT;
\endpipeline

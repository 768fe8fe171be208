-- 9: the one-shot write as contacts-svc sends it now: the number is new to the replica, so the phone record
-- and the contact are plain inserts (no upsert, no owner lookups; the unique indexes
-- fail the transaction when the assumption is wrong), the lock timeout travels in the
-- tenant scope's statement (tenancy.SetLocal), the key's lock is taken, and the
-- contact has an email (as the benchmark's)
\set r random(1, 4000000000000000)
\startpipeline
BEGIN;
SELECT set_config('app.tenant_id', 't1', true), set_config('lock_timeout', '5000ms', true);
SELECT pg_advisory_xact_lock(hashtext('idempotency_keys'), hashtext('t1/k' || :r));
INSERT INTO phones (id, tenant_id, e164) VALUES ('p' || :r, 't1', '+1' || (10000000000000 + :r % 89999999999999));
INSERT INTO contacts (id, tenant_id, external_id, first_name, last_name, phone_id, email, custom_fields, created_at, updated_at) VALUES ('c' || :r, 't1', NULL, 'Ada', 'Lovelace', 'p' || :r, 'ada' || :r || '@example.com', '{}', now(), now());
INSERT INTO outbox (event_id, topic, key, tenant_id, payload) VALUES ('e' || :r, 'paylane.contacts.v1', 't1', 't1', '{"id":"x","type":"contact.created","tenant_id":"t1","data":{"id":"c","first_name":"Ada","last_name":"Lovelace","phone":"+14155550123"}}');
INSERT INTO idempotency_keys (tenant_id, key, method, path, body_sha256, request_id, status, headers, body) VALUES ('t1', 'k' || :r, 'POST', '/api/v1/contacts', decode(md5('x') || md5('y'), 'hex'), 'req', 201, '{"Content-Type":"application/json"}', 'body bytes of the response'::bytea);
COMMIT;
\endpipeline

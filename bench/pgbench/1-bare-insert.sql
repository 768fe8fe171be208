-- the baseline's write: one autocommitted insert into a table with a primary key only
\set r random(1, 4000000000000000)
INSERT INTO bare_contacts (id, tenant_id, external_id, first_name, last_name, phone, email, custom_fields, created_at, updated_at) VALUES ('c' || :r, 't1', NULL, 'Ada', 'Lovelace', '+1' || (10000000000000 + :r % 89999999999999), NULL, '{}', now(), now());
